// CPU reference of LRN (core/lrn_problem.hpp has the math): plain loops in double with alpha, beta
// and k rounded to fp32 as the solvers use them. Results are indexed by the storage offsets of x's
// descriptor (y, dx share it).
//
// Tolerance policy (u = 2^-24, A = window positions):
//   s = k + (alpha/A) * sum x^2: all terms >= 0, so the fp32 value has relative error
//     <= e_s = gamma(2A + 4) (A squares, A-1 additions, alpha/A, the product, + k).
//   s^-beta through powf: relative <= 2|beta| e_s (the propagated error, first order doubled) plus
//     powf's own error, taken as kPowUlps = 8 ulp (CUDA documents 4 for powf, ROCm's ocml 2).
//   fwd y = x * s^-beta: r = 2|beta| e_s + (kPowUlps + 1) u, bound = r|y| + store rounding.
//   bwd dx = t1 - c x_i sum_j q_j with t1 = dy_i s_i^-beta, q_j = dy_j x_j s_j^(-beta-1),
//     c = 2 alpha beta / A: every product carries r' = 2(|beta|+1) e_s + kPowUlps u + gamma(A + 8)
//     (the products, c, the A-term sum, the subtraction), so
//     bound = r' (|t1| + |c x_i| sum_j |q_j|) + store rounding.
#pragma once
#include <vector>

#include "core/lrn_problem.hpp"
#include "core/tensor.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

inline constexpr double kPowUlps = 8;

// {y}
std::vector<OpExpected> lrn_forward(const LrnProblem& p, const HostTensor& x);
// {dx}
std::vector<OpExpected> lrn_backward(const LrnProblem& p, const HostTensor& x, const HostTensor& dy);
// The OpReferenceFn of "lrn".
std::vector<OpExpected> lrn_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
