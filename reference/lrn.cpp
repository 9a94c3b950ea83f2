// LRN reference: the scale s of every element first, then y or dx from the window sums.
#include "reference/lrn.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {
namespace {

// x's geometry in 5-D form [N, C, D, H, W] (2D: D = 1, stride 0).
struct Geo {
  std::int64_t ext[5];
  std::int64_t st[5];
  std::int64_t at(const std::int64_t (&i)[5]) const {
    return i[0] * st[0] + i[1] * st[1] + i[2] * st[2] + i[3] * st[3] + i[4] * st[4];
  }
};

Geo geo(const TensorDesc& d) {
  Geo g{};
  const bool three = d.dims.size() == 5;
  for (int i = 0, j = 0; i < 5; ++i) {
    if (i == 2 && !three) {
      g.ext[i] = 1;
      g.st[i] = 0;
      continue;
    }
    g.ext[i] = d.dims[j];
    g.st[i] = d.strides[j];
    ++j;
  }
  return g;
}

template <typename F>
void for_each_pos(const Geo& g, F&& f) {
  std::int64_t i[5];
  for (i[0] = 0; i[0] < g.ext[0]; ++i[0])
    for (i[1] = 0; i[1] < g.ext[1]; ++i[1])
      for (i[2] = 0; i[2] < g.ext[2]; ++i[2])
        for (i[3] = 0; i[3] < g.ext[3]; ++i[3])
          for (i[4] = 0; i[4] < g.ext[4]; ++i[4]) f(static_cast<const std::int64_t(&)[5]>(i));
}

// Calls f(offset) for every j in W(i) (clipped to the tensor).
template <typename F>
void for_each_in_window(const LrnProblem& p, const Geo& g, const std::int64_t (&i)[5], F&& f) {
  const std::int64_t half = (p.size - 1) / 2;
  std::int64_t lo[5], hi[5];  // inclusive
  for (int d = 0; d < 5; ++d) lo[d] = hi[d] = i[d];
  if (p.mode == LrnMode::across) {
    lo[1] = std::max<std::int64_t>(0, i[1] - half);
    hi[1] = std::min(g.ext[1] - 1, i[1] + half);
  } else {
    for (int d = 2; d < 5; ++d) {
      if (g.ext[d] == 1 && g.st[d] == 0) continue;  // the absent depth of 2D
      lo[d] = std::max<std::int64_t>(0, i[d] - half);
      hi[d] = std::min(g.ext[d] - 1, i[d] + half);
    }
  }
  std::int64_t j[5] = {i[0], 0, 0, 0, 0};
  for (j[1] = lo[1]; j[1] <= hi[1]; ++j[1])
    for (j[2] = lo[2]; j[2] <= hi[2]; ++j[2])
      for (j[3] = lo[3]; j[3] <= hi[3]; ++j[3])
        for (j[4] = lo[4]; j[4] <= hi[4]; ++j[4]) f(g.at(j));
}

struct Scalars {
  double alpha, beta, k, area;
};
Scalars scalars(const LrnProblem& p) {
  return {static_cast<float>(p.alpha), static_cast<float>(p.beta), static_cast<float>(p.k),
          static_cast<double>(p.area())};
}

// s per storage offset of x.
std::vector<double> scales(const LrnProblem& p, const HostTensor& x, const Geo& g, const Scalars& c) {
  std::vector<double> s(x.data.size(), 0.0);
  for_each_pos(g, [&](const std::int64_t (&i)[5]) {
    double sq = 0;
    for_each_in_window(p, g, i, [&](std::int64_t o) { sq += static_cast<double>(x.data[o]) * x.data[o]; });
    s[g.at(i)] = c.k + c.alpha / c.area * sq;
  });
  return s;
}

double scale_error(const LrnProblem& p) { return gamma_n(2 * p.area() + 4, kUnitFp32); }

}  // namespace

std::vector<OpExpected> lrn_forward(const LrnProblem& p, const HostTensor& x) {
  const Geo g = geo(x.desc);
  const Scalars c = scalars(p);
  const std::vector<double> s = scales(p, x, g, c);
  const double r = 2 * std::fabs(c.beta) * scale_error(p) + (kPowUlps + 1) * kUnitFp32;
  OpExpected y{"y", std::vector<double>(x.data.size(), 0.0), std::vector<double>(x.data.size(), 0.0),
               "x*s^-beta: relative 2|beta|*gamma(2A+4) + (8 ulp powf + 1) u, + store rounding"};
  for_each_pos(g, [&](const std::int64_t (&i)[5]) {
    const std::int64_t o = g.at(i);
    const double v = x.data[o] * std::pow(s[o], -c.beta);
    y.value[o] = v;
    y.bound[o] = r * std::fabs(v) + store_bound(p.shape.dtype, std::fabs(v) * (1 + r));
  });
  return {std::move(y)};
}

std::vector<OpExpected> lrn_backward(const LrnProblem& p, const HostTensor& x, const HostTensor& dy) {
  const Geo g = geo(x.desc);
  const Scalars c = scalars(p);
  const std::vector<double> s = scales(p, x, g, c);
  std::vector<double> q(x.data.size(), 0.0);  // dy_j * x_j * s_j^(-beta-1)
  for_each_pos(g, [&](const std::int64_t (&i)[5]) {
    const std::int64_t o = g.at(i);
    q[o] = static_cast<double>(dy.data[o]) * x.data[o] * std::pow(s[o], -c.beta - 1);
  });
  const double coef = 2 * c.alpha * c.beta / c.area;
  const double r = 2 * (std::fabs(c.beta) + 1) * scale_error(p) + kPowUlps * kUnitFp32 + gamma_n(p.area() + 8, kUnitFp32);
  OpExpected dx{"dx", std::vector<double>(x.data.size(), 0.0), std::vector<double>(x.data.size(), 0.0),
                "dy*s^-beta - c*x*sum q: relative 2(|beta|+1)*gamma(2A+4) + 8u + gamma(A+8) of the absolute terms, + store"};
  for_each_pos(g, [&](const std::int64_t (&i)[5]) {
    const std::int64_t o = g.at(i);
    double sum = 0, abs_sum = 0;
    for_each_in_window(p, g, i, [&](std::int64_t j) {
      sum += q[j];
      abs_sum += std::fabs(q[j]);
    });
    const double t1 = dy.data[o] * std::pow(s[o], -c.beta);
    const double v = t1 - coef * x.data[o] * sum;
    const double e = r * (std::fabs(t1) + std::fabs(coef * x.data[o]) * abs_sum);
    dx.value[o] = v;
    dx.bound[o] = e + store_bound(p.shape.dtype, std::fabs(v) + e);
  });
  return {std::move(dx)};
}

std::vector<OpExpected> lrn_expected(const OpProblem& problem, const std::vector<const HostTensor*>& inputs) {
  const LrnProblem* p = op_problem_cast<LrnProblem>(problem);
  if (!p) throw InputError("lrn reference: not an lrn problem (" + problem.op() + ")");
  if (p->dir == LrnDir::fwd) return lrn_forward(*p, *inputs.at(0));
  return lrn_backward(*p, *inputs.at(0), *inputs.at(1));
}

}  // namespace hiprim::ref
