// The GPU CTC loss solvers (gpu/ctc/ctc_alpha_beta.hip), in registry order: ctc.alpha_beta.
//
// Data rules (core/ctc_problem.hpp: lengths in range, label ids in [0, C) and not the blank, L_b plus
// repeats <= T_b) are data, not shape, so applicable() cannot see them. MIOpen checks them on the
// host because its label tensors are host arrays; hiprim's are device buffers (fp32 integers), and
// the solver checks each sequence on the device before using it: a sequence that breaks a rule gets
// a NaN loss and NaN gradients (every read stays inside the buffers; the other sequences are
// unaffected). The runner and the CLI check the same rules on the host first (ref::ctc_sequences:
// InputError naming the sequence and the rule, exit 2), so a run never gets that far with bad data.
#pragma once
#include <cstddef>
#include <memory>

#include "core/ctc_problem.hpp"
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList ctc_solvers();
// Workspace of ctc.alpha_beta for p: log y [T][N][C], alpha and beta [N][T][2L+1] (fp32), the label
// ids [N][L], their per-class chains head [N][C] and next [N][L], T_b and L_b [N] (int32), log p [N] (fp32).
std::size_t ctc_alpha_beta_workspace(const CtcProblem& p);

}  // namespace hiprim::gpu
