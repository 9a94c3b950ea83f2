// Reduction fills (tag 1: x).
//   min, max, amax: integers in [-4, 4] (ties in value and in |value|: the lowest-index rule is
//                   exercised) and a NaN at about 1 in 128 positions (the NaN modes differ).
//   mul:            +-(1 + e), e uniform in [-1/8, 1/8]: products of long slices stay normal.
//   add, avg, norm1, norm2: uniform in [-1, 1).
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
    if (p.op == ReduceOp::mul)
      return hashed_tensor(t.desc, seed, i + 1, [](double u) {
        const double v = u * 2 - 1;  // sign from the half, magnitude from the rest
        return (v < 0 ? -1.0 : 1.0) * (1.0 + (std::fabs(v) * 2 - 1) / 8);
      });
    return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
  });
}

}  // namespace hiprim::verify
