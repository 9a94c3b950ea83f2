#include "core/ctc_problem.hpp"

#include "core/op_grammar.hpp"

namespace hiprim {

std::vector<std::string> CtcProblem::validate() const {
  std::vector<std::string> e;
  if (t < 1) e.push_back("ctc t = " + std::to_string(t) + " must be >= 1 (time steps)");
  if (n < 1) e.push_back("ctc n = " + std::to_string(n) + " must be >= 1 (batch)");
  if (c < 2) e.push_back("ctc c = " + std::to_string(c) + " must be >= 2 (the blank and at least one label class)");
  if (l < 1) e.push_back("ctc l = " + std::to_string(l) + " must be >= 1 (the label buffer width)");
  if (blank < 0 || blank >= c) e.push_back("ctc blank = " + std::to_string(blank) + " must be a class id in [0, c)");
  if (e.empty() && t * n * c >= (std::int64_t{1} << 31)) e.push_back("ctc t*n*c = " + std::to_string(t * n * c) + " must be < 2^31");
  return e;
}

std::vector<OpTensor> CtcProblem::tensors() const {
  using R = OpTensor::Role;
  const TensorDesc probs = TensorDesc::packed(dtype, {t, n, c}, false);
  const TensorDesc per_seq = TensorDesc::packed(DType::fp32, {n}, false);
  return {{"probs", probs, R::input},
          {"labels", TensorDesc::packed(DType::fp32, {n, l}, false), R::input},
          {"label_lengths", per_seq, R::input},
          {"input_lengths", per_seq, R::input},
          {"losses", per_seq, R::output},
          {"grads", probs, R::output}};
}

// Per time step and state: the input's log (or the softmax), a 3-term log-sum-exp forward and backward.
double CtcProblem::flops() const { return static_cast<double>(t) * n * (4.0 * c + 10.0 * (2 * l + 1)); }

std::string to_string(const CtcProblem& p) {
  return "ctc " + std::string(dtype_name(p.dtype)) + " t" + std::to_string(p.t) + " n" + std::to_string(p.n) + " c" +
         std::to_string(p.c) + " l" + std::to_string(p.l) + " blank" + std::to_string(p.blank) + (p.softmax ? " softmax" : " probs");
}

CtcProblem parse_ctc_problem_unchecked(std::string_view s) {
  OpTokens tk(s, "ctc", "ctc fp32 t50 n4 c20 l10 blank0 softmax");
  CtcProblem p;
  const auto dt = tk.dtype();
  if (!dt) tk.missing("dtype fp32|fp16|bf16");
  p.dtype = *dt;
  auto need = [&](const char* prefix, const char* what) {
    const auto v = tk.integer(prefix);
    if (!v) tk.missing(std::string(what) + " " + prefix + "<int>");
    return *v;
  };
  p.t = need("t", "time steps");
  p.n = need("n", "batch");
  p.c = need("c", "classes");
  p.l = need("l", "label buffer width");
  p.blank = need("blank", "blank id");
  const auto kind = tk.one_of({"softmax", "probs"}, "input kind");
  if (!kind) tk.missing("input kind softmax|probs");
  p.softmax = *kind == "softmax";
  tk.finish("fp32|fp16|bf16, t<T>, n<N>, c<C>, l<L>, blank<B>, softmax|probs");
  return p;
}

CtcProblem parse_ctc_problem(std::string_view s) { return validated(parse_ctc_problem_unchecked(s), s); }

}  // namespace hiprim
