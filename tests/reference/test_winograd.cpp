// Winograd F(m x m, 3 x 3) (reference/winograd.hpp): the transforms compute the 1D correlation exactly
// (rational arithmetic), the 2D algorithm in double equals the conv reference, the fp32 evaluation stays
// within the derived bound gamma(L) * S on random data, and wrong transforms or tiles are caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "reference/conv.hpp"
#include "reference/error_model.hpp"
#include "reference/winograd.hpp"

namespace hiprim::ref {
namespace {

// y = A^T [(G g) . (B^T d)] in rationals, for integer d and g.
std::vector<Rational> apply_1d(const WinogradTransforms& t, const std::vector<Rational>& d, const std::vector<Rational>& g) {
  std::vector<Rational> u(static_cast<std::size_t>(t.a), Rational(0)), v = u, y(static_cast<std::size_t>(t.m), Rational(0));
  for (int k = 0; k < t.a; ++k) {
    for (int j = 0; j < t.r; ++j) u[k] = u[k] + t.g[k * t.r + j] * g[j];
    for (int i = 0; i < t.a; ++i) v[k] = v[k] + t.bt[k * t.a + i] * d[i];
  }
  for (int i = 0; i < t.m; ++i)
    for (int k = 0; k < t.a; ++k) y[i] = y[i] + t.at[i * t.a + k] * (u[k] * v[k]);
  return y;
}

bool computes_correlation(const WinogradTransforms& t, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-9, 9);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Rational> d, g;
    for (int i = 0; i < t.a; ++i) d.emplace_back(pick(rng));
    for (int j = 0; j < t.r; ++j) g.emplace_back(pick(rng));
    const std::vector<Rational> y = apply_1d(t, d, g);
    for (int i = 0; i < t.m; ++i) {
      Rational want(0);
      for (int j = 0; j < t.r; ++j) want = want + d[i + j] * g[j];
      if (!(y[i] == want)) return false;
    }
  }
  return true;
}

TEST(WinogradTransforms, ComputeTheCorrelationExactly) {
  for (int m : {2, 4, 5, 6}) {
    const WinogradTransforms t = winograd_f3(m);
    EXPECT_EQ(t.a, m + 2);
    EXPECT_TRUE(computes_correlation(t, static_cast<std::uint32_t>(m))) << "F(" << m << ",3)";
    EXPECT_TRUE(t.fp32_exact(t.at)) << m;  // dyadic points: A^T and B^T are exact in binary
    EXPECT_TRUE(t.fp32_exact(t.bt)) << m;
  }
  EXPECT_TRUE(winograd_f3(2).fp32_exact(winograd_f3(2).g));   // G of F(2,3): halves
  EXPECT_FALSE(winograd_f3(4).fp32_exact(winograd_f3(4).g));  // 1/6, 1/24, ...
  // other (m, r) from the same construction, e.g. F(3,2) (the bwd-weights shape) and F(2,5)
  EXPECT_TRUE(computes_correlation(winograd_transforms(3, 2, {Rational(0), Rational(1), Rational(-1)}), 7));
  EXPECT_TRUE(computes_correlation(winograd_transforms(2, 5, {Rational(0), Rational(1), Rational(-1), Rational(2), Rational(-2)}), 8));
}

TEST(WinogradTransforms, AWrongCoefficientIsCaught) {
  for (int m : {2, 4, 5, 6})
    for (std::vector<Rational> WinogradTransforms::*mat : {&WinogradTransforms::at, &WinogradTransforms::g, &WinogradTransforms::bt}) {
      WinogradTransforms t = winograd_f3(m);
      std::vector<Rational>& v = t.*mat;
      const std::size_t i = v.size() / 2;
      v[i] = v[i] + Rational(1, 4);
      EXPECT_FALSE(computes_correlation(t, 3)) << "F(" << m << ",3), entry " << i;
    }
}

TEST(WinogradTransforms, RefuseBadPointsAndShapes) {
  EXPECT_THROW(winograd_transforms(2, 3, {Rational(0), Rational(1)}), InputError);
  EXPECT_THROW(winograd_transforms(2, 3, {Rational(0), Rational(1), Rational(1)}), InputError);
  EXPECT_THROW(winograd_f3(3), InputError);
  EXPECT_THROW(Rational(1, 0), InputError);
  const WinogradTransforms t = winograd_f3(2);
  EXPECT_EQ(winograd_refusal(parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1"), t), "");
  for (const char* s : {"conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1 str2x2", "conv fwd fp32 nchw n1 c2 k2 in8x8 f5x5",
                        "conv bwd-weights fp32 nchw n1 c2 k2 in8x8 f3x3", "conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 dil2x2",
                        "conv bwd-data fp32 nchw n1 c2 k2 in8x8 f3x3 pad3x1", "conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1 trans",
                        "conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 bias"})
    EXPECT_NE(winograd_refusal(parse_conv_problem(s), t), "") << s;
}

struct Data {
  HostTensor x, w;
};
Data random_data(const ConvProblem& p, std::uint32_t seed, bool integers) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-3, 3);
  Data d{HostTensor(p.x_desc()), HostTensor(p.w_desc())};
  for (HostTensor* t : {&d.x, &d.w})
    for (float& v : t->data) v = integers ? static_cast<float>(small(rng)) : real(rng);
  return d;
}

const char* const kShapes[] = {
    "conv fwd fp32 nchw n2 c3 k4 in7x9 f3x3 pad1x1",  // M tails in both axes
    "conv fwd fp32 nhwc n1 c5 k3 in6x6 f3x3",         // no padding
    "conv fwd fp32 nchw n1 c4 k6 in5x8 f3x3 pad2x0 g2",
    "conv fwd fp32 nhwc n1 c8 k8 in4x4 f3x3 pad3x3",  // padding larger than the filter's reach
    "conv fwd fp32 nchw n1 c16 k4 in13x13 f3x3 pad1x1",
};

TEST(WinogradConv, DoubleEvaluationEqualsTheConvReference) {
  for (int m : {2, 4, 5, 6})
    for (const char* s : kShapes) {
      const ConvProblem p = parse_conv_problem(s);
      const Data d = random_data(p, 11, false);
      const ConvOutput want = conv_naive(p, {&d.x, &d.w, nullptr, nullptr});
      const WinogradOutput got = winograd_conv_double(p, winograd_f3(m), d.x, d.w, true);
      ASSERT_EQ(got.value.size(), want.value.size());
      for (std::size_t e = 0; e < got.value.size(); ++e) {
        ASSERT_NEAR(got.value[e], want.value[e], 1e-12 * (1 + want.abs_sum[e])) << "F(" << m << ",3) " << s << " element " << e;
        ASSERT_GE(got.abs_sum[e] * (1 + 1e-12), want.abs_sum[e]) << s;  // S >= the direct sum of |w x|
      }
    }
}

// bwd-data as its fwd equivalent (dy by the flipped, channel-swapped filter, pad 2 - pad) equals the
// naive bwd-data reference: the mapping of winograd_fwd_equivalent / winograd_equivalent_filter.
TEST(WinogradConv, BwdDataAsItsFwdEquivalentEqualsTheConvReference) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (int m : {2, 4, 5, 6})
    for (const char* s : {"conv bwd-data fp32 nchw n2 c3 k4 in7x9 f3x3 pad1x1", "conv bwd-data fp32 nhwc n1 c6 k4 in6x5 f3x3 pad0x2 g2",
                          "conv bwd-data fp32 nchw n1 c2 k5 in5x5 f3x3 pad2x2"}) {
      const ConvProblem p = parse_conv_problem(s);
      ASSERT_EQ(winograd_refusal(p, winograd_f3(m)), "") << s;
      const ConvProblem q = winograd_fwd_equivalent(p);
      EXPECT_EQ(q.dir, ConvDir::fwd);
      EXPECT_EQ(q.x_desc(), p.y_desc()) << s;  // its input is dy, its output dx
      EXPECT_EQ(q.y_desc(), p.x_desc()) << s;
      HostTensor dy(p.y_desc()), w(p.w_desc());
      for (HostTensor* t : {&dy, &w})
        for (float& v : t->data) v = real(rng);
      const ConvOutput want = conv_naive(p, {nullptr, &w, &dy, nullptr});
      const WinogradOutput got = winograd_conv_double(p, winograd_f3(m), dy, w, true);
      ASSERT_EQ(got.value.size(), want.value.size());
      for (std::size_t e = 0; e < got.value.size(); ++e)
        ASSERT_NEAR(got.value[e], want.value[e], 1e-12 * (1 + want.abs_sum[e])) << "F(" << m << ",3) " << s << " element " << e;
    }
  // A refused problem has no equivalent: it comes back unchanged.
  const ConvProblem wide = parse_conv_problem("conv bwd-data fp32 nchw n1 c2 k2 in8x8 f3x3 pad3x3");
  EXPECT_EQ(winograd_fwd_equivalent(wide), wide);
}

// The fp32 evaluation against the conv reference: within stored_sum_bound(fp32, L, 1, e, S) on every
// element. Returns the largest error / bound and the RMS error relative to max |y|.
struct Accuracy {
  bool within = true;
  double worst_ratio = 0, rms = 0, amplification = 0;  // max S / direct abs sum
};
Accuracy fp32_accuracy(const ConvProblem& p, const WinogradTransforms& t, const Data& d) {
  const ConvOutput want = conv_naive(p, {&d.x, &d.w, nullptr, nullptr});
  const WinogradOutput ws = winograd_conv_double(p, t, d.x, d.w, true);
  const std::vector<float> got = winograd_conv_fp32(p, t, d.x, d.w);
  const std::int64_t L = winograd_depth(t, p.c / p.groups);
  Accuracy a;
  double sq = 0, ymax = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    const double err = std::fabs(static_cast<double>(got[e]) - want.value[e]);
    const double bound = stored_sum_bound(DType::fp32, L, 1.0, want.value[e], ws.abs_sum[e]);
    if (!(err <= bound)) a.within = false;
    if (bound > 0) a.worst_ratio = std::max(a.worst_ratio, err / bound);
    if (want.abs_sum[e] > 0) a.amplification = std::max(a.amplification, ws.abs_sum[e] / want.abs_sum[e]);
    sq += err * err, ymax = std::max(ymax, std::fabs(want.value[e]));
  }
  a.rms = std::sqrt(sq / static_cast<double>(got.size())) / (ymax > 0 ? ymax : 1);
  return a;
}

TEST(WinogradConv, Fp32EvaluationStaysWithinTheDerivedBound) {
  for (int m : {2, 4, 5, 6})
    for (const char* s : kShapes)
      for (std::uint32_t seed : {1u, 2u}) {
        const ConvProblem p = parse_conv_problem(s);
        const Accuracy a = fp32_accuracy(p, winograd_f3(m), random_data(p, seed, false));
        EXPECT_TRUE(a.within) << "F(" << m << ",3) " << s << " seed " << seed << ": worst error/bound " << a.worst_ratio;
        std::printf("F(%d,3) %-52s seed %u: worst error/bound %.3g, rms/max|y| %.3g, max S/direct %.1f\n", m, s, seed,
                    a.worst_ratio, a.rms, a.amplification);
      }
}

// Subnormal inputs (small integers times 2^-135, the fuzzer's subnormal kind): the transforms'
// fractions take them off fp32's grid and products underflow by up to 2^-150 each. The reported
// abs_sum carries that account: the fp32 evaluation stays within the bound with it, and exceeds the
// bound built from S alone (S of the same data scaled back into the normal range, times 2^-135:
// the algorithm on |.| is linear in x) somewhere, so the account is what holds it.
TEST(WinogradConv, SubnormalInputsStayWithinTheBoundOnlyWithTheUnderflowAccount) {
  int beyond_s_alone = 0;
  for (int m : {4, 6})
    for (const char* s : kShapes)
      for (std::uint32_t seed : {1u, 2u, 3u}) {
        const ConvProblem p = parse_conv_problem(s);
        const WinogradTransforms t = winograd_f3(m);
        Data normal = random_data(p, seed, true), sub = normal;
        for (float& v : sub.x.data) v = std::ldexp(v, -135);
        const ConvOutput want = conv_naive(p, {&sub.x, &sub.w, nullptr, nullptr});
        const WinogradOutput with = winograd_conv_double(p, t, sub.x, sub.w, true);
        const WinogradOutput scaled = winograd_conv_double(p, t, normal.x, normal.w, true);
        const std::vector<float> got = winograd_conv_fp32(p, t, sub.x, sub.w);
        const std::int64_t L = winograd_depth(t, p.c / p.groups);
        for (std::size_t e = 0; e < got.size(); ++e) {
          const double err = std::fabs(static_cast<double>(got[e]) - want.value[e]);
          ASSERT_LE(err, stored_sum_bound(DType::fp32, L, 1.0, want.value[e], with.abs_sum[e])) << "F(" << m << ",3) " << s << " seed " << seed;
          beyond_s_alone += err > stored_sum_bound(DType::fp32, L, 1.0, want.value[e], std::ldexp(scaled.abs_sum[e], -135));
        }
      }
  EXPECT_GT(beyond_s_alone, 0);
}

TEST(WinogradConv, TheBoundCatchesAPerturbedConstant) {
  // The bound can fail: G of F(4,3) with one entry off by 1/64 (a mis-typed coefficient) exceeds it;
  // and the right transforms' fp32 result does differ from the reference (the check is not vacuous).
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c16 k4 in13x13 f3x3 pad1x1");
  const Data d = random_data(p, 3, false);
  WinogradTransforms bad = winograd_f3(4);
  bad.g[7] = bad.g[7] + Rational(1, 64);
  EXPECT_FALSE(fp32_accuracy(p, bad, d).within);
  const Accuracy good = fp32_accuracy(p, winograd_f3(4), d);
  EXPECT_TRUE(good.within);
  EXPECT_GT(good.worst_ratio, 0.0);
}

TEST(WinogradConv, F2x3IsExactOnSmallIntegers) {
  // G of F(2,3) holds halves, A^T and B^T integers: on small integers every intermediate is exact in fp32.
  for (const char* s : kShapes) {
    const ConvProblem p = parse_conv_problem(s);
    const Data d = random_data(p, 5, true);
    const ConvOutput want = conv_naive(p, {&d.x, &d.w, nullptr, nullptr});
    const std::vector<float> got = winograd_conv_fp32(p, winograd_f3(2), d.x, d.w);
    for (std::size_t e = 0; e < got.size(); ++e) ASSERT_EQ(static_cast<double>(got[e]), want.value[e]) << s << " element " << e;
  }
}

// The evaluation runs rows of tiles on several threads (reference/parallel.hpp) where the work pays for
// them; every output is one tile's, in one fixed order, so the bits cannot depend on the split: a batch
// of 8 (several threads on a machine with 2 or more cores) equals its images evaluated one by one (one thread).
TEST(WinogradConv, ThreadsDoNotChangeTheFp32Bits) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n8 c16 k16 in20x20 f3x3 pad1x1");
  const ConvProblem one = parse_conv_problem("conv fwd fp32 nchw n1 c16 k16 in20x20 f3x3 pad1x1");
  const Data d = random_data(p, 3, false);
  const std::int64_t per_x = one.x_desc().storage_elements(), per_y = one.y_desc().storage_elements();
  for (int m : {2, 4, 5, 6}) {
    const std::vector<float> all = winograd_conv_fp32(p, winograd_f3(m), d.x, d.w);
    const std::vector<double> all_s = winograd_abs_sum(p, winograd_f3(m), d.x, d.w);
    for (std::int64_t n = 0; n < p.n; ++n) {
      HostTensor xn(one.x_desc());
      std::copy(d.x.data.begin() + n * per_x, d.x.data.begin() + (n + 1) * per_x, xn.data.begin());
      const std::vector<float> img = winograd_conv_fp32(one, winograd_f3(m), xn, d.w);
      const std::vector<double> img_s = winograd_abs_sum(one, winograd_f3(m), xn, d.w);
      for (std::int64_t e = 0; e < per_y; ++e) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(all[n * per_y + e]), std::bit_cast<std::uint32_t>(img[e])) << "F(" << m << ",3) image " << n << " element " << e;
        ASSERT_EQ(all_s[n * per_y + e], img_s[e]) << "S, F(" << m << ",3) image " << n << " element " << e;
      }
    }
  }
}

TEST(WinogradConv, ADroppedTileRowIsCaught) {
  // F(4,3) whose input transform ignores the last row and column of each a x a tile (B^T's last
  // column zeroed) computes a different convolution: the 2D evaluation no longer matches.
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in9x9 f3x3 pad1x1");
  const Data d = random_data(p, 9, false);
  const ConvOutput want = conv_naive(p, {&d.x, &d.w, nullptr, nullptr});
  WinogradTransforms shifted = winograd_f3(4);
  for (int k = 0; k < shifted.a; ++k) shifted.bt[k * shifted.a + shifted.a - 1] = Rational(0);
  const WinogradOutput got = winograd_conv_double(p, shifted, d.x, d.w, false);
  double worst = 0;
  for (std::size_t e = 0; e < got.value.size(); ++e) worst = std::max(worst, std::fabs(got.value[e] - want.value[e]));
  EXPECT_GT(worst, 1e-3);
}

}  // namespace
}  // namespace hiprim::ref
