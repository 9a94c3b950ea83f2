// rnn's fill: the packed weights uniform in [-1/sqrt(H), 1/sqrt(H)) (PyTorch's and cuDNN's usual
// initialisation: a row of R h sums H terms of size ~1/sqrt(H), so the gates see pre-activations of
// order 1 and neither saturate trivially nor vanish), x, hx, cx in [-1, 1), and the backward
// directions' dy, dhy, dcy in [-1, 1). Values rounded to the dtype; tags are the tensor positions.
#include <cmath>

#include "core/error.hpp"
#include "core/rnn_problem.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> rnn_fill(const OpProblem& op, std::uint64_t seed) {
  const RnnProblem* p = op_problem_cast<RnnProblem>(op);
  if (!p) throw InputError("rnn fill: not an rnn problem: " + op.str());
  const double w = 1.0 / std::sqrt(static_cast<double>(p->hidden));
  return fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    if (t.name == "w") return uniform_tensor(t.desc, seed, i + 1, -w, w);
    return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
  });
}

}  // namespace hiprim::verify
