// Pooling reference: windows walked in scan order (depth, height, width; 2D as depth 1).
#include "reference/pool.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {
namespace {

// The problem in 3-D form: 2D problems get depth 1, window 1, pad 0, stride 1.
struct Geo3 {
  std::int64_t in[3], out[3], win[3], pad[3], str[3];
};

Geo3 geo3(const PoolProblem& p) {
  Geo3 g{};
  const Dims o = p.out();
  const int r = p.rank();
  for (int i = 0; i < 3; ++i) {
    const int s = i - (3 - r);  // index into the problem's spatial dims; < 0: the absent depth
    g.in[i] = s < 0 ? 1 : p.shape.in[s];
    g.out[i] = s < 0 ? 1 : o[s];
    g.win[i] = s < 0 ? 1 : p.window[s];
    g.pad[i] = s < 0 ? 0 : p.pad[s];
    g.str[i] = s < 0 ? 1 : p.stride[s];
  }
  return g;
}

// Storage strides of a [N, C, (D,) H, W] descriptor as n, c, d, h, w (d = 0 in 2D).
struct Strides5 {
  std::int64_t n, c, d, h, w;
  std::int64_t at(std::int64_t in, std::int64_t ic, const std::int64_t s[3]) const {
    return in * n + ic * c + s[0] * d + s[1] * h + s[2] * w;
  }
};

Strides5 strides5(const TensorDesc& t) {
  const auto& s = t.strides;
  return s.size() == 5 ? Strides5{s[0], s[1], s[2], s[3], s[4]} : Strides5{s[0], s[1], 0, s[2], s[3]};
}

// Input positions of window o inside the input along one dim: [lo, hi).
std::int64_t window_start(const Geo3& g, int d, std::int64_t o) { return o * g.str[d] - g.pad[d]; }
std::int64_t valid_count(const Geo3& g, const std::int64_t o[3]) {
  std::int64_t cnt = 1;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t s = window_start(g, d, o[d]);
    cnt *= std::min(s + g.win[d], g.in[d]) - std::max<std::int64_t>(s, 0);
  }
  return cnt;
}

// Bound of an fp32 sum of `terms` roundings over terms with absolute sum abs_sum, then stored in dt.
double rounded_sum_bound(std::int64_t terms, double abs_sum, double value, DType dt) {
  const double e = sum_bound(terms, abs_sum);
  return e + store_bound(dt, std::fabs(value) + e);
}

// The max rule: NaN beats every number; otherwise strictly greater (the first maximum stays).
bool beats(double v, double best) { return (std::isnan(v) && !std::isnan(best)) || v > best; }

template <typename F>
void for_each_nc_pos(std::int64_t n, std::int64_t c, const std::int64_t ext[3], F&& f) {
  std::int64_t pos[3];
  for (std::int64_t in = 0; in < n; ++in)
    for (std::int64_t ic = 0; ic < c; ++ic)
      for (pos[0] = 0; pos[0] < ext[0]; ++pos[0])
        for (pos[1] = 0; pos[1] < ext[1]; ++pos[1])
          for (pos[2] = 0; pos[2] < ext[2]; ++pos[2]) f(in, ic, static_cast<const std::int64_t*>(pos));
}

}  // namespace

std::vector<OpExpected> pool_forward(const PoolProblem& p, const HostTensor& x) {
  const Geo3 g = geo3(p);
  const TensorDesc yd = p.y_desc();
  const Strides5 xs = strides5(x.desc), ys = strides5(yd);
  const auto ny = static_cast<std::size_t>(yd.storage_elements());
  const DType dt = p.shape.dtype;
  const bool is_max = p.mode == PoolMode::max;
  const std::int64_t L = p.window_elements();
  OpExpected y{"y", std::vector<double>(ny, 0.0), std::vector<double>(ny, 0.0), ""};
  OpExpected idx{"idx", std::vector<double>(ny, 0.0), std::vector<double>(ny, 0.0),
                 "exact: the window index of the first maximum in scan order (NaN beats numbers)"};
  y.rule = is_max ? "exact: the maximum of the window"
                  : "fp32 sum of L=" + std::to_string(L) + " terms and a division: gamma(L+1)*sum|x|/count + store rounding";
  for_each_nc_pos(p.shape.n, p.shape.c, g.out, [&](std::int64_t in, std::int64_t ic, const std::int64_t* o) {
    double best = 0, sum = 0, abs_sum = 0;
    std::int64_t best_k = -1, cnt = 0;
    std::int64_t k[3], pos[3];
    for (k[0] = 0; k[0] < g.win[0]; ++k[0])
      for (k[1] = 0; k[1] < g.win[1]; ++k[1])
        for (k[2] = 0; k[2] < g.win[2]; ++k[2]) {
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            pos[d] = window_start(g, d, o[d]) + k[d];
            inside = inside && pos[d] >= 0 && pos[d] < g.in[d];
          }
          if (!inside) continue;
          const double v = x.data[static_cast<std::size_t>(xs.at(in, ic, pos))];
          if (best_k < 0 || beats(v, best)) {
            best = v;
            best_k = (k[0] * g.win[1] + k[1]) * g.win[2] + k[2];
          }
          sum += v;
          abs_sum += std::fabs(v);
          ++cnt;
        }
    const auto at = static_cast<std::size_t>(ys.at(in, ic, o));
    if (is_max) {
      y.value[at] = best;
      idx.value[at] = static_cast<double>(best_k);
    } else {
      const double div = static_cast<double>(p.mode == PoolMode::avg_incl ? L : cnt);
      y.value[at] = sum / div;
      y.bound[at] = rounded_sum_bound(L + 1, abs_sum / div, y.value[at], dt);
    }
  });
  if (is_max) return {std::move(y), std::move(idx)};
  return {std::move(y)};
}

std::vector<OpExpected> pool_backward(const PoolProblem& p, const HostTensor& dy, const HostTensor* idx) {
  const bool is_max = p.mode == PoolMode::max;
  if (is_max && !idx) throw InputError("pool bwd max: the saved indices (tensor idx) are required");
  const Geo3 g = geo3(p);
  const TensorDesc xd = p.x_desc();
  const Strides5 xs = strides5(xd), ys = strides5(dy.desc);
  const auto nx = static_cast<std::size_t>(xd.storage_elements());
  const DType dt = p.shape.dtype;
  OpExpected dx{"dx", std::vector<double>(nx, 0.0), std::vector<double>(nx, 0.0),
                is_max ? "fp32 sum of the K dy's routed by idx: gamma(K)*sum|dy| + store rounding"
                       : "fp32 sum of K dy/count terms: gamma(K+1)*sum|dy/count| + store rounding"};
  for_each_nc_pos(p.shape.n, p.shape.c, g.in, [&](std::int64_t in, std::int64_t ic, const std::int64_t* i) {
    // Windows containing i along each dim: o*str - pad <= i <= o*str - pad + win - 1.
    std::int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const std::int64_t a = i[d] + g.pad[d] - g.win[d] + 1;  // o*str >= a
      lo[d] = std::max<std::int64_t>(0, a <= 0 ? 0 : (a + g.str[d] - 1) / g.str[d]);
      hi[d] = std::min(g.out[d] - 1, (i[d] + g.pad[d]) / g.str[d]);
    }
    double sum = 0, abs_sum = 0;
    std::int64_t terms = 0;
    std::int64_t o[3];
    for (o[0] = lo[0]; o[0] <= hi[0]; ++o[0])
      for (o[1] = lo[1]; o[1] <= hi[1]; ++o[1])
        for (o[2] = lo[2]; o[2] <= hi[2]; ++o[2]) {
          const auto at = static_cast<std::size_t>(ys.at(in, ic, o));
          const double g_out = dy.data[at];
          double term = 0;
          if (is_max) {
            const double saved = idx->data[at];
            const std::int64_t k = ((i[0] - window_start(g, 0, o[0])) * g.win[1] + (i[1] - window_start(g, 1, o[1]))) *
                                       g.win[2] +
                                   (i[2] - window_start(g, 2, o[2]));
            if (saved != static_cast<double>(k)) continue;
            term = g_out;
          } else {
            const std::int64_t div = p.mode == PoolMode::avg_incl ? p.window_elements() : valid_count(g, o);
            term = g_out / static_cast<double>(div);
          }
          sum += term;
          abs_sum += std::fabs(term);
          ++terms;
        }
    const auto at = static_cast<std::size_t>(xs.at(in, ic, i));
    dx.value[at] = sum;
    dx.bound[at] = terms == 0 ? 0.0 : rounded_sum_bound(is_max ? terms : terms + 1, abs_sum, sum, dt);
  });
  return {std::move(dx)};
}

std::vector<OpExpected> pool_expected(const OpProblem& problem, const std::vector<const HostTensor*>& inputs) {
  const PoolProblem* p = op_problem_cast<PoolProblem>(problem);
  if (!p) throw InputError("pool reference: not a pool problem (" + problem.op() + ")");
  if (p->dir == PoolDir::fwd) return pool_forward(*p, *inputs.at(0));
  return pool_backward(*p, *inputs.at(0), p->mode == PoolMode::max ? inputs.at(1) : nullptr);
}

}  // namespace hiprim::ref
