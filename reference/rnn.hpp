// CPU reference of the recurrent networks (core/rnn_problem.hpp) in double: the forward pass step by
// step and its exact gradient by backpropagation through time (every step's gates kept). Tested
// against closed forms, central differences and PyTorch in double (tests/reference/test_rnn_reference.cpp).
// The error bound that judges the solvers: reference/rnn_bound.hpp; MIOpen's and PyTorch's weight
// layouts: reference/rnn_packing.hpp.
#pragma once
#include <vector>

#include "core/rnn_problem.hpp"

namespace hiprim::ref {

// One layer and direction's parameters: w [G*H][in], r [G*H][H], bw and br [G*H] (empty without bias).
struct RnnLayerWeights {
  std::vector<double> w, r, bw, br;
};
// Indexed layer * D + direction; sized for p by rnn_weights_like (zeros).
using RnnWeights = std::vector<RnnLayerWeights>;
RnnWeights rnn_weights_like(const RnnProblem& p);

struct RnnInputs {
  std::vector<double> x;       // [T][N][X]
  std::vector<double> hx, cx;  // [L*D][N][H]; empty: zeros (cx: LSTM only)
  RnnWeights weights;
};
struct RnnOutputs {
  std::vector<double> y;       // [T][N][D*H]
  std::vector<double> hy, cy;  // [L*D][N][H] (cy: LSTM only, else empty)
};
RnnOutputs rnn_forward(const RnnProblem& p, const RnnInputs& in);

// The forward pass with what the backward pass and the error bound need. Per layer and direction,
// per step s in processing order (t = s forward, T-1-s reverse): act [s][n][G*H] the gate
// activations (relu/tanh: h itself; LSTM i f o g; GRU z r n), c [s][n][H] (LSTM), h [s][n][H],
// q [s][n][H] = R_n h_prev + bR_n (GRU).
struct RnnTrace {
  std::vector<double> act, c, h, q;
};
struct RnnForwardPass {
  std::vector<std::vector<double>> layer_in;  // per layer: its input sequence [T][N][in_l]
  std::vector<RnnTrace> traces;               // layer * D + direction
  RnnOutputs out;
};
RnnForwardPass rnn_forward_pass(const RnnProblem& p, const RnnInputs& in);

// The gradients of sum(dy * y) + sum(dhy * hy) + sum(dcy * cy) (dhy, dcy may be empty: zeros).
struct RnnGradients {
  std::vector<double> dx, dhx, dcx;  // shapes of x, hx, cx (dcx empty unless LSTM)
  RnnWeights dweights;
};
RnnGradients rnn_backward(const RnnProblem& p, const RnnInputs& in, const std::vector<double>& dy, const std::vector<double>& dhy,
                          const std::vector<double>& dcy);

}  // namespace hiprim::ref
