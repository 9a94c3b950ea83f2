// bnorm's fill: x uniform in [-1, 3) (a nonzero mean), scale in [0.5, 1.5), bias, means in [-1, 1),
// variances in [0.5, 1.5) (est_var in [0.1, 2)), dy in [-1, 1); bwd's saved statistics are the
// true batch statistics of x (computed in double, rounded to the statistics' dtype), as a forward pass leaves them.
#include <cmath>

#include "core/bnorm_problem.hpp"
#include "core/error.hpp"
#include "reference/bnorm.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> bnorm_fill(const OpProblem& op, std::uint64_t seed) {
  const BnormProblem* p = op_problem_cast<BnormProblem>(op);
  if (!p) throw InputError("bnorm fill: not a bnorm problem: " + op.str());
  auto out = fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    const std::uint64_t tag = i + 1;
    if (t.name == "x") return uniform_tensor(t.desc, seed, tag, -1.0, 3.0);
    if (t.name == "scale") return uniform_tensor(t.desc, seed, tag, 0.5, 1.5);
    if (t.name == "running_var") return uniform_tensor(t.desc, seed, tag, 0.5, 1.5);
    if (t.name == "est_var") return uniform_tensor(t.desc, seed, tag, 0.1, 2.0);
    return uniform_tensor(t.desc, seed, tag, -1.0, 1.0);  // bias, means, dy (saved stats replaced below)
  });
  if (p->dir == BnormDir::bwd) {
    const HostTensor& x = out[0];
    HostTensor &mean = out[3], &inv = out[4];
    const auto groups = ref::bnorm_groups(*p);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      double s = 0, sq = 0;
      for (auto o : groups[g]) s += x.data[o];
      const double m = s / static_cast<double>(groups[g].size());
      for (auto o : groups[g]) sq += (x.data[o] - m) * (x.data[o] - m);
      mean.data[g] = round_to(mean.desc.dtype, m);  // stats_dtype (fp32 unless e.g. MIOpen's bnormfp16)
      inv.data[g] = round_to(inv.desc.dtype, 1.0 / std::sqrt(sq / static_cast<double>(groups[g].size()) + p->epsilon));
    }
  }
  return out;
}

}  // namespace hiprim::verify
