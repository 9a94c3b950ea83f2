// Weight layouts of the recurrent networks: MIOpen's packed buffer (core/rnn_problem.hpp's w, the
// layout hiprim's tensors use) and PyTorch's nn.RNN / nn.LSTM / nn.GRU parameters, to and from the
// reference's per-layer matrices (reference/rnn.hpp: RnnLayerWeights in MIOpen's gate order).
//
// PyTorch (torch.nn.LSTM docs, "Variables"): per layer k and direction, weight_ih_l{k}[_reverse]
// [G*H][in_k], weight_hh_l{k}[_reverse] [G*H][H], bias_ih_l{k}[_reverse] and bias_hh_l{k}[_reverse]
// [G*H] (bias=True only), registered in that order, layer by layer, the reverse direction after the
// forward one. The same math (GRU: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), as MIOpen), but its
// gates stacked in another order:
//   LSTM  PyTorch (i, f, g, o)   MIOpen (i, f, o, g): MIOpen gate m is PyTorch gate {0, 1, 3, 2}[m]
//   GRU   PyTorch (r, z, n)      MIOpen (z, r, n):    MIOpen gate m is PyTorch gate {1, 0, 2}[m]
//   relu / tanh: one gate, no permutation.
// The permutation is its own inverse in both cases.
#pragma once
#include <string>
#include <vector>

#include "core/rnn_problem.hpp"
#include "reference/rnn.hpp"

namespace hiprim::ref {

// The PyTorch gate index of MIOpen gate m of mode `mode`.
int torch_gate_of_miopen(RnnMode mode, int m);

// MIOpen's packed buffer (p.weights() values) -> per layer and direction, and back.
RnnWeights unpack_miopen_weights(const RnnProblem& p, const std::vector<double>& packed);
std::vector<double> pack_miopen_weights(const RnnProblem& p, const RnnWeights& w);

struct TorchRnnParam {
  std::string name;  // "weight_ih_l0", "bias_hh_l1_reverse", ...
  std::vector<double> value;  // row-major, PyTorch's gate order
};
// PyTorch's parameters in named_parameters() order, and back (InputError naming a missing or
// wrongly sized parameter).
std::vector<TorchRnnParam> to_torch_params(const RnnProblem& p, const RnnWeights& w);
RnnWeights from_torch_params(const RnnProblem& p, const std::vector<TorchRnnParam>& params);

}  // namespace hiprim::ref
