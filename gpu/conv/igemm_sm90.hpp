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

}  // namespace hiprim::gpu
