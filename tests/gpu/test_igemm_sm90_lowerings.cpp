// Host tests of conv.igemm.wgmma's bwd-data and bwd-weights lowerings (.flip, .col2im, .im2col):
// which problems take each, what sub-plan and workspace it runs, and the tuned picks that use them.
// Their arithmetic is checked end to end by the host emulation in test_igemm_sm90_plan.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"

// Each problem is planned, has no such sub-plan, and the lowering's config is refused naming it.
void expect_lowering_refused(std::initializer_list<const char*> problems, const hiprim::gpu::sm90::IgemmConfig& c,
                             std::shared_ptr<const hiprim::gpu::sm90::IgemmPlan> hiprim::gpu::sm90::IgemmPlan::*sub,
                             const std::string& suffix) {
  for (const char* s : problems) {
    const hiprim::gpu::sm90::IgemmPlan q = hiprim::gpu::sm90::plan_igemm(hiprim::parse_conv_problem(s));
    ASSERT_EQ(q.refusal, "") << s;
    EXPECT_EQ(q.*sub, nullptr) << s;
    EXPECT_NE(hiprim::gpu::sm90::igemm_config_refusal(q, c).find(suffix), std::string::npos) << s;
  }
}

// .flip: which problems take it, what it runs, and the tuned defaults the H200 sweeps chose.
TEST(IgemmFlip, StrideOneBwdDataRunsAsTheFlippedFwdProblem) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  std::string why;
  EXPECT_EQ(to_string(flip_problem(parse_conv_problem("conv bwd-data bf16 nhwc n32 c256 k1024 in14x14 f1x1"), &why)),
            "conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1 pad0x0 str1x1 dil1x1 g1");
  EXPECT_EQ(why, "");
  EXPECT_EQ(to_string(flip_problem(parse_conv_problem("conv bwd-data fp16 nhwc n2 c64 k32 in9x12 f3x5 pad1x0 dil1x2"), &why)),
            "conv fwd fp16 nhwc n2 c32 k64 in9x4 f3x5 pad1x8 str1x1 dil1x2 g1");
  EXPECT_EQ(why, "");
  for (const char* s : {"conv fwd bf16 nhwc n2 c8 k8 in5x5 f3x3",
                        "conv bwd-weights bf16 nhwc n2 c8 k8 in5x5 f3x3", "conv bwd-data bf16 nhwc n2 c8 k8 in5x5 f1x1 pad1x1",
                        "conv bwd-data bf16 nhwc n2 c3 k8 in5x5 f3x3 pad1x1"}) {
    const ConvProblem p = parse_conv_problem(s);
    const IgemmPlan pl = plan_igemm(p);
    ASSERT_EQ(pl.refusal, "") << s;
    EXPECT_EQ(pl.flip, nullptr) << s;
    EXPECT_NE(igemm_config_refusal(pl, {128, 128, 4, 1, false, false, false, true}).find(".flip"), std::string::npos) << s;
  }
  const ConvProblem p = parse_conv_problem("conv bwd-data bf16 nhwc n32 c256 k1024 in14x14 f1x1");
  const IgemmPlan pl = plan_igemm(p);
  ASSERT_NE(pl.flip, nullptr);
  EXPECT_TRUE(pl.flip->params.a_dense);
  const IgemmConfig tma{128, 128, 4, 1, true, true, false, true};
  EXPECT_EQ(igemm_config_refusal(pl, tma), "");  // TMA is open to the flipped (fwd) problem
  EXPECT_EQ(igemm_config_refusal(pl, {128, 128, 4, 1, true, true}), "");  // and, for a 1x1, to native bwd-data
  const std::vector<IgemmConfig> mine = igemm_configs(pl);
  EXPECT_NE(std::find(mine.begin(), mine.end(), tma), mine.end());
  const IgemmLaunch L = make_igemm_launch(pl, tma);
  EXPECT_EQ(L.params.dir, IgemmDir::fwd);
  EXPECT_EQ(L.w_flip_offset % 256, 0u);
  EXPECT_GE(L.workspace_bytes, L.w_flip_offset + pl.flip_w_bytes);
  // The H200 sweep of this session (reports/h200/s8-2026-12-01/sweep/sweep_1x1_bwd_data_h200.csv) found
  // the direct TMA path (no filter copy) fastest: the tuned default is it, not a .flip one.
  const IgemmConfig d = igemm_default_config(p, pl);
  EXPECT_FALSE(d.flip) << to_string(d);
  EXPECT_TRUE(d.tma) << to_string(d);
  EXPECT_EQ(igemm_config_refusal(pl, d), "");
  // A 3x3 stride-1 layer keeps the .flip pick of its sweep (no direct TMA for it).
  const ConvProblem p3 = parse_conv_problem("conv bwd-data bf16 nhwc n32 c256 k256 in14x14 f3x3 pad1x1");
  const IgemmConfig d3 = igemm_default_config(p3, plan_igemm(p3));
  EXPECT_TRUE(d3.flip) << to_string(d3);
}

// Strided bwd-data's .flip: the sub-pixel classes as fwd GEMMs over per-class sub-filters (one
// dense B of classes * C rows), TMA open to it, A by TMA only for the 1x1 pad 0 case.
TEST(IgemmFlip, StridedBwdDataRunsAsFwdOverTheClassesSubFilters) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  const IgemmConfig tma{128, 128, 4, 1, true, true, false, true};
  for (const char* s : {"conv bwd-data bf16 nhwc n32 c128 k128 in56x56 f3x3 pad1x1 str2x2",
                        "conv bwd-data bf16 nhwc n32 c1024 k2048 in14x14 f1x1 pad0x0 str2x2"}) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(s));
    ASSERT_NE(pl.flip, nullptr) << s;
    EXPECT_TRUE(pl.flip_subpixel);
    const IgemmParams& f = pl.flip->params;
    EXPECT_EQ(f.dir, IgemmDir::fwd);
    EXPECT_EQ(f.classes, 4);
    EXPECT_EQ(f.a_ld, pl.kred_max);
    for (int z = 0; z < 4; ++z) EXPECT_EQ(f.cls[z].b_row0, z * f.n_cols) << s;
    const bool one_by_one = std::string(s).find("f1x1") != std::string::npos;
    EXPECT_EQ(f.a_dense, one_by_one) << s;  // 1x1: class (0, 0) reads dy densely, the others have no taps
    EXPECT_EQ(pl.flip_w_bytes, 4u * f.n_cols * f.a_ld * 2) << s;
    EXPECT_EQ(igemm_config_refusal(pl, tma), "") << s;
    const IgemmLaunch L = make_igemm_launch(pl, tma);
    EXPECT_EQ(L.grid_z, 4u);
    EXPECT_GE(L.workspace_bytes, L.w_flip_offset + pl.flip_w_bytes);
  }
  // C % 8 != 0 keeps no .flip (the padded channels' sub-filters are not offered).
  EXPECT_EQ(plan_igemm(parse_conv_problem("conv bwd-data bf16 nhwc n2 c3 k8 in12x11 f7x7 pad3x3 str2x2")).flip, nullptr);
}

// Split-K over sub-pixel classes: each class takes ceil(its k-blocks / kb_per_split) splits (the
// heavy classes more, a class without taps one, storing zeros), the z ranges tile the grid in class
// order, each class's splits own its k-blocks once, and only split classes have partials, disjoint
// and inside the workspace before the sub-filters.
TEST(IgemmFlip, StridedSplitKSplitsEachClassByItsOwnKBlocks) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  struct Want {
    const char* problem;
    int splitk;
    std::vector<int> splits;  // per class, heaviest first
  };
  const Want wants[] = {
      {"conv bwd-data bf16 nhwc n32 c128 k128 in56x56 f3x3 pad1x1 str2x2", 2, {2, 1, 1, 1}},  // k-blocks 8, 4, 4, 2
      {"conv bwd-data bf16 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str2x2", 4, {4, 2, 2, 1}},  // 32, 16, 16, 8
      {"conv bwd-data bf16 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str2x2", 3, {3, 2, 2, 1}},  // kb_per_split 11
      {"conv bwd-data bf16 nhwc n32 c1024 k2048 in14x14 f1x1 pad0x0 str2x2", 2, {2, 1, 1, 1}},  // 32, 0, 0, 0
  };
  for (const Want& w : wants) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(w.problem));
    const IgemmConfig c{128, 256, 4, w.splitk, true, true, false, true};
    ASSERT_EQ(igemm_config_refusal(pl, c), "") << w.problem;
    const IgemmLaunch L = make_igemm_launch(pl, c);
    const IgemmParams& q = L.params;
    ASSERT_EQ(q.classes, 4) << w.problem;
    int z = 0;
    long long partial_end = 0;
    for (int i = 0; i < q.classes; ++i) {
      const IgemmClass& cl = q.cls[i];
      EXPECT_EQ(cl.splits, w.splits[i]) << w.problem << " class " << i;
      EXPECT_EQ(cl.z0, z) << w.problem << " class " << i;
      z += cl.splits;
      const int kb = (cl.kred + 63) / 64;
      std::vector<int> owner(kb, 0);
      for (int s = 0; s < cl.splits; ++s)
        for (int b = s * q.kb_per_split; b < std::min(kb, (s + 1) * q.kb_per_split); ++b) ++owner[b];
      for (int v : owner) EXPECT_EQ(v, 1) << w.problem << " class " << i;
      if (cl.splits > 1) {
        EXPECT_EQ(cl.partial_off, partial_end) << w.problem << " class " << i;
        partial_end += static_cast<long long>(cl.splits) * cl.m * q.n_cols;
      }
    }
    EXPECT_EQ(L.grid_z, static_cast<unsigned>(z)) << w.problem;
    EXPECT_EQ(igemm_default_config(pl).splitk, 1) << w.problem;  // a candidate only: it lost in the sweep
    EXPECT_LE(static_cast<std::size_t>(partial_end) * 4, L.w_flip_offset) << w.problem;
    EXPECT_GE(L.workspace_bytes, L.w_flip_offset + pl.flip_w_bytes) << w.problem;
  }
}

// .col2im: the stem's bwd-data (C = 3, a 147-wide filter row) takes it; wide filter rows do not.
TEST(IgemmCol2im, ShortFilterRowsRunAsADcolGemmAndAGather) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  const ConvProblem stem = parse_conv_problem("conv bwd-data bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2");
  const IgemmPlan pl = plan_igemm(stem);
  ASSERT_EQ(pl.refusal, "");
  ASSERT_NE(pl.col2im, nullptr);
  EXPECT_EQ(pl.col2im_geom.jp, 152);
  EXPECT_TRUE(pl.col2im->params.a_dense);  // w^T as a dense [Jp][K] matrix (and dy as the dense filter): TMA-able
  EXPECT_EQ(pl.col2im->params.n_cols, 32 * 112 * 112);
  EXPECT_EQ(pl.col2im->params.cls[0].m, 152);
  EXPECT_EQ(pl.dcol_bytes, std::size_t{32} * 112 * 112 * 152 * 4);
  const IgemmConfig c{128, 64, 4, 1, true, true, false, false, true};
  EXPECT_EQ(igemm_config_refusal(pl, c), "");
  const IgemmLaunch L = make_igemm_launch(pl, c);
  EXPECT_TRUE(L.params.fp32_out);
  EXPECT_EQ(L.params.dir, IgemmDir::fwd);
  EXPECT_GE(L.wt_offset, pl.dcol_bytes);
  EXPECT_GE(L.workspace_bytes, L.wt_offset + pl.wt_bytes);
  const std::vector<IgemmConfig> mine = igemm_configs(pl);
  EXPECT_NE(std::find(mine.begin(), mine.end(), c), mine.end());
  expect_lowering_refused({"conv bwd-data bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1", "conv fwd bf16 nhwc n2 c3 k8 in9x9 f7x7 pad3x3 str2x2",
                           "conv bwd-weights bf16 nhwc n2 c3 k8 in9x9 f7x7 pad3x3 str2x2"},
                          c, &IgemmPlan::col2im, ".col2im");
}

// .im2col: the stem's bwd-weights takes it (152 GEMM columns, not 392); a plain 1x1 and bwd-data do not.
TEST(IgemmIm2col, ShortFilterRowsRunAsACopyAndAOneByOneGemm) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  const IgemmPlan pl = plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2"));
  ASSERT_EQ(pl.refusal, "");
  ASSERT_NE(pl.im2col, nullptr);
  EXPECT_EQ(pl.params.n_cols, 7 * 7 * 8);   // the native plan: padded channels
  EXPECT_EQ(pl.im2col->params.n_cols, 152);  // the lowering: J = 147 rounded up to 8
  EXPECT_EQ(pl.col_bytes, std::size_t{32} * 112 * 112 * 152 * 2);
  const IgemmConfig c{64, 128, 4, 16, false, false, false, false, false, true};
  EXPECT_EQ(igemm_config_refusal(pl, c), "");
  const IgemmLaunch L = make_igemm_launch(pl, c);
  EXPECT_EQ(L.params.dir, IgemmDir::bwd_weights);
  EXPECT_GE(L.col_offset, static_cast<std::size_t>(16) * 64 * 152 * 4);  // after the split partials
  EXPECT_GE(L.dwp_offset, L.col_offset + pl.col_bytes);
  EXPECT_GE(L.workspace_bytes, L.dwp_offset + pl.dwp_bytes);
  expect_lowering_refused({"conv bwd-weights bf16 nhwc n32 c64 k256 in56x56 f1x1", "conv bwd-weights bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1",
                           "conv bwd-data bf16 nhwc n2 c3 k8 in9x9 f7x7 pad3x3 str2x2"},
                          c, &IgemmPlan::im2col, ".im2col");
}

// The model's default for shapes the table does not hold: all-TMA where both operands can come by
// TMA (dense, or x in im2col mode with C % 64 == 0) in bwd-weights, and in fwd with >= 4 k-blocks
// (the sweeps' winners there), cp.async otherwise.
TEST(IgemmHeuristic, DefaultsToTheAllTmaVariantWhereTheSweepsShowedItAhead) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  for (const char* s : {"conv bwd-weights bf16 nhwc n8 c1024 k512 in14x14 f1x1", "conv bwd-weights fp16 nhwc n16 c256 k64 in56x56 f1x1",
                        "conv bwd-weights bf16 nhwc n8 c256 k256 in14x14 f3x3 pad1x1", "conv bwd-weights bf16 nhwc n8 c256 k512 in28x28 f1x1 str2x2",
                        "conv fwd bf16 nhwc n8 c1024 k512 in14x14 f1x1", "conv fwd bf16 nhwc n16 c256 k256 in14x14 f3x3 pad1x1",
                        "conv fwd fp16 nhwc n16 c512 k1024 in28x28 f1x1 str2x2"}) {
    const ConvProblem p = parse_conv_problem(s);
    const IgemmPlan pl = plan_igemm(p);
    ASSERT_FALSE(igemm_tuned_config(p, pl).has_value()) << s;
    const IgemmConfig d = igemm_default_config(p, pl);
    EXPECT_TRUE(d.ws && d.tma) << s << ": " << to_string(d);
    EXPECT_EQ(igemm_config_refusal(pl, d), "") << s;
  }
  for (const char* s : {"conv bwd-weights bf16 nhwc n8 c96 k256 in14x14 f3x3 pad1x1", "conv fwd bf16 nhwc n8 c96 k256 in14x14 f3x3 pad1x1",
                        "conv fwd bf16 nhwc n8 c128 k512 in28x28 f1x1", "conv bwd-data bf16 nhwc n8 c256 k256 in28x28 f3x3 pad1x1 str2x2"}) {
    const ConvProblem p = parse_conv_problem(s);
    EXPECT_FALSE(igemm_default_config(p, plan_igemm(p)).tma) << s;
  }
}
