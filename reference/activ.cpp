#include "reference/activ.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "reference/error_model.hpp"

// Tolerance policy (u = 2^-24, fp32). The solver evaluates gpu/activ/activ_math.hpp's formulas in
// fp32 on the exact stored input. Library functions are taken at CUDA's documented maximum errors
// (CUDA C++ Programming Guide, single-precision functions): expf, tanhf, erff 2 ulp; expm1f, log1pf
// 1 ulp; powf 4 ulp; one ulp <= 2u relative. Coefficients alpha, beta, gamma and the constants
// 1/sqrt2, sqrt(2/pi), 0.044715 are rounded to fp32 once (u each). Each line below adds these
// relative errors along the formula's longest path (first order; the second-order terms are below
// 2^-40 relative and covered by rounding the counts up); |.| are magnitudes of exact values.
//  fwd                                   bound / u
//   passthru, relu, abs                  0 (the value is the input or 0)
//   clippedrelu                          |alpha| where x >= alpha(1 - 2u) (the fp32 alpha), else 0
//   leakyrelu (x <= 0)                   2|y| (alpha rounding, product)
//   logistic 1/(1+e)                     6|y| (expf 4, add 1, divide 1)
//   tanh beta*tanh(z), z = alpha x       6|y| + 2|beta z sech^2 z| (argument 2u: tanh' * |z| * 2u)
//   softrelu max(x,0)+log1p(e)           9|y| (e 4u moves log1p(e) by <= 4u*e/(1+e) <= 5.8u*log1p(e), log1pf 2, add 1)
//   power b^g, b = alpha + beta x        |y| (8 + 3|g| (|alpha| + |beta x|)/|b| + |g ln|b||)
//   elu (x <= 0) alpha*expm1(x)          4|y|
//   gelu x/2 (1 + erf(x/sqrt2))          5|x| ((1+erf) is off by <= 0.97 (argument) + 4 + 2 = 7u absolute; times x/2, product 1)
//   gelu_tanh x/2 (1 + tanh z)           6|x| (z off by 7u relative: tanh moves <= 7u*max|z sech^2 z| = 3.14u; +4 +2; times x/2 +1)
//   silu x/(1+e)                         6|y|
//  bwd, dx = dy * d(x): the product adds |dx| (1u); d's error as derived in activ_math.hpp's forms:
//   relu, abs, clippedrelu, passthru     0 (d is 0 or +-1)
//   leakyrelu (x <= 0)                   2|dx|
//   logistic e/(1+e)^2, e = e^-|x|       13|dx|
//   tanh alpha beta 4e/(1+e)^2           (17 + 8|z|) |dx| (e = e^(-2|z|): 4u + 2|z|*2u)
//   softrelu 1/(1+e^-x)                  7|dx|
//   power                                |dx| (13 + 3|g-1| (|alpha| + |beta x|)/|b| + 2(|g| + 1)|ln|b||)
//   elu (x <= 0) alpha e^x               7|dx|
//   gelu (1+erf)/2 + x phi(x)            |dy| (4 + (7 + x^2)|x phi(x)| + |d|) + |dx|
//   gelu_tanh (1+t)/2 + t2               |dy| (5 + (21 + 28|z|)|t2| + |d|) + |dx|, t2 = x/2 sech^2(z) z'(x)
//   silu s + x s (1-s)                   |dy| (9 s + 20 |x s (1-s)| + |d|) + |dx|
// Plus, for the transcendental modes, 2^-126 (times |dy| in bwd) for results that fall below fp32's
// normal range (relative accuracy is lost there, e.g. e^-x overflowing to inf gives 0), the
// reference's own error 2^-50*(|value| + bound/u), and the store into the dtype (store_bound).
// Non-finite x: the results are limits the fp32 formulas reach exactly up to the coefficient
// rounding: bound 2u|value|.

namespace hiprim::ref {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
constexpr double kGeluCubic = 0.044715;

double logistic(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * kPi); }

double gelu_tanh_z(double x) { return kSqrt2OverPi * (x + kGeluCubic * x * x * x); }
double sech2(double z) {
  const double e = std::exp(-2.0 * std::fabs(z));
  return 4.0 * e / ((1.0 + e) * (1.0 + e));
}

// The second term of gelu_tanh's derivative: x/2 sech^2(z) z'(x).
double gelu_tanh_t2(double x) { return 0.5 * x * sech2(gelu_tanh_z(x)) * kSqrt2OverPi * (1.0 + 3.0 * kGeluCubic * x * x); }

bool transcendental(ActivMode m) {
  return !(m == ActivMode::passthru || m == ActivMode::relu || m == ActivMode::abs || m == ActivMode::clippedrelu ||
           m == ActivMode::leakyrelu);
}

}  // namespace

double activ_value(const ActivProblem& p, double x) {
  const double a = p.alpha, b = p.beta, g = p.gamma;
  if (std::isnan(x)) return x;
  switch (p.mode) {
    case ActivMode::passthru: return x;
    case ActivMode::logistic: return logistic(x);
    case ActivMode::tanh: return b * std::tanh(a * x);
    case ActivMode::relu: return x > 0 ? x : 0.0;
    case ActivMode::softrelu: return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    case ActivMode::abs: return std::fabs(x);
    case ActivMode::power: return std::pow(a + b * x, g);
    case ActivMode::clippedrelu: return std::min(a, std::max(x, 0.0));
    case ActivMode::leakyrelu: return x > 0 ? x : a * x;
    case ActivMode::elu: return x > 0 ? x : a * std::expm1(x);
    case ActivMode::gelu:
      if (std::isinf(x)) return x > 0 ? x : 0.0;
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case ActivMode::gelu_tanh:
      if (std::isinf(x)) return x > 0 ? x : 0.0;
      return 0.5 * x * (1.0 + std::tanh(gelu_tanh_z(x)));
    case ActivMode::silu:
      if (std::isinf(x)) return x > 0 ? x : 0.0;
      return x * logistic(x);
  }
  return x;
}

double activ_derivative(const ActivProblem& p, double x) {
  const double a = p.alpha, b = p.beta, g = p.gamma;
  if (std::isnan(x)) return x;
  switch (p.mode) {
    case ActivMode::passthru: return 1.0;
    case ActivMode::logistic: {
      const double s = logistic(x);
      return s * logistic(-x);
    }
    case ActivMode::tanh: return a * b * sech2(a * x);
    case ActivMode::relu: return x > 0 ? 1.0 : 0.0;
    case ActivMode::softrelu: return logistic(x);
    case ActivMode::abs: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case ActivMode::power: return g * b * std::pow(a + b * x, g - 1.0);
    // The kink sits at the fp32 alpha the solver compares with (coefficients are rounded to fp32 once).
    case ActivMode::clippedrelu: return x > 0 && x < static_cast<double>(static_cast<float>(a)) ? 1.0 : 0.0;
    case ActivMode::leakyrelu: return x > 0 ? 1.0 : a;
    case ActivMode::elu: return x > 0 ? 1.0 : a * std::exp(x);
    case ActivMode::gelu:
      if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
      return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * phi(x);
    case ActivMode::gelu_tanh:
      if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
      return 0.5 * (1.0 + std::tanh(gelu_tanh_z(x))) + gelu_tanh_t2(x);
    case ActivMode::silu: {
      if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
      const double s = logistic(x);
      return s + x * s * logistic(-x);
    }
  }
  return 1.0;
}

namespace {

constexpr double u = kUnitFp32;
const double kTiny = kFp32TinyNormal;

// |y - expected| / u before the store, for the forward (see the table above).
double fwd_units(const ActivProblem& p, double x, double y) {
  const double a = p.alpha, b = p.beta, g = p.gamma;
  switch (p.mode) {
    case ActivMode::passthru:
    case ActivMode::relu:
    case ActivMode::abs: return 0.0;
    case ActivMode::clippedrelu: return x >= a * (1.0 - 2.0 * u) ? std::fabs(a) : 0.0;
    case ActivMode::leakyrelu: return x > 0 ? 0.0 : 2.0 * std::fabs(y);
    case ActivMode::logistic: return 6.0 * std::fabs(y);
    case ActivMode::tanh: {
      const double z = a * x;
      return 6.0 * std::fabs(y) + 2.0 * std::fabs(b * z * sech2(z));
    }
    case ActivMode::softrelu: return 9.0 * std::fabs(y);
    case ActivMode::power: {
      const double base = a + b * x;
      if (base == 0.0 || !std::isfinite(y)) return 0.0;
      return std::fabs(y) * (8.0 + 3.0 * std::fabs(g) * (std::fabs(a) + std::fabs(b * x)) / std::fabs(base) +
                             std::fabs(g * std::log(std::fabs(base))));
    }
    case ActivMode::elu: return x > 0 ? 0.0 : 4.0 * std::fabs(y);
    case ActivMode::gelu: return 5.0 * std::fabs(x);
    case ActivMode::gelu_tanh: return 6.0 * std::fabs(x);
    case ActivMode::silu: return 6.0 * std::fabs(y);
  }
  return 0.0;
}

double bwd_units(const ActivProblem& p, double x, double dy, double d, double dx) {
  const double a = p.alpha, b = p.beta, g = p.gamma;
  const double adx = std::fabs(dx), ady = std::fabs(dy);
  switch (p.mode) {
    case ActivMode::passthru:
    case ActivMode::relu:
    case ActivMode::abs:
    case ActivMode::clippedrelu: return 0.0;
    case ActivMode::leakyrelu: return x > 0 ? 0.0 : 2.0 * adx;
    case ActivMode::logistic: return 13.0 * adx;
    case ActivMode::tanh: return (17.0 + 8.0 * std::fabs(a * x)) * adx;
    case ActivMode::softrelu: return 7.0 * adx;
    case ActivMode::power: {
      const double base = a + b * x;
      if (base == 0.0 || !std::isfinite(dx)) return 0.0;
      return adx * (13.0 + 3.0 * std::fabs(g - 1.0) * (std::fabs(a) + std::fabs(b * x)) / std::fabs(base) +
                    2.0 * (std::fabs(g) + 1.0) * std::fabs(std::log(std::fabs(base))));
    }
    case ActivMode::elu: return x > 0 ? 0.0 : 7.0 * adx;
    case ActivMode::gelu: return ady * (4.0 + (7.0 + x * x) * std::fabs(x * phi(x)) + std::fabs(d)) + adx;
    case ActivMode::gelu_tanh:
      return ady * (5.0 + (21.0 + 28.0 * std::fabs(gelu_tanh_z(x))) * std::fabs(gelu_tanh_t2(x)) + std::fabs(d)) + adx;
    case ActivMode::silu: {
      const double s = logistic(x);
      return ady * (9.0 * s + 20.0 * std::fabs(x * s * logistic(-x)) + std::fabs(d)) + adx;
    }
  }
  return 0.0;
}

}  // namespace

std::vector<OpExpected> activ_expected(const OpProblem& op, const std::vector<const HostTensor*>& in) {
  const ActivProblem* p = op_problem_cast<ActivProblem>(op);
  if (!p) throw InputError("activ reference: not an activ problem: " + op.str());
  const DType dt = p->shape.dtype;
  const bool fwd = p->dir == ActivDir::fwd;
  const bool trans = transcendental(p->mode);
  const HostTensor& x = *in[0];
  OpExpected e = make_expected(fwd ? "y" : "dx", x.desc,
                               "per-mode fp32 error counts of reference/activ.cpp (k*u*|value| and argument terms, u=2^-24) + store into " +
                                   std::string(dtype_name(dt)));
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const double xv = x.data[i];
    double value, units, tiny;
    if (fwd) {
      value = activ_value(*p, xv);
      units = std::isfinite(xv) ? fwd_units(*p, xv, value) : 2.0 * std::fabs(value);
      tiny = trans ? kTiny : 0.0;
    } else {
      const double dy = in[1]->data[i];
      const double d = activ_derivative(*p, xv);
      value = dy * d;
      units = std::isfinite(xv) ? bwd_units(*p, xv, dy, d, value) : 2.0 * std::fabs(value);
      tiny = trans ? kTiny * std::fabs(dy) : 0.0;
    }
    e.value[i] = value;
    if (!std::isfinite(value)) continue;  // NaN / Inf must match exactly
    if (units == 0.0 && tiny == 0.0) continue;  // exact: the value is an input element, its negation or 0
    e.bound[i] = stored_bound(dt, value, u * units * (1.0 + kReferenceRel) + tiny);
  }
  return {e};
}

}  // namespace hiprim::ref
