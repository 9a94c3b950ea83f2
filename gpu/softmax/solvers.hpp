// The GPU softmax solvers (gpu/softmax/softmax_rows.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList softmax_solvers();

}  // namespace hiprim::gpu
