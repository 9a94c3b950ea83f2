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
// Canonical string: rnn <relu|tanh|lstm|gru> <dtype> layers<L> hidden<H> input<X> seq<T> n<N> <uni|bidir> <bias|nobias>
//   e.g. "rnn lstm fp32 layers2 hidden16 input8 seq5 n3 bidir bias"
// Not yet a row of core/primitives.def: the double reference (reference/rnn.hpp) comes first; the
// weight packing of MIOpen and PyTorch, variable lengths, skip input mode, batch-major layout,
// tensors, fills, fuzzing, GPU solvers and MIOpenDriver's rnn flags join when it is registered.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace hiprim {

enum class RnnMode { relu, tanh, lstm, gru };
std::string_view rnn_mode_name(RnnMode m);

struct RnnProblem {
  RnnMode mode = RnnMode::lstm;
  DType dtype = DType::fp32;
  std::int64_t layers = 1, hidden = 1, input = 1, seq = 1, n = 1;
  bool bidirectional = false, bias = true;

  int gates() const;       // 1 (relu, tanh), 4 (lstm), 3 (gru)
  int directions() const { return bidirectional ? 2 : 1; }
  std::int64_t layer_input(std::int64_t layer) const { return layer == 0 ? input : directions() * hidden; }
  std::vector<std::string> validate() const;
  bool operator==(const RnnProblem&) const = default;
};

std::string to_string(const RnnProblem& p);
RnnProblem parse_rnn_problem(std::string_view s);  // validated; InputError naming the token or the rule

}  // namespace hiprim
