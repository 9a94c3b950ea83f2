// dropout's fill: values of magnitude in [0.5, 1.5) with random signs, never 0, so every kept
// element is nonzero and a mask difference between solver and reference always shows.
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> dropout_fill(const OpProblem& op, std::uint64_t seed) {
  return fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    return hashed_tensor(t.desc, seed, i + 1, [](double u) { return u < 0.5 ? -(0.5 + 2.0 * u) : 0.5 + 2.0 * (u - 0.5); });
  });
}

}  // namespace hiprim::verify
