// The GPU batch-norm solvers (gpu/bnorm/bnorm_groups.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList bnorm_solvers();

}  // namespace hiprim::gpu
