// Host tests of conv.igemm.wgmma's perf configs (gpu/conv/igemm_sm90_plan.hpp): the canonical
// strings, the config space and each problem's subset, split-K, the grid, refusals with reasons, and
// the heuristic's split choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"

namespace hiprim::gpu::sm90 {
namespace {

TEST(IgemmConfig, StringsRoundTripAndBadOnesAreRejected) {
  const IgemmConfig c{128, 256, 4, 8};
  EXPECT_EQ(to_string(c), "m128n256k64.s4.splitk8");
  EXPECT_EQ(parse_igemm_config("m128n256k64.s4.splitk8"), c);
  const IgemmConfig w{64, 128, 5, 1, true};
  EXPECT_EQ(to_string(w), "m64n128k64.s5.splitk1.ws");
  EXPECT_EQ(parse_igemm_config("m64n128k64.s5.splitk1.ws"), w);
  EXPECT_EQ(igemm_threads(w), 256);
  const IgemmConfig tm{128, 128, 4, 1, true, true};
  EXPECT_EQ(to_string(tm), "m128n128k64.s4.splitk1.ws.tma");
  EXPECT_EQ(parse_igemm_config("m128n128k64.s4.splitk1.ws.tma"), tm);
  const IgemmConfig se{128, 128, 4, 1, true, true, true};
  EXPECT_EQ(to_string(se), "m128n128k64.s4.splitk1.ws.tma.se");
  EXPECT_EQ(parse_igemm_config("m128n128k64.s4.splitk1.ws.tma.se"), se);
  EXPECT_EQ(parse_igemm_config("m128n128k64.s4.splitk1.se"), (IgemmConfig{128, 128, 4, 1, false, false, true}));
  EXPECT_EQ(parse_igemm_config("m128n128k64.s4.splitk1.tma"), (IgemmConfig{128, 128, 4, 1, false, true}));  // refused later
  const IgemmConfig fl{128, 128, 4, 1, true, true, true, true};
  EXPECT_EQ(to_string(fl), "m128n128k64.s4.splitk1.ws.tma.se.flip");
  EXPECT_EQ(parse_igemm_config("m128n128k64.s4.splitk1.ws.tma.se.flip"), fl);
  EXPECT_EQ(parse_igemm_config("m64n64k64.s3.splitk2.flip"), (IgemmConfig{64, 64, 3, 2, false, false, false, true}));
  const IgemmConfig ci{128, 64, 4, 1, true, true, false, false, true};
  EXPECT_EQ(to_string(ci), "m128n64k64.s4.splitk1.ws.tma.col2im");
  EXPECT_EQ(parse_igemm_config("m128n64k64.s4.splitk1.ws.tma.col2im"), ci);
  EXPECT_NE(igemm_config_space_refusal({128, 64, 4, 2, false, false, false, false, true}), "");  // no split-K
  EXPECT_NE(igemm_config_space_refusal({128, 64, 4, 1, false, false, true, false, true}), "");  // no .se
  EXPECT_NE(igemm_config_space_refusal({128, 64, 4, 1, false, false, false, true, true}), "");  // not both
  const IgemmConfig im{64, 128, 4, 8, false, false, false, false, false, true};
  EXPECT_EQ(to_string(im), "m64n128k64.s4.splitk8.im2col");
  EXPECT_EQ(parse_igemm_config("m64n128k64.s4.splitk8.im2col"), im);
  EXPECT_NE(igemm_config_space_refusal({64, 128, 4, 1, false, false, false, false, true, true}), "");
  IgemmConfig per{128, 256, 3, 1, true, true, true};
  per.persist = true;
  EXPECT_EQ(to_string(per), "m128n256k64.s3.splitk1.ws.tma.se.p");
  EXPECT_EQ(parse_igemm_config("m128n256k64.s3.splitk1.ws.tma.se.p"), per);
  EXPECT_EQ(igemm_config_space_refusal(per), "");
  EXPECT_EQ(igemm_smem_bytes(per), 3 * 384 * 128 + kSmemAlignSlack + 256 + 128 * (2 * 256 + 16));  // + the staging
  per.stages = 4;  // 4 stages + the staging exceed the shared memory
  EXPECT_NE(igemm_config_space_refusal(per), "");
  for (const char* refused : {"m128n128k64.s4.splitk1.ws.se.p", "m128n128k64.s4.splitk1.ws.tma.p", "m128n128k64.s4.splitk2.ws.tma.se.p",
                              "m128n64k64.s4.splitk1.ws.tma.se.p", "m128n128k64.s4.splitk1.ws.tma.se.p.flip"})
    EXPECT_NE(igemm_config_space_refusal(*parse_igemm_config(refused)), "") << refused;
  EXPECT_EQ(igemm_threads(c), 256);
  for (const char* bad : {"m128n128k64.s4.splitk1.ws.tma.p.se", "m128n128k64.s4.splitk1.ws.tma.se.px", "m128n128k64.s4.splitk1.ws.tma.se.p.p","", "m128n128", "m128n128k16.s4.splitk1", "m128n128k64.s4.splitk1x", "m-1n128k64.s4.splitk1",
                          "M128n128k64.s4.splitk1", "m128n128k64.s.splitk1", "m128n128k64.s4.splitk1.ws.ws",
                          "m128n128k64.s4.splitk1.wsx", "m128n128k64.s4.splitk1.tma.ws", "m128n128k64.s4.splitk1.se.ws",
                          "m128n128k64.s4.splitk1.flip.se", "m128n128k64.s4.splitk1.flipx", "m128n128k64.s4.splitk1.flip.flip",
                          "m128n128k64.s4.splitk1.col2im.flip", "m128n128k64.s4.splitk1.col2im.ws"})
    EXPECT_FALSE(parse_igemm_config(bad).has_value()) << bad;
}

TEST(IgemmConfig, ListedConfigsAreValidAndContainTheDefault) {
  for (const char* s : {"conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1", "conv bwd-data fp16 nhwc n32 c256 k256 in28x28 f3x3 pad1x1 str2x2",
                        "conv bwd-weights bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1", "conv fwd bf16 nhwc n1 c8 k8 in3x3 f3x3 pad1x1"}) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(s));
    ASSERT_EQ(pl.refusal, "") << s;
    const std::vector<IgemmConfig> all = igemm_configs(pl);
    ASSERT_FALSE(all.empty());
    const IgemmConfig d = igemm_default_config(pl);
    EXPECT_NE(std::find(all.begin(), all.end(), d), all.end()) << s << ": default " << to_string(d) << " not listed";
    for (const IgemmConfig& c : all) {
      EXPECT_EQ(parse_igemm_config(to_string(c)), c);
      EXPECT_LE(igemm_smem_bytes(c), kSmemLimit);
      if (pl.params.classes > 1) {  // split-K over sub-pixel classes: 1 to splitk splits per class
        const IgemmLaunch L = make_igemm_launch(pl, c);
        for (int i = 0; i < L.params.classes; ++i) {
          EXPECT_GE(L.params.cls[i].splits, 1) << s << " " << to_string(c);
          EXPECT_LE(L.params.cls[i].splits, c.splitk) << s << " " << to_string(c);
        }
      }
    }
  }
}

// The solver's perf-config space (ConvSolver::perf_configs): every problem's configs lie in it, and
// a config outside it (an unknown tile, .tma without .ws) is refused for every plan.
TEST(IgemmConfig, TheSpaceHoldsEveryProblemsConfigs) {
  const std::vector<IgemmConfig> space = igemm_config_space();
  ASSERT_GT(space.size(), 100u);
  for (std::size_t i = 0; i < space.size(); ++i) {
    EXPECT_EQ(igemm_config_space_refusal(space[i]), "") << to_string(space[i]);
    EXPECT_EQ(std::find(space.begin(), space.begin() + static_cast<std::ptrdiff_t>(i), space[i]), space.begin() + static_cast<std::ptrdiff_t>(i))
        << to_string(space[i]) << " listed twice";
  }
  for (const char* s : {"conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1", "conv bwd-data fp16 nhwc n32 c256 k256 in28x28 f3x3 pad1x1 str2x2",
                        "conv bwd-weights bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1"}) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(s));
    const std::vector<IgemmConfig> mine = igemm_configs(pl);
    ASSERT_FALSE(mine.empty()) << s;
    EXPECT_LT(mine.size(), space.size()) << s;  // each problem takes a strict subset (no tma for bwd-data, ...)
    for (const IgemmConfig& c : mine) EXPECT_NE(std::find(space.begin(), space.end(), c), space.end()) << s << ": " << to_string(c);
    EXPECT_NE(igemm_config_refusal(pl, {96, 128, 3, 1}), "");
    EXPECT_NE(igemm_config_refusal(pl, {128, 128, 3, 1, false, true}), "");
  }
  // .p: fwd and stride-1 1x1 bwd-data (one class); not bwd-weights, not the strided classes
  IgemmConfig per{64, 128, 4, 1, true, true, true};
  per.persist = true;
  EXPECT_NE(std::find(space.begin(), space.end(), per), space.end());
  for (const char* s : {"conv fwd bf16 nhwc n32 c64 k256 in56x56 f1x1", "conv bwd-data bf16 nhwc n32 c256 k64 in56x56 f1x1",
                        "conv fwd fp16 nhwc n32 c256 k256 in14x14 f3x3 pad1x1"})
    EXPECT_EQ(igemm_config_refusal(plan_igemm(parse_conv_problem(s)), per), "") << s;
  for (const char* s : {"conv bwd-weights bf16 nhwc n32 c64 k256 in56x56 f1x1", "conv bwd-data bf16 nhwc n32 c256 k256 in28x28 f3x3 pad1x1 str2x2"})
    EXPECT_NE(igemm_config_refusal(plan_igemm(parse_conv_problem(s)), per), "") << s;
  EXPECT_NE(igemm_config_space_refusal({96, 128, 3, 1}), "");
  EXPECT_NE(igemm_config_space_refusal({128, 128, 3, 1, false, true}), "");
}

TEST(IgemmConfig, SplitKPartitionsTheKBlocks) {
  const IgemmPlan pl = plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n2 c64 k64 in9x9 f3x3 pad1x1"));
  const long long kb = (pl.kred_max + 63) / 64;
  for (int sp : kSplits) {
    const IgemmConfig c{64, 64, 4, sp};
    if (!igemm_config_refusal(pl, c).empty()) {
      EXPECT_GT(sp, kb);
      continue;
    }
    const IgemmLaunch L = make_igemm_launch(pl, c);
    // The launched splits own every k-block once and none is empty (a split past the last k-block is
    // not launched: ceil(kb / kb_per_split) <= sp of them).
    const int splits = static_cast<int>(L.grid_z);
    EXPECT_EQ(splits, L.params.cls[0].splits);
    EXPECT_LE(splits, sp);
    std::vector<int> owner(kb, 0);
    for (int s = 0; s < splits; ++s) {
      EXPECT_LT(s * L.params.kb_per_split, kb) << "splitk " << sp << ": split " << s << " is empty";
      for (int i = s * L.params.kb_per_split; i < std::min<long long>(kb, (s + 1LL) * L.params.kb_per_split); ++i) ++owner[i];
    }
    for (int v : owner) ASSERT_EQ(v, 1) << "splitk " << sp;
    EXPECT_EQ(L.workspace_bytes, splits > 1 ? std::size_t(splits) * 64 * 576 * 4 : 0u);
  }
}

TEST(IgemmConfig, GridCoversEveryTileOnceWithNFastest) {
  const IgemmPlan pl = plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k200 in9x9 f3x3 pad1x1"));
  const IgemmLaunch L = make_igemm_launch(pl, {64, 64, 4, 1});
  ASSERT_EQ(L.params.m_tiles, (2 * 81 + 63) / 64);
  ASSERT_EQ(L.params.n_tiles, (200 + 63) / 64);
  std::set<std::pair<int, int>> seen;
  for (unsigned tile = 0; tile < L.grid_x; ++tile) {  // the kernel's decode
    const int m = static_cast<int>(tile) / L.params.n_tiles, n = static_cast<int>(tile) - m * L.params.n_tiles;
    ASSERT_TRUE(seen.insert({m, n}).second);
    EXPECT_EQ(n, static_cast<int>(tile % L.params.n_tiles));  // n is the fast index
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(L.params.m_tiles * L.params.n_tiles));
  EXPECT_EQ(L.grid_y, 1u);
}

TEST(IgemmConfig, RefusedConfigsSayWhy) {
  const IgemmPlan strided = plan_igemm(parse_conv_problem("conv bwd-data bf16 nhwc n2 c64 k64 in8x8 f3x3 pad1x1 str2x2"));
  EXPECT_EQ(igemm_config_refusal(strided, {128, 128, 3, 2}), "");  // split-K over the sub-pixel classes
  EXPECT_NE(igemm_config_refusal(strided, {96, 128, 3, 1}).find("not instantiated"), std::string::npos);
  EXPECT_NE(igemm_config_refusal(strided, {128, 256, 8, 1}).find("shared memory"), std::string::npos);
  EXPECT_NE(igemm_config_refusal(strided, {128, 128, 2, 1}).find("stages"), std::string::npos);
  EXPECT_NE(igemm_config_refusal(strided, {128, 128, 3, 5}).find("splitk"), std::string::npos);
  EXPECT_EQ(igemm_config_refusal(strided, {128, 128, 3, 1}), "");
  EXPECT_EQ(igemm_config_refusal(strided, {128, 128, 3, 1, true}), "");
  EXPECT_NE(igemm_config_refusal(strided, {256, 128, 3, 1, true}).find("warp-specialised"), std::string::npos);
  EXPECT_NE(igemm_config_refusal(strided, {128, 128, 3, 1, true, true}).find("1x1, stride 1, pad 0"), std::string::npos);
  const IgemmPlan fwd = plan_igemm(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k64 in8x8 f3x3 pad1x1"));
  EXPECT_EQ(igemm_config_refusal(fwd, {128, 128, 3, 1, true, true}), "");
  EXPECT_NE(igemm_config_refusal(fwd, {128, 128, 3, 1, false, true}).find(".ws.tma"), std::string::npos);
  EXPECT_EQ(igemm_config_refusal(fwd, {128, 128, 3, 1, false, false, true}), "");
  EXPECT_NE(igemm_config_refusal(fwd, {128, 128, 3, 2, false, false, true}).find("split"), std::string::npos);
  EXPECT_TRUE(make_igemm_launch(fwd, {128, 128, 3, 1, false, false, true}).params.staged_epilogue);
}

// The fused epilogue's fp32 tile: in the stage memory, or in .p's own region (the m128n128 and m64n64
// .p kernels); the fused config keeps a .p pick there, or as m128n128 .p where the layer takes it
// (the ResNet-50 1x1 layers whose tuned pick is .p).
TEST(IgemmConfig, TheFusedEpilogueKeepsPersistentGridsWhereItsFp32TileFits) {
  auto persistent = [](int bm, int bn, int stages) {
    IgemmConfig c{bm, bn, stages, 1, true, true, true};
    c.persist = true;
    return c;
  };
  EXPECT_NE(igemm_fused_staging_refusal(persistent(128, 256, 3)).find("m64n64 only"), std::string::npos);  // 282 KB
  EXPECT_NE(igemm_fused_staging_refusal(persistent(64, 128, 3)).find("m64n64 only"), std::string::npos);   // spilled
  EXPECT_EQ(igemm_fused_staging_refusal(persistent(64, 64, 4)), "");  // 85 KB
  EXPECT_EQ(igemm_fused_staging_refusal(persistent(128, 128, 4)), "");  // 201 KB
  EXPECT_NE(igemm_fused_staging_refusal(persistent(128, 128, 5)).find("shared memory"), std::string::npos);  // 233 KB
  EXPECT_EQ(igemm_fused_staging_refusal({128, 256, 3, 1}), "");  // 135 KB in 3 stages' 147 KB
  EXPECT_NE(igemm_fused_staging_refusal({128, 256, 2, 1}).find("stage memory"), std::string::npos);  // (2 stages: 96 KB)
  int persist_picks = 0, kept = 0;
  for (const char* line : {"conv fwd bf16 nhwc n32 c64 k256 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c256 k128 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c128 k512 in28x28 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c256 k1024 in14x14 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c64 k64 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c256 k64 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd fp16 nhwc n32 c64 k256 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1",
                           "conv fwd bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1 str1x1 dil1x1 g1"}) {
    const ConvProblem p = parse_conv_problem(line);
    const IgemmPlan pl = plan_igemm(p);
    const IgemmConfig c = igemm_default_config(p, pl), f = igemm_fused_config(pl, c);
    EXPECT_EQ(igemm_config_refusal(pl, f), "") << line << ": " << to_string(f);
    EXPECT_EQ(igemm_fused_staging_refusal(f), "") << line << ": " << to_string(f);
    EXPECT_EQ(f.se, f.persist) << line << ": " << to_string(f);  // .se only as .p's suffix
    EXPECT_EQ(f.splitk, c.splitk) << line;
    if (!c.persist || igemm_fused_persist_tile(c.bm, c.bn))  // the tile stays, or a wide .p tile becomes m128n128
      EXPECT_EQ((IgemmConfig{f.bm, f.bn, f.stages}), (IgemmConfig{c.bm, c.bn, c.stages})) << line;
    else
      EXPECT_EQ((IgemmConfig{f.bm, f.bn}), (IgemmConfig{128, 128})) << line;
    persist_picks += c.persist;
    kept += c.persist && f.persist;
  }
  EXPECT_GT(persist_picks, 0) << "no listed layer's pick is .p: the test no longer covers the persistent case";
  EXPECT_EQ(kept, persist_picks);
}

TEST(IgemmConfig, HeuristicSplitsFewTileWeightGradientsAndKeepsSmallGridsAway) {
  // bwd-weights of c64 k64 3x3 at N=32: M x N = 64 x 576 is 5 tiles of 64x128 with Kred = 100352:
  // without split-K it would run on 5 SMs.
  const IgemmPlan wg = plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1"));
  EXPECT_GT(igemm_default_config(wg).splitk, 8) << to_string(igemm_default_config(wg));
  // Over the ResNet-50 late layers at N=32 (M = 1568 or 6272), the pick launches >= 64 CTAs.
  for (const char* s : {"conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1", "conv fwd bf16 nhwc n32 c512 k512 in7x7 f3x3 pad1x1",
                        "conv bwd-data bf16 nhwc n32 c2048 k512 in7x7 f1x1", "conv bwd-weights bf16 nhwc n32 c512 k512 in7x7 f3x3 pad1x1",
                        "conv bwd-weights bf16 nhwc n32 c2048 k512 in7x7 f1x1"}) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(s));
    const IgemmLaunch L = make_igemm_launch(pl, igemm_default_config(pl));
    EXPECT_GE(L.grid_x * L.grid_y * L.grid_z, 64u) << s << ": " << to_string(igemm_default_config(pl));
  }
}

}  // namespace
}  // namespace hiprim::gpu::sm90
