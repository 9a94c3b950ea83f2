// Tools of the reference convolution's property tests: small random valid problems, random tensors
// (real-valued, or integers in [-3, 3]), relayouts and padded descs, dot products and a mismatch
// count within a tolerance. (The GPU tests' exact-tier cases: tests/gpu/conv_exact_cases.hpp.)
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <random>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"

namespace hiprim::test {

// Small valid problems (n <= 3, c, k <= 6, spatial <= 7 (3D: <= 4), filter <= 3) in every direction,
// mode, dtype and layout, with groups, dilation, stride, pad, output padding and bias.
rc::Gen<ConvProblem> gen_small_problem();

// Every tensor a direction may read or write, filled with values exact in the problem's dtype:
// uniform reals in [-1, 1) rounded to the dtype, or (integers) whole numbers in [-3, 3].
struct ConvHostTensors {
  HostTensor x, w, y, bias;
  ref::ConvInputs inputs() const { return {&x, &w, &y, &bias}; }
};
ConvHostTensors random_tensors(const ConvProblem& p, std::uint32_t seed, bool integers = false);
void fill_random(HostTensor& t, std::mt19937& rng, bool integers = false);

// The same logical values under another desc (same dims); storage gaps get `gap_value`.
HostTensor relayout(const HostTensor& t, const TensorDesc& d, float gap_value = 0.0f);
// A nested, non-packed desc: each stride skips `gap` extra elements beyond the packed one.
TensorDesc padded_desc(const TensorDesc& d, std::int64_t gap);

// Value / abs_sum of an output at a logical index.
double value_at(const ref::ConvOutput& o, const Dims& index);
double abs_sum_at(const ref::ConvOutput& o, const Dims& index);

// Sum over logical indices of a[i] * b[i] for an output and a host tensor of the same dims.
double dot(const ref::ConvOutput& a, const HostTensor& b);
// Sum over logical indices of abs_sum[i] * |b[i]|.
double abs_dot(const ref::ConvOutput& a, const HostTensor& b);

// Number of elements where |a - b| > rel * abs_sum_a + abs_floor (value and abs_sum both compared);
// a and b must have the same dims. Reports the first few mismatches through RC/gtest output.
std::int64_t count_mismatches(const ref::ConvOutput& a, const ref::ConvOutput& b, double rel, double abs_floor = 0.0);

}  // namespace hiprim::test
