// The GPU solvers of the recurrent networks (gpu/rnn/rnn.hip), in registry order: rnn.gemm.fwd,
// rnn.gemm.bwd_data, rnn.gemm.bwd_weights (fp32 SIMT GEMMs, every dtype), then rnn.mma.fwd,
// rnn.mma.bwd_data, rnn.mma.bwd_weights (bf16: the input projection and the input gradient on tensor
// cores, operands split in three bf16 pieces). rnn_solvers_split_on_simt (tests on the host emulation): the second three run
// the same split GEMMs on the SIMT tile instead, named rnn.split_simt.*.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

OpSolverList rnn_solvers();
OpSolverList rnn_solvers_split_on_simt();

}  // namespace hiprim::gpu
