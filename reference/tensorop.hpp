// CPU reference of the tensor ops (core/tensorop_problem.hpp): c = op(alpha1*a, alpha2*b) + beta*c
// in double, with the scalars rounded to fp32 as the solvers use them; b indexed with its size-1
// dims at 0 (broadcast). min/max: x < y ? x : y and x > y ? x : y (MIOpen's).
//
// Tolerance policy: a solver rounds t1 = alpha1*a, t2 = alpha2*b, the op, beta*c and the sum (at
// most 4 fp32 roundings on the path of every term), so |err| <= sum_bound(4, M + |beta*c|) with
// M = |t1| + |t2| (add), |t1*t2| (mul), max(|t1|, |t2|) (min, max: a selection of rounded values),
// then the store rounding.
#pragma once
#include <vector>

#include "core/tensor.hpp"
#include "core/tensorop_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// {c}; c_in is the initial C (required when beta != 0, ignored otherwise).
std::vector<OpExpected> tensorop_forward(const TensorOpProblem& p, const HostTensor& a, const HostTensor& b,
                                         const HostTensor* c_in);
// The OpReferenceFn of "tensorop".
std::vector<OpExpected> tensorop_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
