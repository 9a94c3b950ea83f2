// The GPU oracle: a device solver (conv.naive) run on a prepared case's inputs, its output returned
// as the expected values (exact tier only, see fuzz/conv_primitive.hpp). Needs a GPU build and device.
#pragma once
#include "core/conv_solver.hpp"
#include "reference/conv.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace hiprim::fuzz {

// GPUs visible to this process (0 without a GPU build or device). `hiprim fuzz --devices all`
// starts one worker per GPU.
int gpu_device_count();
// Whether device oracles can run here (a GPU build with a usable device); *why says why not.
bool gpu_oracle_available(std::string* why = nullptr);
// The solver's output for the case's inputs in value (abs_sum empty). RuntimeError without a GPU
// build or on a failed device call; InputError when the solver refuses the problem.
ref::ConvOutput device_solver_output(const verify::PreparedCase& c, const ConvSolver& oracle);

}  // namespace hiprim::fuzz
