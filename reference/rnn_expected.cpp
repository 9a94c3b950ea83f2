// ref::rnn_expected: the catalog entry of the rnn primitive (reference/op_reference.hpp). The values
// come from the double reference (reference/rnn.hpp), the bounds from reference/rnn_bound.hpp plus the
// store into the dtype; the weights are read from MIOpen's packing (reference/rnn_packing.hpp).
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/rnn_problem.hpp"
#include "reference/error_model.hpp"
#include "reference/op_reference.hpp"
#include "reference/rnn.hpp"
#include "reference/rnn_bound.hpp"
#include "reference/rnn_packing.hpp"

namespace hiprim::ref {
namespace {

std::vector<double> doubles(const HostTensor* t) { return t ? std::vector<double>(t->data.begin(), t->data.end()) : std::vector<double>{}; }

}  // namespace

std::vector<OpExpected> rnn_expected(const OpProblem& op, const std::vector<const HostTensor*>& inputs) {
  const RnnProblem* p = op_problem_cast<RnnProblem>(op);
  if (!p) throw InputError("rnn reference: not an rnn problem: " + op.str());
  const auto tensors = p->tensors();
  std::map<std::string, const HostTensor*> by_name;
  std::map<std::string, TensorDesc> descs;
  for (std::size_t i = 0; i < tensors.size(); ++i) by_name[tensors[i].name] = inputs.at(i), descs[tensors[i].name] = tensors[i].desc;
  RnnInputs in;
  in.x = doubles(by_name["x"]), in.hx = doubles(by_name["hx"]);
  if (p->lstm()) in.cx = doubles(by_name["cx"]);
  in.weights = unpack_miopen_weights(*p, doubles(by_name["w"]));
  const std::string rule = "running fp32 error bound of reference/rnn_bound.hpp (per element: GEMM rows gamma(K) sum|w||x|, "
                           "sigma 8u, tanh 6u, interval Lipschitz constants, propagated over steps and layers) + store into " +
                           std::string(dtype_name(p->dtype));
  std::vector<OpExpected> out;
  auto emit = [&](const std::string& name, const std::vector<double>& value, const std::vector<double>& bound) {
    OpExpected e = make_expected(name, descs.at(name), rule);
    if (value.size() != e.value.size() || bound.size() != e.value.size())
      throw RuntimeError("rnn reference: " + name + " has " + std::to_string(value.size()) + " values, expected " +
                         std::to_string(e.value.size()));
    // Elements whose bound reaches the tensor's largest magnitude: there the worst-case growth over
    // the steps (reference/rnn_bound.hpp) has made the check unable to catch even a gross error.
    double scale = 0;
    for (double v : value) scale = std::max(scale, std::fabs(v));
    std::size_t vacuous = 0;
    for (std::size_t i = 0; i < value.size(); ++i) {
      e.value[i] = value[i], e.bound[i] = stored_bound(p->dtype, value[i], bound[i]);
      if (!(bound[i] < scale)) ++vacuous;
    }
    if (vacuous > 0)
      e.rule += "; VACUOUS on " + std::to_string(vacuous) + " of " + std::to_string(value.size()) +
                " elements (bound >= the largest |value|: the worst-case growth over the steps, reference/rnn_bound.hpp)";
    out.push_back(std::move(e));
  };
  if (p->dir == RnnDir::fwd) {
    const RnnOutputs o = rnn_forward(*p, in);
    const RnnBounds b = rnn_bounds(*p, in, false);
    emit("y", o.y, b.fwd.y);
    emit("hy", o.hy, b.fwd.hy);
    if (p->lstm()) emit("cy", o.cy, b.fwd.cy);
    return out;
  }
  const std::vector<double> dy = doubles(by_name["dy"]), dhy = doubles(by_name["dhy"]);
  const std::vector<double> dcy = p->lstm() ? doubles(by_name["dcy"]) : std::vector<double>{};
  const RnnGradients g = rnn_backward(*p, in, dy, dhy, dcy);
  const RnnBounds b = rnn_bounds(*p, in, true, dy, dhy, dcy);
  if (p->dir == RnnDir::bwd_weights) {
    emit("dw", pack_miopen_weights(*p, g.dweights), pack_miopen_weights(*p, b.bwd.dweights));
    return out;
  }
  emit("dx", g.dx, b.bwd.dx);
  emit("dhx", g.dhx, b.bwd.dhx);
  if (p->lstm()) emit("dcx", g.dcx, b.bwd.dcx);
  return out;
}

}  // namespace hiprim::ref
