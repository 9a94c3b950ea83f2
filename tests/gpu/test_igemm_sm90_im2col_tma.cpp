// Host tests of fwd's A and bwd-weights' B operands by TMA in im2col mode (IgemmParams::a_im2col,
// b_im2col, Im2colBox, im2col_corners): a model of the documented im2col traversal (CUDA driver API,
// cuTensorMapEncodeIm2col; PTX cp.async.bulk.tensor .im2col) fed with the plan's corners, strides and
// box coordinates must produce, for every row of every tile and every k-block, exactly the element
// the cp.async gather (act_offset) reads, zeros included. The GPU tests run the real TMA.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/conv_problem.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"

namespace hiprim::gpu::sm90 {
namespace {

// The model: base pixels run over the bounding box [lower, dim - 1 + upper] of each spatial axis
// with the traversal stride, W fastest, then H, then the image; a box is `rows` consecutive base
// pixels from its start, each read at base + offset, channels c0.. (zero outside the tensor).
long long modelled_source(const ActGather& g, int images, const Im2colBox& b, int row, int ch) {
  const Im2colCorners k = im2col_corners(g);
  const int per_x = (g.sw - 1 + k.upper_x - k.lower_x) / g.rx_mul + 1;
  const int per_y = (g.sh - 1 + k.upper_y - k.lower_y) / g.ry_mul + 1;
  const long long start = (static_cast<long long>(b.img) * per_y + (b.y - k.lower_y) / g.ry_mul) * per_x + (b.x - k.lower_x) / g.rx_mul;
  const long long at = start + row;
  const int jx = static_cast<int>(at % per_x), jy = static_cast<int>(at / per_x % per_y), img = static_cast<int>(at / per_x / per_y);
  const int x = k.lower_x + jx * g.rx_mul + b.off_x, y = k.lower_y + jy * g.ry_mul + b.off_y;
  if (img >= images || x < 0 || x >= g.sw || y < 0 || y >= g.sh) return -1;
  return ((static_cast<long long>(img) * g.sh + y) * g.sw + x) * g.sc + b.c0 + ch;
}

// Every tile (BM rows) x k-block x row x channel of p's A: the model equals the gather.
void expect_boxes_match_gather(const ConvProblem& p, int bm) {
  const IgemmPlan pl = plan_igemm(p);
  ASSERT_EQ(pl.refusal, "") << to_string(p);
  ASSERT_TRUE(pl.params.a_im2col) << to_string(p);
  const IgemmClass& cl = pl.params.cls[0];
  const ActGather& g = cl.act;
  // The box's bounding box holds exactly P x Q base pixels per image (so rows follow m).
  const Im2colCorners k = im2col_corners(g);
  ASSERT_EQ((g.sw - 1 + k.upper_x - k.lower_x) / g.rx_mul + 1, g.rw) << to_string(p);
  ASSERT_EQ((g.sh - 1 + k.upper_y - k.lower_y) / g.ry_mul + 1, g.rh) << to_string(p);
  const int images = cl.m / (g.rh * g.rw);
  for (int m0 = 0; m0 < cl.m; m0 += bm)
    for (int k0 = 0; k0 < cl.kred; k0 += kTileK) {
      const Im2colBox b = im2col_box(g, m0, k0);
      for (int row = 0; row < bm; ++row) {
        const ActRow r = act_row(g, m0 + row, cl.m);
        for (int ch = 0; ch < kTileK; ch += 7) {
          const long long want = act_offset(g, r, tap_of(k0 + ch, g.sc, g.ns), true);
          ASSERT_EQ(modelled_source(g, images, b, row, ch), want)
              << to_string(p) << " m0 " << m0 << " k0 " << k0 << " row " << row << " ch " << ch;
        }
      }
    }
}

// bwd-weights: the box of pixels k0.. at column block n (64 columns, one tap) holds B[n + ch][k0 + row],
// x at pixel_offset, for every block of every problem (the kernel's B tile, MN-major by atom column).
void expect_weight_boxes_match_gather(const ConvProblem& p) {
  const IgemmPlan pl = plan_igemm(p);
  ASSERT_EQ(pl.refusal, "") << to_string(p);
  ASSERT_TRUE(pl.params.b_im2col) << to_string(p);
  const PixelGather& pix = pl.params.pix;
  const ActGather g = act_gather_of(pix);
  const int images = pix.pixels / (pix.p * pix.q);
  for (int k0 = 0; k0 < pix.pixels; k0 += kTileK)
    for (int n = 0; n < pl.params.n_cols; n += 64) {
      const Im2colBox b = im2col_box(g, k0, n);
      for (int row = 0; row < kTileK; ++row)
        for (int ch = 0; ch < 64; ch += 5) {
          const long long want = pixel_offset(pix, filter_col(pix, n + ch, pl.params.n_cols), k0 + row);
          ASSERT_EQ(modelled_source(g, images, b, row, ch), want) << to_string(p) << " k0 " << k0 << " n " << n << " row " << row;
        }
    }
}

TEST(IgemmIm2colTma, WeightGradientBoxesEqualTheGather) {
  for (const char* s : {"n2 c64 k64 in7x7 f3x3 pad1x1", "n3 c64 k40 in13x11 f3x3 pad1x1 str1x1", "n2 c128 k64 in9x7 f3x3 pad2x1 str2x1 dil2x1",
                        "n2 c64 k32 in9x9 f1x1 str2x2", "n2 c192 k8 in5x6 f2x3 pad1x2 str3x1 dil2x3", "n4 c64 k64 in56x56 f3x3 pad1x1"})
    expect_weight_boxes_match_gather(parse_conv_problem(std::string("conv bwd-weights bf16 nhwc ") + s));
  EXPECT_FALSE(plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n2 c64 k8 in9x9 f1x1")).params.b_im2col);  // dense
  EXPECT_FALSE(plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n2 c32 k8 in9x9 f3x3 pad1x1")).params.b_im2col);
}

TEST(IgemmIm2colTma, BoxesEqualTheGatherOnFixedProblems) {
  for (const char* s : {"n2 c64 k64 in7x7 f3x3 pad1x1", "n3 c64 k40 in13x11 f3x3 pad1x1 str1x1",
                        "n2 c128 k64 in9x7 f3x3 pad2x1 str2x1 dil2x1", "n2 c64 k16 in6x5 f5x3 pad2x1 str1x2",
                        "n2 c64 k32 in9x9 f1x1 str2x2", "n1 c64 k64 in8x8 f3x3 pad0x0 str2x2", "n2 c192 k8 in5x6 f2x3 pad1x2 str3x1 dil2x3",
                        "n32 c256 k256 in14x14 f3x3 pad1x1", "n4 c128 k128 in56x56 f3x3 pad1x1 str2x2"})
    for (int bm : {64, 128, 256}) expect_boxes_match_gather(parse_conv_problem(std::string("conv fwd bf16 nhwc ") + s), bm);
}

TEST(IgemmIm2colTma, BoxesEqualTheGatherOnRandomProblems) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  while (checked < 60) {
    const int r = pick(1, 5), s = pick(1, 5), dh = pick(1, 3), dw = pick(1, 3);
    const std::string str = "conv fwd fp16 nhwc n" + std::to_string(pick(1, 3)) + " c" + std::to_string(64 * pick(1, 2)) +
                            " k8 in" + std::to_string(pick(1, 12)) + "x" + std::to_string(pick(1, 12)) + " f" + std::to_string(r) +
                            "x" + std::to_string(s) + " pad" + std::to_string(pick(0, 3)) + "x" + std::to_string(pick(0, 3)) +
                            " str" + std::to_string(pick(1, 4)) + "x" + std::to_string(pick(1, 4)) + " dil" + std::to_string(dh) +
                            "x" + std::to_string(dw);
    ConvProblem p;
    try {
      p = parse_conv_problem(str);
    } catch (const std::exception&) {
      continue;  // no output pixels
    }
    const IgemmPlan pl = plan_igemm(p);
    if (!pl.refusal.empty() || pl.params.a_dense) continue;
    expect_boxes_match_gather(p, 64);
    ++checked;
  }
}

TEST(IgemmIm2colTma, TakenOnlyWhereABoxIsOneTapAndTheCornersFit) {
  EXPECT_TRUE(plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k8 in9x9 f3x3 pad1x1")).params.a_im2col);
  EXPECT_FALSE(plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k8 in9x9 f1x1")).params.a_im2col);  // dense: tiled TMA
  for (const char* s : {"conv fwd bf16 nhwc n2 c32 k8 in9x9 f3x3 pad1x1", "conv fwd bf16 nhwc n2 c96 k8 in9x9 f3x3 pad1x1",
                        "conv fwd bf16 nhwc n2 c3 k8 in9x9 f7x7 pad3x3 str2x2", "conv fwd bf16 nhwc n1 c64 k8 in9x9 f1x1 str9x9",
                        "conv fwd bf16 nhwc n1 c64 k8 in300x300 f3x3 pad130x1", "conv bwd-data bf16 nhwc n2 c64 k64 in9x9 f3x3 pad1x1",
                        "conv bwd-weights bf16 nhwc n2 c64 k64 in9x9 f3x3 pad1x1"})
    EXPECT_FALSE(plan_igemm(parse_conv_problem(s)).params.a_im2col) << s;
  EXPECT_FALSE(plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k8 in9x9 f3x3 pad1x1")).params.b_im2col);
  const ConvProblem big = parse_conv_problem("conv fwd bf16 nhwc n1 c64 k8 in300x300 f3x3 pad1x1 dil70x1");
  EXPECT_NE(im2col_tma_refusal(plan_igemm(big).params.cls[0].act).find("[-128, 127]"), std::string::npos);
  EXPECT_NE(im2col_tma_refusal(plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c32 k8 in9x9 f3x3 pad1x1")).params.cls[0].act)
                .find("multiple of 64"),
            std::string::npos);
  // .flip's fwd problem takes it where the original K (its C) is a multiple of 64.
  const IgemmPlan bd = plan_igemm(parse_conv_problem("conv bwd-data bf16 nhwc n2 c16 k64 in9x9 f3x3 pad1x1"));
  ASSERT_NE(bd.flip, nullptr);
  EXPECT_TRUE(bd.flip->params.a_im2col);
}

}  // namespace
}  // namespace hiprim::gpu::sm90
