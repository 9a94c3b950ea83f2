#include "reference/ctc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace hiprim::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double lse(double a, double b) {
  if (a < b) std::swap(a, b);
  return a == kNegInf ? kNegInf : a + std::log1p(std::exp(b - a));
}
double lse(double a, double b, double c) { return lse(lse(a, b), c); }

// An fp32 integer in [lo, hi], or InputError naming it.
std::int64_t integer_in(double v, std::int64_t lo, std::int64_t hi, const std::string& what) {
  if (!(v == std::floor(v)) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InputError("ctc: " + what + " = " + std::to_string(v) + " must be an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::vector<CtcSequence> ctc_sequences(const CtcProblem& p, const HostTensor& labels, const HostTensor& label_lengths,
                                       const HostTensor& input_lengths) {
  std::vector<CtcSequence> out(static_cast<std::size_t>(p.n));
  for (std::int64_t b = 0; b < p.n; ++b) {
    const std::string seq = "sequence " + std::to_string(b);
    CtcSequence& s = out[static_cast<std::size_t>(b)];
    s.input_length = integer_in(input_lengths.data[b], 1, p.t, seq + " input length");
    const std::int64_t len = integer_in(label_lengths.data[b], 0, p.l, seq + " label length");
    std::int64_t repeats = 0;
    for (std::int64_t i = 0; i < len; ++i) {
      const std::int64_t id = integer_in(labels.data[b * p.l + i], 0, p.c - 1, seq + " label " + std::to_string(i));
      if (id == p.blank) throw InputError("ctc: " + seq + " label " + std::to_string(i) + " is the blank id " + std::to_string(p.blank));
      if (i > 0 && id == s.labels.back()) ++repeats;
      s.labels.push_back(id);
    }
    if (len + repeats > s.input_length)
      throw InputError("ctc: " + seq + ": label length " + std::to_string(len) + " plus " + std::to_string(repeats) +
                       " repeats exceeds the input length " + std::to_string(s.input_length) + " (no alignment exists)");
  }
  return out;
}

CtcResult ctc_reference(const CtcProblem& p, const HostTensor& probs, const std::vector<CtcSequence>& seqs) {
  const std::int64_t T = p.t, N = p.n, C = p.c;
  CtcResult r;
  r.losses.assign(static_cast<std::size_t>(N), 0.0);
  r.grads.assign(static_cast<std::size_t>(T * N * C), 0.0);
  auto at = [&](std::int64_t t, std::int64_t b, std::int64_t k) { return static_cast<std::size_t>((t * N + b) * C + k); };
  for (std::int64_t b = 0; b < N; ++b) {
    const CtcSequence& sq = seqs[static_cast<std::size_t>(b)];
    const std::int64_t Tb = sq.input_length, S = 2 * static_cast<std::int64_t>(sq.labels.size()) + 1;
    // log y_t(k): the input's log, or the log-softmax of the logits over C.
    std::vector<double> logy(static_cast<std::size_t>(Tb * C)), y(logy.size());
    for (std::int64_t t = 0; t < Tb; ++t) {
      double m = kNegInf, z = 0;
      if (p.softmax) {
        for (std::int64_t k = 0; k < C; ++k) m = std::max(m, static_cast<double>(probs.data[at(t, b, k)]));
        for (std::int64_t k = 0; k < C; ++k) z += std::exp(probs.data[at(t, b, k)] - m);
      }
      for (std::int64_t k = 0; k < C; ++k) {
        const double v = probs.data[at(t, b, k)];
        logy[t * C + k] = p.softmax ? v - m - std::log(z) : std::log(v);
        y[t * C + k] = p.softmax ? std::exp(logy[t * C + k]) : v;
      }
    }
    std::vector<std::int64_t> ext(static_cast<std::size_t>(S), p.blank);  // l' = blank, l1, blank, ..., blank
    for (std::int64_t s = 1; s < S; s += 2) ext[s] = sq.labels[(s - 1) / 2];
    // s may come from s - 2 (skipping a blank) unless it is a blank or repeats the label two back.
    auto skip_ok = [&](std::int64_t s) { return s >= 2 && ext[s] != p.blank && ext[s] != ext[s - 2]; };
    std::vector<double> la(static_cast<std::size_t>(Tb * S), kNegInf), lb(la.size(), kNegInf);
    la[0] = logy[ext[0]];
    if (S > 1) la[1] = logy[ext[1]];
    for (std::int64_t t = 1; t < Tb; ++t)
      for (std::int64_t s = 0; s < S; ++s) {
        const double* prev = &la[(t - 1) * S];
        const double v = lse(prev[s], s >= 1 ? prev[s - 1] : kNegInf, skip_ok(s) ? prev[s - 2] : kNegInf);
        la[t * S + s] = v + logy[t * C + ext[s]];
      }
    // beta_t(s): log probability of the alignment's suffix after t given state s at t.
    lb[(Tb - 1) * S + S - 1] = 0.0;
    if (S > 1) lb[(Tb - 1) * S + S - 2] = 0.0;
    for (std::int64_t t = Tb - 2; t >= 0; --t)
      for (std::int64_t s = 0; s < S; ++s) {
        const double* next = &lb[(t + 1) * S];
        const double* ly = &logy[(t + 1) * C];
        const double a = next[s] + ly[ext[s]];
        const double bb = s + 1 < S ? next[s + 1] + ly[ext[s + 1]] : kNegInf;
        const double c = s + 2 < S && skip_ok(s + 2) ? next[s + 2] + ly[ext[s + 2]] : kNegInf;
        lb[t * S + s] = lse(a, bb, c);
      }
    const double logp = lse(la[(Tb - 1) * S + S - 1], S > 1 ? la[(Tb - 1) * S + S - 2] : kNegInf);
    if (logp == kNegInf) {  // every alignment has a zero probability (probs mode): infinite loss, zero gradient
      r.losses[b] = std::numeric_limits<double>::infinity();
      continue;
    }
    r.losses[b] = -logp;
    std::vector<double> gamma(static_cast<std::size_t>(C));
    for (std::int64_t t = 0; t < Tb; ++t) {
      std::fill(gamma.begin(), gamma.end(), 0.0);
      for (std::int64_t s = 0; s < S; ++s) gamma[ext[s]] += std::exp(la[t * S + s] + lb[t * S + s] - logp);
      for (std::int64_t k = 0; k < C; ++k) {
        const double yk = y[t * C + k];
        // softmax: d/du = y - gamma; probabilities: d/dy = -gamma / y (gamma is 0 wherever y is).
        r.grads[at(t, b, k)] = p.softmax ? yk - gamma[k] : (yk > 0 ? -gamma[k] / yk : 0.0);
      }
    }
  }
  return r;
}

}  // namespace hiprim::ref
