// ctc's fill: valid sequences under MIOpen's data rules (core/ctc_problem.hpp) and inputs of both kinds.
//   probs: logits uniform in [-4, 4) (softmax), or per (t, b) row a distribution: values in
//          [0.05, 1) divided by their sum (probabilities), rounded to the dtype.
//   sequence b, kind (b + seed) % 5 (so every seed mixes them and a fuzz run sees each kind):
//     0  the longest input (T_b = T) and as many labels as fit (L_b <= L, L_b + repeats <= T_b)
//     1  T_b = 1 with L_b in {0, 1}
//     2  L_b = 0 (only blanks), T_b in [1, T]
//     3, 4  T_b in [1, T], L_b in [0, min(L, T_b)], a quarter of the labels repeating their neighbour
//   Labels are ids in [0, C) other than the blank, drawn one by one and stopped where the next
//   would break L_b + repeats <= T_b; the unused tail of a labels row holds valid ids too, so a solver
//   that reads past L_b gets a different (wrong) sequence rather than an invalid one.
#include <algorithm>

#include "core/ctc_problem.hpp"
#include "core/error.hpp"
#include "verify/fill.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {
namespace {

constexpr std::uint64_t kTagLen = 101, kTagLabel = 102;

// A label id in [0, C) other than the blank from the hash h (C >= 2).
std::int64_t label_id(const CtcProblem& p, std::uint64_t h) {
  const std::int64_t k = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(p.c - 1));
  return k >= p.blank ? k + 1 : k;
}

}  // namespace

std::vector<HostTensor> ctc_fill(const OpProblem& op, std::uint64_t seed) {
  const CtcProblem* p = op_problem_cast<CtcProblem>(op);
  if (!p) throw InputError("ctc fill: not a ctc problem: " + op.str());
  const auto ts = p->tensors();
  std::vector<HostTensor> out;
  for (const auto& t : ts) out.emplace_back(t.desc);
  HostTensor& probs = out[0];
  if (p->softmax) {
    probs = uniform_tensor(ts[0].desc, seed, 1, -4.0, 4.0);
  } else {
    for (std::int64_t row = 0; row < p->t * p->n; ++row) {
      double sum = 0;
      std::vector<double> v(static_cast<std::size_t>(p->c));
      for (std::int64_t k = 0; k < p->c; ++k) {
        v[k] = 0.05 + 0.95 * static_cast<double>(fill_hash(seed, 1, row * p->c + k) >> 11) * 0x1p-53;
        sum += v[k];
      }
      for (std::int64_t k = 0; k < p->c; ++k) probs.data[row * p->c + k] = round_to(p->dtype, v[k] / sum);
    }
  }
  HostTensor &labels = out[1], &label_lengths = out[2], &input_lengths = out[3];
  for (std::int64_t b = 0; b < p->n; ++b) {
    auto h = [&](std::uint64_t i) { return fill_hash(seed, kTagLen, static_cast<std::uint64_t>(b) * 8 + i); };
    const std::uint64_t kind = (static_cast<std::uint64_t>(b) + seed) % 5;
    const std::int64_t Tb = kind == 0 ? p->t : kind == 1 ? 1 : 1 + static_cast<std::int64_t>(h(0) % static_cast<std::uint64_t>(p->t));
    std::int64_t want = std::min(p->l, Tb);  // kind 0
    if (kind == 1) want = std::min<std::int64_t>(p->l, static_cast<std::int64_t>(h(1) % 2));
    if (kind == 2) want = 0;
    if (kind >= 3) want = static_cast<std::int64_t>(h(1) % static_cast<std::uint64_t>(want + 1));
    std::int64_t len = 0, repeats = 0;
    for (std::int64_t i = 0; i < p->l; ++i) {
      const std::uint64_t hl = fill_hash(seed, kTagLabel, static_cast<std::uint64_t>(b * p->l + i));
      const bool repeat = i > 0 && (kind >= 3 || p->c == 2) && hl % 4 == 0;
      const float prev = i > 0 ? labels.data[b * p->l + i - 1] : 0.0f;
      const std::int64_t id = repeat ? static_cast<std::int64_t>(prev) : label_id(*p, hl >> 2);
      labels.data[b * p->l + i] = static_cast<float>(id);
      const bool rep = i > 0 && static_cast<float>(id) == prev;
      if (len == i && i < want && len + 1 + repeats + (rep ? 1 : 0) <= Tb) {
        ++len;
        repeats += rep ? 1 : 0;
      }
    }
    label_lengths.data[b] = static_cast<float>(len);
    input_lengths.data[b] = static_cast<float>(Tb);
  }
  return out;
}

}  // namespace hiprim::verify
