// CPU reference of the activations (core/activ_problem.hpp): f and f' in double, and the per-element
// bounds for an fp32 solver that evaluates gpu/activ/activ_math.hpp's formulas (derivation in activ.cpp).
#pragma once
#include <vector>

#include "core/activ_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// f(x) and f'(x) in double with the problem's alpha, beta, gamma; +-Inf take the limits, NaN
// propagates (f'(NaN) = NaN for every mode).
double activ_value(const ActivProblem& p, double x);
double activ_derivative(const ActivProblem& p, double x);

// fwd: {y}; bwd: {dx}. inputs in tensors() order (x; x, dy).
std::vector<OpExpected> activ_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
