// The GPU softmax solvers (gpu/softmax/softmax_team.hip, gpu/softmax/softmax_rows.hip), in registry
// order: team_row, smem_row (contiguous rows on chip), block_row, thread_row (any row).
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList softmax_solvers();
std::shared_ptr<const OpSolver> make_softmax_team_row();  // softmax.team_row
std::shared_ptr<const OpSolver> make_softmax_smem_row();  // softmax.smem_row

}  // namespace hiprim::gpu
