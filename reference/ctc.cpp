#include "reference/ctc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// Covers the first-order bounds' neglected products of error terms (each <= 2^-10 relative) and the
// reference's own double rounding (the same recursion with u_d = 2^-29 u).
constexpr double kSecondOrder = 1 + 0x1p-9;

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
  constexpr double u = kUnitFp32;
  // One fp32 lse of <= 3 terms (header: 7u for the sum of expf's, 2u for logf, underflowed terms).
  constexpr double kLse = 9 * u + 3 * kFp32TinyNormal;
  CtcResult r;
  r.losses.assign(static_cast<std::size_t>(N), 0.0);
  r.loss_bounds.assign(r.losses.size(), 0.0);
  r.grads.assign(static_cast<std::size_t>(T * N * C), 0.0);
  r.grad_bounds.assign(r.grads.size(), 0.0);
  auto at = [&](std::int64_t t, std::int64_t b, std::int64_t k) { return static_cast<std::size_t>((t * N + b) * C + k); };
  for (std::int64_t b = 0; b < N; ++b) {
    const CtcSequence& sq = seqs[static_cast<std::size_t>(b)];
    const std::int64_t Tb = sq.input_length, S = 2 * static_cast<std::int64_t>(sq.labels.size()) + 1;
    // log y_t(k): the input's log, or the log-softmax of the logits over C; ey: the fp32 model's error of it.
    std::vector<double> logy(static_cast<std::size_t>(Tb * C)), y(logy.size()), ey(logy.size(), 0.0);
    for (std::int64_t t = 0; t < Tb; ++t) {
      double m = kNegInf, z = 0, D = 0;
      if (p.softmax) {
        for (std::int64_t k = 0; k < C; ++k) m = std::max(m, static_cast<double>(probs.data[at(t, b, k)]));
        for (std::int64_t k = 0; k < C; ++k) {
          z += std::exp(probs.data[at(t, b, k)] - m);
          D = std::max(D, std::fabs(probs.data[at(t, b, k)] - m));
        }
      }
      const double eZ = 4 * u + u * D + gamma_n(C, u) + C * kFp32TinyNormal;  // Z's relative error (Z >= 1)
      for (std::int64_t k = 0; k < C; ++k) {
        const double v = probs.data[at(t, b, k)];
        const std::size_t i = static_cast<std::size_t>(t * C + k);
        logy[i] = p.softmax ? v - m - std::log(z) : std::log(v);
        y[i] = p.softmax ? std::exp(logy[i]) : v;
        if (p.softmax) ey[i] = u * std::fabs(v - m) + eZ * (1 + 2 * eZ) + 2 * u * std::fabs(std::log(z)) + u * std::fabs(logy[i]);
        else if (v > 0) ey[i] = 2 * u * std::fabs(logy[i]);
      }
    }
    std::vector<std::int64_t> ext(static_cast<std::size_t>(S), p.blank);  // l' = blank, l1, blank, ..., blank
    for (std::int64_t s = 1; s < S; s += 2) ext[s] = sq.labels[(s - 1) / 2];
    // s may come from s - 2 (skipping a blank) unless it is a blank or repeats the label two back.
    auto skip_ok = [&](std::int64_t s) { return s >= 2 && ext[s] != p.blank && ext[s] != ext[s - 2]; };
    auto ly = [&](std::int64_t t, std::int64_t s) { return logy[static_cast<std::size_t>(t * C + ext[s])]; };
    auto eyl = [&](std::int64_t t, std::int64_t s) { return ey[static_cast<std::size_t>(t * C + ext[s])]; };
    // la/lb: log alpha/beta; ea/eb: the fp32 model's absolute error of each finite one (the header's bound).
    std::vector<double> la(static_cast<std::size_t>(Tb * S), kNegInf), lb(la.size(), kNegInf), ea(la.size(), 0.0), eb(la.size(), 0.0);
    la[0] = ly(0, 0), ea[0] = eyl(0, 0);
    if (S > 1) la[1] = ly(0, 1), ea[1] = eyl(0, 1);
    for (std::int64_t t = 1; t < Tb; ++t)
      for (std::int64_t s = 0; s < S; ++s) {
        const double* prev = &la[(t - 1) * S];
        const double* eprev = &ea[(t - 1) * S];
        const double v = lse(prev[s], s >= 1 ? prev[s - 1] : kNegInf, skip_ok(s) ? prev[s - 2] : kNegInf);
        const std::size_t i = static_cast<std::size_t>(t * S + s);
        la[i] = v + ly(t, s);
        if (la[i] == kNegInf) continue;
        double e = 0;  // lse is 1-Lipschitz in the max norm: the largest input error carries over
        for (std::int64_t j = 0; j < 3; ++j)
          if (s - j >= 0 && (j < 2 || skip_ok(s)) && prev[s - j] != kNegInf) e = std::max(e, eprev[s - j]);
        ea[i] = e + kLse + u * (std::fabs(v) + e) + u * std::fabs(la[i]) + eyl(t, s);
      }
    // beta_t(s): log probability of the alignment's suffix after t given state s at t.
    lb[(Tb - 1) * S + S - 1] = 0.0;
    if (S > 1) lb[(Tb - 1) * S + S - 2] = 0.0;
    for (std::int64_t t = Tb - 2; t >= 0; --t)
      for (std::int64_t s = 0; s < S; ++s) {
        const double* next = &lb[(t + 1) * S];
        double q[3] = {kNegInf, kNegInf, kNegInf}, e = 0;  // the terms beta_{t+1}(s') + log y_{t+1}(l'_s'), s' = s, s+1, s+2
        for (std::int64_t j = 0; j < 3; ++j) {
          const std::int64_t s2 = s + j;
          if (s2 >= S || (j == 2 && !skip_ok(s2)) || next[s2] == kNegInf) continue;
          q[j] = next[s2] + ly(t + 1, s2);
          if (q[j] != kNegInf) e = std::max(e, eb[(t + 1) * S + s2] + eyl(t + 1, s2) + u * std::fabs(q[j]));
        }
        const std::size_t i = static_cast<std::size_t>(t * S + s);
        lb[i] = lse(q[0], q[1], q[2]);
        if (lb[i] != kNegInf) eb[i] = e + kLse + u * (std::fabs(lb[i]) + e);
      }
    const std::size_t last = static_cast<std::size_t>((Tb - 1) * S);
    const double logp = lse(la[last + S - 1], S > 1 ? la[last + S - 2] : kNegInf);
    if (logp == kNegInf) {  // every alignment has a zero probability (probs mode): infinite loss, zero gradient
      r.losses[b] = std::numeric_limits<double>::infinity();
      continue;
    }
    double elogp = ea[last + S - 1];
    if (S > 1 && la[last + S - 2] != kNegInf) elogp = std::max(elogp, ea[last + S - 2]);
    elogp += kLse + u * (std::fabs(logp) + elogp);
    r.losses[b] = -logp;
    r.loss_bounds[b] = elogp * kSecondOrder;
    std::vector<double> gamma(static_cast<std::size_t>(C)), egamma(gamma.size()), ogamma(gamma.size());
    std::vector<std::int64_t> terms(static_cast<std::size_t>(C));
    for (std::int64_t t = 0; t < Tb; ++t) {
      std::fill(gamma.begin(), gamma.end(), 0.0);
      std::fill(egamma.begin(), egamma.end(), 0.0);
      std::fill(ogamma.begin(), ogamma.end(), 0.0);
      std::fill(terms.begin(), terms.end(), 0);
      for (std::int64_t s = 0; s < S; ++s) {
        const std::size_t i = static_cast<std::size_t>(t * S + s);
        const std::size_t k = static_cast<std::size_t>(ext[s]);
        ++terms[k];
        if (la[i] == kNegInf || lb[i] == kNegInf) continue;  // exactly 0 in fp32 too
        const double o = std::exp(la[i] + lb[i] - logp);
        // occupancy expf((alpha + beta) - logp): the argument's error dz, expf's 4u, underflow
        const double dz = ea[i] + eb[i] + elogp + u * std::fabs(la[i] + lb[i]) + u * std::fabs(la[i] + lb[i] - logp);
        gamma[k] += o;
        egamma[k] += o * (std::exp(dz) * (1 + 4 * u) - 1) + kFp32TinyNormal;
        ogamma[k] += o * std::exp(dz) * (1 + 4 * u);
      }
      for (std::int64_t k = 0; k < C; ++k) {
        const std::size_t i = static_cast<std::size_t>(t * C + k);
        const double yk = y[i], eg = egamma[k] + gamma_n(terms[k], u) * ogamma[k];
        // softmax: d/du = y - gamma; probabilities: d/dy = -gamma / y (gamma is 0 wherever y is).
        const double g = p.softmax ? yk - gamma[k] : (yk > 0 ? -gamma[k] / yk : 0.0);
        double e = 0;
        if (p.softmax) {
          const double ey_k = yk * (std::exp(ey[i]) * (1 + 4 * u) - 1) + kFp32TinyNormal;  // expf(log y)
          e = ey_k + eg + u * (std::fabs(g) + ey_k + eg);
        } else if (yk > 0) {
          e = eg / yk + u * (std::fabs(g) + eg / yk);
        }
        r.grads[at(t, b, k)] = g;
        r.grad_bounds[at(t, b, k)] = stored_bound(p.dtype, g, e * kSecondOrder);
      }
    }
  }
  return r;
}

std::vector<OpExpected> ctc_expected(const OpProblem& op, const std::vector<const HostTensor*>& in) {
  const CtcProblem* p = op_problem_cast<CtcProblem>(op);
  if (!p) throw InputError("ctc reference: not a ctc problem: " + op.str());
  const CtcResult res = ctc_reference(*p, *in[0], ctc_sequences(*p, *in[1], *in[2], *in[3]));
  const auto ts = p->tensors();
  const std::string rule = "fp32 log-space alpha/beta error model of reference/ctc.hpp (lse 9u per step, expf 2 ulp, logf 1 ulp, u=2^-24)";
  OpExpected losses = make_expected("losses", ts[4].desc, rule + ", fp32 losses");
  OpExpected grads = make_expected("grads", ts[5].desc, rule + " + store into " + std::string(dtype_name(p->dtype)));
  losses.value = res.losses, losses.bound = res.loss_bounds;
  grads.value = res.grads, grads.bound = res.grad_bounds;
  return {losses, grads};
}

}  // namespace hiprim::ref
