// CPU reference of pooling (core/pool_problem.hpp has the math, the index and tie rules): plain
// loops in double over the problem's tensors, inputs taken as stored (already exact in the dtype).
// Results are indexed by the storage offsets of their tensor's descriptor.
//
// Tolerance policy:
//   max fwd: y and idx exact (bound 0): y is one of the inputs, idx follows the tie rule.
//   avg fwd: the device sums L = window positions counted in fp32 and divides (or multiplies by a
//            rounded reciprocal): |err_fp32| <= gamma(L+1) * sum|x|/count, then the rounding to
//            the dtype: bound = e + u_dtype * (|y| + e).
//   bwd:     dx sums K contributions: max: dy[o] (K-1 additions, bound gamma(K) * sum|dy|);
//            avg: dy[o]/count(o) (a division each: gamma(K+1) * sum|dy/count|); + dtype rounding.
#pragma once
#include <vector>

#include "core/pool_problem.hpp"
#include "core/tensor.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// Forward: {y} or, in max mode, {y, idx}.
std::vector<OpExpected> pool_forward(const PoolProblem& p, const HostTensor& x);
// Backward: {dx}. idx is required in max mode (ignored otherwise); an idx entry that is not an
// integer window position contributes nothing (a real forward never saves one).
std::vector<OpExpected> pool_backward(const PoolProblem& p, const HostTensor& dy, const HostTensor* idx);
// The OpReferenceFn of "pool": dispatches on the direction; inputs in tensors() order.
std::vector<OpExpected> pool_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
