// CPU reference of the CTC loss (core/ctc_problem.hpp) in double: the alpha/beta recursions of
// Graves et al. in log space (log-sum-exp of at most three terms per state and step), the loss and
// the gradient with respect to the probabilities or the logits, and the error bound of an fp32
// solver that evaluates the same recursions (gpu/ctc/ctc_alpha_beta.hip). The tests check the
// values against brute-force enumeration of the alignments, finite differences and PyTorch.
//
// Error model (absolute bounds, u = 2^-24, expf 2 ulp = 4u, logf 1 ulp = 2u; per sequence):
//   log y: softmax: (x - m) - log Z as reference/softmax.cpp's log-softmax (u|x - m| + eZ + 2u|log Z|
//     + u|log y|, eZ = 4u + uD + gamma(C) the relative error of Z); probabilities: logf, 2u|log y|.
//   lse3(a, b, c) = m + logf(expf(a - m) + expf(b - m) + expf(c - m)), m the max: lse is 1-Lipschitz
//     in the max norm, so the inputs' largest error carries over unchanged; its own rounding: the sum
//     in [1, 3] has relative error <= 4u (expf) + 2u/e (the argument a - m rounded, weighted by
//     e^(a-m) <= 1) + gamma(2) < 7u, logf 2u, plus u|m + log sum|: 9u + u|lse| per step (underflowed
//     expf terms add < 3 * 2^-126).
//   alpha_t(s) = lse3(alpha_{t-1}(s, s-1, s-2)) + log y_t(l'_s):
//     Ea_t(s) = max Ea_{t-1}(preds) + 9u + u|lse| + u|alpha_t(s)| + Ey_t(l'_s)
//   beta_t(s) = lse3 over s' in {s, s+1, s+2} of (beta_{t+1}(s') + log y_{t+1}(l'_s')):
//     Eb_t(s) = max (Eb_{t+1}(s') + Ey_{t+1}(l'_s') + u|term|) + 9u + u|beta_t(s)|
//   loss = -lse(alpha_{T-1}(S-1), alpha_{T-1}(S-2)): El = max Ea + 9u + u|loss|. The bound is relative
//     to the magnitudes of the log-probabilities summed over the time steps (|alpha_t| grows ~ t |log y|),
//     so it grows ~ T^2 u |log y| in the worst case (computed: T = 50, C = 30, L = 10: 1.1e-3 on a loss of
//     167; T = 200, C = 100, L = 50: 0.016 on 862, 1.9e-5 relative; T = 500, C = 50, L = 100: 0.08 on 1895).
//     It is a worst-case bound, stated per element from the reference's own magnitudes.
//   occupancy o = expf((alpha + beta) - logp): dz = Ea + Eb + El + u|alpha + beta| + u|z|,
//     |o^ - o| <= o (e^dz (1 + 4u) - 1) + 2^-126; gamma_t(k) = sum of n_k occupancies (any order):
//     Eg = sum |o^ - o| + gamma(n_k) sum o e^dz (1 + 4u).
//   gradient: softmax y - gamma with y = expf(log y): Ey' + Eg + u(|g| + Ey' + Eg), Ey' = y(e^Ey (1+4u) - 1);
//     probabilities -gamma/y: Eg/y + u(|g| + Eg/y); stored into the dtype (stored_bound).
//   Every bound times (1 + 2^-9): the reference's own double rounding (the same recursion with 2^-29 u)
//   and neglected second-order products. The gradient bound is relative to the occupancies: e^dz - 1
//   with dz ~ Ea + Eb + El, so long sequences get loose gradient bounds (computed, logits: T = 50: 2e-3
//   absolute, T = 200: 0.032, T = 500: 0.18, on gradients in [-1, 1]). The emulated fp32 kernel uses at
//   most 0.11 of the bound on the test problems. A recursion rescaled per time step (alpha - max_s alpha,
//   the offsets cancelling in alpha + beta - logp) would make the errors grow ~T instead: not done.
#pragma once
#include <cstdint>
#include <vector>

#include "core/ctc_problem.hpp"
#include "core/tensor.hpp"
#include "reference/op_reference.hpp"

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
  std::vector<double> loss_bounds, grad_bounds;  // the fp32 solver's absolute error bounds (header); 0 where exact
};
// probs [T][N][C] (probabilities, or logits when p.softmax); seqs as ctc_sequences gives them.
CtcResult ctc_reference(const CtcProblem& p, const HostTensor& probs, const std::vector<CtcSequence>& seqs);

// The registered reference (reference/op_catalog.cpp): losses and grads with the bounds above; the
// data rules of ctc_sequences as InputError.
std::vector<OpExpected> ctc_expected(const OpProblem& op, const std::vector<const HostTensor*>& in);

}  // namespace hiprim::ref
