// Pooling fills (tags: the tensor's position + 1, as default_op_fill).
//   fwd max: x holds integers in [-3, 3] (7 values: most windows have tied maxima, so the
//            first-in-scan-order rule is exercised and idx is only right if it is followed) and a
//            NaN at about 1 in 128 positions (the NaN-beats-numbers rule).
//   fwd avg: x uniform in [-1, 1).
//   bwd:     dy uniform in [-1, 1); max: idx holds, per output, a window position chosen uniformly
//            among those inside the input (what a forward could have saved).
#include <cmath>
#include <limits>

#include "core/pool_problem.hpp"
#include "verify/fill.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {
namespace {

HostTensor max_pool_input(const TensorDesc& d, std::uint64_t seed, std::uint64_t tag) {
  return hashed_tensor(d, seed, tag, [](double u) {
    if (u < 1.0 / 128) return std::numeric_limits<double>::quiet_NaN();
    return std::floor((u - 1.0 / 128) / (1 - 1.0 / 128) * 7) - 3;
  });
}

HostTensor saved_indices(const PoolProblem& p, std::uint64_t seed, std::uint64_t tag) {
  HostTensor t(p.idx_desc());
  const int r = p.rank();
  std::uint64_t i = 0;
  for_each_index(t.desc.dims, [&](const Dims& o) {
    std::uint64_t h = fill_hash(seed, tag, i++);
    std::int64_t k = 0;
    for (int d = 0; d < r; ++d) {
      const std::int64_t start = o[d + 2] * p.stride[d] - p.pad[d];
      const std::int64_t lo = std::max<std::int64_t>(0, -start);
      const std::int64_t hi = std::min(p.window[d], p.shape.in[d] - start);  // window offsets inside the input
      const auto count = static_cast<std::uint64_t>(hi - lo);
      k = k * p.window[d] + lo + static_cast<std::int64_t>(h % count);
      h = fill_hash(h, tag, static_cast<std::uint64_t>(d));  // fresh bits for the next dim
    }
    t.at(o) = static_cast<float>(k);
  });
  return t;
}

}  // namespace

std::vector<HostTensor> pool_fill(const OpProblem& problem, std::uint64_t seed) {
  const PoolProblem& p = *op_problem_cast<PoolProblem>(problem);
  return fill_op_tensors(problem, [&](std::size_t i, const OpTensor& t) {
    if (t.name == "x" && p.mode == PoolMode::max) return max_pool_input(t.desc, seed, i + 1);
    if (t.name == "idx") return saved_indices(p, seed, i + 1);
    return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
  });
}

}  // namespace hiprim::verify
