// CPU reference of the CTC loss (core/ctc_problem.hpp) in double: the alpha/beta recursions of
// Graves et al. in log space (log-sum-exp of at most three terms per state and step), the loss and
// the gradient with respect to the probabilities or the logits. Error bounds for solvers are not
// defined yet (no solver exists); the tests check this against brute-force enumeration of the
// alignments and finite differences.
#pragma once
#include <cstdint>
#include <vector>

#include "core/ctc_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::ref {

struct CtcSequence {
  std::vector<std::int64_t> labels;  // L_b label ids
  std::int64_t input_length = 1;     // T_b
};

// The sequences stored in the labels [N][L], label_lengths [N] and input_lengths [N] tensors (fp32
// integers); InputError naming the sequence and the violated data rule (the problem's header).
std::vector<CtcSequence> ctc_sequences(const CtcProblem& p, const HostTensor& labels, const HostTensor& label_lengths,
                                       const HostTensor& input_lengths);

struct CtcResult {
  std::vector<double> losses;  // [N]; +inf where no alignment has nonzero probability (probs mode, zeros)
  std::vector<double> grads;   // [T][N][C]; 0 past each input length and for a sequence of infinite loss
};
// probs [T][N][C] (probabilities, or logits when p.softmax); seqs as ctc_sequences gives them.
CtcResult ctc_reference(const CtcProblem& p, const HostTensor& probs, const std::vector<CtcSequence>& seqs);

}  // namespace hiprim::ref
