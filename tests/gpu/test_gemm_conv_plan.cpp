// Host-only tests of how convolution becomes GEMM (gpu/conv/gemm_conv_maps.hpp): the operand maps
// against core's TensorDesc offsets, the col layout, and the im2col workspace plan (sizes, chunks,
// split-K, refusals). No GPU and no nvcc needed (the solvers' use of the plan: test_gemm_conv.cpp).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/gemm_conv_maps.hpp"
#include "tests/gpu/gemm_conv_gen.hpp"

namespace hiprim::gpu {
namespace {

using test_gemm_conv::gen_problem;

// ---- operand maps against TensorDesc ----

// Logical index [a, b, spatial...] of a rank-(2+r) desc from a linear spatial index.
Dims index_of(std::int64_t a, std::int64_t b, std::int64_t pixel, const Dims& dims) {
  Dims idx(dims.size());
  idx[0] = a;
  idx[1] = b;
  for (std::size_t d = dims.size(); d-- > 2;) {
    idx[d] = pixel % dims[d];
    pixel /= dims[d];
  }
  return idx;
}

RC_GTEST_PROP(GemmConvMaps, OperandMapsMatchTensorDescOffsets, ()) {
  const ConvProblem p = *gen_problem();
  const ConvGeom g = conv_geom(p);
  const bool conv = p.mode == ConvMode::conv;
  const TensorDesc in_d = conv ? p.x_desc() : p.y_desc(), out_d = conv ? p.y_desc() : p.x_desc(), w_d = p.w_desc();
  const std::int64_t G = p.groups, cig = in_d.dims[1] / G, cog = out_d.dims[1] / G, taps = g.taps();
  // W[co][q], q = ci*F + f (NCHW family) or f*CIg + ci (channels last).
  const MatrixMap wm = w_out_by_q(g);
  for (std::int64_t grp = 0; grp < G; ++grp)
    for (std::int64_t co = 0; co < cog; ++co)
      for (std::int64_t ci = 0; ci < cig; ++ci)
        for (std::int64_t f = 0; f < taps; ++f) {
          const std::int64_t q = p.channels_last ? f * cig + ci : ci * taps + f;
          RC_ASSERT(wm(grp, co, q) == w_d.offset(index_of(grp * cog + co, ci, f, w_d.dims)));
        }
  // Out[co][j] and In[ci][j], j = image*pixels + pixel.
  auto check_activation = [&](const MatrixMap& m, const TensorDesc& d, std::int64_t per_group) {
    std::int64_t pixels = 1;
    for (std::size_t i = 2; i < d.dims.size(); ++i) pixels *= d.dims[i];
    for (std::int64_t grp = 0; grp < G; ++grp)
      for (std::int64_t ch = 0; ch < per_group; ++ch)
        for (std::int64_t j = 0; j < d.dims[0] * pixels; ++j)
          RC_ASSERT(m(grp, ch, j) == d.offset(index_of(j / pixels, grp * per_group + ch, j % pixels, d.dims)));
  };
  check_activation(out_channel_by_pixel(g), out_d, cog);
  check_activation(in_channel_by_pixel(g), in_d, cig);
}

TEST(GemmConvMaps, ImagePixelMapIsPlainOnlyWhenImagesAreBackToBack) {
  EXPECT_EQ(image_pixel_map(20, 3, 60).inner_extent, 0);
  EXPECT_EQ(image_pixel_map(20, 1, 60).inner_extent, 20);
  EXPECT_EQ(image_pixel_map(20, 1, 60)(45), 2 * 60 + 5);
}

TEST(GemmConvMaps, ColLayoutOffsets) {
  const ColLayout j_fast{6, 10, 2, false}, q_fast{6, 10, 2, true};
  EXPECT_EQ(j_fast.q_by_j()(1, 4, 7), 60 + 4 * 10 + 7);
  EXPECT_EQ(q_fast.q_by_j()(1, 4, 7), 60 + 7 * 6 + 4);
  EXPECT_EQ(j_fast.elements(), 120);
}

// ---- workspace plan ----

TEST(GemmConvPlan, SizesChunksAndRefusals) {
  const std::string tail = " n4 c6 k8 in10x10 f3x3 pad1x1 str1x1 dil1x1 g2";
  // col: G * (CIg*F) * P = 2 * 27 * 100 elements per image.
  Im2colPlan pl = plan_im2col(parse_conv_problem("conv fwd fp16 nchw" + tail));
  EXPECT_EQ(pl.images_per_chunk, 4);
  EXPECT_EQ(pl.chunks, 1);
  EXPECT_EQ(pl.workspace_bytes, 4u * 5400 * 2);
  pl = plan_im2col(parse_conv_problem("conv bwd-data fp16 nhwc" + tail));  // fp32 colgrad
  EXPECT_EQ(pl.workspace_bytes, 4u * 5400 * 4);
  // bwd-weights, limit 30000: partial sums 8*27 floats = 864 B (1024 aligned) + 256 reserved leave
  // 28720 B for col = 2 images of 10800 B; partial sums at align_up(21600, 256) = 21760.
  pl = plan_im2col(parse_conv_problem("conv bwd-weights fp16 nchw" + tail), 30000);
  EXPECT_EQ(pl.images_per_chunk, 2);
  EXPECT_EQ(pl.chunks, 2);
  EXPECT_EQ(pl.col_bytes, 21600u);
  EXPECT_EQ(pl.partial_offset, 21760u);
  EXPECT_EQ(pl.partial_bytes, 864u);
  EXPECT_EQ(pl.workspace_bytes, 21760u + 864u);
  pl = plan_im2col(parse_conv_problem("conv fwd fp16 nchw" + tail), 10000);
  EXPECT_NE(pl.refusal.find("10800 bytes"), std::string::npos) << pl.refusal;
}

RC_GTEST_PROP(GemmConvPlan, WorkspaceStaysWithinTheLimitAndCoversTheBatch, ()) {
  ConvProblem p = *gen_problem();
  p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  const std::size_t limit = *rc::gen::inRange<std::size_t>(1, 200000);
  const Im2colPlan pl = plan_im2col(p, limit);
  if (!pl.refusal.empty()) return;
  RC_ASSERT(pl.workspace_bytes <= limit);
  RC_ASSERT(pl.images_per_chunk * pl.chunks >= p.n);
  RC_ASSERT((pl.images_per_chunk) * (pl.chunks - 1) < p.n);
  RC_ASSERT(pl.col_bytes ==
            static_cast<std::size_t>(pl.images_per_chunk * p.groups * pl.col_rows * pl.pixels) * pl.col_element_bytes);
}

const std::vector<std::string> kSplitKProblems = {"n4 c32 k80 in12x12 f3x3 pad1x1 str1x1 dil1x1 g1",
                                                  "n8 c8 k8 in12x12 f1x1 g1"};


TEST(GemmConvPlan, SplitKCasesReallySplit) {
  for (const auto& geometry : kSplitKProblems) {
    const ConvProblem p = parse_conv_problem("conv bwd-weights fp32 " + geometry);
    const ConvGeom g = conv_geom(p);
    EXPECT_GT(w_from_in_out_splits(g, g.batch), 1) << geometry;
    EXPECT_GT(plan_im2col(p).k_splits, 1) << geometry;
    EXPECT_GT(plan_im2col(p).split_bytes, 0u) << geometry;
  }
  // ResNet-50-like 1x1 weight gradient: 1024 x 256 outputs in 64 tiles, K = 32*196 -> 8 splits.
  const ConvGeom g = conv_geom(parse_conv_problem("conv bwd-weights bf16 nchw n32 c256 k1024 in14x14 f1x1"));
  EXPECT_EQ(w_from_in_out_splits(g, g.batch), 8);
  EXPECT_EQ(split_k_workspace_bytes(w_from_in_out_shape(g, g.batch), 8), 8u * 1024 * 256 * sizeof(float));
}

}  // namespace
}  // namespace hiprim::gpu
