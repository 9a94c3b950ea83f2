// Factories of the GPU pooling solvers (gpu/pool/pool_direct.hip, pool_global.hip, pool_band.hip); gpu/ops_registry.cpp orders them.
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

std::shared_ptr<const OpSolver> make_pool_global();   // "pool.global" (pool_global.hip): fwd, window = the whole input
std::shared_ptr<const OpSolver> make_pool_nhwc_vec();  // "pool.nhwc.vec": channels last, 16-byte accesses
std::shared_ptr<const OpSolver> make_pool_nchw_band();  // "pool.nchw.band" (pool_band.hip): NCHW 2D, bands staged in shared memory
std::shared_ptr<const OpSolver> make_pool_direct();    // "pool.direct": any layout (always applicable)
// The list for gpu/ops_registry.cpp: pool.global, pool.nhwc.vec, pool.nchw.band, pool.direct.
OpSolverList pool_solvers();

}  // namespace hiprim::gpu
