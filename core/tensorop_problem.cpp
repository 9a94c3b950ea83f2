#include "core/tensorop_problem.hpp"

#include <cmath>

namespace hiprim {

std::string_view tensorop_kind_name(TensorOpKind k) {
  switch (k) {
    case TensorOpKind::add: return "add";
    case TensorOpKind::mul: return "mul";
    case TensorOpKind::min: return "min";
    case TensorOpKind::max: return "max";
  }
  return "?";
}

std::string nd_layout_name(int rank, bool channels_last) {
  if (rank == 4) return channels_last ? "nhwc" : "nchw";
  if (rank == 5) return channels_last ? "ndhwc" : "ncdhw";
  return "";
}

bool nd_channels_last(const std::optional<OpTokens::Layout>& layout, std::size_t rank) {
  if (!layout) return false;
  if (static_cast<std::size_t>(layout->spatial_rank) + 2 != rank)
    bad_token(layout->token, "layout is for " + std::to_string(layout->spatial_rank + 2) + "-D tensors but the dims have " +
                                 std::to_string(rank) + " entries");
  return layout->channels_last;
}

std::string TensorOpProblem::layout_name() const { return nd_layout_name(rank(), channels_last); }

TensorDesc TensorOpProblem::a_desc() const { return TensorDesc::packed(dtype, a, channels_last); }
TensorDesc TensorOpProblem::b_desc() const { return TensorDesc::packed(dtype, b, channels_last); }
TensorDesc TensorOpProblem::c_desc() const { return a_desc(); }

std::vector<std::string> TensorOpProblem::validate() const {
  std::vector<std::string> e;
  const int r = rank();
  if (r < 1 || r > 5) e.push_back("A has " + std::to_string(r) + " dims: tensor ops take 1 to 5");
  if (b.size() != a.size())
    e.push_back("B has " + std::to_string(b.size()) + " dims but A has " + std::to_string(a.size()) +
                " (B must have A's rank, size-1 dims broadcast)");
  if (channels_last && r != 4 && r != 5)
    e.push_back("channels-last layout needs 4 or 5 dims (A has " + std::to_string(r) + ")");
  if (!e.empty()) return e;
  for (int i = 0; i < r; ++i) {
    if (a[i] < 1) e.push_back("A dim " + std::to_string(i) + " = " + std::to_string(a[i]) + " must be >= 1");
    if (b[i] != a[i] && b[i] != 1)
      e.push_back("B dim " + std::to_string(i) + " = " + std::to_string(b[i]) + " must equal A's (" +
                  std::to_string(a[i]) + ") or be 1 (broadcast)");
  }
  for (auto [v, what] : {std::pair{alpha1, "alpha1"}, std::pair{alpha2, "alpha2"}, std::pair{beta, "beta"}})
    if (!std::isfinite(v) || std::isinf(static_cast<float>(v)))
      e.push_back(std::string(what) + " = " + format_real(v) + " must be finite in fp32");
  if (e.empty() && a_desc().elements() > (std::int64_t{1} << 31) - 1)
    e.push_back("A has " + std::to_string(a_desc().elements()) + " elements, more than 2^31-1");
  return e;
}

std::vector<OpTensor> TensorOpProblem::tensors() const {
  using R = OpTensor::Role;
  return {{"a", a_desc(), R::input}, {"b", b_desc(), R::input}, {"c", c_desc(), beta == 0 ? R::output : R::in_out}};
}

double TensorOpProblem::flops() const { return static_cast<double>(c_desc().elements()) * (beta == 0 ? 3.0 : 5.0); }

std::string to_string(const TensorOpProblem& p) {
  std::string s = "tensorop " + std::string(tensorop_kind_name(p.op)) + " " + std::string(dtype_name(p.dtype));
  const std::string layout = p.layout_name();
  if (!layout.empty()) s += " " + layout;
  return s + " a" + join_dims(p.a) + " b" + join_dims(p.b) + " alpha1=" + format_real(p.alpha1) +
         " alpha2=" + format_real(p.alpha2) + " beta=" + format_real(p.beta);
}

TensorOpProblem parse_tensorop_problem_unchecked(std::string_view s) {
  OpTokens t(s, "tensorop", "tensorop add fp32 nchw a2x3x8x8 b1x3x1x1 alpha1=1 alpha2=1 beta=0");
  TensorOpProblem p;
  if (auto k = t.one_of({"add", "mul", "min", "max"}, "tensor op"))
    p.op = *k == "add" ? TensorOpKind::add : *k == "mul" ? TensorOpKind::mul : *k == "min" ? TensorOpKind::min : TensorOpKind::max;
  else
    t.missing("tensor op add|mul|min|max");
  auto dt = t.dtype();
  if (!dt) t.missing("dtype fp32|fp16|bf16");
  p.dtype = *dt;
  auto layout = t.layout();
  auto a = t.dims("a", 5);
  if (!a) t.missing("A's dims a<N0xN1x..> (1 to 5 sizes)");
  p.a = *a;
  auto b = t.dims("b", 5);
  p.b = b ? *b : p.a;
  if (auto v = t.real("alpha1=")) p.alpha1 = *v;
  if (auto v = t.real("alpha2=")) p.alpha2 = *v;
  if (auto v = t.real("beta=")) p.beta = *v;
  p.channels_last = nd_channels_last(layout, p.a.size());
  t.finish("add|mul|min|max, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc (4-D/5-D), a<dims> b<dims> alpha1=<r> alpha2=<r> beta=<r>");
  return p;
}

TensorOpProblem parse_tensorop_problem(std::string_view s) { return validated(parse_tensorop_problem_unchecked(s), s); }

}  // namespace hiprim
