#include "core/activ_problem.hpp"

#include <cmath>

#include "core/error.hpp"

namespace hiprim {

std::string_view activ_dir_name(ActivDir d) { return d == ActivDir::fwd ? "fwd" : "bwd"; }

namespace {
constexpr std::string_view kModeNames[kActivModeCount] = {"passthru",   "logistic",  "tanh",        "relu",     "softrelu",
                                                          "abs",        "power",     "clippedrelu", "leakyrelu", "elu",
                                                          "gelu",       "gelu_tanh", "silu"};
}  // namespace

std::string_view activ_mode_name(ActivMode m) { return kModeNames[static_cast<int>(m)]; }

std::optional<ActivMode> parse_activ_mode(std::string_view s) {
  for (int i = 0; i < kActivModeCount; ++i)
    if (kModeNames[i] == s) return static_cast<ActivMode>(i);
  return std::nullopt;
}

bool activ_uses_alpha(ActivMode m) {
  return m == ActivMode::tanh || m == ActivMode::power || m == ActivMode::clippedrelu || m == ActivMode::leakyrelu ||
         m == ActivMode::elu;
}
bool activ_uses_beta(ActivMode m) { return m == ActivMode::tanh || m == ActivMode::power; }
bool activ_uses_gamma(ActivMode m) { return m == ActivMode::power; }

std::vector<std::string> ActivProblem::validate() const {
  std::vector<std::string> e = shape.validate();
  const std::string mode_s(activ_mode_name(mode));
  auto coefficient = [&](const char* name, double v, bool used) {
    if (!std::isfinite(v)) e.push_back(std::string(name) + " = " + format_real(v) + " must be finite");
    else if (!used && v != 1.0)
      e.push_back(std::string(name) + " = " + format_real(v) + " is not used by mode " + mode_s + " (leave it at 1)");
  };
  coefficient("alpha", alpha, activ_uses_alpha(mode));
  coefficient("beta", beta, activ_uses_beta(mode));
  coefficient("gamma", gamma, activ_uses_gamma(mode));
  if (mode == ActivMode::clippedrelu && std::isfinite(alpha) && alpha < 0)
    e.push_back("alpha = " + format_real(alpha) + " (the clipping ceiling of clippedrelu) must be >= 0");
  return e;
}

std::vector<OpTensor> ActivProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc d = shape.desc();
  if (dir == ActivDir::fwd) return {{"x", d, R::input}, {"y", d, R::output}};
  return {{"x", d, R::input}, {"dy", d, R::input}, {"dx", d, R::output}};
}

double ActivProblem::flops() const { return static_cast<double>(shape.elements()); }

std::string to_string(const ActivProblem& p) {
  std::string s = "activ " + std::string(activ_dir_name(p.dir)) + " " + std::string(activ_mode_name(p.mode)) + " " + p.shape.tokens();
  if (activ_uses_alpha(p.mode)) s += " alpha" + format_real(p.alpha);
  if (activ_uses_beta(p.mode)) s += " beta" + format_real(p.beta);
  if (activ_uses_gamma(p.mode)) s += " gamma" + format_real(p.gamma);
  return s;
}

ActivProblem parse_activ_problem_unchecked(std::string_view s) {
  OpTokens t(s, "activ", "activ fwd relu fp32 nchw n1 c3 in8x8");
  ActivProblem p;
  auto dir = t.one_of({"fwd", "bwd"}, "direction");
  if (!dir) t.missing("direction fwd|bwd");
  p.dir = *dir == "fwd" ? ActivDir::fwd : ActivDir::bwd;
  std::vector<std::string_view> modes(std::begin(kModeNames), std::end(kModeNames));
  auto mode = t.one_of(modes, "mode");
  if (!mode) t.missing("mode (passthru, logistic, tanh, relu, softrelu, abs, power, clippedrelu, leakyrelu, elu, gelu, gelu_tanh, silu)");
  p.mode = *parse_activ_mode(*mode);
  p.shape = read_op_shape(t);
  if (auto a = t.real("alpha")) p.alpha = *a;
  if (auto b = t.real("beta")) p.beta = *b;
  if (auto g = t.real("gamma")) p.gamma = *g;
  t.finish("fwd|bwd, a mode, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW>, alpha<a> beta<b> gamma<g>");
  return p;
}

ActivProblem parse_activ_problem(std::string_view s) { return validated(parse_activ_problem_unchecked(s), s); }

}  // namespace hiprim
