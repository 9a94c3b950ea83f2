// The error model: absolute per-element bounds |got - expected| <= bound of a solver's result
// against the reference's, used by conv's comparator (verify/compare.hpp) and every op reference.
//
// Solver: inputs are dtype values (exact in fp32), arithmetic in fp32 (u = 2^-24), one rounding to
// the output dtype `out` at the store. Reference: the same inputs, arithmetic in double (u_d = 2^-53).
//
//   gamma_u(n) = n*u / (1 - n*u)   (+inf when n*u >= 1);   gamma = gamma_{2^-24}, gamma_d = gamma_{2^-53}
//
//   Sum y = sum_{j=1..L} t_j (t_j a product or a single value), A = sum_j |t_j|, s its fp32 value:
//     |s - y| <= gamma(L) * A                 (Higham, Accuracy and Stability, Thm 3.5 / eq. 3.5)
//     in any order (sequential, tree, split-K; an FMA only removes roundings): each t_j passes
//     <= L roundings (its product, <= L-1 additions). Products of fp16/bf16 values (<= 22/16 bits)
//     are exact in fp32 (exponents in its normal range); an fp32 product rounds once (counted in L).
//   Reference sum e: |e - y| <= gamma_d(L) * A; its abs sum A^ >= A*(1 - gamma_d(L)), so
//     A <= A' = A^ * (1 + 2*gamma_d(L))      (gamma_d <= 1/2).
//   Store: |fl_out(s) - s| <= u_out*|s| + eta_out
//     u_out:   fp32 0 (the fp32 result is stored as is), fp16 2^-11, bf16 2^-8
//     eta_out: fp32 0, fp16 2^-25, bf16 2^-134 (half the smallest subnormal: underflow)
//   A k-ulp fp32 function value: k*u*|value| (the callers add these terms).
//
// The bounds below (A^ = the reference's abs_sum):
//   sum_bound(L, A^)         = (gamma(L) + gamma_d(L)) * A^ * (1 + 2*gamma_d(L))
//   store_bound(out, v)      = u_out*|v| + eta_out
//   stored_bound(out, v, b)  = b' + store_bound(out, v) + u_out*b',   b' = b + 2^-50*|v|
//   stored_sum_bound(out, L, f, e, A^) = (1 + u_out) * (f*gamma(L) + gamma_d(L)) * A' + u_out*|e| + eta_out
//     (0 when A^ = 0: every term is 0, every order gives 0), from
//     |fl_out(s) - e| <= |fl_out(s) - s| + |s - y| + |y - e|,  |s| <= |e| + (gamma + gamma_d)*A:
//                     <= u_out*(|e| + (gamma + gamma_d)*A) + eta_out + (gamma + gamma_d)*A.
//     f >= 1 scales gamma(L) for adders that truncate (|delta| < 2u: f = 2, tensor cores) and
//     transforms. With f = 1 it equals sum_bound + store_bound(out, |e| + sum_bound) exactly; the two
//     are evaluated in different orders, so their doubles may differ in the last bits.
//   Inputs rounded below their dtype before the products (TF32: 10 explicit mantissa bits; the
//   tensor cores read an fp32 operand's top 19 bits, a truncation, |delta| < 2^-10; converted to
//   nearest, |delta| <= 2^-11): with u_in that relative rounding of each of x and w,
//     x~ w~ = x w (1 + theta),  |theta| <= eta = (1 + u_in)^2 - 1,
//     |s - y| <= eta*A + f*gamma(L)*(1 + eta)*A,
//   so stored_sum_bound(out, L, f, e, A^, u_in) replaces f*gamma(L) by eta + f*gamma(L)*(1 + eta)
//   (u_in = 0: the bound above, unchanged). A bias term is not rounded below fp32 but is counted as
//   one of the L terms, which the bound covers.
//   Not covered: fp16 accumulation.
#pragma once
#include <cstdint>

#include "core/dtype.hpp"

namespace hiprim::ref {

inline constexpr double kUnitFp32 = 0x1p-24;  // u: fp32 accumulation
inline constexpr double kUnitDouble = 0x1p-53;  // u_d: the reference's double
// The reference's own relative rounding of a value computed in a few double operations (8 u_d).
inline constexpr double kReferenceRel = 0x1p-50;
// fp32's smallest normal, 2^-126: an absolute term for results that fall below fp32's normal range,
// where relative error bounds stop holding (e.g. expf underflowing to a subnormal or 0).
inline constexpr double kFp32TinyNormal = 0x1p-126;
// u_in of TF32 inputs: truncation of an fp32 value to 10 explicit mantissa bits (what the tensor
// cores do to an fp32 operand), and rounding to nearest (cvt.rna.tf32.f32).
inline constexpr double kUnitTf32Truncated = 0x1p-10;
inline constexpr double kUnitTf32Nearest = 0x1p-11;
// v truncated to TF32: fp32's low 13 mantissa bits cleared (what the tensor cores read of an fp32
// operand); |result - v| < kUnitTf32Truncated * |v|. For emulations and tests of TF32 arithmetic.
float tf32_truncated(float v);

// gamma_u(n) = n*u/(1-n*u); +inf when n*u >= 1.
double gamma_n(std::int64_t n, double u);
// u_out: unit roundoff of the store (0 for fp32).
double store_unit(DType out);
// eta_out: the store's absolute underflow term (0 for fp32).
double store_underflow(DType out);
// u_out*|value| + eta_out.
double store_bound(DType out, double value);
// (gamma(L) + gamma_d(L)) * abs_sum * (1 + 2*gamma_d(L)): an fp32 sum of L terms against the double sum.
double sum_bound(std::int64_t terms, double abs_sum);
// b' + store_bound(out, value) + u_out*b' with b' = fp32_bound + kReferenceRel*|value|: a stored
// value whose fp32 result is within fp32_bound.
double stored_bound(DType out, double value, double fp32_bound);
// (1 + u_out) * (factor*gamma(L) + gamma_d(L)) * abs_sum*(1 + 2*gamma_d(L)) + u_out*|expected| + eta_out,
// 0 when abs_sum = 0: an fp32 sum of L terms stored into out (conv's bounded tier). input_unit > 0:
// each input rounded by that relative amount before its products (TF32; see above).
double stored_sum_bound(DType out, std::int64_t terms, double factor, double expected, double abs_sum, double input_unit = 0.0);

}  // namespace hiprim::ref
