// The GPU fusion solvers (gpu/fusion/unfused.cpp), in registry order.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList fusion_solvers();

}  // namespace hiprim::gpu
