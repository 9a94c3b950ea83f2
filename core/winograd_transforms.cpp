// Winograd F(m, r) transforms (core/winograd_transforms.hpp has the construction).
#include "core/winograd_transforms.hpp"

#include <numeric>
#include <string>

#include "core/error.hpp"

namespace hiprim {

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
    case 5: return winograd_transforms(5, 3, {Rational(0), Rational(1), Rational(-1), Rational(2), Rational(-2), h});
    case 6:
      return winograd_transforms(6, 3, {Rational(0), Rational(1), Rational(-1), Rational(2), Rational(-2), h, Rational(0) - h});
    default: throw InputError("winograd_f3: F(" + std::to_string(m) + ",3) is not offered (m = 2, 4, 5 or 6)");
  }
}

namespace {
// The rules of every direction after its own: 2D, stride 1, dilation 1, the transform's filter, no bias.
std::string shape_refusal(const ConvProblem& p, const WinogradTransforms& t) {
  if (p.rank() != 2) return "2D only";
  if (p.stride[0] != 1 || p.stride[1] != 1 || p.dilation[0] != 1 || p.dilation[1] != 1) return "stride 1, dilation 1 only";
  if (p.filter[0] != t.r || p.filter[1] != t.r)
    return "filter " + std::to_string(p.filter[0]) + "x" + std::to_string(p.filter[1]) + " is not the transform's " +
           std::to_string(t.r) + "x" + std::to_string(t.r);
  if (p.bias) return "no bias";
  return "";
}
}  // namespace

std::string winograd_refusal(const ConvProblem& p, const WinogradTransforms& t) {
  if (!p.valid()) return "invalid problem";
  if (p.mode != ConvMode::conv || p.dir == ConvDir::bwd_weights) return "fwd or bwd-data convolution (mode conv) only";
  if (std::string why = shape_refusal(p, t); !why.empty()) return why;
  if (p.dir == ConvDir::bwd_data && (p.pad[0] > t.r - 1 || p.pad[1] > t.r - 1))
    return "bwd-data with pad " + std::to_string(p.pad[0]) + "x" + std::to_string(p.pad[1]) + " > " + std::to_string(t.r - 1) +
           " (the equivalent fwd convolution would need a negative pad)";
  return "";
}

std::string winograd_wgrad_refusal(const ConvProblem& p, const WinogradTransforms& t) {
  if (!p.valid()) return "invalid problem";
  if (p.mode != ConvMode::conv || p.dir != ConvDir::bwd_weights) return "bwd-weights convolution (mode conv) only";
  return shape_refusal(p, t);
}

ConvProblem winograd_fwd_equivalent(const ConvProblem& p) {
  if (p.dir != ConvDir::bwd_data || p.mode != ConvMode::conv || p.rank() != 2 || !p.valid()) return p;
  for (int i = 0; i < 2; ++i)
    if (p.stride[i] != 1 || p.dilation[i] != 1 || p.pad[i] > p.filter[i] - 1) return p;
  ConvProblem q = p;
  q.dir = ConvDir::fwd;
  q.c = p.k;
  q.k = p.c;
  q.in = p.out();
  for (int i = 0; i < 2; ++i) q.pad[i] = p.filter[i] - 1 - p.pad[i];
  return q;
}

}  // namespace hiprim
