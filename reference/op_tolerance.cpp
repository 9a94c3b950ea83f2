#include "reference/op_tolerance.hpp"

#include <cmath>
#include <limits>

namespace hiprim::ref {

double gamma_n(std::int64_t n, double u) {
  const double nu = static_cast<double>(n) * u;
  if (nu >= 1.0) return std::numeric_limits<double>::infinity();
  return nu / (1.0 - nu);
}

double sum_bound(std::int64_t terms, double abs_sum) {
  if (abs_sum == 0.0) return 0.0;
  const double gd = gamma_n(terms, kUnitDouble);
  return (gamma_n(terms, kUnitFp32) + gd) * abs_sum * (1.0 + 2.0 * gd);
}

double store_unit(DType out) { return out == DType::fp32 ? 0.0 : unit_roundoff(out); }

double store_bound(DType out, double value) {
  switch (out) {
    case DType::fp32: return 0.0;
    case DType::fp16: return unit_roundoff(out) * std::fabs(value) + std::ldexp(1.0, -25);
    case DType::bf16: return unit_roundoff(out) * std::fabs(value) + std::ldexp(1.0, -134);
  }
  return 0.0;
}

double stored_bound(DType out, double value, double fp32_bound) {
  const double b = fp32_bound + std::ldexp(1.0, -50) * std::fabs(value);
  return b + store_bound(out, value) + store_unit(out) * b;
}

}  // namespace hiprim::ref
