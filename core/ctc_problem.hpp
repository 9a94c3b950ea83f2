// CTC loss problem (Graves et al., ICML 2006; MIOpen's miopenCTCLoss, PyTorch's ctc_loss): the
// negative log-likelihood of each label sequence under a time-major sequence of class
// distributions, summed over every alignment, and its gradient.
//
// Math, for sequence b with input length T_b and labels l (length L_b, no blank, ids < C): the
// extended labels l' = (blank, l_1, blank, ..., l_L, blank) of S = 2 L_b + 1 states; y_t(k) the
// probability of class k at time t (the input itself, or softmax over C of the logits when
// `softmax`); alpha_t(s) the probability of the prefixes of the alignments ending at state s at
// time t, beta_t(s) that of their suffixes after t. p = alpha_{T_b-1}(S-1) + alpha_{T_b-1}(S-2),
// loss_b = -log p. The class posterior gamma_t(k) = sum_{s: l'_s = k} alpha_t(s) beta_t(s) / p, and
//   probabilities (softmax off):  dloss/dy_t(k) = -gamma_t(k) / y_t(k)
//   logits        (softmax on):   dloss/du_t(k) = y_t(k) - gamma_t(k)
// for t < T_b; 0 for t >= T_b.
//
// Tensors: inputs  probs [T][N][C] (dtype; logits when `softmax`), labels [N][L] (label ids stored as
// fp32 integers, row b's first L_b used), label_lengths [N] and input_lengths [N] (fp32 integers);
// outputs losses [N] (fp32) and grads [T][N][C] (dtype). Data rules (checked where the data is
// read, as MIOpen's): 0 <= L_b <= L, 1 <= T_b <= T, every label id in [0, C) and not the blank,
// L_b plus the number of repeated neighbours in l <= T_b (MIOpen: "label length plus repeats must
// not exceed the input length"; otherwise no alignment exists).
//
// Canonical string: ctc <dtype> t<T> n<N> c<C> l<L> blank<B> <softmax|probs>
//   e.g. "ctc fp32 t50 n4 c20 l10 blank0 softmax"
// A row of core/primitives.def: reference/ctc.hpp (reference and error bound), verify/ctc_fill.cpp,
// gpu/ctc/ (ctc.alpha_beta), fuzz/op_gen_ctc.cpp, cli/miopen/ctc.cpp (MIOpenDriver ctc).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_problem.hpp"

namespace hiprim {

struct CtcProblem {
  static constexpr std::string_view kOp = "ctc";
  DType dtype = DType::fp32;
  std::int64_t t = 1, n = 1, c = 2;  // time steps (the longest input), batch, classes including the blank
  std::int64_t l = 1;                // label buffer width: labels is [N][L]
  std::int64_t blank = 0;            // the blank's class id
  bool softmax = true;               // probs holds logits; softmax over C is applied first

  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;
  bool operator==(const CtcProblem&) const = default;
};

std::string to_string(const CtcProblem& p);
CtcProblem parse_ctc_problem_unchecked(std::string_view s);
CtcProblem parse_ctc_problem(std::string_view s);

}  // namespace hiprim
