#include "core/rnn_problem.hpp"

#include <algorithm>

#include "core/op_grammar.hpp"

namespace hiprim {

std::string_view rnn_mode_name(RnnMode m) {
  switch (m) {
    case RnnMode::relu: return "relu";
    case RnnMode::tanh: return "tanh";
    case RnnMode::lstm: return "lstm";
    case RnnMode::gru: return "gru";
  }
  return "?";
}

std::string_view rnn_dir_name(RnnDir d) {
  return d == RnnDir::fwd ? "fwd" : d == RnnDir::bwd_data ? "bwd-data" : "bwd-weights";
}

int RnnProblem::gates() const { return mode == RnnMode::lstm ? 4 : mode == RnnMode::gru ? 3 : 1; }

std::int64_t RnnProblem::weights() const {
  const std::int64_t GH = gates() * hidden, D = directions();
  std::int64_t total = 0;
  for (std::int64_t l = 0; l < layers; ++l) total += D * GH * (layer_input(l) + hidden) + (bias ? 2 * D * GH : 0);
  return total;
}

// MIOpen's packing (core/rnn_problem.hpp): per layer [W d0][W d1][R d0][R d1] after the layers below
// it; the biases after all matrices, per layer [bW d0][bW d1][bR d0][bR d1].
RnnPacking RnnProblem::packing(std::int64_t layer, int direction) const {
  const std::int64_t GH = gates() * hidden, D = directions();
  std::int64_t base = 0, matrices = 0;
  for (std::int64_t l = 0; l < layers; ++l) {
    const std::int64_t size = D * GH * (layer_input(l) + hidden);
    if (l < layer) base += size;
    matrices += size;
  }
  RnnPacking k;
  k.w = base + direction * GH * layer_input(layer);
  k.r = base + D * GH * layer_input(layer) + direction * GH * hidden;
  const std::int64_t bias_base = matrices + layer * 2 * D * GH;
  k.bw = bias_base + direction * GH;
  k.br = bias_base + D * GH + direction * GH;
  return k;
}

std::vector<std::string> RnnProblem::validate() const {
  std::vector<std::string> e;
  for (auto [name, v] : {std::pair{"layers", layers}, std::pair{"hidden", hidden}, std::pair{"input", input},
                         std::pair{"seq", seq}, std::pair{"n", n}})
    if (v < 1) e.push_back(std::string("rnn ") + name + " = " + std::to_string(v) + " must be >= 1");
  if (math == RnnMath::h16 && dtype == DType::fp32)
    e.push_back("rnn math=h16 is defined for fp16/bf16 data only (it rounds h to the data type; fp32 data keeps it exact)");
  if (!e.empty()) return e;
  // Every index a kernel forms (rows T*N times the widest row, the weight buffer, the states) stays
  // below 2^31 with room for a GEMM tile (gpu/gemm/gemm_index.hpp's kGemmMaxSize).
  constexpr std::int64_t kMax = (std::int64_t{1} << 31) - 4096;
  const std::int64_t widest = std::max({input, directions() * hidden, gates() * hidden});
  if (layers > kMax || hidden > kMax || input > kMax || seq > kMax || n > kMax || seq * n > kMax / widest)
    e.push_back("rnn seq*n*max(input, D*hidden, gates*hidden) must be < 2^31 - 4096");
  else if (gates() * hidden > kMax / std::max(input + hidden, directions() * hidden + hidden) / directions() / layers)
    e.push_back("rnn weights (layers*D*gates*hidden*(input+hidden) and up) must be < 2^31 - 4096");
  else if (layers * directions() * n > kMax / hidden)
    e.push_back("rnn states layers*D*n*hidden must be < 2^31 - 4096");
  return e;
}

std::vector<OpTensor> RnnProblem::tensors() const {
  using R = OpTensor::Role;
  const std::int64_t D = directions();
  const TensorDesc x = TensorDesc::packed(dtype, {seq, n, input}, false);
  const TensorDesc y = TensorDesc::packed(dtype, {seq, n, D * hidden}, false);
  const TensorDesc h = TensorDesc::packed(dtype, {layers * D, n, hidden}, false);
  const TensorDesc w = TensorDesc::packed(dtype, {weights()}, false);
  std::vector<OpTensor> t{{"x", x, R::input}, {"hx", h, R::input}};
  if (lstm()) t.push_back({"cx", h, R::input});
  t.push_back({"w", w, R::input});
  if (dir == RnnDir::fwd) {
    t.push_back({"y", y, R::output});
    t.push_back({"hy", h, R::output});
    if (lstm()) t.push_back({"cy", h, R::output});
    return t;
  }
  t.push_back({"dy", y, R::input});
  t.push_back({"dhy", h, R::input});
  if (lstm()) t.push_back({"dcy", h, R::input});
  if (dir == RnnDir::bwd_weights) {
    t.push_back({"dw", w, R::output});
    return t;
  }
  t.push_back({"dx", x, R::output});
  t.push_back({"dhx", h, R::output});
  if (lstm()) t.push_back({"dcx", h, R::output});
  return t;
}

double RnnProblem::flops() const {
  const double GH = static_cast<double>(gates() * hidden), steps = static_cast<double>(seq * n);
  double f = 0;
  for (std::int64_t l = 0; l < layers; ++l)
    f += directions() * steps * GH * (2.0 * static_cast<double>(layer_input(l) + hidden) + 10.0);
  return f;
}

std::string to_string(const RnnProblem& p) {
  return "rnn " + std::string(rnn_dir_name(p.dir)) + " " + std::string(rnn_mode_name(p.mode)) + " " +
         std::string(dtype_name(p.dtype)) + " layers" + std::to_string(p.layers) + " hidden" + std::to_string(p.hidden) +
         " input" + std::to_string(p.input) + " seq" + std::to_string(p.seq) + " n" + std::to_string(p.n) +
         (p.bidirectional ? " bidir" : " uni") + (p.bias ? " bias" : " nobias") + (p.math == RnnMath::h16 ? " math=h16" : "");
}

RnnProblem parse_rnn_problem_unchecked(std::string_view s) {
  OpTokens t(s, "rnn", "rnn fwd lstm fp32 layers2 hidden16 input8 seq5 n3 bidir bias");
  RnnProblem p;
  const auto dir = t.one_of({"fwd", "bwd-data", "bwd-weights"}, "direction");
  if (!dir) t.missing("direction fwd|bwd-data|bwd-weights");
  p.dir = *dir == "fwd" ? RnnDir::fwd : *dir == "bwd-data" ? RnnDir::bwd_data : RnnDir::bwd_weights;
  const auto mode = t.one_of({"relu", "tanh", "lstm", "gru"}, "mode");
  if (!mode) t.missing("mode relu|tanh|lstm|gru");
  p.mode = *mode == "relu" ? RnnMode::relu : *mode == "tanh" ? RnnMode::tanh : *mode == "lstm" ? RnnMode::lstm : RnnMode::gru;
  const auto dt = t.dtype();
  if (!dt) t.missing("dtype fp32|fp16|bf16");
  p.dtype = *dt;
  auto need = [&](const char* prefix) {
    const auto v = t.integer(prefix);
    if (!v) t.missing(std::string(prefix) + "<int>");
    return *v;
  };
  p.layers = need("layers"), p.hidden = need("hidden"), p.input = need("input"), p.seq = need("seq"), p.n = need("n");
  const auto bidir = t.one_of({"uni", "bidir"}, "direction mode");
  if (!bidir) t.missing("direction mode uni|bidir");
  p.bidirectional = *bidir == "bidir";
  const auto bias = t.one_of({"bias", "nobias"}, "bias mode");
  if (!bias) t.missing("bias mode bias|nobias");
  p.bias = *bias == "bias";
  if (t.word("math=h16")) p.math = RnnMath::h16;
  t.finish("fwd|bwd-data|bwd-weights, relu|tanh|lstm|gru, fp32|fp16|bf16, layers<L>, hidden<H>, input<X>, seq<T>, n<N>, uni|bidir, bias|nobias, math=h16");
  return p;
}

RnnProblem parse_rnn_problem(std::string_view s) { return validated(parse_rnn_problem_unchecked(s), s); }

}  // namespace hiprim
