#include "reference/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "reference/error_model.hpp"

// Tolerance policy. Solver model: per row of L values, in fp32, m = max x (exact), e_j = exp(x_j - m)
// (the subtraction rounds: an absolute argument error <= u|x_j - m|; expf 2 ulp = 4u), S = sum e_j
// in any order (gamma(L)), then y_i = e_i / S (log: y_i = (x_i - m) - log S, logf 1 ulp = 2u);
// D = max_j |x_j - m|, u = 2^-24:
//   S relative error eS <= 4u + u*D + gamma(L)
//   softmax:     |y_i| (10u + u|x_i - m| + eS)          (e_i: 4u + u|x_i - m|; divide or reciprocal-multiply 2u)
//   log-softmax: u|x_i - m| + eS + 2u|log S| + u|y_i|
//   bwd softmax: s = sum dy_j y_j (gamma(L+1): product and sum), dx_i = y_i (dy_i - s):
//                |y_i| (Es + u(|dy_i| + |s|)) + u|dx_i|,  Es = gamma(L+1) sum |dy_j y_j|
//   bwd log:     S = sum dy_j (Es = gamma(L) sum|dy_j|), dx_i = dy_i - e^(y_i) S:
//                e^(y_i) Es + 5u|e^(y_i) S| + u|dx_i|   (expf 4u, product u; subtraction u)
// plus 2^-126 absolute (results below fp32's normal range lose their relative accuracy: expf of
// x - m < -87 underflows to subnormals or 0), the reference's own rounding (2^-50 relative) and the
// store into the dtype (store_bound).

namespace hiprim::ref {
namespace {

constexpr double u = kUnitFp32;

double finish(DType dt, double value, double bound) { return stored_bound(dt, value, bound + kFp32TinyNormal); }

}  // namespace

std::vector<std::vector<std::int64_t>> softmax_rows(const SoftmaxProblem& p) {
  const TensorDesc d = p.shape.desc();
  const std::int64_t spatial = p.shape.elements() / (p.shape.n * p.shape.c);
  std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(p.rows()));
  for_each_index(d.dims, [&](const Dims& idx) {
    std::int64_t sp = 0;
    for (std::size_t i = 2; i < idx.size(); ++i) sp = sp * d.dims[i] + idx[i];
    const std::int64_t r = p.mode == SoftmaxMode::instance ? idx[0] : idx[0] * spatial + sp;
    rows[static_cast<std::size_t>(r)].push_back(d.offset(idx));
  });
  return rows;
}

std::vector<double> softmax_row(const SoftmaxProblem& p, const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = p.is_log() ? (x[i] - m) - std::log(s) : std::exp(x[i] - m) / s;
  return y;
}

std::vector<OpExpected> softmax_expected(const OpProblem& op, const std::vector<const HostTensor*>& in) {
  const SoftmaxProblem* p = op_problem_cast<SoftmaxProblem>(op);
  if (!p) throw InputError("softmax reference: not a softmax problem: " + op.str());
  const DType dt = p->shape.dtype;
  const std::int64_t L = p->row_length();
  const bool fwd = p->dir == SoftmaxDir::fwd;
  OpExpected e = make_expected(fwd ? "y" : "dx", p->shape.desc(),
                               "fp32 max-subtracted softmax error model of reference/softmax.cpp (expf 2 ulp, gamma(L) sums, u=2^-24) + store into " +
                                   std::string(dtype_name(dt)));
  for (const auto& row : softmax_rows(*p)) {
    if (fwd) {
      const HostTensor& x = *in[0];
      std::vector<double> xv;
      for (auto o : row) xv.push_back(x.data[o]);
      const double m = *std::max_element(xv.begin(), xv.end());
      double s = 0, D = 0;
      for (double v : xv) {
        s += std::exp(v - m);
        D = std::max(D, std::fabs(v - m));
      }
      const double eS = 4 * u + u * D + gamma_n(L, u);
      const auto y = softmax_row(*p, xv);
      for (std::size_t i = 0; i < row.size(); ++i) {
        const double dxm = std::fabs(xv[i] - m);
        const double b = p->is_log() ? u * dxm + eS + 2 * u * std::fabs(std::log(s)) + u * std::fabs(y[i])
                                     : std::fabs(y[i]) * (10 * u + u * dxm + eS);
        e.value[row[i]] = y[i];
        e.bound[row[i]] = finish(dt, y[i], b);
      }
    } else {
      const HostTensor &y = *in[0], &dy = *in[1];
      if (!p->is_log()) {
        double s = 0, as = 0;
        for (auto o : row) {
          s += double(dy.data[o]) * y.data[o];
          as += std::fabs(double(dy.data[o]) * y.data[o]);
        }
        const double es = gamma_n(L + 1, u) * as;
        for (auto o : row) {
          const double yv = y.data[o], d = dy.data[o], v = yv * (d - s);
          e.value[o] = v;
          e.bound[o] = finish(dt, v, std::fabs(yv) * (es + u * (std::fabs(d) + std::fabs(s))) + u * std::fabs(v));
        }
      } else {
        double S = 0, aS = 0;
        for (auto o : row) {
          S += dy.data[o];
          aS += std::fabs(dy.data[o]);
        }
        const double es = gamma_n(L, u) * aS;
        for (auto o : row) {
          const double ey = std::exp(double(y.data[o])), v = dy.data[o] - ey * S;
          e.value[o] = v;
          e.bound[o] = finish(dt, v, ey * es + 5 * u * std::fabs(ey * S) + u * std::fabs(v));
        }
      }
    }
  }
  return {e};
}

}  // namespace hiprim::ref
