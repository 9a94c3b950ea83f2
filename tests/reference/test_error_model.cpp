// The error model (reference/error_model.hpp) pinned to doubles worked out by hand below; the
// conv comparator's and the op references' bounds are these functions, so a changed formula or
// evaluation order shows here. u = 2^-24, u_d = 2^-53; hex digits count fraction bits 1-4, 5-8, ...
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "reference/error_model.hpp"

using namespace hiprim;
using namespace hiprim::ref;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
}

// gamma(1) = u/(1-u) = 2^-24 * (1 + 2^-24 + 2^-48 + 2^-72 + ...): the 2^-72 tail is below half an
// ulp (2^-53 relative), so the double is 2^-24 * (1 + 2^-24 + 2^-48) = 0x1.000001000001p-24.
// gamma(4) = 2^-22/(1-2^-22) -> 2^-22 * (1 + 2^-22 + 2^-44) = 0x1.00000400001p-22.
// gamma_d(1) = 2^-53 * (1 + 2^-53 + 2^-106 + ...): the tail is above half an ulp, so it rounds up
// to 2^-53 * (1 + 2^-52) = 0x1.0000000000001p-53.
TEST(ErrorModel, GammaPinnedByHand) {
  EXPECT_EQ(gamma_n(1, kUnitFp32), 0x1.000001000001p-24);
  EXPECT_EQ(gamma_n(4, kUnitFp32), 0x1.00000400001p-22);
  EXPECT_EQ(gamma_n(1, kUnitDouble), 0x1.0000000000001p-53);
  EXPECT_EQ(gamma_n(0, kUnitFp32), 0.0);
  EXPECT_EQ(gamma_n((std::int64_t{1} << 24) - 1, kUnitFp32), double((std::int64_t{1} << 24) - 1));  // (1-u)/u: exact
  EXPECT_EQ(gamma_n(std::int64_t{1} << 24, kUnitFp32), kInf);  // n*u = 1: no bound
}

// The store terms: u_out = 0, 2^-11, 2^-8; eta_out = 0, 2^-25, 2^-134.
// store_bound(fp16, 3) = 3*2^-11 + 2^-25 = 2^-10 * (1.5 + 2^-15) = 0x1.8002p-10 (exact).
// stored_bound(fp16, 1, 0): b' = 2^-50; 2^-50 + (2^-11 + 2^-25) + 2^-11*2^-50
//   = 2^-11 * (1 + 2^-14 + 2^-39 + 2^-50) = 0x1.0004000002004p-11 (every partial sum exact).
TEST(ErrorModel, StoreTermsPinnedByHand) {
  EXPECT_EQ(store_unit(DType::fp32), 0.0);
  EXPECT_EQ(store_unit(DType::fp16), 0x1p-11);
  EXPECT_EQ(store_unit(DType::bf16), 0x1p-8);
  EXPECT_EQ(store_underflow(DType::fp32), 0.0);
  EXPECT_EQ(store_underflow(DType::fp16), 0x1p-25);
  EXPECT_EQ(store_underflow(DType::bf16), 0x1p-134);
  EXPECT_EQ(store_bound(DType::fp16, -3.0), 0x1.8002p-10);
  EXPECT_EQ(store_bound(DType::bf16, 0.0), 0x1p-134);
  EXPECT_EQ(store_bound(DType::fp32, kInf), 0.0);  // fp32 results are stored as computed
  EXPECT_EQ(stored_bound(DType::fp16, 1.0, 0.0), 0x1.0004000002004p-11);
  EXPECT_EQ(stored_bound(DType::fp32, 1.0, 0.0), 0x1p-50);
}

// sum_bound(1, 1) = (gamma(1) + gamma_d(1)) * 1 * (1 + 2*gamma_d(1)):
//   gamma + gamma_d = 2^-24 + 2^-48 + 2^-53 + 2^-72 (+ 2^-105, below half the ulp 2^-76);
//   1 + 2*gamma_d = 1 + 2^-52 (+ 2^-104 dropped); the product adds 2^-76 (+ 2^-100 ..., dropped):
//   2^-24 * (1 + 2^-24 + 2^-29 + 2^-48 + 2^-52) = 0x1.0000010800011p-24.
// stored_sum_bound(fp32, 1, f = 1, e, 1) = (1 + 0) * (1*gamma + gamma_d) * (1 * (1 + 2*gamma_d)) + 0*|e| + 0:
//   the same products, so the same double. With f = 2: 2*gamma + gamma_d = 2^-23 + 2^-47 + 2^-53 + 2^-71;
//   times (1 + 2^-52) adds 2^-75: 2^-23 * (1 + 2^-24 + 2^-30 + 2^-48 + 2^-52) = 0x1.0000010400011p-23.
TEST(ErrorModel, SumBoundsPinnedByHand) {
  EXPECT_EQ(sum_bound(1, 1.0), 0x1.0000010800011p-24);
  EXPECT_EQ(stored_sum_bound(DType::fp32, 1, 1.0, -1.0, 1.0), 0x1.0000010800011p-24);
  EXPECT_EQ(stored_sum_bound(DType::fp32, 1, 2.0, 1.0, 1.0), 0x1.0000010400011p-23);
  EXPECT_EQ(sum_bound(7, 0.0), 0.0);  // all terms zero: exact in every order
  EXPECT_EQ(stored_sum_bound(DType::bf16, 7, 2.0, 0.0, 0.0), 0.0);
  EXPECT_EQ(sum_bound(std::int64_t{1} << 24, 1.0), kInf);
  EXPECT_EQ(stored_sum_bound(DType::fp16, std::int64_t{1} << 24, 1.0, 1.0, 1.0), kInf);
}

// stored_sum_bound(out, L, 1, e, A) = sum_bound(L, A) + store_bound(out, |e| + sum_bound(L, A)) in
// exact arithmetic (reference/error_model.hpp); the doubles agree to a few ulps.
TEST(ErrorModel, ConvAndOpFormsOfTheStoredSumAgree) {
  for (DType out : {DType::fp32, DType::fp16, DType::bf16})
    for (std::int64_t L : {1, 9, 4608, 1 << 20})
      for (double e : {0.0, 0.75, -40.0}) {
        const double a = 3.0 + std::fabs(e), s = sum_bound(L, a);
        EXPECT_DOUBLE_EQ(stored_sum_bound(out, L, 1.0, e, a), s + store_bound(out, std::fabs(e) + s));
      }
}

// TF32 inputs (reference/error_model.hpp): u_in = 0 is the plain bound; u_in > 0 replaces f*gamma(L)
// by eta + f*gamma(L)*(1 + eta), eta = (1 + u_in)^2 - 1. Pinned: L = 1, f = 1, A = 1, fp32 out,
// u_in = 2^-10: eta = 2^-9 + 2^-20; the sum term eta + gamma(1)*(1 + eta) + gamma_d(1), times
// A' = 1 + 2*gamma_d(1).
TEST(ErrorModel, Tf32InputsWidenTheBoundByTheDerivedTerm) {
  EXPECT_EQ(stored_sum_bound(DType::fp32, 1, 1.0, -1.0, 1.0, 0.0), stored_sum_bound(DType::fp32, 1, 1.0, -1.0, 1.0));
  const double eta = 0x1p-9 + 0x1p-20, g = gamma_n(1, kUnitFp32), gd = gamma_n(1, kUnitDouble);
  EXPECT_DOUBLE_EQ(stored_sum_bound(DType::fp32, 1, 1.0, -1.0, 1.0, kUnitTf32Truncated), (eta + g * (1 + eta) + gd) * (1 + 2 * gd));
  EXPECT_EQ(stored_sum_bound(DType::fp32, 9, 2.0, 0.0, 0.0, kUnitTf32Truncated), 0.0);  // all terms zero
  EXPECT_EQ(tf32_truncated(1.0f + 0x1p-10f), 1.0f + 0x1p-10f);  // TF32's last mantissa bit stays
  EXPECT_EQ(tf32_truncated(1.0f + 0x1p-11f + 0x1p-23f), 1.0f);  // the 13 below it go, towards zero
  EXPECT_EQ(tf32_truncated(-3.0f - 0x1p-12f), -3.0f);
  EXPECT_GT(stored_sum_bound(DType::fp32, 4608, 2.0, 1.0, 100.0, kUnitTf32Truncated),
            stored_sum_bound(DType::fp32, 4608, 2.0, 1.0, 100.0, kUnitTf32Nearest));
}

// The bound holds for an emulated TF32 dot product (inputs truncated, products and sums in fp32)
// against the exact double sum, on signed and on positive reals, and it is needed: on positive data
// truncation shrinks every product, the errors add up, and the fp32 bound without input rounding
// fails every sum (so a solver that rounds its inputs cannot be judged by the exact rule).
TEST(ErrorModel, Tf32BoundCoversTruncatedInputsAndTheFp32BoundDoesNot) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto uniform = [&](double lo, double hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(lo + static_cast<double>(state >> 11) * 0x1p-53 * (hi - lo));
  };
  const std::int64_t L = 2304;
  for (const double lo : {-1.0, 0.5}) {
    int over_fp32_bound = 0;
    for (int trial = 0; trial < 100; ++trial) {
      float s = 0;
      double exact = 0, abs_sum = 0;
      for (std::int64_t j = 0; j < L; ++j) {
        const float x = uniform(lo, 1.0), w = uniform(lo, 1.0);
        s += tf32_truncated(x) * tf32_truncated(w);
        exact += static_cast<double>(x) * w;
        abs_sum += std::fabs(static_cast<double>(x) * w);
      }
      const double err = std::fabs(static_cast<double>(s) - exact);
      EXPECT_LE(err, stored_sum_bound(DType::fp32, L, 1.0, exact, abs_sum, kUnitTf32Truncated)) << lo << " " << trial;
      over_fp32_bound += err > stored_sum_bound(DType::fp32, L, 1.0, exact, abs_sum);
    }
    if (lo > 0) {
      EXPECT_EQ(over_fp32_bound, 100);
    }
  }
}
