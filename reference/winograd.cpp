// Winograd F(m x m, r x r): transforms, the double and fp32 evaluations, the bound's inputs
// (reference/winograd.hpp has the math and the order).
#include "reference/winograd.hpp"

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace hiprim::ref {

Rational::Rational(std::int64_t n, std::int64_t d) {
  if (d == 0) throw InputError("Rational: zero denominator");
  if (d < 0) n = -n, d = -d;
  const std::int64_t g = std::gcd(n < 0 ? -n : n, d);
  num = g ? n / g : 0, den = g ? d / g : 1;
}
bool Rational::fp32_exact() const {
  return (den & (den - 1)) == 0 && (num < 0 ? -num : num) < (std::int64_t{1} << 24);
}
Rational operator+(Rational a, Rational b) { return {a.num * b.den + b.num * a.den, a.den * b.den}; }
Rational operator-(Rational a, Rational b) { return {a.num * b.den - b.num * a.den, a.den * b.den}; }
Rational operator*(Rational a, Rational b) { return {a.num * b.num, a.den * b.den}; }
Rational operator/(Rational a, Rational b) { return {a.num * b.den, a.den * b.num}; }

bool WinogradTransforms::fp32_exact(const std::vector<Rational>& mat) const {
  for (const Rational& q : mat)
    if (!q.fp32_exact()) return false;
  return true;
}

namespace {

// Coefficients (ascending powers) of prod over `roots` of (x - root).
std::vector<Rational> poly_from_roots(const std::vector<Rational>& roots) {
  std::vector<Rational> c{Rational(1)};
  for (const Rational& q : roots) {
    std::vector<Rational> next(c.size() + 1, Rational(0));
    for (std::size_t i = 0; i < c.size(); ++i) {
      next[i + 1] = next[i + 1] + c[i];
      next[i] = next[i] - c[i] * q;
    }
    c = std::move(next);
  }
  return c;
}

Rational power(Rational q, int e) {
  Rational out(1);
  for (int i = 0; i < e; ++i) out = out * q;
  return out;
}

}  // namespace

WinogradTransforms winograd_transforms(int m, int r, const std::vector<Rational>& points) {
  WinogradTransforms t;
  t.m = m, t.r = r, t.a = m + r - 1, t.points = points;
  const int a = t.a, f = a - 1;  // f finite points, then infinity
  if (m < 1 || r < 1) throw InputError("winograd_transforms: m and r must be positive");
  if (static_cast<int>(points.size()) != f)
    throw InputError("winograd_transforms: F(" + std::to_string(m) + "," + std::to_string(r) + ") needs " +
                     std::to_string(f) + " finite points, got " + std::to_string(points.size()));
  for (int k = 0; k < f; ++k)
    for (int l = 0; l < k; ++l)
      if (points[k] == points[l]) throw InputError("winograd_transforms: the points must be distinct");
  t.at.assign(static_cast<std::size_t>(m * a), Rational(0));
  t.g.assign(static_cast<std::size_t>(a * r), Rational(0));
  t.bt.assign(static_cast<std::size_t>(a * a), Rational(0));
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < f; ++k) t.at[i * a + k] = power(points[k], i);
    t.at[i * a + f] = Rational(i == m - 1 ? 1 : 0);
  }
  for (int k = 0; k < f; ++k) {
    std::vector<Rational> others;
    Rational norm(1);
    for (int l = 0; l < f; ++l)
      if (l != k) others.push_back(points[l]), norm = norm * (points[k] - points[l]);
    for (int j = 0; j < r; ++j) t.g[k * r + j] = power(points[k], j) / norm;
    const std::vector<Rational> c = poly_from_roots(others);  // degree f - 1
    for (std::size_t i = 0; i < c.size(); ++i) t.bt[k * a + static_cast<int>(i)] = c[i];
  }
  t.g[f * r + (r - 1)] = Rational(1);
  const std::vector<Rational> whole = poly_from_roots(points);  // degree f = a - 1
  for (std::size_t i = 0; i < whole.size(); ++i) t.bt[f * a + static_cast<int>(i)] = whole[i];
  return t;
}

WinogradTransforms winograd_f3(int m) {
  const Rational h(1, 2);
  switch (m) {
    case 2: return winograd_transforms(2, 3, {Rational(0), Rational(1), Rational(-1)});
    case 4: return winograd_transforms(4, 3, {Rational(0), Rational(1), Rational(-1), Rational(2), Rational(-2)});
    case 6:
      return winograd_transforms(6, 3, {Rational(0), Rational(1), Rational(-1), Rational(2), Rational(-2), h, Rational(0) - h});
    default: throw InputError("winograd_f3: F(" + std::to_string(m) + ",3) is not offered (m = 2, 4 or 6)");
  }
}

std::string winograd_refusal(const ConvProblem& p, const WinogradTransforms& t) {
  if (!p.valid()) return "invalid problem";
  if (p.dir != ConvDir::fwd || p.mode != ConvMode::conv) return "fwd convolution only";
  if (p.rank() != 2) return "2D only";
  if (p.stride[0] != 1 || p.stride[1] != 1 || p.dilation[0] != 1 || p.dilation[1] != 1) return "stride 1, dilation 1 only";
  if (p.filter[0] != t.r || p.filter[1] != t.r)
    return "filter " + std::to_string(p.filter[0]) + "x" + std::to_string(p.filter[1]) + " is not the transform's " +
           std::to_string(t.r) + "x" + std::to_string(t.r);
  if (p.bias) return "no bias";
  return "";
}

std::int64_t winograd_depth(const WinogradTransforms& t, std::int64_t channels) {
  const int c_g = t.fp32_exact(t.g) ? 0 : 1, c_b = t.fp32_exact(t.bt) ? 0 : 1, c_a = t.fp32_exact(t.at) ? 0 : 1;
  return 2 * t.r + 4 * t.a + channels + 2 * (c_g + c_b + c_a);
}

namespace {

// One evaluation of the algorithm in arithmetic S (double or float) over matrices of S; with
// `absolute`, every matrix entry and datum enters as its absolute value (S of the bound).
template <typename S>
std::vector<S> evaluate(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x, const HostTensor& w,
                        const std::vector<S>& at, const std::vector<S>& g, const std::vector<S>& bt, bool absolute) {
  if (const std::string why = winograd_refusal(p, t); !why.empty()) throw InputError("winograd: " + why);
  const int m = t.m, r = t.r, a = t.a;
  const Dims out = p.out();
  const std::int64_t P = out[0], Q = out[1], H = p.in[0], W = p.in[1];
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
  const TensorDesc yd = p.y_desc();
  std::vector<S> y(static_cast<std::size_t>(yd.storage_elements()), S(0));
  auto val = [&](float v) { return absolute ? static_cast<S>(std::fabs(v)) : static_cast<S>(v); };
  // lhs [rows][inner] x rhs [inner][cols] -> [rows][cols], inner index ascending.
  auto mul = [](const std::vector<S>& lhs, const std::vector<S>& rhs, int rows, int inner, int cols) {
    std::vector<S> o(static_cast<std::size_t>(rows * cols), S(0));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        S s = S(0);
        for (int l = 0; l < inner; ++l) s = s + lhs[i * inner + l] * rhs[l * cols + j];
        o[i * cols + j] = s;
      }
    return o;
  };
  auto transpose = [](const std::vector<S>& v, int rows, int cols) {
    std::vector<S> o(v.size());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) o[j * rows + i] = v[i * cols + j];
    return o;
  };
  const std::vector<S> g_t = transpose(g, a, r), b = transpose(bt, a, a), a_ = transpose(at, m, a);
  for (std::int64_t grp = 0; grp < p.groups; ++grp) {
    // U[kk][cc] = G g G^T (a x a), for the group's filters
    std::vector<std::vector<S>> u(static_cast<std::size_t>(kg * cg));
    for (std::int64_t kk = 0; kk < kg; ++kk)
      for (std::int64_t cc = 0; cc < cg; ++cc) {
        std::vector<S> f(static_cast<std::size_t>(r * r));
        for (int i = 0; i < r; ++i)
          for (int j = 0; j < r; ++j) f[i * r + j] = val(w.at({grp * kg + kk, cc, i, j}));
        u[kk * cg + cc] = mul(mul(g, f, a, r, r), g_t, a, r, a);
      }
    for (std::int64_t n = 0; n < p.n; ++n)
      for (std::int64_t th = 0; th < tiles_h; ++th)
        for (std::int64_t tw = 0; tw < tiles_w; ++tw) {
          std::vector<std::vector<S>> v(static_cast<std::size_t>(cg));  // V[cc] = B^T d B
          for (std::int64_t cc = 0; cc < cg; ++cc) {
            std::vector<S> d(static_cast<std::size_t>(a * a), S(0));
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                const std::int64_t h = th * m - p.pad[0] + i, ww = tw * m - p.pad[1] + j;
                if (h >= 0 && h < H && ww >= 0 && ww < W) d[i * a + j] = val(x.at({n, grp * cg + cc, h, ww}));
              }
            v[cc] = mul(mul(bt, d, a, a, a), b, a, a, a);
          }
          for (std::int64_t kk = 0; kk < kg; ++kk) {
            std::vector<S> prod(static_cast<std::size_t>(a * a), S(0));  // sum_c U . V, c ascending
            for (std::int64_t cc = 0; cc < cg; ++cc)
              for (int e = 0; e < a * a; ++e) prod[e] = prod[e] + u[kk * cg + cc][e] * v[cc][e];
            const std::vector<S> tile = mul(mul(at, prod, m, a, a), a_, m, a, m);
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < m; ++j) {
                const std::int64_t oh = th * m + i, ow = tw * m + j;
                if (oh < P && ow < Q) y[static_cast<std::size_t>(yd.offset({n, grp * kg + kk, oh, ow}))] = tile[i * m + j];
              }
          }
        }
  }
  return y;
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

}  // namespace

WinogradOutput winograd_conv_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                    const HostTensor& w, bool abs_sum) {
  WinogradOutput o;
  o.value = evaluate<double>(p, t, x, w, as<double>(t.at, false), as<double>(t.g, false), as<double>(t.bt, false), false);
  if (abs_sum) o.abs_sum = evaluate<double>(p, t, x, w, as<double>(t.at, true), as<double>(t.g, true), as<double>(t.bt, true), true);
  return o;
}

std::vector<float> winograd_conv_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                      const HostTensor& w) {
  return evaluate<float>(p, t, x, w, as<float>(t.at, false), as<float>(t.g, false), as<float>(t.bt, false), false);
}

}  // namespace hiprim::ref
