#include "core/bnorm_problem.hpp"

#include <cmath>

#include "core/error.hpp"

namespace hiprim {

std::string_view bnorm_dir_name(BnormDir d) {
  switch (d) {
    case BnormDir::fwd_train: return "fwd-train";
    case BnormDir::fwd_infer: return "fwd-infer";
    case BnormDir::bwd: return "bwd";
  }
  return "?";
}

std::string_view bnorm_mode_name(BnormMode m) { return m == BnormMode::spatial ? "spatial" : "per-act"; }

std::int64_t BnormProblem::group_size() const {
  if (mode == BnormMode::per_activation) return shape.n;
  std::int64_t m = shape.n;
  for (auto v : shape.in) m *= v;
  return m;
}

std::int64_t BnormProblem::groups() const {
  if (mode == BnormMode::spatial) return shape.c;
  std::int64_t g = shape.c;
  for (auto v : shape.in) g *= v;
  return g;
}

TensorDesc BnormProblem::param_desc(DType t) const {
  if (mode == BnormMode::spatial) return shape.channel_desc(t);
  OpShape one = shape;
  one.n = 1;
  return one.desc(t);
}

std::vector<std::string> BnormProblem::validate() const {
  std::vector<std::string> e = shape.validate();
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    e.push_back("epsilon = " + format_real(epsilon) + " must be a finite number > 0");
  if (dir == BnormDir::fwd_train) {
    if (!momentum) {
      e.push_back("fwd-train needs a momentum (the running statistics' update factor)");
    } else if (!(*momentum >= 0.0 && *momentum <= 1.0)) {
      e.push_back("momentum = " + format_real(*momentum) + " must be in [0, 1]");
    }
    if (e.empty() && group_size() < 2)
      e.push_back("fwd-train needs at least 2 values per normalized group (M = " + std::to_string(group_size()) +
                  "; the unbiased running variance divides by M - 1)");
  } else if (momentum) {
    e.push_back("momentum = " + format_real(*momentum) + " is only used by fwd-train (direction " +
                std::string(bnorm_dir_name(dir)) + ")");
  }
  return e;
}

std::vector<OpTensor> BnormProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc x = shape.desc(), sc = scale_desc(), st = stats_desc();
  switch (dir) {
    case BnormDir::fwd_train:
      return {{"x", x, R::input},           {"scale", sc, R::input},         {"bias", sc, R::input},
              {"running_mean", st, R::in_out}, {"running_var", st, R::in_out}, {"y", x, R::output},
              {"saved_mean", st, R::output},   {"saved_inv_std", st, R::output}};
    case BnormDir::fwd_infer:
      return {{"x", x, R::input},        {"scale", sc, R::input},  {"bias", sc, R::input},
              {"est_mean", st, R::input}, {"est_var", st, R::input}, {"y", x, R::output}};
    case BnormDir::bwd:
      return {{"x", x, R::input},          {"dy", x, R::input},         {"scale", sc, R::input},
              {"saved_mean", st, R::input}, {"saved_inv_std", st, R::input}, {"dx", x, R::output},
              {"dscale", st, R::output},    {"dbias", st, R::output}};
  }
  return {};
}

double BnormProblem::flops() const {
  // Per element: train ~ 8 (mean, centered square, normalize, scale, shift), infer ~ 4, bwd ~ 10.
  const double per = dir == BnormDir::fwd_train ? 8 : dir == BnormDir::fwd_infer ? 4 : 10;
  return per * static_cast<double>(shape.elements());
}

std::string to_string(const BnormProblem& p) {
  std::string s = "bnorm " + std::string(bnorm_dir_name(p.dir)) + " " + std::string(bnorm_mode_name(p.mode)) + " " +
                  p.shape.tokens() + " eps" + format_real(p.epsilon);
  if (p.momentum) s += " momentum" + format_real(*p.momentum);
  if (p.scale_dtype != DType::fp32) s += " scale=" + std::string(dtype_name(p.scale_dtype));
  if (p.stats_dtype != DType::fp32) s += " stats=" + std::string(dtype_name(p.stats_dtype));
  return s;
}

BnormProblem parse_bnorm_problem_unchecked(std::string_view s) {
  OpTokens t(s, "bnorm", "bnorm fwd-train spatial fp32 nchw n2 c3 in8x8 eps1e-05 momentum0.1");
  BnormProblem p;
  auto dir = t.one_of({"fwd-train", "fwd-infer", "bwd"}, "direction");
  if (!dir) t.missing("direction fwd-train|fwd-infer|bwd");
  p.dir = *dir == "fwd-train" ? BnormDir::fwd_train : *dir == "fwd-infer" ? BnormDir::fwd_infer : BnormDir::bwd;
  auto mode = t.one_of({"spatial", "per-act"}, "mode");
  if (!mode) t.missing("mode spatial|per-act");
  p.mode = *mode == "spatial" ? BnormMode::spatial : BnormMode::per_activation;
  p.shape = read_op_shape(t);
  p.epsilon = t.real("eps").value_or(kBnormDefaultEpsilon);
  auto momentum = t.real("momentum");
  p.momentum = momentum ? momentum : p.dir == BnormDir::fwd_train ? std::optional<double>(kBnormDefaultMomentum) : std::nullopt;
  p.scale_dtype = t.dtype_after("scale=").value_or(DType::fp32);
  p.stats_dtype = t.dtype_after("stats=").value_or(DType::fp32);
  t.finish("fwd-train|fwd-infer|bwd, spatial|per-act, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW>, eps<e>, momentum<m>, "
           "scale=<dtype>, stats=<dtype>");
  return p;
}

BnormProblem parse_bnorm_problem(std::string_view s) { return validated(parse_bnorm_problem_unchecked(s), s); }

}  // namespace hiprim
