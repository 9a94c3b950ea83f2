#include "core/softmax_problem.hpp"

#include "core/error.hpp"

namespace hiprim {

std::string_view softmax_dir_name(SoftmaxDir d) { return d == SoftmaxDir::fwd ? "fwd" : "bwd"; }
std::string_view softmax_algo_name(SoftmaxAlgo a) {
  return a == SoftmaxAlgo::fast ? "fast" : a == SoftmaxAlgo::accurate ? "accurate" : "log";
}
std::string_view softmax_mode_name(SoftmaxMode m) { return m == SoftmaxMode::instance ? "instance" : "channel"; }

std::int64_t SoftmaxProblem::rows() const {
  if (mode == SoftmaxMode::instance) return shape.n;
  return shape.elements() / shape.c;
}

std::int64_t SoftmaxProblem::row_length() const {
  if (mode == SoftmaxMode::channel) return shape.c;
  return shape.elements() / shape.n;
}

std::vector<std::string> SoftmaxProblem::validate() const { return shape.validate(); }

std::vector<OpTensor> SoftmaxProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc d = shape.desc();
  if (dir == SoftmaxDir::fwd) return {{"x", d, R::input}, {"y", d, R::output}};
  return {{"y", d, R::input}, {"dy", d, R::input}, {"dx", d, R::output}};
}

double SoftmaxProblem::flops() const { return 4.0 * static_cast<double>(shape.elements()); }

std::string to_string(const SoftmaxProblem& p) {
  return "softmax " + std::string(softmax_dir_name(p.dir)) + " " + std::string(softmax_algo_name(p.algo)) + " " +
         std::string(softmax_mode_name(p.mode)) + " " + p.shape.tokens();
}

SoftmaxProblem parse_softmax_problem_unchecked(std::string_view s) {
  OpTokens t(s, "softmax", "softmax fwd accurate channel fp32 nchw n2 c10 in1x1");
  SoftmaxProblem p;
  auto dir = t.one_of({"fwd", "bwd"}, "direction");
  if (!dir) t.missing("direction fwd|bwd");
  p.dir = *dir == "fwd" ? SoftmaxDir::fwd : SoftmaxDir::bwd;
  auto algo = t.one_of({"fast", "accurate", "log"}, "algorithm");
  if (!algo) t.missing("algorithm fast|accurate|log");
  p.algo = *algo == "fast" ? SoftmaxAlgo::fast : *algo == "accurate" ? SoftmaxAlgo::accurate : SoftmaxAlgo::log;
  auto mode = t.one_of({"instance", "channel"}, "mode");
  if (!mode) t.missing("mode instance|channel");
  p.mode = *mode == "instance" ? SoftmaxMode::instance : SoftmaxMode::channel;
  p.shape = read_op_shape(t);
  t.finish("fwd|bwd, fast|accurate|log, instance|channel, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW>");
  return p;
}

SoftmaxProblem parse_softmax_problem(std::string_view s) { return validated(parse_softmax_problem_unchecked(s), s); }

}  // namespace hiprim
