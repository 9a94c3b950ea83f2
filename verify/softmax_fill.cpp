// softmax's fill: x uniform in [-4, 4), every fourth row scaled to [-1e4, 1e4) (the stability
// check: no Inf/NaN for inputs of magnitude 1e4); bwd: y = the forward of such an x in double,
// rounded to the dtype (a consistent softmax or log-softmax output), dy uniform in [-1, 1).
#include "core/error.hpp"
#include "core/softmax_problem.hpp"
#include "reference/softmax.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> softmax_fill(const OpProblem& op, std::uint64_t seed) {
  const SoftmaxProblem* p = op_problem_cast<SoftmaxProblem>(op);
  if (!p) throw InputError("softmax fill: not a softmax problem: " + op.str());
  const auto rows = ref::softmax_rows(*p);
  auto logits = [&](const TensorDesc& d, std::uint64_t tag) {
    HostTensor x = uniform_tensor(d, seed, tag, -4.0, 4.0);
    for (std::size_t r = 3; r < rows.size(); r += 4)
      for (auto o : rows[r]) x.data[o] = round_to(d.dtype, 2500.0 * x.data[o]);
    return x;
  };
  return fill_op_tensors(op, [&](std::size_t i, const OpTensor& t) {
    if (t.name == "x") return logits(t.desc, i + 1);
    if (t.name == "dy") return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0);
    HostTensor x = logits(t.desc, i + 1), y(t.desc);  // "y" of bwd
    for (const auto& row : rows) {
      std::vector<double> xv;
      for (auto o : row) xv.push_back(x.data[o]);
      const auto yv = ref::softmax_row(*p, xv);
      for (std::size_t j = 0; j < row.size(); ++j) y.data[row[j]] = round_to(t.desc.dtype, yv[j]);
    }
    return y;
  });
}

}  // namespace hiprim::verify
