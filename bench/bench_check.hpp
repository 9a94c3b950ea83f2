// Checks of outputs produced outside the runner: the bench's quick verification and the peer's
// output. Same comparator and tolerance rule as the runner (verify/compare.hpp).
//
// Verification modes of the bench:
//   full:    every output element against the CPU reference of the whole problem, in the exact
//            tier wherever the dot products allow it (integer fills, threshold zero; the reference
//            is shared between the dtype x layout variants, bench/reference_cache.hpp); for hiprim's
//            solvers through the conformance runner (guards, poisoned output, determinism check).
//            The default, and the only mode a committed claim may use.
//   quick:   a labelled quick look, never for claims: the output (poisoned with NaN before the run)
//            must be finite everywhere, so an unwritten element shows; and the elements of one slice
//            are compared with the reference of that slice: group 0 and its first kSampleChannels
//            output channels (fwd, bwd-weights) or input channels (bwd-data). The slice is itself a
//            convolution (sample_problem) with the same dot-product length, so the tolerance is the
//            full problem's; the reference costs about kSampleChannels / channels of the full one.
//            Other slices are not compared.
//   none:    no comparison; "passed" then only means the solver ran without a runtime error.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify {

enum class VerifyMode { none, quick, full };
std::string_view verify_mode_name(VerifyMode m);  // "none", "quick", "full"
std::optional<VerifyMode> parse_verify_mode(std::string_view s);

inline constexpr std::int64_t kSampleChannels = 8;

// The descriptor of the direction's output role (fwd: y, bwd-data: x, bwd-weights: w).
TensorDesc output_desc(const ConvProblem& p);

// The slice a quick check computes: groups 1, C' = C/G and K' = min(channels, K/G) for fwd and
// bwd-weights, C' = min(channels, C/G) and K' = K/G for bwd-data; everything else as p. Every tensor
// of it (x, w, y, bias) is the prefix box of p's tensor with the same logical index: group 0 holds the
// first C/G channels of x, the first K/G of y, and the first rows of w (conv: [K/G, C/G]; trans:
// [C/G, K/G]). InputError when channels < 1.
ConvProblem sample_problem(const ConvProblem& p, std::int64_t channels);

// The elements of t whose logical index lies inside desc's dims (each <= t's), laid out by desc
// (a plain copy when desc is t's).
HostTensor prefix_box(const HostTensor& t, const TensorDesc& desc);

// The quick check of one problem: the slice's inputs and reference are computed once, then any
// number of outputs (every solver's, the peer's) are checked against it.
class SampleOracle {
 public:
  SampleOracle(const PreparedCase& c, std::int64_t channels = kSampleChannels);
  const ConvProblem& slice() const { return q_; }
  // got: the output role of the full problem. Fails when any element is not finite, else compares
  // the slice (algorithm_factor multiplies gamma(L), compare.hpp).
  Verdict check(const HostTensor& got, double algorithm_factor = 1.0) const;

 private:
  const PreparedCase& c_;
  ConvProblem q_;
  ref::ConvOutput expected_;
};

// The tolerance line a bench case reports: Tolerance::describe() and, for the exact tier (whose
// describe() has no factor: its bound is 0 for any), the algorithm factor the solver declares, so
// the string names the factor that applies ("...; algorithm factor 2 (...)").
std::string bench_tolerance_string(const Tolerance& tol);

// The verdict for `got` (the output role of c's problem, packed strides). full: compare() against
// the whole reference; quick: as above (through `oracle` when given, else a fresh one).
// InputError for mode none or a got whose dims differ from the output role's.
Verdict check_output(const PreparedCase& c, const HostTensor& got, VerifyMode mode, double algorithm_factor = 1.0,
                     const SampleOracle* oracle = nullptr);

}  // namespace hiprim::verify
