#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "verify/fill.hpp"

using namespace hiprim;
using namespace hiprim::verify;

TEST(Fill, TierNamesRoundTrip) {
  EXPECT_EQ(fill_tier_name(FillTier::exact), "exact");
  EXPECT_EQ(fill_tier_name(FillTier::bounded), "bounded");
  EXPECT_EQ(parse_fill_tier("exact"), FillTier::exact);
  EXPECT_EQ(parse_fill_tier("bounded"), FillTier::bounded);
  EXPECT_FALSE(parse_fill_tier("Exact").has_value());
  EXPECT_FALSE(parse_fill_tier("").has_value());
}

// Boundaries of terms*r*r + r <= 2^24 = 16777216, worked by hand.
TEST(Fill, ExactRangeBoundaries) {
  EXPECT_EQ(exact_fill_range(std::int64_t{1}), 4);
  EXPECT_EQ(exact_fill_range(std::int64_t{1048575}), 4);   // 1048575*16 + 4 = 16777204
  EXPECT_EQ(exact_fill_range(std::int64_t{1048576}), 3);   // *16 + 4 = 16777220 > 2^24; *9 + 3 fits
  EXPECT_EQ(exact_fill_range(std::int64_t{1864134}), 3);   // *9 + 3 = 16777209
  EXPECT_EQ(exact_fill_range(std::int64_t{1864135}), 2);   // *9 + 3 = 16777218 > 2^24; *4 + 2 fits
  EXPECT_EQ(exact_fill_range(std::int64_t{4194303}), 2);   // *4 + 2 = 16777214
  EXPECT_EQ(exact_fill_range(std::int64_t{4194304}), 1);   // *4 + 2 = 16777218 > 2^24; *1 + 1 fits
  EXPECT_EQ(exact_fill_range(std::int64_t{16777215}), 1);  // + 1 = 2^24
  EXPECT_EQ(exact_fill_range(std::int64_t{16777216}), 0);
}

TEST(Fill, ExactRangeOfProblem) {
  ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c64 k8 in8x8 f3x3 pad1x1");
  EXPECT_EQ(p.reduction_length(), 576);
  EXPECT_EQ(exact_fill_range(p), 4);
  // bwd-weights sums over n*out: 4096*64*64 = 2^24 terms: no exact fill possible.
  ConvProblem q = parse_conv_problem("conv bwd-weights fp32 nchw n4096 c1 k1 in64x64 f1x1");
  EXPECT_EQ(exact_fill_range(q), 0);
}

TEST(Fill, ExactValuesAreIntegersCoveringTheRange) {
  for (int r = 1; r <= 4; ++r) {
    HostTensor t(TensorDesc::packed(DType::fp16, {2, 3, 40, 40}, false));
    fill(t, FillTier::exact, 7, kTagX, r);
    std::set<float> seen;
    std::int64_t zeros = 0;
    for (float v : t.data) {
      ASSERT_EQ(v, std::round(v));
      ASSERT_GE(v, -r);
      ASSERT_LE(v, r);
      seen.insert(v);
      zeros += v == 0.0f;
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(2 * r + 1)) << "r = " << r;
    // Uniform over 2r+1 integers: zero fraction near 1/(2r+1) (9600 samples, +-25% is > 5 sigma).
    const double frac = double(zeros) / double(t.data.size()), want = 1.0 / (2 * r + 1);
    EXPECT_NEAR(frac, want, 0.25 * want) << "r = " << r;
  }
}

TEST(Fill, ExactNeedsAPositiveRange) {
  HostTensor t(TensorDesc::packed(DType::fp32, {1, 1, 2, 2}, false));
  EXPECT_THROW(fill(t, FillTier::exact, 1, kTagX, 0), InputError);
}

TEST(Fill, BoundedValuesAreInRangeAndRepresentable) {
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    HostTensor t(TensorDesc::packed(dt, {4, 5, 30, 30}, false));
    fill(t, FillTier::bounded, 11, kTagW, 0);
    double lo = 1, hi = -1, sum = 0;
    for (float v : t.data) {
      ASSERT_LE(std::fabs(v), 1.0f);
      ASSERT_EQ(round_to(dt, v), v) << "value not representable in " << dtype_name(dt);
      lo = std::min<double>(lo, v);
      hi = std::max<double>(hi, v);
      sum += v;
    }
    EXPECT_LT(lo, -0.99);
    EXPECT_GT(hi, 0.99);
    // 18000 samples of variance 1/3: the mean's sigma is 0.0043.
    EXPECT_NEAR(sum / double(t.data.size()), 0.0, 0.03);
  }
}

TEST(Fill, DeterministicAndSeedAndTagDependent) {
  TensorDesc d = TensorDesc::packed(DType::fp32, {2, 3, 5, 7}, false);
  HostTensor a(d), b(d), c(d), e(d);
  fill(a, FillTier::bounded, 42, kTagX, 0);
  fill(b, FillTier::bounded, 42, kTagX, 0);
  fill(c, FillTier::bounded, 43, kTagX, 0);
  fill(e, FillTier::bounded, 42, kTagW, 0);
  EXPECT_EQ(a.data, b.data);
  std::int64_t same_seed = 0, same_tag = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    same_seed += a.data[i] == c.data[i];
    same_tag += a.data[i] == e.data[i];
  }
  EXPECT_LT(same_seed, 5);
  EXPECT_LT(same_tag, 5);
}

// Element values follow the logical index, so every layout holds the same tensor.
TEST(Fill, ValuesDoNotDependOnTheLayout) {
  const Dims dims{2, 3, 4, 5, 6};
  HostTensor a(TensorDesc::packed(DType::bf16, dims, false)), b(TensorDesc::packed(DType::bf16, dims, true));
  fill(a, FillTier::bounded, 5, kTagY, 0);
  fill(b, FillTier::bounded, 5, kTagY, 0);
  EXPECT_NE(a.data, b.data);  // different storage order...
  for_each_index(dims, [&](const Dims& idx) { ASSERT_EQ(a.at(idx), b.at(idx)); });  // ...same tensor
}

TEST(Fill, GapsOfStridedTensorsAreLeftAlone) {
  TensorDesc d{DType::fp32, {2, 3}, {8, 2}};  // rows 8 apart, columns 2 apart
  HostTensor t(d);
  std::fill(t.data.begin(), t.data.end(), 99.0f);
  fill(t, FillTier::exact, 3, kTagX, 4);
  std::set<std::int64_t> addressed;
  for_each_index(d.dims, [&](const Dims& idx) { addressed.insert(d.offset(idx)); });
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    if (addressed.count(static_cast<std::int64_t>(i)))
      EXPECT_LE(std::fabs(t.data[i]), 4.0f);
    else
      EXPECT_EQ(t.data[i], 99.0f) << "gap element " << i << " was written";
  }
}

// Each output bit of the hash is set about half the time, also for consecutive counters.
TEST(Fill, HashBitsAreBalanced) {
  constexpr int n = 20000;
  int ones[64] = {};
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t h = fill_hash(1, kTagX, i);
    for (int b = 0; b < 64; ++b) ones[b] += (h >> b) & 1;
  }
  for (int b = 0; b < 64; ++b) EXPECT_NEAR(ones[b], n / 2, 5 * 71) << "bit " << b;  // sigma = sqrt(n)/2 = 71
  EXPECT_NE(fill_hash(1, 2, 3), fill_hash(1, 3, 2));
  EXPECT_NE(fill_hash(1, 2, 3), fill_hash(2, 1, 3));
}
