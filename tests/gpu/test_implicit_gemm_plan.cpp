// Host tests (no GPU) of conv.gemm.implicit's plan (gpu/conv/implicit_gemm_plan.hpp): the B map's
// offset of every (image, kk, n) equals the direct x_pad index of the tap it stands for, the output
// map equals y's TensorDesc offsets, the workspace size, the refusals, and which operands the
// tensor-core kernel stages with 16-byte loads.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/conv_problem.hpp"
#include "gpu/conv/implicit_gemm_plan.hpp"
#include "gpu/gemm/mma_fragment.hpp"

namespace hiprim::gpu {
namespace {

const char* const kShapes[] = {
    "conv fwd fp32 nchw n2 c3 k5 in7x9 f3x3 pad1x1 str2x2",
    "conv fwd fp16 nhwc n2 c3 k4 in11x10 f7x7 pad3x3 str2x2",  // 7x7 stem, C = 3
    "conv fwd bf16 nhwc n3 c8 k3 in6x5 f1x1 pad0x0 str2x2",    // strided 1x1
    "conv fwd fp32 nhwc n1 c2 k2 in5x6 f2x3 pad0x1 str1x2",    // R != S, asymmetric pad/stride
    "conv fwd bf16 nchw n2 c16 k8 in6x6 f3x3 pad1x1 str1x1",
};

TEST(ImplicitGemmPlan, BMapEqualsDirectPaddedIndexForEveryTapAndPixel) {
  for (const char* text : kShapes) {
    const ConvProblem p = parse_conv_problem(text);
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    ASSERT_EQ(pl.refusal, "") << text;
    EXPECT_EQ(pl.hp, p.in[0] + 2 * p.pad[0]) << text;
    EXPECT_EQ(pl.wp, p.in[1] + 2 * p.pad[1]) << text;
    const Dims out = p.out();
    const GemmShape sh = pl.shape();
    ASSERT_EQ(sh.m, p.k);
    ASSERT_EQ(sh.n, out[0] * out[1]);
    ASSERT_EQ(sh.k, p.c * p.filter[0] * p.filter[1]);
    ASSERT_EQ(sh.batch, p.n);
    const MatrixMap b = pl.b_map();
    std::int64_t checked = 0, max_offset = 0;
    for (std::int64_t img = 0; img < p.n; ++img)
      for (std::int64_t r = 0; r < p.filter[0]; ++r)
        for (std::int64_t s = 0; s < p.filter[1]; ++s)
          for (std::int64_t c = 0; c < p.c; ++c)
            for (std::int64_t oh = 0; oh < out[0]; ++oh)
              for (std::int64_t ow = 0; ow < out[1]; ++ow) {
                const auto kk = static_cast<std::int32_t>((r * p.filter[1] + s) * p.c + c);
                const auto n = static_cast<std::int32_t>(oh * out[1] + ow);
                const std::int64_t want =
                    pl.xpad_offset(img, oh * p.stride[0] + r, ow * p.stride[1] + s, c);
                const std::int64_t got = b(static_cast<std::int32_t>(img), kk, n);
                ASSERT_EQ(got, want) << text << " img " << img << " r " << r << " s " << s << " c " << c << " oh "
                                     << oh << " ow " << ow;
                max_offset = std::max(max_offset, got);
                ++checked;
              }
    EXPECT_EQ(checked, sh.batch * sh.k * sh.n);
    EXPECT_LT(max_offset, pl.xpad_elements()) << text;  // every read stays inside x_pad
  }
}

TEST(ImplicitGemmPlan, OutputMapEqualsYDescAndWeightsMapIsKrsc) {
  for (const char* text : kShapes) {
    const ConvProblem p = parse_conv_problem(text);
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    const TensorDesc y = p.y_desc();
    const MatrixMap om = implicit_out_map(p);
    const Dims out = p.out();
    for (std::int64_t img = 0; img < p.n; ++img)
      for (std::int64_t k = 0; k < p.k; ++k)
        for (std::int64_t oh = 0; oh < out[0]; ++oh)
          for (std::int64_t ow = 0; ow < out[1]; ++ow)
            ASSERT_EQ(om(static_cast<std::int32_t>(img), static_cast<std::int32_t>(k),
                         static_cast<std::int32_t>(oh * out[1] + ow)),
                      y.offset(Dims{img, k, oh, ow}))
                << text;
    // NHWC weights are [K][R][S][C] already (read in place); NCHW ones are transformed into the workspace.
    EXPECT_EQ(pl.transform_w, !p.channels_last) << text;
    const TensorDesc w = p.w_desc();
    const MatrixMap am = pl.a_map();
    if (!pl.transform_w) {
      for (std::int64_t k = 0; k < p.k; ++k)
        for (std::int64_t r = 0; r < p.filter[0]; ++r)
          for (std::int64_t s = 0; s < p.filter[1]; ++s)
            for (std::int64_t c = 0; c < p.c; ++c)
              ASSERT_EQ(am(0, static_cast<std::int32_t>(k), static_cast<std::int32_t>((r * p.filter[1] + s) * p.c + c)),
                        w.offset(Dims{k, c, r, s}))
                  << text;
    }
    const std::size_t elem = dtype_size(p.dtype);
    const std::size_t xpad = static_cast<std::size_t>(pl.xpad_elements()) * elem;
    const std::size_t wt = static_cast<std::size_t>(w.elements()) * elem;
    EXPECT_EQ(pl.workspace_bytes, pl.transform_w ? (xpad + 255) / 256 * 256 + wt : xpad) << text;
    EXPECT_EQ(pl.w_offset % 256, 0u);
    EXPECT_GE(pl.w_offset, xpad);
  }
}

TEST(ImplicitGemmPlan, RefusesWithReasons) {
  const std::string tail = " n2 c8 k8 in9x9 f3x3 pad1x1";
  auto refusal = [](const std::string& text) { return plan_implicit_gemm(parse_conv_problem(text)).refusal; };
  EXPECT_EQ(refusal("conv fwd fp16 nhwc" + tail), "");
  EXPECT_EQ(refusal("conv bwd-data fp16 nhwc" + tail), "");  // stride 1: the flipped fwd conv
  EXPECT_NE(refusal("conv bwd-data fp16 nhwc" + tail + " str2x2").find("stride"), std::string::npos);
  EXPECT_NE(refusal("conv bwd-data fp16 nhwc n2 c8 k8 in9x9 f3x3 pad3x3").find("negative padding"), std::string::npos);
  EXPECT_NE(refusal("conv bwd-data fp16 nhwc" + tail + " dil2x2").find("dilation"), std::string::npos);
  EXPECT_NE(refusal("conv bwd-weights fp16 nhwc" + tail).find("bwd-weights"), std::string::npos);
  EXPECT_NE(refusal("conv fwd fp16 nhwc trans" + tail).find("trans"), std::string::npos);
  EXPECT_NE(refusal("conv fwd fp16 nhwc" + tail + " g2").find("groups"), std::string::npos);
  EXPECT_NE(refusal("conv fwd fp16 nhwc" + tail + " dil2x2").find("dilation"), std::string::npos);
  EXPECT_NE(refusal("conv fwd fp16 ndhwc n1 c8 k8 in4x4x4 f3x3x3 pad1x1x1").find("2D"), std::string::npos);
  const ConvProblem big = parse_conv_problem("conv fwd fp32 nchw n64 c256 k8 in256x256 f3x3 pad1x1");
  EXPECT_NE(plan_implicit_gemm(big).refusal.find("workspace"), std::string::npos);  // 4 GiB of x_pad
  EXPECT_EQ(plan_implicit_gemm(big, std::size_t{1} << 33).refusal, "");
}

// Stride-1 bwd-data: the plan is its fwd twin's (In = dy with K channels padded by R-1-pad, Out = dx
// with C channels) with the flipped filter always copied; the twin's output size is dx's.
TEST(ImplicitGemmPlan, StrideOneBwdDataRunsAsTheFlippedFwdConv) {
  for (const char* text : {"conv bwd-data fp32 nhwc n2 c8 k16 in9x7 f3x3 pad1x1", "conv bwd-data bf16 nchw n3 c5 k6 in8x8 f3x2 pad0x1",
                           "conv bwd-data fp32 nhwc n2 c4 k4 in5x5 f1x1 pad0x0"}) {
    const ConvProblem p = parse_conv_problem(text);
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    ASSERT_EQ(pl.refusal, "") << text;
    EXPECT_TRUE(pl.flip && pl.transform_w) << text;
    const ConvProblem q = implicit_flip_twin(p);
    EXPECT_EQ(q.dir, ConvDir::fwd);
    EXPECT_EQ(q.out(), p.in) << text;  // the twin's output is dx
    EXPECT_EQ(pl.c, p.k) << text;
    EXPECT_EQ(pl.k, p.c) << text;
    EXPECT_EQ(pl.hp, p.out()[0] + 2 * (p.filter[0] - 1 - p.pad[0])) << text;
    EXPECT_EQ(pl.wp, p.out()[1] + 2 * (p.filter[1] - 1 - p.pad[1])) << text;
    const GemmShape sh = pl.shape();
    EXPECT_EQ(sh.m, p.c);
    EXPECT_EQ(sh.n, p.in[0] * p.in[1]);
    EXPECT_EQ(sh.k, p.filter[0] * p.filter[1] * p.k);
    const std::size_t elem = dtype_size(p.dtype);
    EXPECT_EQ(pl.workspace_bytes, pl.w_offset + static_cast<std::size_t>(p.c * p.k * p.filter[0] * p.filter[1]) * elem) << text;
    EXPECT_GE(pl.w_offset, static_cast<std::size_t>(pl.xpad_elements()) * elem) << text;
  }
}

// The tensor-core kernel's 16-byte staging (mma_fragment.hpp) applies to B (kk runs of S*C, unit
// stride) and A exactly when C % 8 == 0 (given 16-byte aligned pointers).
TEST(ImplicitGemmPlan, MmaVectorStagingAppliesWhenChannelsAreAMultipleOf8) {
  for (const std::int64_t c : {3, 4, 8, 16, 24, 64})
    for (const char* geo : {" in9x9 f3x3 pad1x1 str1x1", " in9x9 f3x3 pad1x1 str2x2", " in9x9 f1x1 pad0x0 str2x2",
                            " in15x15 f7x7 pad3x3 str2x2"}) {
      const std::string text = "conv fwd bf16 nhwc n2 c" + std::to_string(c) + " k16" + geo;
      const ImplicitGemmPlan pl = plan_implicit_gemm(parse_conv_problem(text));
      ASSERT_EQ(pl.refusal, "") << text;
      const MatrixMap b = pl.b_map(), a = pl.a_map();
      const MmaStagePlan bp = plan_mma_staging(b.cols, b.rows, b.batch, true);
      const MmaStagePlan ap = plan_mma_staging(a.rows, a.cols, a.batch, true);
      EXPECT_TRUE(bp.along_k) << text;
      EXPECT_EQ(bp.vector, c % 8 == 0) << text;
      EXPECT_EQ(ap.vector, c % 8 == 0) << text;
    }
}

}  // namespace
}  // namespace hiprim::gpu
