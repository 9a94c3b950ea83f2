#include "reference/tensorop.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {

std::vector<OpExpected> tensorop_forward(const TensorOpProblem& p, const HostTensor& a, const HostTensor& b,
                                         const HostTensor* c_in) {
  if (p.beta != 0 && !c_in) throw InputError("tensorop reference: beta != 0 needs the initial c");
  const double alpha1 = static_cast<float>(p.alpha1), alpha2 = static_cast<float>(p.alpha2);
  const double beta = static_cast<float>(p.beta);
  const TensorDesc cd = p.c_desc();
  const auto size = static_cast<std::size_t>(cd.storage_elements());
  OpExpected c{"c", std::vector<double>(size, 0.0), std::vector<double>(size, 0.0),
               "4 fp32 roundings on every term's path: sum_bound(4, M + |beta*c|) + store rounding"};
  Dims bi(p.b.size());
  for_each_index(p.a, [&](const Dims& i) {
    for (std::size_t d = 0; d < bi.size(); ++d) bi[d] = p.b[d] == 1 ? 0 : i[d];
    const double t1 = alpha1 * a.at(i), t2 = alpha2 * b.at(bi);
    double v = 0, m = 0;
    switch (p.op) {
      case TensorOpKind::add: v = t1 + t2; m = std::fabs(t1) + std::fabs(t2); break;
      case TensorOpKind::mul: v = t1 * t2; m = std::fabs(v); break;
      case TensorOpKind::min: v = t1 < t2 ? t1 : t2; m = std::max(std::fabs(t1), std::fabs(t2)); break;
      case TensorOpKind::max: v = t1 > t2 ? t1 : t2; m = std::max(std::fabs(t1), std::fabs(t2)); break;
    }
    if (p.beta != 0) {
      const double bc = beta * c_in->at(i);
      v += bc;
      m += std::fabs(bc);
    }
    const auto at = static_cast<std::size_t>(cd.offset(i));
    const double e = sum_bound(4, m);
    c.value[at] = v;
    c.bound[at] = e + store_bound(p.dtype, std::fabs(v) + e);
  });
  return {std::move(c)};
}

std::vector<OpExpected> tensorop_expected(const OpProblem& problem, const std::vector<const HostTensor*>& inputs) {
  const TensorOpProblem* p = op_problem_cast<TensorOpProblem>(problem);
  if (!p) throw InputError("tensorop reference: not a tensorop problem (" + problem.op() + ")");
  return tensorop_forward(*p, *inputs.at(0), *inputs.at(1), inputs.at(2));
}

}  // namespace hiprim::ref
