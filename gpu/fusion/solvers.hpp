// The GPU fusion solvers, in registry order: fusion.igemm.wgmma (gpu/fusion/igemm_epilogue.cpp:
// the fused rounding model, one conv launch with the chain in its epilogue) and fusion.unfused
// (gpu/fusion/unfused.cpp: the steps' own solvers, intermediates stored).
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList fusion_solvers();
std::shared_ptr<const OpSolver> make_unfused_fusion_solver();

}  // namespace hiprim::gpu
