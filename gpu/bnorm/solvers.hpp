// The GPU batch-norm solvers (gpu/bnorm/bnorm_multiblock.hip, gpu/bnorm/bnorm_groups.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList bnorm_solvers();
std::shared_ptr<const OpSolver> bnorm_multiblock_solver();  // bnorm.spatial.multiblock

}  // namespace hiprim::gpu
