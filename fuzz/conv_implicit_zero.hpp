// The implementation-defined part of the special-value contract of convolution.
//
// A padded input position is an implicit zero. The reference sums only the real terms (a padded tap
// is absent), but GEMM-based solvers (im2col, implicit GEMM, cuDNN) multiply the padding zeros, and
// 0 * Inf = 0 * NaN = NaN in IEEE arithmetic. Neither answer is wrong, so hiprim's contract is:
// at an output element whose dot product, with every implicit zero counted as a term, multiplies a
// zero by a non-finite value, the result is either the reference's value or NaN. Everywhere else
// the result is fully defined. The implicit zeros per direction (P = the zero-padded activation:
// x in mode conv, y in mode trans; Q = the other activation; P[q*stride - pad + f*dil] meets Q[q]):
//   - P positions outside P's extent (the padding) that a (q, f) pair reaches: they meet w[f] when Q
//     is computed (fwd, resp. bwd-data in mode trans) and Q[q] when w is computed (bwd-weights);
//   - (p, f) pairs with no q (q*stride = p + pad - f*dil has no solution inside Q): when P is
//     computed (bwd-data, resp. fwd in mode trans) they meet w[f] (col2im's skipped positions, or
//     the stride holes and borders of a direct transposed convolution).
#pragma once
#include <cstdint>
#include <vector>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"

namespace hiprim::fuzz {

// One flag per storage offset of out_desc (the desc of the direction's output): 1 where the result
// may be NaN instead of the reference's value. Inputs as for ref::conv_naive (the output's is unused).
std::vector<std::uint8_t> implicit_zero_nan_mask(const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc& out_desc);

}  // namespace hiprim::fuzz
