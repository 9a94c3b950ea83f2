// The runner: problem x solver -> verdict. For one problem it fills the inputs (seeded), asks the CPU
// reference for the expected output once, then runs each solver on buffers with guard regions and a
// poisoned output (a signaling NaN no arithmetic produces, verify/guarded_buffer.hpp), checks the
// guards, that inputs were left alone and that every output element was written (an element still
// holding the poison fails, whatever the judge would say), compares, and (for solvers that claim it)
// checks bitwise determinism over a second run.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"
#include "verify/fill.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

class PreparedCase;

// Hooks for the fuzzer (fuzz/); each one left empty keeps the runner's default.
struct CaseHooks {
  // Edits each filled input tensor (tag kTagX, kTagW, kTagY, kTagBias) before anyone sees it
  // (special values: NaN, Inf, -0, subnormals, huge).
  std::function<void(HostTensor& t, std::uint64_t tensor_tag)> adjust_input;
  // Replaces the CPU oracle (e.g. the GPU naive solver's output in the exact tier).
  std::function<ref::ConvOutput(const PreparedCase& c)> oracle;
  // Replaces compare() (e.g. NaN/Inf propagation, then compare() on the finite elements).
  std::function<Verdict(const HostTensor& got, const ref::ConvOutput& expected, const Tolerance& tol)> judge;
  // Takes judge's place when given: the output as the solver stored it (its desc's storage in its
  // dtype), so an output equal to the correct one is judged without converting it (bench/).
  std::function<Verdict(const std::vector<unsigned char>& got, const Tolerance& tol)> judge_bytes;
  std::string repro_flags;  // appended to the repro line, e.g. "--special nan"
};

struct RunOptions {
  std::uint64_t seed = 1;
  std::optional<FillTier> fill;  // default: exact when the problem allows it, else bounded
  bool check_determinism = true;
  std::string dump_dir;  // non-empty: write inputs, output and reference as .npy files there
  CaseHooks hooks;
};

// Inputs and the oracle's answer for one problem; shared by every solver run on it.
class PreparedCase {
 public:
  PreparedCase(const ConvProblem& p, const RunOptions& o);
  const ConvProblem& problem() const { return p_; }
  FillTier fill() const { return fill_; }
  std::uint64_t seed() const { return seed_; }
  bool fill_given() const { return fill_given_; }
  const std::string& repro_flags() const { return repro_flags_; }
  const HostTensor& x() const { return x_; }
  const HostTensor& w() const { return w_; }
  const HostTensor& y() const { return y_; }
  const HostTensor& bias() const { return bias_; }
  // x(), w(), y(), bias() as a solver receives them (HostTensor::to_bytes), converted once on first
  // use and kept for every solver run on the case. Like expected(): one thread at a time.
  const std::vector<unsigned char>& x_bytes() const { return stored(x_, x_bytes_); }
  const std::vector<unsigned char>& w_bytes() const { return stored(w_, w_bytes_); }
  const std::vector<unsigned char>& y_bytes() const { return stored(y_, y_bytes_); }
  const std::vector<unsigned char>& bias_bytes() const { return stored(bias_, bias_bytes_); }
  // Converts the inputs of the problem's direction now (e.g. on a preparing thread).
  void convert_inputs() const;
  // The oracle: ref::conv (naive or fast by size); naive_only forces the naive loops (for a solver
  // that needs_independent_oracle(): the fast reference itself). The hooks' oracle, when given, replaces both.
  const ref::ConvOutput& expected(bool naive_only) const;
  // algorithm_factor: the solver's accumulation_error_factor() (compare.hpp).
  Tolerance tolerance(double algorithm_factor = 1.0) const;

 private:
  ConvProblem p_;
  FillTier fill_;
  std::uint64_t seed_;
  bool fill_given_;
  std::function<ref::ConvOutput(const PreparedCase&)> oracle_;
  std::string repro_flags_;
  HostTensor x_, w_, y_, bias_;
  mutable std::optional<ref::ConvOutput> auto_, naive_;
  mutable std::optional<std::vector<unsigned char>> x_bytes_, w_bytes_, y_bytes_, bias_bytes_;
  static const std::vector<unsigned char>& stored(const HostTensor& t, std::optional<std::vector<unsigned char>>& cache) {
    if (!cache) cache = t.to_bytes();
    return *cache;
  }
};

CaseRecord run_case(const PreparedCase& c, const ConvSolver& s, const RunOptions& o);
std::string repro_command(const PreparedCase& c, const std::string& solver);

// The GPU object for reports (null when no device or no GPU backend).
nlohmann::json gpu_json();

}  // namespace hiprim::verify
