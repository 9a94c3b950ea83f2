#include "core/rnn_problem.hpp"

#include <algorithm>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

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

int RnnProblem::gates() const { return mode == RnnMode::lstm ? 4 : mode == RnnMode::gru ? 3 : 1; }

std::vector<std::string> RnnProblem::validate() const {
  std::vector<std::string> e;
  for (auto [name, v] : {std::pair{"layers", layers}, std::pair{"hidden", hidden}, std::pair{"input", input},
                         std::pair{"seq", seq}, std::pair{"n", n}})
    if (v < 1) e.push_back(std::string("rnn ") + name + " = " + std::to_string(v) + " must be >= 1");
  if (e.empty() && seq * n * std::max(input, directions() * hidden) >= (std::int64_t{1} << 31))
    e.push_back("rnn seq*n*max(input, D*hidden) must be < 2^31");
  return e;
}

std::string to_string(const RnnProblem& p) {
  return "rnn " + std::string(rnn_mode_name(p.mode)) + " " + std::string(dtype_name(p.dtype)) + " layers" + std::to_string(p.layers) +
         " hidden" + std::to_string(p.hidden) + " input" + std::to_string(p.input) + " seq" + std::to_string(p.seq) + " n" +
         std::to_string(p.n) + (p.bidirectional ? " bidir" : " uni") + (p.bias ? " bias" : " nobias");
}

RnnProblem parse_rnn_problem(std::string_view s) {
  OpTokens t(s, "rnn", "rnn lstm fp32 layers2 hidden16 input8 seq5 n3 bidir bias");
  RnnProblem p;
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
  const auto dir = t.one_of({"uni", "bidir"}, "direction mode");
  if (!dir) t.missing("direction mode uni|bidir");
  p.bidirectional = *dir == "bidir";
  const auto bias = t.one_of({"bias", "nobias"}, "bias mode");
  if (!bias) t.missing("bias mode bias|nobias");
  p.bias = *bias == "bias";
  t.finish("relu|tanh|lstm|gru, fp32|fp16|bf16, layers<L>, hidden<H>, input<X>, seq<T>, n<N>, uni|bidir, bias|nobias");
  if (auto e = p.validate(); !e.empty()) throw_invalid_problem("rnn", s, e);
  return p;
}

}  // namespace hiprim
