// Factories of the GPU LRN solvers (gpu/lrn/lrn_tile.hip, gpu/lrn/lrn_direct.hip); gpu/ops_registry.cpp lists them.
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

std::shared_ptr<const OpSolver> make_lrn_across_tile();  // "lrn.across.tile": across channels, tiles in shared memory
std::shared_ptr<const OpSolver> make_lrn_direct();       // "lrn.direct": every LRN problem
OpSolverList lrn_solvers();                              // {lrn.across.tile, lrn.direct}

}  // namespace hiprim::gpu
