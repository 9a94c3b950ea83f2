#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "verify/compare.hpp"

using namespace hiprim;
using namespace hiprim::verify;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

Tolerance bounded(DType out, std::int64_t len) { return Tolerance{FillTier::bounded, out, len, 1.0}; }
Tolerance exact(DType out) { return Tolerance{FillTier::exact, out, 1, 1.0}; }

// A packed nchw tensor [1, 1, 1, n] holding the given values.
HostTensor row(DType dt, const std::vector<float>& v) {
  HostTensor t(TensorDesc::packed(dt, {1, 1, 1, static_cast<std::int64_t>(v.size())}, false));
  t.data = v;
  return t;
}

}  // namespace

TEST(Compare, StatusNamesRoundTrip) {
  for (Status s : {Status::passed, Status::failed, Status::mistrusted, Status::unsupported, Status::error})
    EXPECT_EQ(parse_status(status_name(s)), s);
  EXPECT_EQ(status_name(Status::mistrusted), "mistrusted");
  EXPECT_FALSE(parse_status("pass").has_value());
}

// The bound written out by hand for one fp16 element: L = 4, |expected| = 0.5, abs_sum = 2.
TEST(Compare, ElementBoundByHand) {
  const double u = std::ldexp(1.0, -24), ud = std::ldexp(1.0, -53), uo = std::ldexp(1.0, -11);
  const double g = 4 * u / (1 - 4 * u), gd = 4 * ud / (1 - 4 * ud);
  const double want = (1 + uo) * (g + gd) * 2 * (1 + 2 * gd) + uo * 0.5 + std::ldexp(1.0, -25);
  EXPECT_DOUBLE_EQ(element_bound(bounded(DType::fp16, 4), 0.5, 2.0), want);
  // fp32 output: no output rounding term; a factor 3 triples the fp32 part only.
  const double want32 = (3 * g + gd) * 2 * (1 + 2 * gd);
  EXPECT_DOUBLE_EQ(element_bound(Tolerance{FillTier::bounded, DType::fp32, 4, 3.0}, 0.5, 2.0), want32);
  EXPECT_EQ(element_bound(bounded(DType::bf16, 4), 0.0, 0.0), 0.0);  // all terms zero
  EXPECT_EQ(element_bound(exact(DType::fp32), 3.0, 5.0), 0.0);
}

TEST(Compare, ToleranceForProblemCountsTheBias) {
  ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n2 c8 k4 in6x6 f3x3 pad1x1 g2 bias");
  Tolerance t = tolerance_for(p, FillTier::bounded, 2.0);
  EXPECT_EQ(t.reduction_length, 4 * 9 + 1);
  EXPECT_EQ(t.out_dtype, DType::bf16);
  EXPECT_EQ(t.algorithm_factor, 2.0);
  EXPECT_NE(t.describe().find("gamma(37)"), std::string::npos) << t.describe();
  EXPECT_NE(t.describe().find("bf16"), std::string::npos);
  EXPECT_NE(Tolerance{}.describe(), exact(DType::fp32).describe());
}

// One element pushed one float beyond its bound among 10^6: found, and its index reported. A second
// element moved to the last float inside its bound is not flagged.
TEST(Compare, FindsOneElementJustBeyondTheBoundAmongAMillion) {
  const Dims dims{1, 1, 1000, 1000};
  const TensorDesc d = TensorDesc::packed(DType::fp32, dims, false);
  const Tolerance tol = bounded(DType::fp32, 16);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> val(-4.0, 4.0);
  std::vector<double> expected(1000000), abs_sum(1000000);
  HostTensor got(d);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    expected[i] = val(rng);
    abs_sum[i] = std::fabs(expected[i]) + 2.0;
    got.data[i] = static_cast<float>(expected[i]);  // one rounding: within gamma(16)*abs_sum
  }
  auto edge = [&](std::size_t i) {  // smallest float above expected that exceeds the bound
    const double e = expected[i], b = element_bound(tol, e, abs_sum[i]);
    float g = static_cast<float>(e + b);
    while (double(g) - e <= b) g = std::nextafter(g, INFINITY);
    while (double(std::nextafter(g, -INFINITY)) - e > b) g = std::nextafter(g, -INFINITY);
    return g;
  };
  const std::size_t bad = 123 * 1000 + 456, inside = 999 * 1000 + 1;
  got.data[bad] = edge(bad);
  got.data[inside] = std::nextafter(edge(inside), -INFINITY);
  Verdict v = compare(got, expected, abs_sum, d, tol);
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_EQ(v.metrics.checked, 1000000);
  EXPECT_EQ(v.metrics.mismatches, 1);
  ASSERT_FALSE(v.metrics.worst.empty());
  EXPECT_EQ(v.metrics.worst[0].index, (Dims{0, 0, 123, 456}));
  EXPECT_EQ(v.metrics.worst[0].offset, 123456);
  EXPECT_GT(v.metrics.worst_ratio, 1.0);
  // One float beyond, not far beyond: a float step near |got| <= 5 is <= 2^-21 and the bound is
  // >= gamma(16)*abs_sum >= 16*2^-24*2 = 2^-19, so the ratio stays below 1 + 1/4.
  EXPECT_LT(v.metrics.worst_ratio, 1.25);
  EXPECT_NE(v.reason.find("[0,0,123,456]"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("1 of 1000000"), std::string::npos) << v.reason;
}

TEST(Compare, ExactTierFindsAnIntegerOffByOneAmongAMillion) {
  const TensorDesc d = TensorDesc::packed(DType::fp32, {10, 100, 10, 100}, false);
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int> val(-1000, 1000);
  std::vector<double> expected(1000000);
  HostTensor got(d);
  for (std::size_t i = 0; i < expected.size(); ++i) got.data[i] = static_cast<float>(expected[i] = val(rng));
  EXPECT_EQ(compare(got, expected, {}, d, exact(DType::fp32)).status, Status::passed);
  const Dims idx{7, 3, 9, 42};
  got.at(idx) += 1.0f;
  Verdict v = compare(got, expected, {}, d, exact(DType::fp32));
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_EQ(v.metrics.mismatches, 1);
  EXPECT_EQ(v.metrics.max_abs_error, 1.0);
  EXPECT_GT(v.metrics.max_ulp, 0u);
  ASSERT_EQ(v.metrics.worst.size(), 1u);
  EXPECT_EQ(v.metrics.worst[0].index, idx);
  EXPECT_NE(v.reason.find("[7,3,9,42]"), std::string::npos) << v.reason;
}

// Exact tier with a 16-bit output compares with the RNE-rounded expected value: 257 lies halfway
// between the bf16 neighbours 256 and 258 and rounds to the even one, 256.
TEST(Compare, ExactTierRoundsTheExpectedValueToEven) {
  HostTensor ok = row(DType::bf16, {256.0f, 3.0f}), wrong = row(DType::bf16, {258.0f, 3.0f});
  const std::vector<double> expected{257.0, 3.0};
  EXPECT_EQ(compare(ok, expected, {}, ok.desc, exact(DType::bf16)).status, Status::passed);
  Verdict v = compare(wrong, expected, {}, wrong.desc, exact(DType::bf16));
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_EQ(v.metrics.max_ulp, 1u);
  EXPECT_EQ(v.metrics.max_abs_error, 2.0);  // against the rounded 256
}

TEST(Compare, NonFiniteOutputsFail) {
  const std::vector<double> expected{1.0, -2.0, 0.5, 0.25}, abs_sum{1.0, 2.0, 0.5, 0.25};
  for (float badv : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                     -std::numeric_limits<float>::infinity()}) {
    HostTensor got = row(DType::fp32, {1.0f, -2.0f, badv, 0.25f});
    Verdict v = compare(got, expected, abs_sum, got.desc, bounded(DType::fp32, 1));
    EXPECT_EQ(v.status, Status::failed);
    EXPECT_EQ(v.metrics.mismatches, 1);
    EXPECT_EQ(v.metrics.nonfinite_mismatches, 1);
    EXPECT_EQ(v.metrics.worst_ratio, kInf);
    EXPECT_EQ(v.metrics.max_abs_error, kInf);
    ASSERT_EQ(v.metrics.worst.size(), 1u);
    EXPECT_EQ(v.metrics.worst[0].index, (Dims{0, 0, 0, 2}));
    EXPECT_NE(v.reason.find("non-finite"), std::string::npos) << v.reason;
    Verdict e = compare(got, expected, {}, got.desc, exact(DType::fp32));
    EXPECT_EQ(e.metrics.nonfinite_mismatches, 1);
  }
}

// fp16 holds at most 65504: an expected 70000 rounds to +inf, which a correct kernel stores.
TEST(Compare, OverflowToTheSameInfinityAgrees) {
  HostTensor got = row(DType::fp16, {std::numeric_limits<float>::infinity(), 1.0f});
  Verdict v = compare(got, {70000.0, 1.0}, {70000.0, 1.0}, got.desc, bounded(DType::fp16, 2));
  EXPECT_EQ(v.status, Status::passed) << v.reason;
  got.data[0] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(compare(got, {70000.0, 1.0}, {70000.0, 1.0}, got.desc, bounded(DType::fp16, 2)).status, Status::failed);
}

TEST(Compare, MostlyZeroOutputsAreMistrusted) {
  std::vector<float> zeros(100, 0.0f);
  HostTensor got = row(DType::fp32, zeros);
  std::vector<double> expected(100, 0.0), abs_sum(100, 0.0);
  Verdict v = compare(got, expected, abs_sum, got.desc, bounded(DType::fp32, 9));
  EXPECT_EQ(v.status, Status::mistrusted);
  EXPECT_EQ(v.metrics.zero_fraction, 1.0);
  EXPECT_NE(v.reason.find("zero"), std::string::npos);
  // 85 of 100 zero: still mistrusted; 75 of 100: passed.
  for (int i = 0; i < 15; ++i) expected[i] = abs_sum[i] = got.data[i] = 1.0f;
  EXPECT_EQ(compare(got, expected, abs_sum, got.desc, bounded(DType::fp32, 9)).status, Status::mistrusted);
  for (int i = 15; i < 25; ++i) expected[i] = abs_sum[i] = got.data[i] = 1.0f;
  v = compare(got, expected, abs_sum, got.desc, bounded(DType::fp32, 9));
  EXPECT_EQ(v.status, Status::passed) << v.reason;
  EXPECT_DOUBLE_EQ(v.metrics.zero_fraction, 0.75);
  // A wrong element makes it failed, not mistrusted, however many zeros there are.
  got.data[99] = 1.0f;
  EXPECT_EQ(compare(got, expected, abs_sum, got.desc, bounded(DType::fp32, 9)).status, Status::failed);
}

// got {1, 2, 3} against {1, 2, 4}: rms_rel = sqrt(1 / (1 + 4 + 16)), max_rel = 1/4, max_abs = 1.
TEST(Compare, RmsAndRelativeErrorByHand) {
  HostTensor got = row(DType::fp32, {1.0f, 2.0f, 3.0f});
  Verdict v = compare(got, {1.0, 2.0, 4.0}, {1.0, 2.0, 4.0}, got.desc, bounded(DType::fp32, 1));
  EXPECT_DOUBLE_EQ(v.metrics.rms_rel_error, std::sqrt(1.0 / 21.0));
  EXPECT_DOUBLE_EQ(v.metrics.max_rel_error, 0.25);
  EXPECT_DOUBLE_EQ(v.metrics.max_abs_error, 1.0);
  EXPECT_EQ(v.metrics.mismatches, 1);
}

// ULP distances read off hand-written bit patterns.
TEST(Compare, UlpMetricOnKnownBitPatterns) {
  auto ulps = [](DType dt, float got, double expected) {
    HostTensor t = row(dt, {got});
    return compare(t, {expected}, {1e9}, t.desc, bounded(dt, 1)).metrics.max_ulp;
  };
  EXPECT_EQ(ulps(DType::fp32, std::bit_cast<float>(0x3f800003u), 1.0), 3u);      // 1 + 3*2^-23
  EXPECT_EQ(ulps(DType::fp32, std::bit_cast<float>(0x80000001u), 0.0), 1u);      // -denorm_min vs +0
  EXPECT_EQ(ulps(DType::fp32, std::bit_cast<float>(0x80000001u), std::ldexp(1.0, -149)), 2u);
  EXPECT_EQ(ulps(DType::fp16, fp16_bits_to_float(0x3c02), 1.0), 2u);             // 1 + 2*2^-10
  EXPECT_EQ(ulps(DType::fp16, fp16_bits_to_float(0x7bff), 1.0), 0x7bffu - 0x3c00u);
  EXPECT_EQ(ulps(DType::bf16, bf16_bits_to_float(0x3f85), 1.0), 5u);             // 1 + 5*2^-7
  EXPECT_EQ(ulps(DType::bf16, bf16_bits_to_float(0xbf80), 1.0), 0x3f80u + 0x3f80u);  // -1 vs 1
  EXPECT_EQ(ulps(DType::fp32, std::numeric_limits<float>::quiet_NaN(), 1.0), std::numeric_limits<std::uint64_t>::max());
}

// got in nhwc, expected in nchw: elements are matched by logical index.
TEST(Compare, MatchesElementsByLogicalIndexAcrossLayouts) {
  const Dims dims{2, 3, 4, 5};
  const TensorDesc ed = TensorDesc::packed(DType::fp32, dims, false);
  HostTensor got(TensorDesc::packed(DType::fp32, dims, true));
  std::vector<double> expected(static_cast<std::size_t>(ed.storage_elements()));
  for_each_index(dims, [&](const Dims& i) {
    const double v = 1 + i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3];
    expected[static_cast<std::size_t>(ed.offset(i))] = v;
    got.at(i) = static_cast<float>(v);
  });
  EXPECT_EQ(compare(got, expected, {}, ed, exact(DType::fp32)).status, Status::passed);
  got.at({1, 2, 3, 4}) = 0.0f;
  Verdict v = compare(got, expected, {}, ed, exact(DType::fp32));
  ASSERT_EQ(v.metrics.worst.size(), 1u);
  EXPECT_EQ(v.metrics.worst[0].index, (Dims{1, 2, 3, 4}));
  EXPECT_EQ(v.metrics.worst[0].expected, 1235.0);
}

TEST(Compare, WorstListIsOrderedAndCapped) {
  std::vector<float> g(10);
  std::vector<double> e(10, 100.0), a(10, 100.0);
  for (int i = 0; i < 10; ++i) g[i] = 100.0f + static_cast<float>(i % 7);  // errors 0..6
  HostTensor got = row(DType::fp32, g);
  Verdict v = compare(got, e, a, got.desc, bounded(DType::fp32, 1));
  ASSERT_EQ(v.metrics.worst.size(), kWorstElements);
  EXPECT_EQ(v.metrics.worst[0].error, 6.0);
  for (std::size_t i = 1; i < v.metrics.worst.size(); ++i) EXPECT_LE(v.metrics.worst[i].error, v.metrics.worst[i - 1].error);
  EXPECT_EQ(v.metrics.worst.back().error, 2.0);  // errors 0..6,0,1,2: the worst are 6, 5, 4, 3, 2
}

TEST(Compare, RejectsMismatchedInputs) {
  HostTensor got = row(DType::fp32, {1, 2, 3});
  HostTensor other = row(DType::fp32, {1, 2});
  EXPECT_THROW(compare(got, {1, 2, 3}, {1, 2, 3}, other.desc, bounded(DType::fp32, 1)), InputError);
  EXPECT_THROW(compare(got, {1, 2}, {1, 2, 3}, got.desc, bounded(DType::fp32, 1)), InputError);
  EXPECT_THROW(compare(got, {1, 2, 3}, {}, got.desc, bounded(DType::fp32, 1)), InputError);
  EXPECT_THROW(compare(got, {1, 2, 3}, {1, 2, 3}, got.desc, bounded(DType::fp16, 1)), InputError);
}

TEST(Compare, BitwiseFindsTheFirstDifference) {
  HostTensor a(TensorDesc::packed(DType::fp16, {1, 2, 3, 4}, false));
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<float>(i);
  HostTensor b = a;
  Verdict same = compare_bitwise(a, b);
  EXPECT_EQ(same.status, Status::passed);
  EXPECT_EQ(same.metrics.checked, 24);
  b.at({0, 1, 2, 3}) = -0.0f;  // 23 -> -0
  b.at({0, 1, 0, 0}) = 0.0f;   // 12 -> 0
  Verdict v = compare_bitwise(a, b);
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_EQ(v.metrics.mismatches, 2);
  EXPECT_NE(v.reason.find("[0,1,0,0]"), std::string::npos) << v.reason;
  // +0 and -0 are equal numbers but different bits: a determinism check must see them.
  HostTensor z = row(DType::fp32, {0.0f}), nz = row(DType::fp32, {-0.0f});
  EXPECT_EQ(compare_bitwise(z, nz).status, Status::failed);
  EXPECT_THROW(compare_bitwise(a, row(DType::fp16, {1})), InputError);
}
