// Factories of the GPU tensor-op solvers (gpu/tensorop/tensorop_elementwise.hip).
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

std::shared_ptr<const OpSolver> make_tensorop_vec();          // "tensorop.vec": 16-byte accesses
std::shared_ptr<const OpSolver> make_tensorop_elementwise();  // "tensorop.elementwise": always applicable
OpSolverList tensorop_solvers();                              // {tensorop.vec, tensorop.elementwise}

}  // namespace hiprim::gpu
