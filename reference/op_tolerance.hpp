// Shared terms of the ops' per-element error bounds (absolute, |got - expected| <= bound).
// Model of a solver (every GPU solver here): inputs are dtype values, math in fp32 (unit roundoff
// u = 2^-24), one rounding to the output dtype at the store. The reference computes in double
// (u_d = 2^-53) from the same inputs.
//   sum of L terms t_j (any order, tree or sequential): |s - y| <= gamma(L) * sum|t_j|
//     (Higham, Accuracy and Stability, eq. 3.5), plus the reference's gamma_d(L) * sum|t_j|;
//   a correctly rounded (or k-ulp) fp32 function value: k * u * |value|;
//   the store: u_out * |value| + eta_out (u_out = 0 for fp32; eta_out covers underflow to
//     subnormals: fp16 2^-25, bf16 2^-134).
// Each primitive composes these in its reference and documents the derivation there.
#pragma once
#include <cstdint>

#include "core/dtype.hpp"

namespace hiprim::ref {

inline constexpr double kUnitFp32 = 0x1p-24;  // fp32 accumulation
inline constexpr double kUnitDouble = 0x1p-53;

// gamma(n) = n*u/(1-n*u); +inf when n*u >= 1.
double gamma_n(std::int64_t n, double u);
// Bound of an fp32 sum of L terms whose absolute values sum to abs_sum, against the double sum:
// (gamma(L) + gamma_d(L)) * abs_sum * (1 + 2*gamma_d(L)).
double sum_bound(std::int64_t terms, double abs_sum);
// Rounding of the final store into `out`: u_out*|value| + eta_out (0 for fp32).
double store_bound(DType out, double value);
// Unit roundoff of the store (0 for fp32: the fp32 result is stored as is).
double store_unit(DType out);
// The complete bound of a stored value from the bound of its fp32 result: adds the reference's own
// double rounding (2^-50 |value|: a few operations at 2^-53) and the store into `out`, which rounds
// an fp32 result that may exceed |value| by the fp32 bound b: b' + store_bound(value) + u_out*b'.
double stored_bound(DType out, double value, double fp32_bound);
// fp32's smallest normal, 2^-126: an absolute term for results that fall below fp32's normal range,
// where relative error bounds stop holding (e.g. expf underflowing to a subnormal or 0).
inline constexpr double kFp32TinyNormal = 0x1p-126;

}  // namespace hiprim::ref
