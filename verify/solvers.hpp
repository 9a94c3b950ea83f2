// All convolution solvers the runner knows: the GPU registry (when built with a GPU backend) followed
// by the host solvers. Names are stable; selection is by glob (* and ?), here for every primitive's
// solver lists (verify/op_solvers.hpp selects with the same functions).
#pragma once
#include <string>

#include "core/conv_solver.hpp"

namespace hiprim::verify {

bool glob_match(const std::string& glob, const std::string& name);
// True when name matches one of the comma-separated globs (an empty glob matches nothing).
bool glob_list_match(const std::string& globs, const std::string& name);
// The solvers of `list` (a ConvSolverList or OpSolverList) whose name matches one of the
// comma-separated globs, in list order; empty when none does.
template <class SolverList>
SolverList match_solvers(const SolverList& list, const std::string& globs) {
  SolverList out;
  for (const auto& s : list)
    if (glob_list_match(globs, s->name())) out.push_back(s);
  return out;
}

const ConvSolverList& conv_solvers();
// match_solvers(conv_solvers(), glob); InputError naming the glob and the known names when none matches.
ConvSolverList select_conv_solvers(const std::string& glob);

}  // namespace hiprim::verify
