// activ's fill: x uniform in [-3, 3) (power: alpha + beta*x uniform in [0.25, 2], a positive base),
// except the first logical elements, which hold the special values +Inf, -Inf, NaN, +0, -0, 1e4,
// -1e4 and alpha (clippedrelu's corner), each rounded to the dtype; dy uniform in [-1, 1).
#include <cmath>
#include <limits>

#include "core/activ_problem.hpp"
#include "core/error.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> activ_fill(const OpProblem& op, std::uint64_t seed) {
  const ActivProblem* p = op_problem_cast<ActivProblem>(op);
  if (!p) throw InputError("activ fill: not an activ problem: " + op.str());
  return fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    if (t.name != "x") return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
    HostTensor x = (p->mode == ActivMode::power && p->beta != 0.0)
                       ? hashed_tensor(t.desc, seed, i + 1, [&](double u) { return (0.25 + 1.75 * u - p->alpha) / p->beta; })
                       : uniform_tensor(t.desc, seed, i + 1, -3.0, 3.0);
    const double inf = std::numeric_limits<double>::infinity();
    const double specials[] = {inf, -inf, std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0, 1e4, -1e4, p->alpha};
    std::size_t k = 0;
    for_each_index(t.desc.dims, [&](const Dims& idx) {
      if (k < std::size(specials)) x.at(idx) = round_to(t.desc.dtype, specials[k++]);
    });
    return x;
  });
}

}  // namespace hiprim::verify
