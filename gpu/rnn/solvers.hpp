// The GPU solvers of the recurrent networks (gpu/rnn/rnn.hip), in registry order: rnn.gemm.fwd,
// rnn.gemm.bwd_data, rnn.gemm.bwd_weights (one per direction of work).
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList rnn_solvers();

}  // namespace hiprim::gpu
