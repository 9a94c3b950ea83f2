// The GPU batch-norm solvers (gpu/bnorm/bnorm_stream.hip, bnorm_persistent.hip, bnorm_multiblock.hip, bnorm_groups.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList bnorm_solvers();
// bnorm.spatial.persistent with 512-thread blocks (registered); 1024 for the speed sweep's comparison.
std::shared_ptr<const OpSolver> bnorm_persistent_solver(int block = 512);
std::shared_ptr<const OpSolver> bnorm_multiblock_solver();  // bnorm.spatial.multiblock
std::shared_ptr<const OpSolver> bnorm_tile_solver();        // bnorm.spatial.tile (channels last, a tile per block)
std::shared_ptr<const OpSolver> bnorm_infer_stream_solver();  // bnorm.spatial.infer_stream (fwd-infer only)

}  // namespace hiprim::gpu
