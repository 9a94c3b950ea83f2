// Special input values for convolution and the contract that defines their results.
//
// Contract: an output whose dot product includes a NaN input term is NaN; one that includes an
// infinite term is that infinity, or NaN when terms of both signs or Inf*0 meet (IEEE arithmetic on
// the terms). The reference's naive loops in double evaluate exactly this over the real terms (a
// padded tap is absent). Where an implicit zero (padding, or a tap no output reaches) meets a
// non-finite value, a solver that multiplies that zero gets NaN; each solver declares which kinds
// it multiplies (ConvSolver::implicit_zeros), and its expected output is the reference's with NaN
// exactly there (fuzz/conv_implicit_zero.hpp, solver_expected). Every other output is finite and is
// compared by the usual tier rule.
//
// Kinds (a fuzz case's data choice; `hiprim repro --special KIND` reruns it):
//   nan, inf:     1-2 NaN (or +-Inf) in one input tensor picked by the seed, sometimes one more in
//                 the other input, sometimes one in the bias.
//   signed_zero:  a quarter of each input's elements become -0 (the result is compared as usual).
//   subnormal:    the activation input (x; dy for bwd-data) and the bias are scaled by 2^-s so every
//                 nonzero value is subnormal in the dtype (fp32 2^-135, fp16 2^-22, bf16 2^-130) while
//                 staying on the exact tier's grid: products and sums remain exact in fp32, so the
//                 result is compared exactly and a kernel that flushes subnormals fails. Exact tier only.
//   huge:         1-3 values of magnitude 2^100 (fp32, bf16) or 2^13 (fp16) in one of the two main
//                 inputs (the seed picks which; the other and the bias get none): no fp32
//                 partial sum can overflow (|terms| <= 2^102 resp. 2^15 with the bounded fill in
//                 [-1, 1)), the fp16 output may (the comparator accepts the infinity the expected value
//                 rounds to). Bounded tier only (the exact tier's integer sums would stop being exact).
//   mixed:        nan + inf + signed_zero together.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"

namespace hiprim::fuzz {

enum class Special { none, nan, inf, signed_zero, subnormal, huge, mixed };

std::string_view special_name(Special s);  // "none", "nan", "inf", "signed_zero", "subnormal", "huge", "mixed"
std::optional<Special> parse_special(std::string_view s);
std::vector<Special> all_specials();  // none first
// Whether the kind can run with the tier (subnormal: exact only; huge: bounded only).
bool special_fits_tier(Special s, verify::FillTier tier);

// Edits one filled input tensor (tag verify::kTagX/W/Y/Bias) of problem p for the kind; positions
// and signs come from the seed only (the same case always gets the same values).
void apply_special(Special s, const ConvProblem& p, std::uint64_t seed, std::uint64_t tensor_tag, HostTensor& t);

// The judge of special-value cases: every element whose expected value (the solver's, see
// solver_expected) is NaN must be NaN, +-Inf the same infinity, and nothing else is accepted there;
// the rest is compared by verify::compare() (non-finite positions masked out). Metrics: compare()'s
// on the finite part, mismatches and worst elements include the propagation ones.
verify::Verdict judge_special(const HostTensor& got, const ref::ConvOutput& expected, const verify::Tolerance& tol);

}  // namespace hiprim::fuzz
