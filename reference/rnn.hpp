// CPU reference of the recurrent networks (core/rnn_problem.hpp) in double: the forward pass step by
// step and its exact gradient by backpropagation through time (every step's gates kept). Tested
// against closed forms and central differences (tests/reference/test_rnn_reference.cpp). Error
// bounds for solvers are not defined yet (no solver exists).
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

// The gradients of sum(dy * y) + sum(dhy * hy) + sum(dcy * cy) (dhy, dcy may be empty: zeros).
struct RnnGradients {
  std::vector<double> dx, dhx, dcx;  // shapes of x, hx, cx (dcx empty unless LSTM)
  RnnWeights dweights;
};
RnnGradients rnn_backward(const RnnProblem& p, const RnnInputs& in, const std::vector<double>& dy, const std::vector<double>& dhy,
                          const std::vector<double>& dcy);

}  // namespace hiprim::ref
