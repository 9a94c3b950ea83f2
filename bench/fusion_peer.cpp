// Which fusion chains cuDNN's fused graph computes (bench/fusion_peer.hpp).
#include "bench/fusion_peer.hpp"

#include <string>

namespace hiprim::verify {

namespace {

// The graph's activation with the chain's formula, or no(why).
Applicability graph_activation(const FusionStep& a, gpu::CudnnActivation* out) {
  using A = gpu::CudnnActivation;
  switch (a.mode) {
    case ActivMode::passthru: *out = A::none; return Applicability::yes();
    case ActivMode::relu: *out = A::relu; return Applicability::yes();
    case ActivMode::logistic: *out = A::sigmoid; return Applicability::yes();
    case ActivMode::gelu: *out = A::gelu; return Applicability::yes();
    case ActivMode::silu: *out = A::swish; return Applicability::yes();
    case ActivMode::tanh:
      if (a.activ_alpha != 1 || a.activ_beta != 1) return Applicability::no("the graph's tanh has no coefficients: tanh needs alpha = beta = 1");
      *out = A::tanh;
      return Applicability::yes();
    case ActivMode::elu:
      if (a.activ_alpha != 1) return Applicability::no("the graph's elu is built with alpha 1: elu needs alpha = 1");
      *out = A::elu;
      return Applicability::yes();
    default: break;
  }
  return Applicability::no("activation " + std::string(activ_mode_name(a.mode)) + " has no pointwise node of the same formula in cuDNN's graph");
}

}  // namespace

Applicability fusion_peer_epilogue(const FusionProblem& p, gpu::CudnnGraphEpilogue* out) {
  if (auto errs = p.validate(); !errs.empty()) return Applicability::no("invalid problem: " + errs.front());
  if (p.rounding != FusionRounding::fused)
    return Applicability::no("rounding=unfused: cuDNN's fused graph keeps its intermediates in fp32 (rounding fused)");
  if (p.has(FusionOp::bnorm_infer))
    return Applicability::no("bnorm-infer: cuDNN's fused graph here has no per-channel scale node (fold the batch norm into the "
                             "conv's weights and bias, as the ResNet-50 fusion suite does)");
  gpu::CudnnGraphEpilogue ep;
  ep.bias = p.has(FusionOp::bias);
  if (const FusionStep* add = p.step(FusionOp::add)) {
    if (ep.bias && add->alpha != 1)
      return Applicability::no("add(alpha" + std::to_string(add->alpha) + ") after bias: the chain scales conv + bias, the graph the conv alone (needs alpha 1)");
    ep.add = true;
    ep.alpha1 = add->alpha;
    ep.alpha2 = add->beta;
  }
  if (const FusionStep* a = p.step(FusionOp::activ))
    if (auto ok = graph_activation(*a, &ep.activation); !ok) return ok;
  *out = ep;
  return Applicability::yes();
}

}  // namespace hiprim::verify
