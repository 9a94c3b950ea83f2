// conv.igemm.wgmma's perf-config interface (host header, no device types): the configs a problem
// can run (every one instantiated and selectable at run time), the heuristic's pick, the workspace
// of a config, and a run with an explicit config. The solver's run() takes ConvTensors::config when
// given (configs_for(p) lists the valid ones), else the environment variable HIPRIM_CONV_CONFIG
// when set (an unknown or inapplicable config is an InputError naming it), else the heuristic's.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"

namespace hiprim::gpu {

inline constexpr const char* kIgemmWgmmaName = "conv.igemm.wgmma";
// kConvConfigEnv (core/conv_solver.hpp): HIPRIM_CONV_CONFIG, the default config's override.

// "" when this process can run the sm_90a kernels, else why not (no device, not sm_90, AMD).
std::string igemm_sm90_unavailable();

std::vector<std::string> igemm_sm90_configs(const ConvProblem& p);        // empty when refused
std::string igemm_sm90_default_config(const ConvProblem& p);               // "" when refused
std::size_t igemm_sm90_workspace_bytes(const ConvProblem& p, const std::string& config);
// Precondition as ConvSolver::run, with t.workspace_bytes >= igemm_sm90_workspace_bytes(p, config).
// InputError when the config does not parse or cannot run p (the message says why).
void igemm_sm90_run(const ConvProblem& p, const ConvTensors& t, const std::string& config);

// out[m][n] = sum_i a[m][i] b[n][i] (+ bias[n]) in fp32, not rounded (rows of n floats; a, b, bias of
// dtype t, fp16 or bf16, a and b dense rows of k): the fwd kernel on the 1x1 problem x = a as NHWC
// [1][m][1][k], w = b, with its fp32 epilogue (split 1, no .se or .p; the heuristic's tile otherwise).
// Products exact, fp32 tensor-core adds (< 2u each). Enqueued on `stream` when it returns "", else
// nothing ran and the text says why (no sm_90a, a shape the plan refuses, k % 8, 16-byte alignment).
std::string igemm_sm90_gemm_fp32_out(DType t, long long m, long long n, long long k, const void* a, const void* b,
                                     const void* bias, float* out, void* stream, const std::string& context);

// The fused fwd epilogue (fusion.igemm.wgmma; sm90::IgemmEpilogue has the math): the chain's device
// inputs, null where the chain lacks the step (bias and residual: T, 16-byte aligned; bnorm: fp32 [K]).
struct IgemmFusedSteps {
  const void* bias = nullptr;
  const float* bn_scale = nullptr;
  const float* bn_shift = nullptr;
  const float* bn_mean = nullptr;
  const float* bn_var = nullptr;
  double bn_epsilon = 1e-5;
  const void* residual = nullptr;
  double add_alpha = 1, add_beta = 1;
  int activ_mode = -1;  // ActivMode's number (gpu/activ/activ_math.hpp), < 0: none
  double activ_alpha = 0, activ_beta = 0, activ_gamma = 0;
};
// "" when `config` can run p (fwd, no bias of its own) with the fused epilogue, else why not; staged:
// the chain has a per-element step (bnorm-infer, add, activ), whose fp32 tile is staged in the stage
// memory (no .p, and the tile must fit); a chain of conv (+ bias) alone takes every config of the conv.
std::string igemm_sm90_fused_refusal(const ConvProblem& p, const std::string& config, bool staged);
// The heuristic's config for p without .se ("" when refused).
std::string igemm_sm90_fused_default_config(const ConvProblem& p);
// The conv's workspace, then the folded bnorm factors (K floats), 256-byte aligned.
std::size_t igemm_sm90_fused_workspace_bytes(const ConvProblem& p, const std::string& config);
// y = chain(conv(x, w)) in one conv launch (plus the split-K reduction and a K-element fold of the
// bnorm factors). InputError when refused, buffers are misaligned or the workspace is short.
void igemm_sm90_run_fused(const ConvProblem& p, const ConvTensors& t, const std::string& config, const IgemmFusedSteps& f);

}  // namespace hiprim::gpu
