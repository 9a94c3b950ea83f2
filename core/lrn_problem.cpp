#include "core/lrn_problem.hpp"

#include <cmath>

namespace hiprim {

std::string_view lrn_dir_name(LrnDir d) { return d == LrnDir::fwd ? "fwd" : "bwd"; }
std::string_view lrn_mode_name(LrnMode m) { return m == LrnMode::within ? "within" : "across"; }

std::int64_t LrnProblem::area() const {
  if (mode == LrnMode::across) return size;
  std::int64_t a = 1;
  for (int i = 0; i < shape.rank(); ++i) a *= size;
  return a;
}

std::vector<std::string> LrnProblem::validate() const {
  std::vector<std::string> e = shape.validate();
  if (size < 1 || size % 2 == 0)
    e.push_back("LRN size n = " + std::to_string(size) + " must be odd and >= 1 (the window is centred on the element)");
  else if (size > 255)
    e.push_back("LRN size n = " + std::to_string(size) + " must be <= 255");
  if (!std::isfinite(alpha) || alpha < 0) e.push_back("LRN alpha = " + format_real(alpha) + " must be finite and >= 0");
  if (!std::isfinite(beta)) e.push_back("LRN beta = " + format_real(beta) + " must be finite");
  if (!std::isfinite(k) || k <= 0) e.push_back("LRN k = " + format_real(k) + " must be finite and > 0 (the scale is k + ...)");
  // The device computes with fp32 scalars: they must not round to 0 / overflow there.
  if (std::isfinite(k) && k > 0 && static_cast<float>(k) == 0.0f)
    e.push_back("LRN k = " + format_real(k) + " rounds to 0 in fp32");
  for (auto [v, what] : {std::pair{alpha, "alpha"}, std::pair{beta, "beta"}, std::pair{k, "k"}})
    if (std::isfinite(v) && std::isinf(static_cast<float>(v)))
      e.push_back("LRN " + std::string(what) + " = " + format_real(v) + " overflows fp32");
  return e;
}

std::vector<OpTensor> LrnProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc d = shape.desc();
  if (dir == LrnDir::fwd) return {{"x", d, R::input}, {"y", d, R::output}};
  return {{"x", d, R::input}, {"dy", d, R::input}, {"dx", d, R::output}};
}

double LrnProblem::flops() const {
  // A square and an add per window position, then the scale and the power (counted as 10).
  const double per = 2.0 * static_cast<double>(area()) + 10.0;
  return static_cast<double>(shape.elements()) * (dir == LrnDir::fwd ? per : 2.0 * per);
}

std::string to_string(const LrnProblem& p) {
  return "lrn " + std::string(lrn_dir_name(p.dir)) + " " + std::string(lrn_mode_name(p.mode)) + " " + p.shape.tokens() +
         " size" + std::to_string(p.size) + " alpha" + format_real(p.alpha) + " beta" + format_real(p.beta) + " k" +
         format_real(p.k);
}

LrnProblem parse_lrn_problem_unchecked(std::string_view s) {
  OpTokens t(s, "lrn", "lrn fwd across fp32 nchw n1 c8 in8x8 size5 alpha0.001 beta0.75 k1");
  LrnProblem p;
  if (auto d = t.one_of({"fwd", "bwd"}, "direction")) p.dir = *d == "fwd" ? LrnDir::fwd : LrnDir::bwd;
  if (auto m = t.one_of({"within", "across"}, "LRN mode"))
    p.mode = *m == "within" ? LrnMode::within : LrnMode::across;
  else
    t.missing("LRN mode within|across");
  if (auto v = t.integer("size")) p.size = *v;
  if (auto v = t.real("alpha")) p.alpha = *v;
  if (auto v = t.real("beta")) p.beta = *v;
  if (auto v = t.real("k")) p.k = *v;
  p.shape = read_op_shape(t);
  t.finish("fwd|bwd, within|across, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW> size<n> alpha<a> beta<b> k<k>");
  return p;
}

LrnProblem parse_lrn_problem(std::string_view s) { return validated(parse_lrn_problem_unchecked(s), s); }

}  // namespace hiprim
