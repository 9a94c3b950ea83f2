// The runner: problem x solver -> verdict, one for every primitive. For one problem it fills the
// inputs (seeded) and asks the primitive's oracle for the expected outputs once (the primitive's
// own part: verify/case_check.hpp); then it runs each solver through the buffer-list interface
// (OpSolver: one buffer per OpProblem::tensors() entry; conv solvers through ConvOpSolver) on
// buffers with guard regions: inputs set, in_out tensors reset to their initial values and
// outputs poisoned (a signaling NaN no arithmetic produces, verify/guarded_buffer.hpp) before
// every run; after it: guards intact, inputs unchanged, no output element still holding the
// poison (never written: failed, whatever the judge would say), the primitive's judgement, and
// (for solvers that claim it) bitwise determinism over a second run.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"
#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"
#include "verify/fill.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

class PreparedCase;
class CaseCheck;

// Hooks for the fuzzer (fuzz/) and bench (bench/); each one left empty keeps the runner's default.
struct CaseHooks {
  // Edits each filled input and in_out tensor (`tensor`: its tensors() entry, name and role) before
  // anyone sees it (special values: NaN, Inf, -0, subnormals, huge).
  std::function<void(HostTensor& t, const OpTensor& tensor)> adjust_input;
  // The three below are conv's judgement (verify/conv_check.hpp); a case of another primitive
  // refuses them (InputError). oracle: replaces the CPU oracle (e.g. the GPU naive solver's
  // output in the exact tier).
  std::function<ref::ConvOutput(const PreparedCase& c)> oracle;
  // judge: replaces compare() (e.g. NaN/Inf propagation, then compare() on the finite elements).
  std::function<Verdict(const HostTensor& got, const ref::ConvOutput& expected, const Tolerance& tol)> judge;
  // judge_bytes: takes judge's place when given: the output as the solver stored it (its desc's
  // storage in its dtype), so an output equal to the correct one is judged without converting it
  // (bench/).
  std::function<Verdict(const std::vector<unsigned char>& got, const Tolerance& tol)> judge_bytes;
  std::string repro_flags;  // appended to the repro line, e.g. "--special nan"
};

struct RunOptions {
  std::uint64_t seed = 1;
  // Conv: default exact when the problem allows it, else bounded. The other primitives fill their
  // own way (verify/op_fill.hpp) and ignore it.
  std::optional<FillTier> fill;
  bool check_determinism = true;
  std::string dump_dir;  // non-empty: write inputs, outputs and references as .npy files there
  // The solver's perf config to run (OpSolver::configs_for); "": its default for the problem.
  std::string config;
  CaseHooks hooks;
};

// Inputs and the oracle's answer for one problem; shared by every solver run on it. Like the
// oracle's cache, the byte forms are made on first use: one thread at a time.
class PreparedCase {
 public:
  // InputError when p is invalid or cannot take the fill asked for.
  PreparedCase(OpProblemPtr p, const RunOptions& o);
  PreparedCase(const ConvProblem& p, const RunOptions& o);
  ~PreparedCase();
  PreparedCase(PreparedCase&&) noexcept;
  const OpProblem& problem() const { return *p_; }
  const OpProblemPtr& problem_ptr() const { return p_; }
  const std::vector<OpTensor>& tensors() const { return tensors_; }
  // tensors() order: filled inputs and in_out initial values; outputs hold zeros.
  const std::vector<HostTensor>& data() const { return data_; }
  // The data of the tensor named `name` (InputError when the problem has none).
  const HostTensor& tensor(std::string_view name) const;
  // data()[i] as a solver receives it (HostTensor::to_bytes), converted once on first use and kept
  // for every solver run on the case.
  const std::vector<unsigned char>& bytes(std::size_t i) const;
  // Converts every input and in_out tensor now (e.g. on a preparing thread).
  void convert_inputs() const;
  FillTier fill() const { return fill_; }
  bool fill_given() const { return fill_given_; }  // the tier was asked for (repro: --fill)
  std::uint64_t seed() const { return seed_; }
  const std::string& repro_flags() const { return repro_flags_; }
  const CaseHooks& hooks() const { return hooks_; }
  const CaseCheck& check() const { return *check_; }  // the primitive's part

 private:
  OpProblemPtr p_;
  std::unique_ptr<const CaseCheck> check_;
  std::vector<OpTensor> tensors_;
  std::vector<HostTensor> data_;
  FillTier fill_ = FillTier::bounded;
  bool fill_given_ = false;
  std::uint64_t seed_ = 1;
  std::string repro_flags_;
  CaseHooks hooks_;
  mutable std::vector<std::optional<std::vector<unsigned char>>> bytes_;
};

CaseRecord run_case(const PreparedCase& c, const OpSolver& s, const RunOptions& o);
// A conv solver through ConvOpSolver (core/conv_solver.hpp).
CaseRecord run_case(const PreparedCase& c, const ConvSolver& s, const RunOptions& o);
// hiprim repro "<problem>" --solver S --seed N [--fill T] [hook flags]
std::string repro_command(const PreparedCase& c, const std::string& solver);

// The GPU object for reports (null when no device or no GPU backend).
nlohmann::json gpu_json();

}  // namespace hiprim::verify
