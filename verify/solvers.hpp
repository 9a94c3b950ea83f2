// All convolution solvers the runner knows: the GPU registry (when built with a GPU backend) followed
// by the host solvers. Names are stable; selection is by glob (* and ?).
#pragma once
#include <string>

#include "core/conv_solver.hpp"

namespace hiprim::verify {

const ConvSolverList& conv_solvers();
// Solvers whose name matches glob; InputError naming the glob and the known names when none does.
ConvSolverList select_conv_solvers(const std::string& glob);
bool glob_match(const std::string& glob, const std::string& name);

}  // namespace hiprim::verify
