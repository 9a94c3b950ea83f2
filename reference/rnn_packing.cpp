#include "reference/rnn_packing.hpp"

#include "core/error.hpp"

namespace hiprim::ref {
namespace {

// Copies rows of gate blocks: dst gate m <- src gate perm(m); each block is H rows of `cols` values.
std::vector<double> permute_gates(const std::vector<double>& src, const RnnProblem& p, long long cols, bool to_torch) {
  const long long H = p.hidden, G = p.gates();
  std::vector<double> dst(src.size());
  for (int m = 0; m < G; ++m) {
    const int t = torch_gate_of_miopen(p.mode, m);
    const long long from = (to_torch ? m : t) * H * cols, to = (to_torch ? t : m) * H * cols;
    for (long long i = 0; i < H * cols; ++i) dst[to + i] = src[from + i];
  }
  return dst;
}

std::string suffix(long long layer, int dir) { return "_l" + std::to_string(layer) + (dir == 1 ? "_reverse" : ""); }

}  // namespace

int torch_gate_of_miopen(RnnMode mode, int m) {
  static constexpr int kLstm[] = {0, 1, 3, 2}, kGru[] = {1, 0, 2};
  if (mode == RnnMode::lstm) return kLstm[m];
  if (mode == RnnMode::gru) return kGru[m];
  return m;
}

RnnWeights unpack_miopen_weights(const RnnProblem& p, const std::vector<double>& packed) {
  if (static_cast<long long>(packed.size()) != p.weights())
    throw InputError("rnn weights: the packed buffer has " + std::to_string(packed.size()) + " values, " + to_string(p) +
                     " needs " + std::to_string(p.weights()));
  RnnWeights w = rnn_weights_like(p);
  for (long long l = 0; l < p.layers; ++l)
    for (int d = 0; d < p.directions(); ++d) {
      RnnLayerWeights& lw = w[l * p.directions() + d];
      const RnnPacking k = p.packing(l, d);
      auto take = [&](std::vector<double>& v, long long at) { std::copy_n(packed.begin() + at, v.size(), v.begin()); };
      take(lw.w, k.w), take(lw.r, k.r);
      if (p.bias) take(lw.bw, k.bw), take(lw.br, k.br);
    }
  return w;
}

std::vector<double> pack_miopen_weights(const RnnProblem& p, const RnnWeights& w) {
  std::vector<double> packed(static_cast<std::size_t>(p.weights()), 0.0);
  const RnnWeights shape = rnn_weights_like(p);
  if (w.size() != shape.size()) throw InputError("rnn weights: wrong number of layers x directions for " + to_string(p));
  for (long long l = 0; l < p.layers; ++l)
    for (int d = 0; d < p.directions(); ++d) {
      const long long i = l * p.directions() + d;
      const RnnLayerWeights& lw = w[i];
      if (lw.w.size() != shape[i].w.size() || lw.r.size() != shape[i].r.size() || lw.bw.size() != shape[i].bw.size() ||
          lw.br.size() != shape[i].br.size())
        throw InputError("rnn weights: layer " + std::to_string(l) + " direction " + std::to_string(d) + " has the wrong sizes for " + to_string(p));
      const RnnPacking k = p.packing(l, d);
      auto put = [&](const std::vector<double>& v, long long at) { std::copy(v.begin(), v.end(), packed.begin() + at); };
      put(lw.w, k.w), put(lw.r, k.r);
      if (p.bias) put(lw.bw, k.bw), put(lw.br, k.br);
    }
  return packed;
}

std::vector<TorchRnnParam> to_torch_params(const RnnProblem& p, const RnnWeights& w) {
  std::vector<TorchRnnParam> out;
  for (long long l = 0; l < p.layers; ++l)
    for (int d = 0; d < p.directions(); ++d) {
      const RnnLayerWeights& lw = w.at(l * p.directions() + d);
      const std::string s = suffix(l, d);
      out.push_back({"weight_ih" + s, permute_gates(lw.w, p, p.layer_input(l), true)});
      out.push_back({"weight_hh" + s, permute_gates(lw.r, p, p.hidden, true)});
      if (p.bias) {
        out.push_back({"bias_ih" + s, permute_gates(lw.bw, p, 1, true)});
        out.push_back({"bias_hh" + s, permute_gates(lw.br, p, 1, true)});
      }
    }
  return out;
}

RnnWeights from_torch_params(const RnnProblem& p, const std::vector<TorchRnnParam>& params) {
  RnnWeights w = rnn_weights_like(p);
  auto find = [&](const std::string& name, std::size_t size) -> const std::vector<double>& {
    for (const auto& t : params)
      if (t.name == name) {
        if (t.value.size() != size)
          throw InputError("rnn torch parameter " + name + " has " + std::to_string(t.value.size()) + " values, expected " +
                           std::to_string(size) + " for " + to_string(p));
        return t.value;
      }
    throw InputError("rnn torch parameters: " + name + " is missing for " + to_string(p));
  };
  for (long long l = 0; l < p.layers; ++l)
    for (int d = 0; d < p.directions(); ++d) {
      RnnLayerWeights& lw = w[l * p.directions() + d];
      const std::string s = suffix(l, d);
      lw.w = permute_gates(find("weight_ih" + s, lw.w.size()), p, p.layer_input(l), false);
      lw.r = permute_gates(find("weight_hh" + s, lw.r.size()), p, p.hidden, false);
      if (p.bias) {
        lw.bw = permute_gates(find("bias_ih" + s, lw.bw.size()), p, 1, false);
        lw.br = permute_gates(find("bias_hh" + s, lw.br.size()), p, 1, false);
      }
    }
  return w;
}

}  // namespace hiprim::ref
