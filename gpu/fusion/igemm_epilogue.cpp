// fusion.igemm.wgmma: the chain of core/fusion_problem.hpp in one implicit-GEMM convolution on
// Hopper's warpgroup MMA (conv.igemm.wgmma, gpu/conv/igemm_sm90.hpp) whose epilogue runs the
// steps in fp32 on each sum before the one rounding to the dtype (the fused rounding model):
//   v = conv sum (+ bias[k]); bnorm-infer: (v - mean[k]) * (scale[k] / sqrt(var[k] + eps)) + shift[k];
//   add: alpha * v + beta * residual; activ: f(v)
// The tile's sums are staged in fp32 through shared memory and leave as 16-byte pieces of 8
// channels (the residual read the same way); with split-K the reduction kernel runs the chain.
// Its sums come from tensor-core adds (accumulation_error_factor 2): the reference scales the conv
// step's gamma(L) bound by it (reference/fusion.hpp). A chain of conv (+ bias) alone runs the conv's
// plain epilogue (acc + bias, one rounding) with the conv solver's own config. Config otherwise: the
// conv solver's pick without .se, or HIPRIM_CONV_CONFIG when that can run the fused epilogue.
// Refuses rounding=unfused, fp32, NCHW and what conv.igemm.wgmma refuses, with the reason.
#include <cstdlib>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/fusion_problem.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/fusion/solvers.hpp"
#include "gpu/runtime/device.hpp"

namespace hiprim::gpu {
namespace {

// The conv step as conv.igemm.wgmma sees it (fwd, no bias of its own).
ConvProblem conv_of(const FusionProblem& p) {
  ConvProblem c = p.conv();
  c.bias = false;
  return c;
}

// HIPRIM_CONV_CONFIG when it can run the chain, else the conv solver's own pick where the chain is
// conv (+ bias) alone (the plain epilogue adds the bias), else that pick without .se.
bool staged(const FusionProblem& p) { return p.has(FusionOp::bnorm_infer) || p.has(FusionOp::add) || p.has(FusionOp::activ); }
std::string config_of(const FusionProblem& p) {
  const ConvProblem c = conv_of(p);
  if (const char* env = std::getenv(kConvConfigEnv); env != nullptr && *env != '\0')
    if (igemm_sm90_fused_refusal(c, env, staged(p)).empty()) return env;
  return staged(p) ? igemm_sm90_fused_default_config(c) : igemm_sm90_default_config(c);
}

class IgemmEpilogueFusionSolver final : public TypedOpSolver<FusionProblem> {
 public:
  std::string name() const override { return "fusion.igemm.wgmma"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "conv fwd on warpgroup MMA (conv.igemm.wgmma) with bias, bnorm-infer, add and any activation in its fp32 epilogue, "
           "one rounding; fp16/bf16 NHWC, rounding=fused";
  }
  // The conv's sums are tensor-core adds (each errs by < 2u).
  double accumulation_error_factor() const override { return 2.0; }

 protected:
  Applicability applicable_to(const FusionProblem& p) const override {
    if (p.rounding != FusionRounding::fused)
      return Applicability::no("keeps the intermediates in fp32 (the fused rounding model); the problem asks for rounding=unfused");
    if (p.dtype != DType::fp16 && p.dtype != DType::bf16) return Applicability::no("fp16 and bf16 only (warpgroup MMA)");
    if (!p.channels_last) return Applicability::no("NHWC only (the GEMM's rows are NHWC pixels)");
    // A device that cannot run sm_90a (no device at all is the runner's verdict, as for every GPU op solver).
    if (const std::string why = igemm_sm90_unavailable(); !why.empty() && device_available()) return Applicability::no(why);
    const ConvProblem c = conv_of(p);
    const std::string config = config_of(p);
    if (config.empty()) return Applicability::no(igemm_sm90_fused_refusal(c, "m128n128k64.s4.splitk1", staged(p)));
    if (const std::string why = igemm_sm90_fused_refusal(c, config, staged(p)); !why.empty()) return Applicability::no(why);
    return Applicability::yes();
  }
  std::size_t workspace_for(const FusionProblem& p) const override {
    const std::string config = config_of(p);
    const ConvProblem c = conv_of(p);
    return config.empty() || !igemm_sm90_fused_refusal(c, config, staged(p)).empty() ? 0 : igemm_sm90_fused_workspace_bytes(c, config);
  }
  void run_typed(const FusionProblem& p, const std::vector<void*>& buffers, void* workspace, void* stream) const override {
    const auto ts = p.tensors();
    auto buffer = [&](const char* name) -> void* {
      for (std::size_t i = 0; i < ts.size(); ++i)
        if (ts[i].name == name) return buffers[i];
      return nullptr;
    };
    IgemmFusedSteps f;
    f.bias = buffer("bias");
    if (const FusionStep* bn = p.step(FusionOp::bnorm_infer)) {
      f.bn_scale = static_cast<const float*>(buffer("bn_scale")), f.bn_shift = static_cast<const float*>(buffer("bn_shift"));
      f.bn_mean = static_cast<const float*>(buffer("bn_mean")), f.bn_var = static_cast<const float*>(buffer("bn_var"));
      f.bn_epsilon = bn->epsilon;
    }
    if (const FusionStep* add = p.step(FusionOp::add)) f.residual = buffer("residual"), f.add_alpha = add->alpha, f.add_beta = add->beta;
    if (const FusionStep* a = p.step(FusionOp::activ)) {
      f.activ_mode = static_cast<int>(a->mode);
      f.activ_alpha = a->activ_alpha, f.activ_beta = a->activ_beta, f.activ_gamma = a->activ_gamma;
    }
    const ConvProblem c = conv_of(p);
    const std::string config = config_of(p);
    ConvTensors t;
    t.x = buffers[0];
    t.w = buffers[1];
    t.y = buffers.back();
    t.workspace = workspace;
    t.workspace_bytes = igemm_sm90_fused_workspace_bytes(c, config);
    t.stream = stream;
    igemm_sm90_run_fused(c, t, config, f);
  }
};

}  // namespace

OpSolverList fusion_solvers() {
  return {std::make_shared<IgemmEpilogueFusionSolver>(), make_unfused_fusion_solver()};
}

}  // namespace hiprim::gpu
