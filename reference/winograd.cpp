// Winograd F(m x m, r x r): the double and fp32 evaluations and the bound's inputs
// (reference/winograd.hpp has the order and the bound; core/winograd_transforms.hpp the transforms).
#include "reference/winograd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "reference/error_model.hpp"
#include "reference/parallel.hpp"

namespace hiprim::ref {

std::int64_t winograd_depth(const WinogradTransforms& t, std::int64_t channels) {
  const int c_g = t.fp32_exact(t.g) ? 0 : 1, c_b = t.fp32_exact(t.bt) ? 0 : 1, c_a = t.fp32_exact(t.at) ? 0 : 1;
  return 2 * t.r + 4 * t.a + channels + 2 * (c_g + c_b + c_a);
}

std::int64_t winograd_wgrad_terms(const ConvProblem& p, int m) {
  const Dims out = p.out();
  return p.n * ((out[0] + m - 1) / m) * ((out[1] + m - 1) / m);
}

std::int64_t winograd_wgrad_depth(const WinogradTransforms& t, std::int64_t tile_terms) {
  const int c_g = t.fp32_exact(t.g) ? 0 : 1, c_b = t.fp32_exact(t.bt) ? 0 : 1, c_a = t.fp32_exact(t.at) ? 0 : 1;
  return 2 * t.m + 4 * t.a + tile_terms + 2 * (c_g + c_b + c_a);
}

namespace {

// The underflow account of the fp32 evaluation, carried beside S: a product below fp32's normal range
// is off by up to eta = 2^-150 (half the subnormal spacing) in absolute terms, outside the relative
// model gamma(L) * S (a sum of subnormals is exact). On |.| like S, each value holds (a, e): a its S
// part, e the eta units of absolute error it may carry, to first order:
//   (a1, e1) * (a2, e2) = (a1 a2, a1 e2 + a2 e1 + 1)   (no 1 when a factor is exactly 0: 0 rounds to itself)
//   (a1, e1) + (a2, e2) = (a1 + a2, e1 + e2);   constants and inputs (a, 0).
struct UnderflowAccount {
  double a = 0, e = 0;
  UnderflowAccount() = default;
  UnderflowAccount(double value) : a(value) {}  // NOLINT(google-explicit-constructor): constants and |inputs|
  UnderflowAccount(double value, double units) : a(value), e(units) {}
  bool zero() const { return a == 0 && e == 0; }
  friend UnderflowAccount operator+(const UnderflowAccount& x, const UnderflowAccount& y) { return {x.a + y.a, x.e + y.e}; }
  friend UnderflowAccount operator*(const UnderflowAccount& x, const UnderflowAccount& y) {
    return {x.a * y.a, x.a * y.e + y.a * x.e + (x.zero() || y.zero() ? 0.0 : 1.0)};
  }
};
constexpr double kEtaFp32 = 0x1p-150;

// A transformed operand (U, V, or bwd-weights' D) stored in dtype `t` before the GEMM, as a solver whose
// GEMM reads 16-bit operands does (t = fp32: unchanged). float: rounded to nearest even (round_to). The
// underflow account: |fl_t(v) - v| <= u_t |v| + eta_t, u_t enters the bound as its input_unit (the model's
// winograd_operands) and eta_t = store_underflow(t) (bf16 2^-134, fp16 2^-25) as eta units here, so
// gamma(L) * abs_sum still covers it (a later factor scales it by at most (1 + u_t)(1 + gamma), inside the
// bound's eta + f gamma (1 + eta)). double (the exact algorithm): unchanged.
template <typename S>
std::vector<S> stored_as(std::vector<S> v, DType t) {
  if (t == DType::fp32) return v;
  if constexpr (std::is_same_v<S, float>) {
    for (float& x : v) x = round_to(t, x);
  } else if constexpr (std::is_same_v<S, UnderflowAccount>) {
    const double units = store_underflow(t) / kEtaFp32;
    for (UnderflowAccount& x : v)
      if (!x.zero()) x.e += units;
  }
  return v;
}
// Threads (reference/parallel.hpp): at least this many operations each; bwd-weights holds the D and V of
// up to this many transformed entries at once (its blocks of tiles).
constexpr double kWorkPerThread = 1 << 22;
constexpr std::int64_t kWgradBlockEntries = 1 << 22;

// lhs [rows][inner] x rhs [inner][cols] -> [rows][cols], each entry one sum over the inner index ascending.
template <typename S>
std::vector<S> mul(const std::vector<S>& lhs, const std::vector<S>& rhs, int rows, int inner, int cols) {
  std::vector<S> o(static_cast<std::size_t>(rows * cols), S(0));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      S s = S(0);
      for (int l = 0; l < inner; ++l) s = s + lhs[i * inner + l] * rhs[l * cols + j];
      o[i * cols + j] = s;
    }
  return o;
}
template <typename S>
std::vector<S> transpose(const std::vector<S>& v, int rows, int cols) {
  std::vector<S> o(v.size());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) o[j * rows + i] = v[i * cols + j];
  return o;
}

// One evaluation of the algorithm in arithmetic S (double or float) over matrices of S; with
// `absolute`, every matrix entry and datum enters as its absolute value (S of the bound).
template <typename S>
std::vector<S> evaluate(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x, const HostTensor& w,
                        const std::vector<S>& at, const std::vector<S>& g, const std::vector<S>& bt, bool absolute,
                        DType operands = DType::fp32) {
  if (const std::string why = winograd_refusal(p, t); !why.empty()) throw InputError("winograd: " + why);
  if (p.dir == ConvDir::bwd_data)  // the fwd equivalent: its y is p's dx (same desc)
    return evaluate<S>(winograd_fwd_equivalent(p), t, x, winograd_equivalent_filter(p, w), at, g, bt, absolute, operands);
  const int m = t.m, r = t.r, a = t.a;
  const Dims out = p.out();
  const std::int64_t P = out[0], Q = out[1], H = p.in[0], W = p.in[1];
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
  const TensorDesc yd = p.y_desc();
  std::vector<S> y(static_cast<std::size_t>(yd.storage_elements()), S(0));
  auto val = [&](float v) { return absolute ? static_cast<S>(std::fabs(v)) : static_cast<S>(v); };
  const std::vector<S> g_t = transpose(g, a, r), b = transpose(bt, a, a), a_ = transpose(at, m, a);
  for (std::int64_t grp = 0; grp < p.groups; ++grp) {
    // U[kk][cc] = G g G^T (a x a), for the group's filters
    std::vector<std::vector<S>> u(static_cast<std::size_t>(kg * cg));
    for (std::int64_t kk = 0; kk < kg; ++kk)
      for (std::int64_t cc = 0; cc < cg; ++cc) {
        std::vector<S> f(static_cast<std::size_t>(r * r));
        for (int i = 0; i < r; ++i)
          for (int j = 0; j < r; ++j) f[i * r + j] = val(w.at({grp * kg + kk, cc, i, j}));
        u[kk * cg + cc] = stored_as(mul(mul(g, f, a, r, r), g_t, a, r, a), operands);
      }
    // Rows of tiles (n, th) in parallel: each output belongs to one tile, computed in the order below.
    const double tile_work = static_cast<double>(kg * cg + kg * 2 * a * m + cg * 2 * a * a) * a * a;
    for_parts(p.n * tiles_h, tile_work * static_cast<double>(p.n * tiles_h * tiles_w), kWorkPerThread, [&](long long lo, long long hi) {
      for (std::int64_t row = lo; row < hi; ++row) {
        const std::int64_t n = row / tiles_h, th = row % tiles_h;
        for (std::int64_t tw = 0; tw < tiles_w; ++tw) {
          std::vector<std::vector<S>> v(static_cast<std::size_t>(cg));  // V[cc] = B^T d B
          for (std::int64_t cc = 0; cc < cg; ++cc) {
            std::vector<S> d(static_cast<std::size_t>(a * a), S(0));
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                const std::int64_t h = th * m - p.pad[0] + i, ww = tw * m - p.pad[1] + j;
                if (h >= 0 && h < H && ww >= 0 && ww < W) d[i * a + j] = val(x.at({n, grp * cg + cc, h, ww}));
              }
            v[cc] = stored_as(mul(mul(bt, d, a, a, a), b, a, a, a), operands);
          }
          for (std::int64_t kk = 0; kk < kg; ++kk) {
            // sum_c U . V, c ascending; fp32 by fused multiply-adds (one rounding per channel), as the
            // solvers' batched GEMM sums (gpu/conv/simt_batched_gemm.hpp: conv.igemm.simt's fmaf chain)
            std::vector<S> prod(static_cast<std::size_t>(a * a), S(0));
            for (std::int64_t cc = 0; cc < cg; ++cc)
              for (int e = 0; e < a * a; ++e) {
                if constexpr (std::is_same_v<S, float>)
                  prod[e] = std::fma(u[kk * cg + cc][e], v[cc][e], prod[e]);
                else
                  prod[e] = prod[e] + u[kk * cg + cc][e] * v[cc][e];
              }
            const std::vector<S> tile = mul(mul(at, prod, m, a, a), a_, m, a, m);
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < m; ++j) {
                const std::int64_t oh = th * m + i, ow = tw * m + j;
                if (oh < P && ow < Q) y[static_cast<std::size_t>(yd.offset({n, grp * kg + kk, oh, ow}))] = tile[i * m + j];
              }
          }
        }
      }
    });
  }
  return y;
}

// bwd-weights in arithmetic S (see the header): dw = G^T [sum_t (A dy_t A^T) . (B^T x_t B)] G.
// chunk > 0: the tile sum split into runs of `chunk` terms, each summed from 0, the runs' sums added
// in order to a total that starts at 0 (a split GEMM's order).
template <typename S>
std::vector<S> evaluate_wgrad(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x, const HostTensor& dy,
                              const std::vector<S>& at, const std::vector<S>& g, const std::vector<S>& bt, bool absolute,
                              std::int64_t chunk = 0, DType operands = DType::fp32) {
  if (const std::string why = winograd_wgrad_refusal(p, t); !why.empty()) throw InputError("winograd bwd-weights: " + why);
  const int m = t.m, r = t.r, a = t.a;
  const Dims out = p.out();
  const std::int64_t P = out[0], Q = out[1], H = p.in[0], W = p.in[1];
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
  const TensorDesc wd = p.w_desc();
  std::vector<S> dw(static_cast<std::size_t>(wd.storage_elements()), S(0));
  auto val = [&](float v) { return absolute ? static_cast<S>(std::fabs(v)) : static_cast<S>(v); };
  // A = (A^T)^T [a][m], G^T [r][a], B [a][a]
  const std::vector<S> a_mat = transpose(at, m, a), g_t = transpose(g, a, r), b = transpose(bt, a, a);
  const std::int64_t pairs = kg * cg, tiles_img = tiles_h * tiles_w, terms = p.n * tiles_img;
  const bool split = chunk > 0 && chunk < terms;
  for (std::int64_t grp = 0; grp < p.groups; ++grp) {
    std::vector<std::vector<S>> acc(static_cast<std::size_t>(pairs), std::vector<S>(static_cast<std::size_t>(a * a), S(0)));
    std::vector<std::vector<S>> total = acc;
    // Tiles (terms) in blocks: the block's D and V in parallel over its tiles, then the sums in parallel
    // over the (k, c) pairs, each pair's terms ascending (runs of `chunk` as below): the order of one thread.
    const std::int64_t block = std::max<std::int64_t>(1, std::min<std::int64_t>(terms, kWgradBlockEntries / ((kg + cg) * a * a)));
    std::vector<std::vector<S>> d(static_cast<std::size_t>(block * kg)), v(static_cast<std::size_t>(block * cg));
    for (std::int64_t t0 = 0; t0 < terms; t0 += block) {
      const std::int64_t nt = std::min(block, terms - t0);
      for_parts(nt, static_cast<double>(nt * (kg + cg)) * 4 * a * a * a, kWorkPerThread, [&](long long lo, long long hi) {
        for (std::int64_t ti = lo; ti < hi; ++ti) {
          const std::int64_t term = t0 + ti, n = term / tiles_img, th = term % tiles_img / tiles_w, tw = term % tiles_w;
          for (std::int64_t kk = 0; kk < kg; ++kk) {  // D = A dy_t A^T
            std::vector<S> e(static_cast<std::size_t>(m * m), S(0));
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < m; ++j) {
                const std::int64_t oh = th * m + i, ow = tw * m + j;
                if (oh < P && ow < Q) e[i * m + j] = val(dy.at({n, grp * kg + kk, oh, ow}));
              }
            d[ti * kg + kk] = stored_as(mul(mul(a_mat, e, a, m, m), at, a, m, a), operands);
          }
          for (std::int64_t cc = 0; cc < cg; ++cc) {  // V = B^T x_t B
            std::vector<S> e(static_cast<std::size_t>(a * a), S(0));
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                const std::int64_t h = th * m - p.pad[0] + i, ww = tw * m - p.pad[1] + j;
                if (h >= 0 && h < H && ww >= 0 && ww < W) e[i * a + j] = val(x.at({n, grp * cg + cc, h, ww}));
              }
            v[ti * cg + cc] = stored_as(mul(mul(bt, e, a, a, a), b, a, a, a), operands);
          }
        }
      });
      for_parts(pairs, static_cast<double>(pairs * nt) * a * a, kWorkPerThread, [&](long long lo, long long hi) {
        for (std::int64_t pr = lo; pr < hi; ++pr) {
          const std::int64_t kk = pr / cg, cc = pr % cg;
          std::vector<S>& s = acc[pr];
          for (std::int64_t ti = 0; ti < nt; ++ti) {
            const std::vector<S>& dk = d[ti * kg + kk];
            const std::vector<S>& vc = v[ti * cg + cc];
            for (int e = 0; e < a * a; ++e) {
              if constexpr (std::is_same_v<S, float>)
                s[e] = std::fma(dk[e], vc[e], s[e]);
              else
                s[e] = s[e] + dk[e] * vc[e];
            }
            const std::int64_t done = t0 + ti + 1;
            if (split && (done % chunk == 0 || done == terms))  // a run ends: total += run, run = 0
              for (int e = 0; e < a * a; ++e) total[pr][e] = total[pr][e] + s[e], s[e] = S(0);
          }
        }
      });
    }
    if (split) acc.swap(total);
    for (std::int64_t kk = 0; kk < kg; ++kk)
      for (std::int64_t cc = 0; cc < cg; ++cc) {
        const std::vector<S> tile = mul(mul(g_t, acc[kk * cg + cc], r, a, a), g, r, a, r);  // G^T M G
        for (int i = 0; i < r; ++i)
          for (int j = 0; j < r; ++j) dw[static_cast<std::size_t>(wd.offset({grp * kg + kk, cc, i, j}))] = tile[i * r + j];
      }
  }
  return dw;
}

template <typename S>
std::vector<S> as(const std::vector<Rational>& mat, bool absolute) {
  std::vector<S> o;
  for (const Rational& q : mat) {
    // float: num/den rounded once (both < 2^24 for the offered points); double: its nearest
    const S v = static_cast<S>(q.num) / static_cast<S>(q.den);
    o.push_back(absolute ? std::fabs(v) : v);
  }
  return o;
}

std::vector<UnderflowAccount> accounts(const std::vector<Rational>& mat) {
  std::vector<UnderflowAccount> o;
  for (double v : as<double>(mat, true)) o.emplace_back(v);
  return o;
}

// S per output with the underflow account (the header): a + (1 + gamma(L)) / gamma(L) * eta * e, so
// gamma(L) * S >= gamma(L) * a + (1 + gamma(L)) * eta * e.
std::vector<double> with_underflow(const std::vector<UnderflowAccount>& acc, std::int64_t depth) {
  const double gam = gamma_n(depth, 0x1p-24);
  std::vector<double> s(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) s[i] = acc[i].a + (acc[i].e > 0 ? (1 + gam) / gam * kEtaFp32 * acc[i].e : 0.0);
  return s;
}

}  // namespace

HostTensor winograd_equivalent_filter(const ConvProblem& p, const HostTensor& w) {
  if (p.dir != ConvDir::bwd_data) return w;
  const ConvProblem q = winograd_fwd_equivalent(p);
  HostTensor out(q.w_desc());
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups, R = p.filter[0], S = p.filter[1];
  for_each_index(out.desc.dims, [&](const Dims& i) {  // i = [c', k', r, s] of w'
    const std::int64_t grp = i[0] / cg;
    out.at(i) = w.at({grp * kg + i[1], i[0] - grp * cg, R - 1 - i[2], S - 1 - i[3]});
  });
  return out;
}

std::vector<double> winograd_abs_sum(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x, const HostTensor& w,
                                     DType operands) {
  // S, with the underflow account folded in: gamma(L) * abs_sum = gamma(L) * S + (1 + gamma(L)) * eta * E
  // (each eta enters at one operation and the later ones scale it by at most (1 + u)^L).
  return with_underflow(evaluate<UnderflowAccount>(p, t, x, w, accounts(t.at), accounts(t.g), accounts(t.bt), true, operands),
                        winograd_depth(t, winograd_fwd_equivalent(p).c / p.groups));
}

WinogradOutput winograd_conv_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                    const HostTensor& w, bool abs_sum) {
  WinogradOutput o;
  o.value = evaluate<double>(p, t, x, w, as<double>(t.at, false), as<double>(t.g, false), as<double>(t.bt, false), false);
  if (abs_sum) o.abs_sum = winograd_abs_sum(p, t, x, w);
  return o;
}

std::vector<float> winograd_conv_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                      const HostTensor& w, DType operands) {
  return evaluate<float>(p, t, x, w, as<float>(t.at, false), as<float>(t.g, false), as<float>(t.bt, false), false, operands);
}

std::vector<double> winograd_wgrad_abs_sum(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                           const HostTensor& dy, DType operands) {
  return with_underflow(evaluate_wgrad<UnderflowAccount>(p, t, x, dy, accounts(t.at), accounts(t.g), accounts(t.bt), true, 0, operands),
                        winograd_wgrad_depth(t, winograd_wgrad_terms(p, t.m)));
}

WinogradOutput winograd_wgrad_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                     const HostTensor& dy, bool abs_sum) {
  WinogradOutput o;
  o.value = evaluate_wgrad<double>(p, t, x, dy, as<double>(t.at, false), as<double>(t.g, false), as<double>(t.bt, false), false);
  if (abs_sum) o.abs_sum = winograd_wgrad_abs_sum(p, t, x, dy);
  return o;
}

std::vector<float> winograd_wgrad_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                       const HostTensor& dy, std::int64_t chunk, DType operands) {
  return evaluate_wgrad<float>(p, t, x, dy, as<float>(t.at, false), as<float>(t.g, false), as<float>(t.bt, false), false, chunk,
                               operands);
}

}  // namespace hiprim::ref
