// CPU reference of batch normalization (core/bnorm_problem.hpp): plain loops in double over each
// normalized group, and the per-element bounds of a two-pass fp32 solver (derivation in bnorm.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "core/bnorm_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// Storage offsets into x of every group's values (groups in param_desc() storage order, the values
// of a group in logical order: n outermost).
std::vector<std::vector<std::int64_t>> bnorm_groups(const BnormProblem& p);

// fwd-train: {running_mean, running_var, y, saved_mean, saved_inv_std} (tensors() order of the
// non-inputs); fwd-infer: {y}; bwd: {dx, dscale, dbias}.
std::vector<OpExpected> bnorm_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
