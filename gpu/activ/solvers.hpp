// The GPU activation solvers (gpu/activ/activ_elementwise.hip), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList activ_solvers();

}  // namespace hiprim::gpu
