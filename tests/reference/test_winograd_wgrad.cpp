// Winograd bwd-weights (reference/winograd.hpp: dw = G^T [sum_t (A dy_t A^T) . (B^T x_t B)] G with the
// fwd F(m x m, 3 x 3) matrices): the double evaluation equals the conv reference's bwd-weights (exactly
// for F(2x2) on small integers), S bounds the direct sum of |dy x|, the fp32 evaluation stays within
// gamma(L) * S, and a wrong coefficient is caught. (Mutant run by hand: the x tiles read one column off
// fails the equality, the exact-F(2x2) and the bound tests.)
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
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

struct Data {
  HostTensor x, dy;
};
Data random_data(const ConvProblem& p, std::uint32_t seed, bool integers) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-3, 3);
  Data d{HostTensor(p.x_desc()), HostTensor(p.y_desc())};
  for (HostTensor* t : {&d.x, &d.dy})
    for (float& v : t->data) v = integers ? static_cast<float>(small(rng)) : real(rng);
  return d;
}

const char* const kShapes[] = {
    "conv bwd-weights fp32 nchw n2 c3 k4 in7x9 f3x3 pad1x1",  // dy tiles clipped in both axes
    "conv bwd-weights fp32 nhwc n1 c5 k3 in6x6 f3x3",         // no padding
    "conv bwd-weights fp32 nchw n1 c4 k6 in5x8 f3x3 pad2x0 g2",
    "conv bwd-weights fp32 nhwc n1 c8 k8 in4x4 f3x3 pad3x3",  // padding past the filter's reach
    "conv bwd-weights fp32 nchw n3 c2 k2 in13x11 f3x3 pad1x1",
};

ConvOutput naive_wgrad(const ConvProblem& p, const Data& d) { return conv_naive(p, {&d.x, nullptr, &d.dy, nullptr}); }

TEST(WinogradWgrad, DoubleEvaluationEqualsTheConvReference) {
  for (int m : {2, 4, 5, 6})
    for (const char* s : kShapes) {
      const ConvProblem p = parse_conv_problem(s);
      ASSERT_EQ(winograd_wgrad_refusal(p, winograd_f3(m)), "") << s;
      const Data d = random_data(p, 21, false);
      const ConvOutput want = naive_wgrad(p, d);
      const WinogradOutput got = winograd_wgrad_double(p, winograd_f3(m), d.x, d.dy, true);
      ASSERT_EQ(got.value.size(), want.value.size());
      for (std::size_t e = 0; e < got.value.size(); ++e) {
        ASSERT_NEAR(got.value[e], want.value[e], 1e-12 * (1 + want.abs_sum[e])) << "F(" << m << ",3) " << s << " element " << e;
        ASSERT_GE(got.abs_sum[e] * (1 + 1e-12), want.abs_sum[e]) << s;  // S >= the direct sum of |dy x|
      }
    }
}

// F(2x2): every matrix is dyadic (G has halves), so small integers give the exact sum in double.
TEST(WinogradWgrad, F2OnIntegersIsExact) {
  for (const char* s : kShapes) {
    const ConvProblem p = parse_conv_problem(s);
    const Data d = random_data(p, 5, true);
    const ConvOutput want = naive_wgrad(p, d);
    const WinogradOutput got = winograd_wgrad_double(p, winograd_f3(2), d.x, d.dy, false);
    for (std::size_t e = 0; e < got.value.size(); ++e) ASSERT_EQ(got.value[e], want.value[e]) << s << " element " << e;
  }
}

TEST(WinogradWgrad, Fp32EvaluationStaysWithinTheDerivedBound) {
  for (int m : {2, 4, 5, 6})
    for (const char* s : kShapes)
      for (std::uint32_t seed : {1u, 2u}) {
        const ConvProblem p = parse_conv_problem(s);
        const WinogradTransforms t = winograd_f3(m);
        const Data d = random_data(p, seed, false);
        const ConvOutput want = naive_wgrad(p, d);
        const std::vector<double> sum = winograd_wgrad_abs_sum(p, t, d.x, d.dy);
        const std::vector<float> got = winograd_wgrad_fp32(p, t, d.x, d.dy);
        const std::int64_t L = winograd_wgrad_depth(t, winograd_wgrad_terms(p, m));
        double worst = 0;
        for (std::size_t e = 0; e < got.size(); ++e) {
          const double err = std::fabs(static_cast<double>(got[e]) - want.value[e]);
          const double bound = stored_sum_bound(DType::fp32, L, 1.0, want.value[e], sum[e]);
          ASSERT_LE(err, bound) << "F(" << m << ",3) " << s << " seed " << seed << " element " << e;
          if (bound > 0) worst = std::max(worst, err / bound);
        }
        EXPECT_GT(worst, 0.0) << "F(" << m << ",3) " << s << ": the fp32 evaluation rounded nothing";
      }
}

// The evaluation runs the tiles' transforms and the (k, c) pairs' sums on several threads where the work
// pays for them (reference/parallel.hpp); each dw[k][c] is one pair's sum over the tiles ascending (in
// runs of `chunk`), so the bits cannot depend on the split: 16 x 16 pairs over 1152 tiles (several
// threads on 2 or more cores) equal each pair evaluated alone (c1 k1: one thread), unsplit and in runs.
TEST(WinogradWgrad, ThreadsDoNotChangeTheFp32Bits) {
  const ConvProblem p = parse_conv_problem("conv bwd-weights fp32 nchw n8 c16 k16 in48x48 f3x3 pad1x1");
  const ConvProblem one = parse_conv_problem("conv bwd-weights fp32 nchw n8 c1 k1 in48x48 f3x3 pad1x1");
  const Data d = random_data(p, 4, false);
  const std::int64_t pix = 48 * 48;
  // channel c of x (or k of dy) as a one-channel NCHW tensor
  auto channel = [&](const HostTensor& t, const TensorDesc& desc, std::int64_t ch, std::int64_t chans) {
    HostTensor o(desc);
    for (std::int64_t n = 0; n < p.n; ++n)
      std::copy(t.data.begin() + (n * chans + ch) * pix, t.data.begin() + (n * chans + ch + 1) * pix, o.data.begin() + n * pix);
    return o;
  };
  for (int m : {4, 6})
    for (std::int64_t chunk : {0, 200}) {
      const std::vector<float> all = winograd_wgrad_fp32(p, winograd_f3(m), d.x, d.dy, chunk);
      for (std::int64_t k = 0; k < p.k; k += 5)
        for (std::int64_t c = 0; c < p.c; c += 3) {
          const HostTensor xc = channel(d.x, one.x_desc(), c, p.c), dyk = channel(d.dy, one.y_desc(), k, p.k);
          const std::vector<float> pair = winograd_wgrad_fp32(one, winograd_f3(m), xc, dyk, chunk);
          for (std::int64_t e = 0; e < 9; ++e)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(all[(k * p.c + c) * 9 + e]), std::bit_cast<std::uint32_t>(pair[e]))
                << "F(" << m << ",3) chunk " << chunk << " k " << k << " c " << c << " tap " << e;
        }
    }
}

// A G entry changed (the output transform) moves the result far from the reference.
TEST(WinogradWgrad, AWrongCoefficientIsCaught) {
  const ConvProblem p = parse_conv_problem(kShapes[0]);
  const Data d = random_data(p, 9, false);
  const ConvOutput want = naive_wgrad(p, d);
  for (int m : {2, 4}) {
    WinogradTransforms t = winograd_f3(m);
    t.g[t.g.size() / 2] = t.g[t.g.size() / 2] + Rational(1, 4);
    const WinogradOutput got = winograd_wgrad_double(p, t, d.x, d.dy, false);
    double worst = 0;
    for (std::size_t e = 0; e < got.value.size(); ++e) worst = std::max(worst, std::fabs(got.value[e] - want.value[e]));
    EXPECT_GT(worst, 1e-3) << "F(" << m << ",3) with a wrong G entry";
  }
}

TEST(WinogradWgrad, RefusesWhatTheTransformDoesNotTakeWithAReason) {
  const WinogradTransforms t = winograd_f3(4);
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1", "bwd-weights"},
      {"conv bwd-weights fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv bwd-weights fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1 dil2x2", "dilation 1"},
      {"conv bwd-weights fp32 nchw n1 c2 k2 in8x8 f5x5 pad2x2", "filter 5x5"},
      {"conv bwd-weights fp32 ncdhw n1 c2 k2 in4x8x8 f3x3x3 pad1x1x1", "2D only"},
  };
  for (const auto& [line, why] : cases) {
    const std::string r = winograd_wgrad_refusal(parse_conv_problem(line), t);
    EXPECT_NE(r.find(why), std::string::npos) << line << ": " << r;
  }
  const ConvProblem fwd = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in8x8 f3x3 pad1x1");
  const Data d{HostTensor(fwd.x_desc()), HostTensor(fwd.y_desc())};
  EXPECT_THROW(winograd_wgrad_double(fwd, t, d.x, d.dy, false), InputError);
}

}  // namespace
}  // namespace hiprim::ref
