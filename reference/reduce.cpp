#include "reference/reduce.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {
namespace {

// Whether v (at a higher index) replaces best under the op's choice rule.
bool replaces(ReduceOp op, bool propagate_nan, double v, double best) {
  const bool vn = std::isnan(v), bn = std::isnan(best);
  if (vn || bn) return propagate_nan ? (vn && !bn) : (!vn && bn);
  switch (op) {
    case ReduceOp::min: return v < best;
    case ReduceOp::max: return v > best;
    default: return std::fabs(v) > std::fabs(best);  // amax
  }
}

}  // namespace

std::vector<OpExpected> reduce_forward(const ReduceProblem& p, const HostTensor& x) {
  const TensorDesc yd = p.y_desc();
  const auto size = static_cast<std::size_t>(yd.storage_elements());
  const std::int64_t L = p.reduced_length();
  const DType dt = p.dtype;
  const bool selects = reduce_op_selects(p.op);
  OpExpected y{"y", std::vector<double>(size, 0.0), std::vector<double>(size, 0.0), ""};
  OpExpected idx{"idx", std::vector<double>(size, 0.0), std::vector<double>(size, 0.0),
                 "exact: the first chosen element's index in its slice"};
  switch (p.op) {
    case ReduceOp::add:
    case ReduceOp::norm1: y.rule = "fp32 sum of L terms: sum_bound(L, sum|x|) + store rounding"; break;
    case ReduceOp::avg: y.rule = "fp32 sum and a division: sum_bound(L+1, sum|x|/L) + store rounding"; break;
    case ReduceOp::norm2: y.rule = "(gamma(2L) + u + gamma_d(2L)) * |y| + store rounding"; break;
    case ReduceOp::mul: y.rule = "(gamma(L) + gamma_d(L)) * |y| + store rounding"; break;
    default: y.rule = "exact: a selection of stored values"; break;
  }
  Dims slice;  // the reduced dims' sizes
  for (auto d : p.over) slice.push_back(p.dims[static_cast<std::size_t>(d)]);
  for_each_index(p.out_dims(), [&](const Dims& o) {
    Dims xi = o;
    double acc = p.op == ReduceOp::mul ? 1.0 : 0.0, abs_sum = 0, best = 0;
    std::int64_t r = 0, best_r = 0;
    for_each_index(slice, [&](const Dims& s) {
      for (std::size_t k = 0; k < s.size(); ++k) xi[static_cast<std::size_t>(p.over[k])] = s[k];
      const double v = x.at(xi);
      if (selects) {
        if (r == 0 || replaces(p.op, p.propagate_nan, v, best)) {
          best = v;
          best_r = r;
        }
      } else if (p.op == ReduceOp::mul) {
        acc *= v;
      } else if (p.op == ReduceOp::norm2) {
        acc += v * v;
      } else {
        acc += p.op == ReduceOp::norm1 ? std::fabs(v) : v;
        abs_sum += std::fabs(v);
      }
      ++r;
    });
    double value = 0, e = 0;
    switch (p.op) {
      case ReduceOp::add:
      case ReduceOp::norm1: value = acc; e = sum_bound(L, abs_sum); break;
      case ReduceOp::avg: value = acc / static_cast<double>(L); e = sum_bound(L + 1, abs_sum / static_cast<double>(L)); break;
      case ReduceOp::norm2:
        value = std::sqrt(acc);
        e = (gamma_n(2 * L, kUnitFp32) + kUnitFp32 + gamma_n(2 * L, kUnitDouble)) * value;
        break;
      case ReduceOp::mul: value = acc; e = (gamma_n(L, kUnitFp32) + gamma_n(L, kUnitDouble)) * std::fabs(value); break;
      default: value = p.op == ReduceOp::amax ? std::fabs(best) : best; break;
    }
    const auto at = static_cast<std::size_t>(yd.offset(o));
    y.value[at] = value;
    if (!selects)  // a selection is a stored value: exact
      y.bound[at] = std::isfinite(e) ? e + store_bound(dt, std::fabs(value) + e) : std::numeric_limits<double>::infinity();
    idx.value[at] = static_cast<double>(best_r);
  });
  if (p.indices) return {std::move(y), std::move(idx)};
  return {std::move(y)};
}

std::vector<OpExpected> reduce_expected(const OpProblem& problem, const std::vector<const HostTensor*>& inputs) {
  const ReduceProblem* p = op_problem_cast<ReduceProblem>(problem);
  if (!p) throw InputError("reduce reference: not a reduce problem (" + problem.op() + ")");
  return reduce_forward(*p, *inputs.at(0));
}

}  // namespace hiprim::ref
