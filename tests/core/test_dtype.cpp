// bf16/fp16 conversions: exhaustive round trips over all 65,536 bit patterns, and float inputs at
// ties and boundaries whose correct results are written out by hand from the formats' definitions.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/dtype.hpp"

using namespace hiprim;

namespace {
float f_of(std::uint32_t u) { return std::bit_cast<float>(u); }
bool is_nan16_bf(std::uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu); }
bool is_nan16_h(std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }
}  // namespace

TEST(Bf16, AllBitPatternsRoundTripThroughFloat) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    std::uint16_t bits = static_cast<std::uint16_t>(b);
    float f = bf16_bits_to_float(bits);
    if (is_nan16_bf(bits)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      std::uint16_t back = float_to_bf16_bits(f);
      ASSERT_TRUE(is_nan16_bf(back)) << b;
      ASSERT_TRUE(back & 0x40u) << "NaN must come back quiet: " << b;
      ASSERT_EQ(back & 0x8000u, bits & 0x8000u) << "NaN sign kept: " << b;
    } else {
      ASSERT_EQ(float_to_bf16_bits(f), bits) << b;
    }
  }
}

TEST(Fp16, AllBitPatternsRoundTripThroughFloat) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    std::uint16_t bits = static_cast<std::uint16_t>(b);
    float f = fp16_bits_to_float(bits);
    if (is_nan16_h(bits)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      std::uint16_t back = float_to_fp16_bits(f);
      ASSERT_TRUE(is_nan16_h(back)) << b;
      ASSERT_TRUE(back & 0x200u) << "NaN must come back quiet: " << b;
    } else {
      ASSERT_EQ(float_to_fp16_bits(f), bits) << b;
    }
  }
}

TEST(Fp16, DecodesKnownValues) {
  EXPECT_EQ(fp16_bits_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_bits_to_float(0xc000), -2.0f);
  EXPECT_EQ(fp16_bits_to_float(0x7bff), 65504.0f);                // max finite
  EXPECT_EQ(fp16_bits_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(fp16_bits_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(fp16_bits_to_float(0xfc00)) && fp16_bits_to_float(0xfc00) < 0);
  EXPECT_EQ(std::signbit(fp16_bits_to_float(0x8000)), true);
}

TEST(Bf16, TiesAndBoundaries) {
  // 0x3F808000 is exactly halfway between bf16 0x3F80 and 0x3F81: tie to even -> 0x3F80.
  EXPECT_EQ(float_to_bf16_bits(f_of(0x3F808000u)), 0x3F80);
  // Halfway between 0x3F81 and 0x3F82: tie to even -> 0x3F82.
  EXPECT_EQ(float_to_bf16_bits(f_of(0x3F818000u)), 0x3F82);
  // Just above the tie rounds up; just below rounds down.
  EXPECT_EQ(float_to_bf16_bits(f_of(0x3F808001u)), 0x3F81);
  EXPECT_EQ(float_to_bf16_bits(f_of(0x3F807FFFu)), 0x3F80);
  // 0x7F7F8000 is halfway between max finite bf16 0x7F7F and 2^128: ties to even -> Inf (0x7F80).
  EXPECT_EQ(float_to_bf16_bits(f_of(0x7F7F8000u)), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(f_of(0x7F7F7FFFu)), 0x7F7F);
  // FLT_MAX (0x7F7FFFFF) rounds to Inf in bf16.
  EXPECT_EQ(float_to_bf16_bits(std::numeric_limits<float>::max()), 0x7F80);
  // Infinities and signed zero are kept.
  EXPECT_EQ(float_to_bf16_bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(float_to_bf16_bits(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(float_to_bf16_bits(-0.0f), 0x8000);
  // Float subnormals are kept (bf16 shares float's exponent range): smallest float subnormal 0x00000001 -> 0.
  EXPECT_EQ(float_to_bf16_bits(f_of(0x00010000u)), 0x0001);  // smallest bf16 subnormal
  EXPECT_EQ(float_to_bf16_bits(f_of(0x00008000u)), 0x0000);  // half of it: tie to even -> 0
  EXPECT_EQ(float_to_bf16_bits(f_of(0x00018000u)), 0x0002);  // 1.5 ulp: tie to even -> 2
  // A signalling NaN becomes quiet.
  EXPECT_EQ(float_to_bf16_bits(f_of(0x7F800001u)) & 0x7FC0, 0x7FC0);
}

TEST(Fp16, TiesAndBoundaries) {
  // 1 + 2^-11 is halfway between 1 (0x3C00) and 1 + 2^-10 (0x3C01): tie to even -> 0x3C00.
  EXPECT_EQ(float_to_fp16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3*2^-11 is halfway between 0x3C01 and 0x3C02: tie to even -> 0x3C02.
  EXPECT_EQ(float_to_fp16_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // 65504 max finite; 65519.99 rounds down to it; 65520 is the tie with 2^16 -> Inf (even).
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_fp16_bits(1e10f), 0x7C00);
  EXPECT_EQ(float_to_fp16_bits(-1e10f), 0xFC00);
  // Subnormals: 2^-24 is the smallest; 2^-25 is the tie with 0 -> 0; 3*2^-25 ties to even -> 2*2^-24.
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(float_to_fp16_bits(-std::ldexp(1.0f, -24)), 0x8001);
  // Largest subnormal + rounding carries into the smallest normal: (1023.5)*2^-24 ties to even -> 0x0400.
  EXPECT_EQ(float_to_fp16_bits(1023.5f * std::ldexp(1.0f, -24)), 0x0400);
  // Float subnormals underflow to signed zero.
  EXPECT_EQ(float_to_fp16_bits(f_of(0x80000001u)), 0x8000);
  EXPECT_EQ(float_to_fp16_bits(std::numeric_limits<float>::infinity()), 0x7C00);
}

// Floats spread over fp16's range (subnormal to max finite) with random 23-bit mantissas.
float in_fp16_range(bool neg, int exp, std::uint32_t mant) {
  float f = std::ldexp(1.0f + float(mant & 0x7fffffu) * std::ldexp(1.0f, -23), exp);
  return neg ? -f : f;
}

RC_GTEST_PROP(Fp16, RoundsToNearestOfTheTwoNeighbours, (bool neg, std::uint32_t mant)) {
  const float f = in_fp16_range(neg, *rc::gen::inRange(-27, 16), mant);
  RC_PRE(std::fabs(f) < 65504.0f);
  // The result must be one of the two fp16 neighbours of f and no farther than the other one.
  float r = fp16_bits_to_float(float_to_fp16_bits(f));
  std::uint16_t b = float_to_fp16_bits(f);
  float up = fp16_bits_to_float(static_cast<std::uint16_t>(b + 1));
  float dn = fp16_bits_to_float(static_cast<std::uint16_t>(b - 1));
  double e = std::fabs(double(r) - f);
  if (std::isfinite(up) && (b & 0x7fff) != 0x7bff) RC_ASSERT(e <= std::fabs(double(up) - f));
  if ((b & 0x7fff) != 0) RC_ASSERT(e <= std::fabs(double(dn) - f));
}

RC_GTEST_PROP(Bf16, RoundsToNearestOfTheTwoNeighbours, (std::uint32_t bits)) {
  const float f = std::bit_cast<float>(bits);
  RC_PRE(std::isfinite(f) && std::fabs(f) < 3.0e38f);
  std::uint16_t b = float_to_bf16_bits(f);
  float r = bf16_bits_to_float(b);
  float up = bf16_bits_to_float(static_cast<std::uint16_t>(b + 1));
  float dn = bf16_bits_to_float(static_cast<std::uint16_t>(b - 1));
  double e = std::fabs(double(r) - f);
  if (std::isfinite(up)) RC_ASSERT(e <= std::fabs(double(up) - f));
  if ((b & 0x7fff) != 0) RC_ASSERT(e <= std::fabs(double(dn) - f));
}

TEST(Ulp, CountsStepsBetweenRepresentableValues) {
  EXPECT_EQ(ulp_distance(DType::fp32, 1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(ulp_distance(DType::fp32, -0.0f, 0.0f), 0u);
  EXPECT_EQ(ulp_distance(DType::bf16, 1.0f, bf16_bits_to_float(0x3F82)), 2u);
  EXPECT_EQ(ulp_distance(DType::fp16, fp16_bits_to_float(0x0001), fp16_bits_to_float(0x8001)), 2u);
  EXPECT_EQ(ulp_distance(DType::fp16, 1.0f, std::nanf("")), std::numeric_limits<std::uint64_t>::max());
}

TEST(DType, NamesParseBack) {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_FALSE(parse_dtype("fp64").has_value());
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(unit_roundoff(DType::bf16), 1.0 / 256);
}
