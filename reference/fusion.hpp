// CPU reference of the fused chain (core/fusion_problem.hpp): the composition of the steps' own
// references, ref::conv, ref::tensorop_forward (bias: y + bias broadcast over [1, K, 1, 1]; add:
// alpha*y + beta*residual), ref::bnorm_expected (fwd-infer, spatial, per output channel) and
// ref::activ_expected, applied one after another with each intermediate rounded to the model's
// intermediate dtype: fp32 (fused) or the problem's dtype (unfused). The error bound of each output
// element is propagated along the chain (derivation in fusion.cpp).
#pragma once
#include <vector>

#include "core/fusion_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// The tensors of a chain by role; bias, bnorm parameters and residual only where the chain has the step.
struct FusionInputs {
  const HostTensor* x = nullptr;
  const HostTensor* w = nullptr;
  const HostTensor* bias = nullptr;
  const HostTensor *bn_scale = nullptr, *bn_shift = nullptr, *bn_mean = nullptr, *bn_var = nullptr;
  const HostTensor* residual = nullptr;
};
// In tensors() order.
FusionInputs fusion_inputs(const FusionProblem& p, const std::vector<const HostTensor*>& inputs);

// Global Lipschitz factor of the activation over [x - r, x + r] (an upper bound of |f'| there;
// +inf for power with gamma < 1 when the base reaches 0).
double activ_lipschitz(const ActivProblem& a, double x, double r);

// {y} of the chain p.steps in the given order (steps after the first conv, in any order and any
// number, are applied as written: the mutants of tests/fuzz use that), rounding the intermediates
// as `model` says. p.steps[0] must be conv.
// conv_factor multiplies the conv step's gamma(L) bound (the solver's accumulation_error_factor).
OpExpected fusion_chain(const FusionProblem& p, const FusionInputs& in, FusionRounding model, double conv_factor = 1.0);

// The OpReferenceFn of "fusion": fusion_chain under p.rounding; _with: the conv bound scaled by
// o.accumulation_factor (the one registered).
std::vector<OpExpected> fusion_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);
std::vector<OpExpected> fusion_expected_with(const OpProblem& p, const std::vector<const HostTensor*>& inputs,
                                             const OpReferenceOptions& o);

}  // namespace hiprim::ref
