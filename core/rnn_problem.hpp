// Recurrent network problem (MIOpen's miopenRNN*, cuDNN's RNN): vanilla (relu / tanh), LSTM and GRU,
// stacked layers, uni- or bidirectional, with or without biases, sequence-major data.
//
// Math per layer and direction, one step (G gates of H rows each; W the input weights [G*H][in],
// R the recurrent ones [G*H][H], bW and bR their biases; gates in MIOpen's order):
//   relu / tanh:  h' = f(W x + bW + R h + bR)
//   LSTM (i, f, o, g):  i, f, o = sigma(a_i), sigma(a_f), sigma(a_o), g = tanh(a_g) with a = W x + bW + R h + bR;
//                       c' = f c + i g,  h' = o tanh(c')
//   GRU (z, r, n):  z, r = sigma(W x + bW + R h + bR) (their rows), n = tanh(W_n x + bW_n + r (R_n h + bR_n)),
//                   h' = (1 - z) n + z h
// Layer 0 reads x [T][N][X]; layer l > 0 reads the previous layer's output [T][N][D*H] (both
// directions concatenated, forward first). The reverse direction walks t = T-1 .. 0. Initial states
// hx (and cx for LSTM) [L*D][N][H] (index layer*D + direction); final states hy, cy likewise; y
// [T][N][D*H] is the last layer's output.
//
// Directions of work (dir):
//   fwd          x, hx, cx, w -> y, hy, cy. MIOpen's training and inference forward compute the same
//                outputs (training also fills its reserve space for the backward passes); hiprim has
//                one fwd for both.
//   bwd-data     x, hx, cx, w, dy, dhy, dcy -> dx, dhx, dcx: the gradients of
//                J = sum(dy*y) + sum(dhy*hy) + sum(dcy*cy). MIOpen's RNNBackwardData takes y and the
//                reserve space of a training forward; hiprim takes x instead and recomputes the forward
//                (y is a function of x, hx, cx, w; the reserve space is the solver's workspace).
//   bwd-weights  the same inputs -> dw, the gradient of J with respect to the packed weights (MIOpen's
//                RNNBackwardWeights: x, hx, dy and the reserve space of bwd-data; the same recomputation).
//
// tensors(), in this fixed order (cx, dcy, cy, dcx only for LSTM):
//   fwd:          x [T][N][X], hx [L*D][N][H], cx, w [weights()], y [T][N][D*H], hy, cy
//   bwd-data:     x, hx, cx, w, dy [T][N][D*H], dhy [L*D][N][H], dcy, dx [T][N][X], dhx, dcx
//   bwd-weights:  x, hx, cx, w, dy, dhy, dcy, dw [weights()]
// All packed row-major, one dtype (fp32, fp16 or bf16).
//
// The weight buffer w is MIOpen's packing (src/rnn.cpp: paramsOffsetCalculation,
// biasOffsetCalculation, and the GEMMs of RNNForwardTraining that read it): first every layer's
// matrices, then (bias mode) every layer's biases. Per layer l, with D directions and in_l its input
// width (X, or D*H above layer 0):
//   matrices: W of direction 0 [G*H][in_l], W of direction 1, R of direction 0 [G*H][H], R of direction 1
//   biases:   bW of direction 0 [G*H], bW of direction 1, bR of direction 0 [G*H], bR of direction 1
// Each [G*H][k] block is G matrices [H][k] row-major, in MIOpen's gate order (LSTM i, f, o, g; GRU
// z, r, n); direction 1 (reverse) is numbered after direction 0 (MIOpen's pseudo-layer l*2 + 1).
// rnn_packing() gives the offsets. PyTorch's layout and its gate order: reference/rnn_packing.hpp.
//
// Not modelled, refused where a caller could ask for them (the MIOpenDriver front end,
// cli/miopen/rnn.cpp): variable sequence lengths (MIOpenDriver's -n list of batch sizes per step),
// batch-major or padded layouts, skip input mode (miopenRNNskip), dropout between layers, and
// projections. Only fixed-length sequence-major data with a linear input.
//
// Math mode (math=h16, fp16/bf16 data only, opt-in): a solver may round the hidden state h to the data
// type where it is a GEMM operand in the forward pass (R h_prev of every step after the first, and the
// layer output as the next layer's input), as cuDNN's and PyTorch's fp16/bf16 RNNs keep h in the data
// type; the state itself (the cells' h_prev, c) stays fp32. The reference is the same exact result;
// reference/rnn_bound.hpp widens the bound by that rounding. Default: every state fp32 (math=exact).
//
// Canonical string:
//   rnn <fwd|bwd-data|bwd-weights> <relu|tanh|lstm|gru> <dtype> layers<L> hidden<H> input<X> seq<T> n<N> <uni|bidir> <bias|nobias> [math=h16]
//   e.g. "rnn fwd lstm fp32 layers2 hidden16 input8 seq5 n3 bidir bias"
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class RnnMode { relu, tanh, lstm, gru };  // MIOpen's miopenRNNMode_t order
enum class RnnDir { fwd, bwd_data, bwd_weights };
enum class RnnMath { exact, h16 };  // h16: see "Math mode" above
std::string_view rnn_mode_name(RnnMode m);
std::string_view rnn_dir_name(RnnDir d);  // "fwd", "bwd-data", "bwd-weights"

// Where one layer and direction's parameters start in the packed buffer (element offsets; the
// biases' are meaningful only with bias).
struct RnnPacking {
  std::int64_t w = 0, r = 0, bw = 0, br = 0;
};

struct RnnProblem {
  static constexpr std::string_view kOp = "rnn";
  RnnDir dir = RnnDir::fwd;
  RnnMode mode = RnnMode::lstm;
  DType dtype = DType::fp32;
  std::int64_t layers = 1, hidden = 1, input = 1, seq = 1, n = 1;
  bool bidirectional = false, bias = true;
  RnnMath math = RnnMath::exact;

  int gates() const;       // 1 (relu, tanh), 4 (lstm), 3 (gru)
  int directions() const { return bidirectional ? 2 : 1; }
  bool lstm() const { return mode == RnnMode::lstm; }
  std::int64_t layer_input(std::int64_t layer) const { return layer == 0 ? input : directions() * hidden; }
  std::int64_t weights() const;  // elements of the packed buffer
  // Offsets of layer `layer`, direction `direction` (0 forward, 1 reverse) in MIOpen's packing.
  RnnPacking packing(std::int64_t layer, int direction) const;
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  // Multiply-adds x 2 of the operation's GEMMs (fwd: W x and R h of every step; bwd-data: the
  // transposed products for dx and dh; bwd-weights: dW and dR), plus 10 per gate element and step.
  // The recomputed forward of the backward solvers is not counted.
  double flops() const;
  bool operator==(const RnnProblem&) const = default;
};

std::string to_string(const RnnProblem& p);
RnnProblem parse_rnn_problem_unchecked(std::string_view s);  // InputError naming the token
RnnProblem parse_rnn_problem(std::string_view s);            // validated; InputError naming the token or the rule

}  // namespace hiprim
