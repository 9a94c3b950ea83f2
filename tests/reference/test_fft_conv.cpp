// FFT convolution (reference/fft_conv.hpp): the twiddles, the fp32 evaluation within its derived bound
// gamma(L) * S against the conv reference (odd sizes, padding, 3x3 / 5x5 / 7x7, C up to 64, both
// layouts, T = 16 / 32 / 64), mutants (a twiddle's sign, the tile read origin one off) caught by that
// bound, and the refusals with their reasons.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "core/fft_tiles.hpp"
#include "reference/conv.hpp"
#include "reference/error_model.hpp"
#include "reference/fft_conv.hpp"

namespace hiprim::ref {
namespace {

void fill_uniform(HostTensor& t, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pick(-1.0f, 1.0f);
  for (float& v : t.data) v = pick(rng);
}

struct Outcome {
  int violations = 0;
  double worst_ratio = 0, max_err = 0;
  std::int64_t checked = 0;
};

// The fp32 evaluation with `plan` against the exact (double) convolution, each element by gamma(L) * S.
// x_scale: x's values times it (2^-130: every product below fp32's normal range).
// bwd-data: dy in x's place (the convolution's input), dx the output.
Outcome judge(const ConvProblem& p, int t, const FftConvPlan& plan, std::uint32_t seed, float x_scale = 1.0f) {
  const bool bwd = p.dir == ConvDir::bwd_data;
  HostTensor x(bwd ? p.y_desc() : p.x_desc()), w(p.w_desc());
  fill_uniform(x, seed);
  fill_uniform(w, seed + 101);
  for (float& v : x.data) v *= x_scale;
  const ConvOutput e = conv_naive(p, bwd ? ConvInputs{nullptr, &w, &x, nullptr} : ConvInputs{&x, &w, nullptr, nullptr}, false);
  const std::vector<float> got = fft_conv_fp32(p, plan, x, w);
  const std::vector<double> s = fft_conv_abs_sum(p, t, x, w);
  const std::int64_t L = fft_conv_depth(p, t);
  Outcome r;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(got[i] - e.value[i]), bound = stored_sum_bound(DType::fp32, L, 1.0, e.value[i], s[i]);
    r.violations += !(err <= bound);
    r.worst_ratio = std::max(r.worst_ratio, err / bound);
    r.max_err = std::max(r.max_err, err);
    ++r.checked;
  }
  return r;
}

TEST(FftTwiddles, WithinTheirStatedErrorAndExactOnTheAxes) {
  for (int t : {4, 8, 16, 32, 64}) {
    const FftTwiddleTable tw = fft_twiddles(t);
    ASSERT_EQ(tw.re.size(), static_cast<std::size_t>(t / 2));
    for (int k = 0; k < t / 2; ++k) {
      const double a = -2 * std::acos(-1.0) * k / t;
      EXPECT_LE(std::hypot(tw.re[k] - std::cos(a), tw.im[k] - std::sin(a)), 0x1p-24 + 0x1p-50) << t << " " << k;
    }
    EXPECT_EQ(tw.re[0], 1.0f);
    EXPECT_EQ(tw.im[0], 0.0f);
    EXPECT_EQ(tw.re[t / 4], 0.0f);
    EXPECT_EQ(tw.im[t / 4], -1.0f);
  }
  EXPECT_THROW(fft_twiddles(24), InputError);
  EXPECT_EQ(fft_bitrev(1, 5), 16);
  EXPECT_EQ(fft_bitrev(6, 3), 3);
}

TEST(FftTiling, TilesCoverTheOutput) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k4 in56x57 f5x7 pad2x3");
  const FftTiling g = fft_tiling(p, 32);
  EXPECT_EQ(g.out_h, 28);
  EXPECT_EQ(g.out_w, 26);
  EXPECT_EQ(g.tiles_h, 2);  // 56 rows
  EXPECT_EQ(g.tiles_w, 3);  // 57 columns over 26
  EXPECT_EQ(g.tiles, 2 * 2 * 3);
  EXPECT_EQ(g.freqs(), 32 * 17);
}

const char* const kProblems[] = {
    "conv fwd fp32 nchw n1 c3 k4 in20x20 f5x5 pad2x2",
    "conv fwd fp32 nhwc n2 c5 k3 in23x19 f5x5 pad0x1",     // odd sizes, clipped last tiles
    "conv fwd fp32 nchw n1 c4 k5 in31x29 f7x7 pad3x3",
    "conv fwd fp32 nhwc n1 c6 k2 in17x33 f3x3 pad1x1",
    "conv fwd fp32 nchw n1 c2 k3 in12x40 f3x7 pad2x6",     // R != S, pad up to filter - 1
    "conv fwd fp32 nhwc n1 c64 k8 in14x14 f5x5 pad2x2",    // C = 64
    "conv fwd fp32 nchw n1 c1 k1 in5x5 f5x5 pad0x0",       // one output
    // bwd-data as the fwd equivalent (dy by the flipped, channel-swapped filter, pad' = filter - 1 - pad)
    "conv bwd-data fp32 nchw n1 c4 k3 in20x20 f5x5 pad2x2",
    "conv bwd-data fp32 nhwc n2 c3 k5 in19x23 f7x5 pad1x4",
    "conv bwd-data fp32 nhwc n1 c8 k64 in13x14 f3x3 pad0x1",  // the equivalent's C = 64
};

TEST(FftConvFp32, WithinTheDerivedBoundOnRandomData) {
  for (int t : {16, 32, 64})
    for (const char* line : kProblems) {
      const ConvProblem p = parse_conv_problem(line);
      if (!fft_conv_refusal(p, t).empty()) continue;
      SCOPED_TRACE(std::string(line) + " T=" + std::to_string(t));
      const Outcome r = judge(p, t, fft_conv_plan(p, t), 7);
      EXPECT_EQ(r.violations, 0);
      EXPECT_GT(r.max_err, 0.0);  // inexact: the test sees rounding
      EXPECT_LT(r.worst_ratio, 0.05) << "the observed error is far below the normwise bound";
      EXPECT_GT(r.checked, 0);
    }
}

// Subnormal data: the underflow account (fft_conv_underflow) keeps the bound valid where the relative
// model alone (gamma(L) * S) does not.
TEST(FftConvFp32, WithinTheBoundOnSubnormalData) {
  for (const float scale : {0x1p-130f, 0x1p-146f})
    for (const char* line : kProblems) {
      const ConvProblem p = parse_conv_problem(line);
      SCOPED_TRACE(std::string(line) + " x scaled by " + std::to_string(std::log2(scale)));
      const Outcome r = judge(p, 16, fft_conv_plan(p, 16), 5, scale);
      EXPECT_EQ(r.violations, 0);
      EXPECT_GT(r.max_err, 0.0);
      if (scale < 0x1p-140f) {  // products of 2^-146: the relative model alone allows 2^-155 (C = 3) to 2^-150 (C = 64)
        EXPECT_GT(r.max_err, 0x1p-152) << "errors at the underflow account's scale";
      }
    }
  EXPECT_GT(fft_conv_underflow(32, 64, 1.0), fft_conv_underflow(32, 64, 0.0));
}

// The bound's factor: grows with log2 T, C and the filter, and is of the order the derivation gives.
TEST(FftConvBound, FactorAndDepth) {
  const double f32 = fft_conv_factor(32, 64, 5, 5);
  EXPECT_GT(f32, 900);
  EXPECT_LT(f32, 1300);
  EXPECT_GT(fft_conv_factor(64, 64, 5, 5), f32);
  EXPECT_GT(fft_conv_factor(32, 128, 5, 5), f32);
  EXPECT_GT(fft_conv_factor(32, 64, 7, 7), f32);
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c64 k8 in14x14 f5x5 pad2x2");
  EXPECT_EQ(fft_conv_depth(p, 32), static_cast<std::int64_t>(std::ceil(f32 + 64 * 25 * 0x1p-29)));
  EXPECT_THROW(fft_conv_depth(parse_conv_problem("conv fwd fp32 nchw n1 c4 k4 in8x8 f1x1"), 32), InputError);
}

// Mutants of the evaluation: each breaks the bound on most problems.
TEST(FftConvFp32, MutantsFailTheBound) {
  for (const char* line : kProblems) {
    const ConvProblem p = parse_conv_problem(line);
    SCOPED_TRACE(line);
    const int t = 16;
    FftConvPlan sign = fft_conv_plan(p, t);
    sign.twiddles.im[1] = -sign.twiddles.im[1];  // one twiddle's sign
    EXPECT_GT(judge(p, t, sign, 7).violations, 0);
    // (Every sign flipped is no mutant: the forward becomes N times the inverse DFT, D' = conj(D) for
    // real data, Y' = conj(Y), and the inverse a forward DFT of it: the same convolution.)
    FftConvPlan all = fft_conv_plan(p, t);
    for (float& v : all.twiddles.im) v = -v;
    EXPECT_EQ(judge(p, t, all, 7).violations, 0);
    const FftTiling g = fft_tiling(p, t);
    if (g.tiles_h > 1) {
      FftConvPlan overlap = fft_conv_plan(p, t);
      overlap.read_step_h += 1;  // the tiles' read windows one row off (overlap R - 2)
      EXPECT_GT(judge(p, t, overlap, 7).violations, 0);
    }
    if (g.tiles_w > 1) {
      FftConvPlan overlap = fft_conv_plan(p, t);
      overlap.read_step_w -= 1;  // overlap S
      EXPECT_GT(judge(p, t, overlap, 7).violations, 0);
    }
  }
}

TEST(FftConv, RefusesWithAReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp16 nchw n1 c4 k4 in16x16 f5x5 pad2x2", "fp32 only"},
      {"conv bwd-weights fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2", "fwd or bwd-data convolution"},
      {"conv bwd-data fp32 nchw n1 c4 k4 in16x16 f5x5 pad5x2", "bwd-data with pad 5x2 not below the filter"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 trans", "mode conv"},
      {"conv fwd fp32 ncdhw n1 c4 k4 in4x16x16 f3x5x5 pad1x2x2", "2D only"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 g2", "groups 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 str2x2", "stride 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 dil2x2", "dilation 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 bias", "no bias"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f1x1", "filter 1x1 outside 2..31"},
      {"conv fwd fp32 nchw n1 c4 k4 in40x40 f32x5", "filter 32x5 outside 2..31"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad5x2", "pad 5x2 not below the filter"},
      {"conv fwd fp32 nhwc n1 c4 k4 in16x16 f5x5 pad2x2 math=tf32", "math=tf32"},
  };
  for (const auto& [line, why] : cases) {
    const std::string r = fft_conv_refusal(parse_conv_problem(line), 32);
    EXPECT_NE(r.find(why), std::string::npos) << line << ": '" << r << "'";
  }
  EXPECT_EQ(fft_conv_refusal(parse_conv_problem("conv fwd fp32 nhwc n1 c4 k4 in16x16 f5x5 pad2x2"), 32), "");
  EXPECT_THROW(fft_conv_plan(parse_conv_problem("conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 g2"), 32), InputError);
}

}  // namespace
}  // namespace hiprim::ref
