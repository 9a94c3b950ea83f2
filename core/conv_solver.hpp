// The solver interface: one algorithm for the convolution primitive, stateless.
// A solver runs on the host or on the device; its buffers live in that backend's memory and hold
// the problem's dtype with the packed strides of ConvProblem::{x,w,y}_desc() (the layout decides).
// Direction roles (MIOpen's): fwd reads x, w (and bias) and writes y; bwd-data reads y (= dy) and w
// and writes x (= dx); bwd-weights reads x and y (= dy) and writes w (= dw).
// ConvOpSolver (below) runs a conv solver through the buffer-list interface of every primitive.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/op_solver.hpp"  // OpSolver; Solver, Backend, Applicability

namespace hiprim {

// Implicit zeros: terms that the convolution's definition leaves out but an implementation may
// compute as real zeros. Per spatial axis, the conv relation pairs P[q*stride - pad + f*dil] with
// Q[q] and W[f] (P = x in mode conv, y in mode trans; Q = the other activation). Three kinds:
//   padding       a P position outside P (in the padding) that a real (q, f) pair reaches. It meets
//                 W[f] when Q is computed (fwd; bwd-data in mode trans) and Q[q] when W is (bwd-weights).
//   border_taps   when P is computed (bwd-data; fwd in mode trans): a tap f of a real position p whose
//                 q = (p + pad - f*dil) / stride divides exactly on every axis but lies outside Q on
//                 some axis (before the first or after the last output). It meets W[f].
//   stride_holes  when P is computed: a tap f of p whose division is inexact on some axis (stride > 1:
//                 the holes of a zero-upsampled Q). It meets W[f].
// The reference sums the real terms only (it skips every kind). With finite data a multiplied zero
// changes nothing; where its partner is Inf or NaN, 0*Inf = 0*NaN = NaN, and the output is NaN.
// So each solver declares, for each problem it takes, what it does with each kind, and the
// special-value judge (fuzz/conv_implicit_zero.hpp) requires exactly that answer: NaN where a
// multiplied zero meets Inf/NaN, the reference's value where only skipped ones do.
enum class ZeroTerm {
  undeclared,  // a field left out: the judge reports an error when the problem has such zeros
  skipped,     // never multiplied (bounds checks, a gather over the real terms only)
  multiplied,  // multiplied as a real zero (a zero-padded copy, im2col's zeros, staged zero tiles)
};
struct ImplicitZeros {
  ZeroTerm padding = ZeroTerm::undeclared;
  ZeroTerm border_taps = ZeroTerm::undeclared;
  ZeroTerm stride_holes = ZeroTerm::undeclared;
  static constexpr ImplicitZeros all(ZeroTerm t) { return {t, t, t}; }
  bool operator==(const ImplicitZeros&) const = default;
};
// Declaring it (every solver must; kinds a problem cannot have are never looked at):
//   conv.naive, a gather with bounds checks:  return ImplicitZeros::all(ZeroTerm::skipped);
//   GEMM over a zero-padded copy of x (fwd only):  return ImplicitZeros::all(ZeroTerm::multiplied);
//   im2col + GEMM, col2im gather for bwd-data:
//     return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::skipped, .stride_holes = ZeroTerm::skipped};
//   a direction whose answer differs: switch on p.dir / p.mode (gpu::conv_op(p)) and return each.
// Zeros a kernel loads into a tile and feeds to its multiply (a zero-filled out-of-bounds TMA or
// cp.async load, a zeroed shared-memory halo) are multiplied; a tap removed by a bounds check or an
// index computation is skipped. The GPU check of every registered solver's declaration:
// test_fuzz --gtest_filter='ImplicitZeros.*' (scripts/device_verdict.sh).

// The error model a solver's output is judged by (verify/conv_check.cpp): a direct sum (the default:
// gamma(L) * sum |terms| over the problem's reduction length, tolerance_for), or Winograd F(m x m, 3 x 3)
// (reference/winograd.hpp: gamma(L_w) * S with S the algorithm on absolute values, always the bounded
// rule). Only the runner's conv check takes it so far; bench's check and the fuzzer's special-value
// judge still use the direct model (so no registered solver declares Winograd yet).
struct ConvErrorModel {
  int winograd_m = 0;  // 0: direct; else the output tile m of F(m x m, 3 x 3)
  // Each input's relative rounding before its products: 0 (exact fp32 inputs), or on a math=tf32
  // problem ref::kUnitTf32Truncated / kUnitTf32Nearest for a solver that feeds TF32 to the tensor cores.
  double input_unit = 0.0;
  // 0: not FFT; else the transform size T of tiled overlap-save FFT convolution (reference/fft_conv.hpp:
  // gamma(L_fft) * S with S = sum_c ||x tile_c||_2 ||w_kc||_2 per output, always the bounded rule).
  int fft_tile = 0;
  // Winograd only: the dtype the transformed operands (U and V; bwd-weights D and V) are stored in before
  // the GEMM: fp32 (not rounded), or bf16 for a solver whose GEMMs run on 16-bit tensor cores
  // (reference/winograd.hpp: u_T as the bound's input unit, eta_T in S's underflow account).
  DType winograd_operands = DType::fp32;
  bool operator==(const ConvErrorModel&) const = default;
};

struct ConvTensors {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  const void* bias = nullptr;  // [K] in the problem's dtype, fwd only, when problem.bias
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  // device solvers: the hipStream_t to launch on (nullptr: default stream)
  // The perf config to run (ConvSolver::configs_for); "": the solver's default for the problem
  // (conv.igemm.wgmma: HIPRIM_CONV_CONFIG when set and valid for it, else its heuristic's).
  std::string config;
};

// The environment variable that overrides conv.igemm.wgmma's default config (a run with an explicit
// config ignores it; immediate mode leaves a config it picked out while it is set).
inline constexpr const char* kConvConfigEnv = "HIPRIM_CONV_CONFIG";

// The ConvTensors slot of a tensors() entry of a conv problem, by its name: x (x, dx), w (w, dw),
// y (y, dy), bias; InputError for any other name.
enum class ConvSlot { x, w, y, bias };
ConvSlot conv_slot(std::string_view tensor_name);

class ConvSolver : public Solver {
 public:
  // What it does with the implicit zeros of p (see ImplicitZeros above); the fuzzer's special-value
  // judge holds it to the answer. Pure: a solver without a declaration does not compile.
  virtual ImplicitZeros implicit_zeros(const ConvProblem& p) const = 0;
  virtual Applicability applicable(const ConvProblem& p) const = 0;
  // The model its output on p is judged by (see ConvErrorModel); direct unless it says otherwise.
  virtual ConvErrorModel error_model(const ConvProblem&) const { return {}; }
  // Of a run with config "" (the default).
  virtual std::size_t workspace_bytes(const ConvProblem&) const { return 0; }
  // The perf configs that can run p: {""} (the one implicit config) for a solver without configs;
  // empty when it refuses p. default_config_for(p): the one a run with config "" uses.
  virtual std::vector<std::string> configs_for(const ConvProblem& p) const;
  virtual std::string default_config_for(const ConvProblem&) const { return default_perf_config(); }
  // The workspace of a run with `config` ("": workspace_bytes(p)); InputError for a config not in
  // configs_for(p).
  virtual std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const;
  // Checks the preconditions once for every solver (check_conv_run with applicable(p) and
  // config_workspace_bytes(p, t.config); t.config "" or one of configs_for(p)), then run_checked.
  // Throws RuntimeError on a failed device call; device solvers launch asynchronously on t.stream.
  void run(const ConvProblem& p, const ConvTensors& t) const;

 protected:
  // The algorithm proper, called by run() only: p is applicable, x, w, y (and bias when p.bias) are
  // non-null, t.config is "" or one of configs_for(p), and t.workspace holds at least
  // config_workspace_bytes(p, t.config) bytes.
  virtual void run_checked(const ConvProblem& p, const ConvTensors& t) const = 0;
};

// Throws InputError naming `solver` when `a` refuses p ("<solver> cannot run <p>: <reason>"), when
// x, w or y is null, or bias is null while p.bias ("<solver>: the <role> buffer is null for <p>"),
// or when t's workspace is smaller than ws_needed or null while needed.
void check_conv_run(const std::string& solver, const ConvProblem& p, const ConvTensors& t, const Applicability& a,
                    std::size_t ws_needed);

// A conv solver seen as an OpSolver of "conv" (the one runner, verify/runner.hpp, runs every
// primitive's solvers through that interface): the buffers of ConvProblem::tensors() (fwd x, w,
// [bias], y; bwd-data dy, w, dx; bwd-weights x, dy, dw) become ConvTensors by conv_slot(), here
// only, then ConvSolver::run. Another op's problem: applicable() says no, run() throws InputError.
// It refers to s (which must outlive it) and reports s's every Solver property.
class ConvOpSolver final : public OpSolver {
 public:
  explicit ConvOpSolver(const ConvSolver& s) : s_(s) {}
  const ConvSolver& conv_solver() const { return s_; }
  std::string name() const override { return s_.name(); }
  Backend backend() const override { return s_.backend(); }
  std::string summary() const override { return s_.summary(); }
  bool deterministic() const override { return s_.deterministic(); }
  double accumulation_error_factor() const override { return s_.accumulation_error_factor(); }
  bool needs_independent_oracle() const override { return s_.needs_independent_oracle(); }
  std::vector<std::string> perf_configs() const override { return s_.perf_configs(); }
  std::string default_perf_config() const override { return s_.default_perf_config(); }
  std::string op() const override { return std::string(ConvProblem::kOp); }
  Applicability applicable(const OpProblem& p) const override;
  std::size_t workspace_bytes(const OpProblem& p) const override;
  void run(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes,
           void* stream) const override;
  std::vector<std::string> configs_for(const OpProblem& p) const override;
  std::string default_config_for(const OpProblem& p) const override;
  std::size_t config_workspace_bytes(const OpProblem& p, const std::string& config) const override;
  void run_config(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes, void* stream,
                  const std::string& config) const override;

 private:
  const ConvSolver& s_;
};

using ConvSolverList = std::vector<std::shared_ptr<const ConvSolver>>;

}  // namespace hiprim
