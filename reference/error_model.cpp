#include "reference/error_model.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace hiprim::ref {

double gamma_n(std::int64_t n, double u) {
  const double nu = static_cast<double>(n) * u;
  if (nu >= 1.0) return std::numeric_limits<double>::infinity();
  return nu / (1.0 - nu);
}

double store_unit(DType out) { return out == DType::fp32 ? 0.0 : unit_roundoff(out); }

double store_underflow(DType out) {
  switch (out) {
    case DType::fp32: return 0.0;
    case DType::fp16: return 0x1p-25;
    case DType::bf16: return 0x1p-134;
  }
  return 0.0;
}

// fp32 stores nothing (0, also for an infinite value).
double store_bound(DType out, double value) {
  return out == DType::fp32 ? 0.0 : unit_roundoff(out) * std::fabs(value) + store_underflow(out);
}

double sum_bound(std::int64_t terms, double abs_sum) {
  if (abs_sum == 0.0) return 0.0;
  const double gd = gamma_n(terms, kUnitDouble);
  return (gamma_n(terms, kUnitFp32) + gd) * abs_sum * (1.0 + 2.0 * gd);
}

double stored_bound(DType out, double value, double fp32_bound) {
  const double b = fp32_bound + kReferenceRel * std::fabs(value);
  return b + store_bound(out, value) + store_unit(out) * b;
}

float tf32_truncated(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  b &= ~std::uint32_t{0x1FFF};
  std::memcpy(&v, &b, sizeof b);
  return v;
}

double stored_sum_bound(DType out, std::int64_t terms, double factor, double expected, double abs_sum, double input_unit) {
  if (abs_sum == 0.0) return 0.0;
  const double u_out = store_unit(out);
  const double g = gamma_n(terms, kUnitFp32), gd = gamma_n(terms, kUnitDouble);
  const double a = abs_sum * (1.0 + 2.0 * gd);
  // The products' relative error from rounded inputs, then the fp32 sum of the rounded products.
  const double eta = input_unit > 0 ? (1.0 + input_unit) * (1.0 + input_unit) - 1.0 : 0.0;
  const double sum = input_unit > 0 ? eta + factor * g * (1.0 + eta) : factor * g;
  return (1.0 + u_out) * (sum + gd) * a + u_out * std::fabs(expected) + store_underflow(out);
}

}  // namespace hiprim::ref
