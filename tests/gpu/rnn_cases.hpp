// The rnn problems the rnn.gemm solvers' tests run, on the host emulation (test_rnn_emu.cpp) and on
// a GPU (test_rnn_gpu.cpp): every mode, direction of work, uni/bidir, bias/nobias, dtype, seq 1.
#pragma once

namespace hiprim::test_rnn {

inline constexpr const char* kProblems[] = {
    "rnn fwd lstm fp32 layers2 hidden5 input3 seq4 n3 bidir bias",
    "rnn fwd gru fp32 layers2 hidden4 input5 seq3 n2 bidir bias",
    "rnn fwd relu fp16 layers1 hidden6 input4 seq5 n2 uni bias",
    "rnn fwd tanh bf16 layers2 hidden3 input2 seq1 n4 bidir nobias",
    "rnn bwd-data lstm fp32 layers2 hidden4 input3 seq3 n2 bidir bias",
    "rnn bwd-data gru fp16 layers1 hidden5 input4 seq4 n3 uni bias",
    "rnn bwd-data relu fp32 layers2 hidden3 input4 seq3 n2 bidir nobias",
    "rnn bwd-data tanh bf16 layers1 hidden4 input3 seq1 n2 uni bias",
    "rnn bwd-weights lstm fp32 layers2 hidden3 input4 seq3 n2 bidir bias",
    "rnn bwd-weights gru fp32 layers2 hidden4 input3 seq4 n2 bidir bias",
    "rnn bwd-weights tanh fp16 layers1 hidden5 input2 seq3 n3 uni bias",
    "rnn bwd-weights relu bf16 layers2 hidden3 input3 seq1 n2 bidir bias",
    // per-step GEMMs split over K (gpu/rnn/rnn_plan.hpp: K = G*H = 512 in dh_prev = drec R; K = H = 512 in R h)
    "rnn bwd-weights lstm fp32 layers1 hidden128 input8 seq2 n2 uni bias",
    "rnn fwd tanh fp16 layers1 hidden512 input4 seq2 n1 uni bias",
    // bf16 at widths where the step GEMMs run split over K and the split engine's dIn has K' = 3 G*H
    "rnn bwd-data gru bf16 layers1 hidden96 input8 seq2 n2 uni bias",
    "rnn fwd lstm bf16 layers2 hidden256 input16 seq2 n1 bidir bias",
    // more than 16 samples: the persistent kernel's h_prev chunks (kRnnPersistNb), H % 4 == 0 (16-byte staging)
    "rnn bwd-data lstm fp32 layers2 hidden4 input3 seq3 n20 bidir bias",
    // three layers: the split engine's layer-output pieces alternate between two buffers
    "rnn bwd-weights gru bf16 layers3 hidden8 input5 seq5 n3 bidir bias",
};

}  // namespace hiprim::test_rnn
