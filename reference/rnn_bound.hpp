// The error bound that judges the recurrent-network solvers (core/rnn_problem.hpp) against the
// double reference (reference/rnn.hpp): a running forward error bound, per element, rigorous for the
// fp32 evaluation model below (no first-order truncation), computed alongside the reference values.
//
// Solver model (what gpu/rnn/ computes; the emulated kernels are checked against it,
// tests/gpu/test_rnn_emu.cpp): inputs are dtype values, exact in fp32, converted once; every
// quantity below is an fp32 value, each operation one IEEE rounding (u = 2^-24) or fewer (an FMA
// fuses a product into a sum); only the outputs are rounded to the dtype at the store.
//   GEMMs: P = W x + bW (all steps), Q = R h_prev + bR (each step), dh_prev = R^T drec (+ GRU's z dh),
//          dx = sum over directions W^T da, dW = sum_{t,n} da x^T, dR = sum_{t,n} drec h_prev^T, bias sums.
//          bf16 problems may run P and dx on tensor cores (rnn.mma): the fp32 operand split
//          in three bf16 pieces (exact but for pieces under 2^-126), 3K exact products added with
//          truncation (|delta| < 2u); those sums' bounds take gamma_{2u}(3K') and the split loss, so
//          they hold for both solvers.
//          math=h16 problems (core/rnn_problem.hpp): the operand h of R h_prev (steps after the first)
//          and of the next layer's P may be the dtype's rounding of the fp32 h (e grows by u16 |h| +
//          half the subnormal spacing, u16 = 2^-8 bf16 / 2^-11 fp16), those two GEMMs' sums then take
//          gamma_{2u}(K') (tensor-core adds, one piece); a solver that keeps h in fp32 stays within it.
//   Gates: the cell formulas of core/rnn_problem.hpp operation by operation (a = P + Q; LSTM
//          c = f c_prev + i g, h = o tanh(c); GRU n = tanh(P_n + r Q_n), h = (1 - z) n + z h_prev),
//          sigma(a) = 1 / (1 + expf(-a)) (relative error <= 8u: expf 2 ulp, the add, the divide),
//          tanhf (relative error <= 6u: 2 ulp plus margin), and the backward formulas of
//          reference/rnn.cpp in the same association (e.g. da_i = (dc g) (i (1 - i))).
//
// Derivation. Every computed quantity s~ carries a bound e with |s~ - s| <= e, s the exact value
// (the reference's double, whose own error 2^-50 |s| is added at the end; reference/error_model.hpp).
// Weights and inputs are exact (e = 0). For fp32 operations on perturbed operands a~ = a + da,
// |da| <= ea (and b likewise):
//   a~ + b~:  ea + eb + u (|a + b| + ea + eb)
//   a~ * b~:  ea |b| + |a| eb + ea eb + u (|a| + ea)(|b| + eb)
//   f(a~) for f = sigma, tanh, relu:  L ea + k u (|f(a)| + L ea) + 2^-126, with L = max |f'| over
//             [a - ea, a + ea] (mean value theorem; sigma' and tanh' peak at 0, so L is f' at the
//             point of the interval nearest 0: the gates' Lipschitz constants 1/4 and 1, sharpened
//             where the interval is away from 0); relu: ea, or 0 when a + ea <= 0 (exact max).
//   relu's backward mask: exact unless |a| <= ea (the sign may flip): then |dh| + e_dh.
//   A GEMM row s = sum_{k<K} w_k x~_k (+ bias, + partial): sum |w_k| e_k  (propagated)
//             + gamma(K') (sum |w_k| (|x_k| + e_k) + |bias| + |partial| + e_partial)  (Higham Thm 3.5,
//             any summation order, K' = K + the extra terms) + K' 2^-126 (underflowing products).
// Applied step by step, layer by layer, the bound of h_t feeds R h_t's at step t+1 and the next
// layer's input, so the bound is the exact worst case of the model's error propagation through the
// Jacobians |R| diag(f') over T steps and L layers: it grows like prod_t || |R| diag(L_t) ||, so for
// long sequences with large weights (sum_k |R_gk| L > 1) it grows geometrically and becomes loose
// (a worst case: no sign cancellation); the verification fill keeps weights ~U(-1/sqrt(H), 1/sqrt(H))
// and the bound stays informative for the suites' sizes. Backward: the same rules through the BPTT
// recursion, the recomputed forward's bounds entering every gate derivative, the weight gradients
// sums of T*N products (gamma(T*N)). Stored outputs: stored_bound (the dtype's rounding).
#pragma once
#include <vector>

#include "core/rnn_problem.hpp"
#include "reference/rnn.hpp"

namespace hiprim::ref {

// Absolute bounds on |fp32 solver result - exact result| (before the store into the dtype; add
// stored_bound's terms for that), shaped like the reference's outputs.
struct RnnForwardBounds {
  std::vector<double> y, hy, cy;
};
struct RnnBackwardBounds {
  std::vector<double> dx, dhx, dcx;
  RnnWeights dweights;
};
struct RnnBounds {
  RnnForwardBounds fwd;
  RnnBackwardBounds bwd;  // empty unless requested
  // The values the bound pass computed along the way (its own evaluation of the model in double):
  // they equal the reference's (tests check it), so the bounds belong to those values.
  RnnOutputs fwd_values;
  RnnGradients bwd_values;
};
// backward: also the bounds of rnn_backward's gradients (dy, dhy, dcy as there; empty: zeros).
RnnBounds rnn_bounds(const RnnProblem& p, const RnnInputs& in, bool backward, const std::vector<double>& dy = {},
                     const std::vector<double>& dhy = {}, const std::vector<double>& dcy = {});

}  // namespace hiprim::ref
