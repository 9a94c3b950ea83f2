// The GPU dropout solvers (gpu/dropout/dropout_philox.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList dropout_solvers();

}  // namespace hiprim::gpu
