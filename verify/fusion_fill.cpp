// fusion's fill: x, w, bias and residual as conv fills them (verify/fill.hpp): integers in [-r, r]
// with r = exact_fill_range(conv), so the conv (and bias, and an add with integer alpha/beta) is exact
// in fp32 wherever conv's exact tier is; bounded reals in [-1, 1) when no r fits. The bnorm-infer
// parameters (fp32): scale in [0.5, 1.5), shift and mean in [-1, 1), variance in [0.1, 2).
#include "core/error.hpp"
#include "core/fusion_problem.hpp"
#include "verify/fill.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> fusion_fill(const OpProblem& op, std::uint64_t seed) {
  const FusionProblem* p = op_problem_cast<FusionProblem>(op);
  if (!p) throw InputError("fusion fill: not a fusion problem: " + op.str());
  const int r = exact_fill_range(p->conv());
  const FillTier tier = r > 0 ? FillTier::exact : FillTier::bounded;
  return fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    const std::uint64_t tag = i + 1;
    if (t.name == "bn_scale") return uniform_tensor(t.desc, seed, tag, 0.5, 1.5);
    if (t.name == "bn_var") return uniform_tensor(t.desc, seed, tag, 0.1, 2.0);
    if (t.name == "bn_shift" || t.name == "bn_mean") return uniform_tensor(t.desc, seed, tag, -1.0, 1.0);
    HostTensor h(t.desc);  // x, w, bias, residual
    fill(h, tier, seed, tag, r);
    return h;
  });
}

}  // namespace hiprim::verify
