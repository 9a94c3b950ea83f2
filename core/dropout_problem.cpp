#include "core/dropout_problem.hpp"

#include <cmath>

#include "core/error.hpp"

namespace hiprim {

std::string_view dropout_dir_name(DropoutDir d) { return d == DropoutDir::fwd ? "fwd" : "bwd"; }

std::uint32_t DropoutProblem::threshold() const {
  // rate in [0, 1): rate * 2^32 < 2^32 is exact in double (a power-of-two scaling), floor fits 32 bits.
  return static_cast<std::uint32_t>(std::floor(rate * 4294967296.0));
}

float DropoutProblem::scale() const { return static_cast<float>(1.0 / (1.0 - rate)); }

std::vector<std::string> DropoutProblem::validate() const {
  std::vector<std::string> e = shape.validate();
  if (!(rate >= 0.0 && rate < 1.0)) e.push_back("dropout rate = " + format_real(rate) + " must be in [0, 1)");
  return e;
}

std::vector<OpTensor> DropoutProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc d = shape.desc();
  if (dir == DropoutDir::fwd) return {{"x", d, R::input}, {"y", d, R::output}};
  return {{"dy", d, R::input}, {"dx", d, R::output}};
}

double DropoutProblem::flops() const { return static_cast<double>(shape.elements()); }

std::string to_string(const DropoutProblem& p) {
  return "dropout " + std::string(dropout_dir_name(p.dir)) + " " + p.shape.tokens() + " rate" + format_real(p.rate) +
         " seed" + std::to_string(p.seed);
}

DropoutProblem parse_dropout_problem_unchecked(std::string_view s) {
  OpTokens t(s, "dropout", "dropout fwd fp32 nchw n2 c3 in8x8 rate0.5 seed42");
  DropoutProblem p;
  auto dir = t.one_of({"fwd", "bwd"}, "direction");
  if (!dir) t.missing("direction fwd|bwd");
  p.dir = *dir == "fwd" ? DropoutDir::fwd : DropoutDir::bwd;
  p.shape = read_op_shape(t);
  auto rate = t.real("rate");
  if (!rate) t.missing("dropout rate rate<r>");
  p.rate = *rate;
  auto seed = t.uint64("seed");
  if (!seed) t.missing("mask seed seed<S>");
  p.seed = *seed;
  t.finish("fwd|bwd, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW>, rate<r>, seed<S>");
  return p;
}

DropoutProblem parse_dropout_problem(std::string_view s) { return validated(parse_dropout_problem_unchecked(s), s); }

}  // namespace hiprim
