// The comparator: a solver's output against the reference's double-precision result, element by
// element, with a per-element tolerance derived from a forward error bound (reference/error_model.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {

enum class Status { passed, failed, mistrusted, unsupported, error };
std::string_view status_name(Status s);  // "passed", "failed", "mistrusted", "unsupported", "error"
std::optional<Status> parse_status(std::string_view s);

// More than this fraction of zeros in the expected output -> mistrusted. A mostly-zero output
// cannot show wrong indexing: a kernel that reads the wrong element, or skips most of the work,
// still agrees wherever both sides are zero. 0.8 leaves room for legitimate structural zeros
// (padding >= filter, stride > filter in bwd-data) in small test problems, which stay below ~60%.
inline constexpr double kMistrustZeroFraction = 0.8;
// Fraction of desc's elements whose value (indexed by desc's storage offsets) is zero; 0 when empty.
double zero_fraction(const std::vector<double>& values, const TensorDesc& desc);
// Whether compare() would mistrust an output with these expected values (zero fraction above the limit).
inline bool mostly_zero(const std::vector<double>& values, const TensorDesc& desc) {
  return zero_fraction(values, desc) > kMistrustZeroFraction;
}
// How many worst elements a Metrics keeps.
inline constexpr std::size_t kWorstElements = 5;

// What a result is allowed to differ by. The accumulator is fp32 (every solver accumulates in fp32).
struct Tolerance {
  FillTier tier = FillTier::bounded;
  DType out_dtype = DType::fp32;
  std::int64_t reduction_length = 1;  // L: terms of each output's dot product, a bias counting as one
  double algorithm_factor = 1.0;      // multiplies gamma(L): > 1 for Winograd/FFT-like transforms
  double input_unit = 0.0;            // inputs rounded by this much before the products (TF32: ref::kUnitTf32Truncated)
  std::string describe() const;       // one line: the rule and its constants
};

// The tolerance for a problem's output: L = reduction_length() (+1 with bias), out dtype = p.dtype.
Tolerance tolerance_for(const ConvProblem& p, FillTier tier, double algorithm_factor = 1.0);

// The allowed |got - expected| for one element: 0 in the exact tier; in the bounded tier
// ref::stored_sum_bound(out_dtype, reduction_length, algorithm_factor, expected, abs_sum)
// (reference/error_model.hpp).
double element_bound(const Tolerance& tol, double expected, double abs_sum);

struct Element {
  std::int64_t offset = 0;  // storage offset in the got tensor
  Dims index;               // logical index
  double got = 0, expected = 0, error = 0, bound = 0;
};

struct Metrics {
  std::int64_t checked = 0, mismatches = 0, nonfinite_mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0;
  double rms_rel_error = 0;  // MIOpen's: sqrt(sum (got-exp)^2 / sum exp^2)
  double worst_ratio = 0;    // max error/bound; 0 when all errors are 0; inf if error > 0 with bound 0
  std::uint64_t max_ulp = 0; // in the output dtype, against the correctly rounded expected value
  double zero_fraction = 0;  // of the expected values
  std::vector<Element> worst;  // up to kWorstElements elements with error > 0, worst first
};

struct Verdict {
  Status status = Status::error;
  std::string reason;
  Metrics metrics;
};

// Compares the elements addressed by expected_desc. expected and abs_sum are indexed by
// expected_desc's storage offsets (abs_sum may be empty for the exact tier); got must have the
// same dims (its own strides). "expected" of an element is the reference's double value in the
// bounded tier and round_to(out_dtype, value) (RNE: double -> float -> dtype) in the exact tier.
// Throws InputError when the shapes or sizes do not match.
Verdict compare(const HostTensor& got, const std::vector<double>& expected, const std::vector<double>& abs_sum,
                const TensorDesc& expected_desc, const Tolerance& tol);

// The ops' comparison: every element of desc (expected and bound indexed by desc's storage
// offsets; got has the same dims) must satisfy |got - expected| <= bound (absolute, per element);
// a NaN expected value needs a NaN got, an infinite one the same infinity. Same metrics as
// compare() (max ulp against round_to(out_dtype, expected)); no zero-fraction mistrust (the op's
// reference owns that judgement). InputError when shapes or sizes do not match.
Verdict compare_with_bounds(const HostTensor& got, const std::vector<double>& expected, const std::vector<double>& bound,
                            const TensorDesc& desc, DType out_dtype);

// Bitwise equality of the elements of two tensors with equal dims (a determinism check); the
// reason names the first differing element. Metrics: checked, mismatches, max_abs_error, max_ulp,
// worst (the first differing elements, got = a, expected = b).
Verdict compare_bitwise(const HostTensor& a, const HostTensor& b);

// "[1,2,3]"
std::string index_string(const Dims& index);

}  // namespace hiprim::verify
