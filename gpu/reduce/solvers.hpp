// Factories of the GPU reduction solvers (gpu/reduce/reduce_split.hip, gpu/reduce/reduce_kernels.hip).
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

std::shared_ptr<const OpSolver> make_reduce_split();       // "reduce.split": slices split over a cooperative grid
std::shared_ptr<const OpSolver> make_reduce_blockwise();   // "reduce.blockwise": a block per output
std::shared_ptr<const OpSolver> make_reduce_threadwise();  // "reduce.threadwise": a thread per output
OpSolverList reduce_solvers();                              // {reduce.split, reduce.blockwise, reduce.threadwise}

}  // namespace hiprim::gpu
