// The fusion bench's peer (issue 14): cuDNN's fused graph, a forward convolution followed by
// pointwise nodes (bench/cudnn_graph.hpp): y = act(alpha1 * conv(x, w) + bias[k] + alpha2 * z), every
// intermediate an fp32 virtual tensor, y written once in the dtype. A fusion chain
// (core/fusion_problem.hpp: v3 = alpha * (conv + bias) + beta * residual, y = f(v3)) maps onto it when
//   - its rounding is fused (the graph's intermediates are fp32; unfused rounds each step);
//   - it has no bnorm-infer step (the graph has no per-channel scale node; the bench's ResNet-50
//     suite folds the inference batch norm into the conv's bias, as a fused inference graph does);
//   - with both bias and add, alpha is 1 (the chain scales conv + bias, the graph the conv alone);
//     then alpha1 = alpha, alpha2 = beta;
//   - its activation is one the graph has with the same formula: passthru (none), relu, logistic
//     (sigmoid), tanh with alpha = beta = 1, elu with alpha 1, gelu (erf), silu (swish).
// The convolution itself must also be one cudnn_graph_supports takes (checked where cuDNN is loaded).
// Host-only: built and tested in every configuration.
#pragma once
#include "bench/cudnn_graph.hpp"
#include "core/conv_solver.hpp"
#include "core/fusion_problem.hpp"

namespace hiprim::verify {

// The epilogue of p's graph into *out, or no(the rule p breaks).
Applicability fusion_peer_epilogue(const FusionProblem& p, gpu::CudnnGraphEpilogue* out);

}  // namespace hiprim::verify
