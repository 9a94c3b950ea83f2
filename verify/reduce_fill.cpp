// Reduction fills (tag 1: x).
//   min, max, amax: integers in [-4, 4] (ties in value and in |value|: the lowest-index rule is
//                   exercised) and a NaN at about 1 in 128 positions (the NaN modes differ).
//   mul:            +-(1 + e), e uniform in [-d, d], d = min(1/8, 60/L): every partial product of
//                   any subset, in any order, lies in [(1-d)^L, (1+d)^L] within [e^-61, e^60],
//                   inside fp32's normal range, so the relative bound gamma(L) holds for any
//                   summation tree (a fixed d = 1/8 drifted to (1-d^2/6)^L ~ 2^-130 at L = 34561
//                   and the partial products went subnormal: the H200 fuzz run caught it).
//   add, avg, norm1, norm2: uniform in [-1, 1).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/reduce_problem.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> reduce_fill(const OpProblem& problem, std::uint64_t seed) {
  const ReduceProblem& p = *op_problem_cast<ReduceProblem>(problem);
  return fill_op_tensors(problem, [&](std::size_t i, const OpTensor& t) {
    if (reduce_op_selects(p.op))
      return hashed_tensor(t.desc, seed, i + 1, [](double u) {
        if (u < 1.0 / 128) return std::numeric_limits<double>::quiet_NaN();
        return std::floor((u - 1.0 / 128) / (1 - 1.0 / 128) * 9) - 4;
      });
    if (p.op == ReduceOp::mul) {
      const double d = std::min(1.0 / 8, 60.0 / static_cast<double>(std::max<std::int64_t>(1, p.reduced_length())));
      return hashed_tensor(t.desc, seed, i + 1, [d](double u) {
        const double v = u * 2 - 1;  // sign from the half, magnitude from the rest
        return (v < 0 ? -1.0 : 1.0) * (1.0 + (std::fabs(v) * 2 - 1) * d);
      });
    }
    return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
  });
}

}  // namespace hiprim::verify
