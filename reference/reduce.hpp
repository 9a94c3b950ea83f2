// CPU reference of reductions (core/reduce_problem.hpp has the ops, the index, tie and NaN rules):
// each output's slice walked in logical order (the last reduced dim fastest) in double.
//
// Tolerance policy (u = 2^-24; L = slice length; S = sum |x|; then the store rounding):
//   min, max, amax and idx: exact (bound 0): a selection of stored values.
//   add, norm1: fp32 sum of L terms: sum_bound(L, S).
//   avg: the sum and a division: sum_bound(L + 1, S / L).
//   norm2: the fp32 sum of squares has relative error <= gamma(2L) (L squares, L-1 additions, all
//     terms >= 0); sqrt halves it and adds its rounding u: (gamma(2L) + u + gamma_d(2L)) * |y|.
//   mul: L-1 products: (gamma(L) + gamma_d(L)) * |y| (fills keep the partial products normal).
#pragma once
#include <vector>

#include "core/reduce_problem.hpp"
#include "core/tensor.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// {y} or, with indices, {y, idx}.
std::vector<OpExpected> reduce_forward(const ReduceProblem& p, const HostTensor& x);
// The OpReferenceFn of "reduce".
std::vector<OpExpected> reduce_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
