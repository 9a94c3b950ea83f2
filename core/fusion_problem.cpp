#include "core/fusion_problem.hpp"

#include <cmath>

#include "core/error.hpp"

namespace hiprim {

std::string_view fusion_op_name(FusionOp o) {
  switch (o) {
    case FusionOp::conv: return "conv";
    case FusionOp::bias: return "bias";
    case FusionOp::bnorm_infer: return "bnorm-infer";
    case FusionOp::add: return "add";
    case FusionOp::activ: return "activ";
  }
  return "?";
}

std::string_view fusion_rounding_name(FusionRounding r) { return r == FusionRounding::fused ? "fused" : "unfused"; }

const FusionStep* FusionProblem::step(FusionOp o) const {
  for (const FusionStep& s : steps)
    if (s.op == o) return &s;
  return nullptr;
}

ConvProblem FusionProblem::conv() const {
  const FusionStep* s = step(FusionOp::conv);
  ConvProblem c = s ? s->conv : ConvProblem{};
  c.dtype = dtype;
  c.channels_last = channels_last;
  return c;
}

OpShape FusionProblem::y_shape() const {
  const ConvProblem c = conv();
  OpShape s;
  s.dtype = dtype;
  s.channels_last = channels_last;
  s.n = c.n;
  s.c = c.k;
  s.in = c.out();
  return s;
}

TensorDesc FusionProblem::y_desc() const { return conv().y_desc(); }
TensorDesc FusionProblem::channel_desc(DType t) const { return TensorDesc::packed(t, Dims{conv().k}, false); }

ActivProblem FusionProblem::activ() const {
  const FusionStep* s = step(FusionOp::activ);
  if (!s) throw InputError("fusion problem has no activ step: " + to_string(*this));
  ActivProblem a;
  a.dir = ActivDir::fwd;
  a.mode = s->mode;
  a.shape = y_shape();
  a.alpha = s->activ_alpha;
  a.beta = s->activ_beta;
  a.gamma = s->activ_gamma;
  return a;
}

std::vector<std::string> FusionProblem::validate() const {
  std::vector<std::string> e;
  if (steps.empty() || steps[0].op != FusionOp::conv) {
    e.push_back(steps.empty() ? "the chain is empty: it must start with conv(...)"
                              : "the chain starts with " + std::string(fusion_op_name(steps[0].op)) +
                                    ": it must start with conv(...) (the order is conv, bias, bnorm-infer, add, activ)");
  }
  for (std::size_t i = 1; i < steps.size(); ++i) {
    const auto name = std::string(fusion_op_name(steps[i].op));
    for (std::size_t j = 0; j < i; ++j)
      if (steps[j].op == steps[i].op) e.push_back(name + " given twice (steps " + std::to_string(j + 1) + " and " + std::to_string(i + 1) + ")");
    if (steps[i].op < steps[i - 1].op && steps[i].op != FusionOp::conv)
      e.push_back(name + " (step " + std::to_string(i + 1) + ") comes after " + std::string(fusion_op_name(steps[i - 1].op)) +
                  ": the order is conv, bias, bnorm-infer, add, activ");
  }
  if (!e.empty()) return e;
  const ConvProblem c = conv();
  const FusionStep& cs = steps[0];
  if (cs.conv.dir != ConvDir::fwd) e.push_back("conv: direction " + std::string(conv_dir_name(cs.conv.dir)) + ": the chain is a forward convolution");
  if (cs.conv.mode != ConvMode::conv) e.push_back("conv: transposed convolution is not supported in a fusion chain");
  if (cs.conv.bias) e.push_back("conv: 'bias' inside conv(...): write the bias step after it");
  if (cs.conv.dtype != dtype || cs.conv.channels_last != channels_last)
    e.push_back("conv: its dtype/layout (" + std::string(dtype_name(cs.conv.dtype)) + " " + cs.conv.layout_name() +
                ") differ from the fusion's (" + std::string(dtype_name(dtype)) + " " + c.layout_name() + ")");
  for (const auto& m : c.validate()) e.push_back("conv: " + m);
  if (!e.empty()) return e;
  if (const FusionStep* b = step(FusionOp::bnorm_infer))
    if (!(b->epsilon > 0) || !std::isfinite(b->epsilon))
      e.push_back("bnorm-infer: eps = " + format_real(b->epsilon) + " must be finite and > 0");
  if (const FusionStep* a = step(FusionOp::add))
    for (auto [v, what] : {std::pair{a->alpha, "alpha"}, std::pair{a->beta, "beta"}})
      if (!std::isfinite(v) || std::isinf(static_cast<float>(v)))
        e.push_back(std::string("add: ") + what + " = " + format_real(v) + " must be finite in fp32");
  if (has(FusionOp::activ))
    for (const auto& m : activ().validate()) e.push_back("activ: " + m);
  return e;
}

std::vector<OpTensor> FusionProblem::tensors() const {
  using R = OpTensor::Role;
  const ConvProblem c = conv();
  std::vector<OpTensor> t{{"x", c.x_desc(), R::input}, {"w", c.w_desc(), R::input}};
  if (has(FusionOp::bias)) t.push_back({"bias", channel_desc(dtype), R::input});
  if (has(FusionOp::bnorm_infer))
    for (const char* n : {"bn_scale", "bn_shift", "bn_mean", "bn_var"}) t.push_back({n, channel_desc(DType::fp32), R::input});
  if (has(FusionOp::add)) t.push_back({"residual", y_desc(), R::input});
  t.push_back({"y", y_desc(), R::output});
  return t;
}

double FusionProblem::flops() const {
  double per = 0;
  for (const FusionStep& s : steps)
    per += s.op == FusionOp::bias ? 1 : s.op == FusionOp::bnorm_infer ? 2 : s.op == FusionOp::add ? 3 : s.op == FusionOp::activ ? 1 : 0;
  return conv().flops() + per * static_cast<double>(y_desc().elements());
}

// ---- canonical string ----

namespace {

// conv's canonical string without "conv fwd <dtype> <layout> " (the fusion's own tokens).
std::string conv_group(const FusionProblem& p, const FusionStep& s) {
  ConvProblem c = s.conv;
  c.dtype = p.dtype;
  c.channels_last = p.channels_last;
  const std::string full = to_string(c);
  const std::string head = "conv " + std::string(conv_dir_name(c.dir)) + " " + std::string(dtype_name(c.dtype)) + " " + c.layout_name() + " ";
  std::string inner = full.compare(0, head.size(), head) == 0 ? full.substr(head.size()) : full.substr(5);
  if (c.dir != ConvDir::fwd) inner = std::string(conv_dir_name(c.dir)) + " " + inner;
  return "conv(" + inner + ")";
}

std::string step_string(const FusionProblem& p, const FusionStep& s) {
  switch (s.op) {
    case FusionOp::conv: return conv_group(p, s);
    case FusionOp::bias: return "bias";
    case FusionOp::bnorm_infer: return "bnorm-infer(eps" + format_real(s.epsilon) + ")";
    case FusionOp::add: return "add(alpha" + format_real(s.alpha) + " beta" + format_real(s.beta) + ")";
    case FusionOp::activ: {
      std::string a = "activ(" + std::string(activ_mode_name(s.mode));
      if (activ_uses_alpha(s.mode) || s.activ_alpha != 1) a += " alpha" + format_real(s.activ_alpha);
      if (activ_uses_beta(s.mode) || s.activ_beta != 1) a += " beta" + format_real(s.activ_beta);
      if (activ_uses_gamma(s.mode) || s.activ_gamma != 1) a += " gamma" + format_real(s.activ_gamma);
      return a + ")";
    }
  }
  return "?";
}

constexpr const char* kExample = "fusion fwd fp32 nchw conv(n1 c3 k8 in8x8 f3x3 pad1x1) bias activ(relu)";

// The tokens inside a step's parentheses, re-read by OpTokens as "<name> <inner>"; an error is
// reported with the step's position in the whole string.
std::string inner_of(const std::vector<Token>& group) {
  std::string s;
  for (const Token& t : group) s += (s.empty() ? "" : " ") + t.text;
  const auto open = s.find('(');
  return s.substr(open + 1, s.size() - open - 2);
}

template <typename F>
void in_step(const Token& first, const std::string& name, F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    // The inner reader's "problem string: token <i> " counts within the group: dropped.
    std::string why = e.what();
    const std::string head = "problem string: token ";
    if (why.compare(0, head.size(), head) == 0) why = why.substr(why.find(' ', head.size()) + 1);
    bad_token(first, "in " + name + "(...): " + why);
  }
}

FusionStep read_step(const FusionProblem& p, const std::optional<OpTokens::Layout>& layout, const std::vector<Token>& group) {
  const Token& first = group.front();
  const auto open = first.text.find('(');
  const std::string name = open == std::string::npos ? first.text : first.text.substr(0, open);
  const bool has_params = open != std::string::npos;
  const std::string inner = has_params ? inner_of(group) : "";
  FusionStep s;
  if (name == "conv") {
    s.op = FusionOp::conv;
    if (!has_params) bad_token(first, "conv needs its geometry: conv(n<N> c<C> k<K> in<HxW> f<RxS> ...)");
    in_step(first, name, [&] {
      std::string head = "conv";
      std::string probe_text = "conv ";  // appended: GCC 12 misreports literal + string&& (-Wrestrict)
      probe_text += inner;
      OpTokens probe(probe_text, "conv", kExample);
      if (probe.dtype() || probe.layout())
        throw InputError("the dtype and layout are the fusion's: write them once, outside conv(...)");
      if (!probe.one_of({"fwd", "bwd-data", "bwd-weights"}, "direction")) head += " fwd";
      head += ' ';
      head += dtype_name(p.dtype);
      if (layout) {
        head += ' ';
        head += layout->token.text;
      }
      head += ' ';
      head += inner;
      s.conv = parse_conv_problem_unchecked(head);
    });
  } else if (name == "bias") {
    s.op = FusionOp::bias;
    if (has_params) bad_token(first, "bias takes no parameters (the bias tensor is an input)");
  } else if (name == "bnorm-infer") {
    s.op = FusionOp::bnorm_infer;
    if (has_params)
      in_step(first, name, [&] {
        OpTokens t(name + " " + inner, name, "bnorm-infer(eps1e-05)");
        if (auto e = t.real("eps")) s.epsilon = *e;
        t.finish("eps<e>");
      });
  } else if (name == "add") {
    s.op = FusionOp::add;
    if (has_params)
      in_step(first, name, [&] {
        OpTokens t(name + " " + inner, name, "add(alpha1 beta1)");
        if (auto a = t.real("alpha")) s.alpha = *a;
        if (auto b = t.real("beta")) s.beta = *b;
        t.finish("alpha<a> beta<b>");
      });
  } else if (name == "activ") {
    s.op = FusionOp::activ;
    if (!has_params) bad_token(first, "activ needs its mode: activ(<mode> [alpha<a>] [beta<b>] [gamma<g>])");
    in_step(first, name, [&] {
      OpTokens t(name + " " + inner, name, "activ(relu)");
      std::vector<std::string> names;
      for (int i = 0; i < kActivModeCount; ++i) names.emplace_back(activ_mode_name(static_cast<ActivMode>(i)));
      std::vector<std::string_view> views(names.begin(), names.end());
      auto mode = t.one_of(views, "mode");
      if (auto a = t.real("alpha")) s.activ_alpha = *a;
      if (auto b = t.real("beta")) s.activ_beta = *b;
      if (auto g = t.real("gamma")) s.activ_gamma = *g;
      t.finish("a mode (passthru, logistic, tanh, relu, softrelu, abs, power, clippedrelu, leakyrelu, elu, gelu, gelu_tanh, silu), alpha<a> beta<b> gamma<g>");
      if (!mode) t.missing("an activation mode (passthru, logistic, tanh, relu, softrelu, abs, power, clippedrelu, leakyrelu, elu, gelu, gelu_tanh, silu)");
      s.mode = *parse_activ_mode(*mode);
    });
  } else {
    bad_token(first, "unknown fusion step '" + name + "'; the steps are conv(...), bias, bnorm-infer(...), add(...), activ(...)");
  }
  return s;
}

bool is_step_word(const std::string& w) { return w == "conv" || w == "bias" || w == "bnorm-infer" || w == "add" || w == "activ"; }

}  // namespace

std::string to_string(const FusionProblem& p) {
  std::string s = "fusion fwd ";
  s += dtype_name(p.dtype);
  s += ' ';
  s += spatial_layout_name(p.conv().rank(), p.channels_last);
  for (const FusionStep& st : p.steps) {
    s += ' ';
    s += step_string(p, st);
  }
  if (p.rounding == FusionRounding::unfused) s += " rounding=unfused";
  return s;
}

FusionProblem parse_fusion_problem_unchecked(std::string_view s) {
  OpTokens t(s, "fusion", kExample);
  // The steps first: a token with '(' opens a group that ends with the token ending in ')'.
  bool in_group = false;
  std::vector<Token> step_tokens = t.take_if([&](const Token& k) {
    if (in_group) {
      in_group = k.text.back() != ')';
      return true;
    }
    if (k.text.find('(') != std::string::npos) {
      in_group = k.text.back() != ')';
      return true;
    }
    return is_step_word(k.text);
  });
  if (in_group) bad_token(t.end(), "a step's '(' has no closing ')'");
  FusionProblem p;
  auto dir = t.one_of({"fwd", "bwd"}, "direction");
  if (dir && *dir == "bwd") t.missing("direction fwd: a fusion chain is inference only (bwd is not defined)");
  auto dt = t.dtype();
  if (!dt) t.missing("dtype fp32|fp16|bf16");
  p.dtype = *dt;
  const auto layout = t.layout();
  if (layout) p.channels_last = layout->channels_last;
  if (auto r = t.one_of({"rounding=fused", "rounding=unfused"}, "rounding model"))
    p.rounding = *r == "rounding=fused" ? FusionRounding::fused : FusionRounding::unfused;
  t.finish("fwd, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, rounding=fused|unfused, and the steps conv(...) bias bnorm-infer(...) add(...) activ(...)");
  // Split the step tokens into groups and read each.
  for (std::size_t i = 0; i < step_tokens.size();) {
    std::vector<Token> group{step_tokens[i]};
    if (step_tokens[i].text.find('(') != std::string::npos)
      while (group.back().text.back() != ')' && ++i < step_tokens.size()) group.push_back(step_tokens[i]);
    ++i;
    p.steps.push_back(read_step(p, layout, group));
  }
  if (p.steps.empty()) t.missing("the chain: conv(...) first, then bias, bnorm-infer(...), add(...), activ(...)");
  if (layout && p.has(FusionOp::conv) && layout->spatial_rank != p.conv().rank())
    bad_token(layout->token, "layout is for " + std::to_string(layout->spatial_rank) + "D but conv's in<..> has " +
                                 std::to_string(p.conv().rank()) + " sizes");
  return p;
}

FusionProblem parse_fusion_problem(std::string_view s) { return validated(parse_fusion_problem_unchecked(s), s); }

BnormProblem fusion_bnorm_problem(const FusionProblem& p, const FusionStep& st, DType dtype) {
  BnormProblem q;
  q.dir = BnormDir::fwd_infer;
  q.mode = BnormMode::spatial;
  q.shape = p.y_shape();
  q.shape.dtype = dtype;
  q.epsilon = st.epsilon;
  q.momentum = std::nullopt;
  return q;
}

}  // namespace hiprim
