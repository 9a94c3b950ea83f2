// Host tests (no GPU) of conv.igemm.wgmma's math=tf32 path (gpu/conv/igemm_sm90_plan.hpp): which
// fp32 problems the plan takes (the token, fwd, bwd-data through .flip) and refuses (no token,
// bwd-weights, C % 8, NCHW), the k32 configs (their strings, the tile subset, no .se/.p), the
// k-block of 32 fp32 in the split-K arithmetic, and the 32-byte geometry of a k-block: where the
// producers write fp32 element kk of a row and where wgmma m64nNk8.tf32 reads it, from the
// descriptor's canonical layout (4-byte elements at 16-bit index 2k of wgmma_canonical_address).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"

namespace hiprim::gpu::sm90 {
namespace {

IgemmPlan plan(const std::string& s) { return plan_igemm(parse_conv_problem(s)); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(IgemmTf32, KBlockElementCounts) {
  EXPECT_EQ(kblock_elems(2), 64);  // fp16/bf16: 64 x 2 bytes = one 128-byte row
  EXPECT_EQ(kblock_elems(4), 32);  // fp32 (tf32): 32 x 4 bytes
  EXPECT_EQ(chunk_elems(2), 8);
  EXPECT_EQ(chunk_elems(4), 4);
  EXPECT_EQ(kTf32KBlock, 32);
  EXPECT_EQ(plan("conv fwd bf16 nhwc n2 c16 k16 in9x9 f3x3 pad1x1").kblock, 64);
  EXPECT_EQ(plan("conv fwd fp32 nhwc n2 c16 k16 in9x9 f3x3 pad1x1 math=tf32").kblock, 32);
}

TEST(IgemmTf32, TheTokenSelectsThePathAndTheRestIsRefusedWithReasons) {
  const IgemmPlan no_token = plan("conv fwd fp32 nhwc n2 c16 k16 in9x9 f3x3 pad1x1");
  EXPECT_TRUE(contains(no_token.refusal, "fp32 without math=tf32 runs on the FMA path")) << no_token.refusal;
  EXPECT_EQ(plan("conv fwd fp32 nhwc n2 c16 k16 in9x9 f3x3 pad1x1 math=tf32").refusal, "");
  EXPECT_EQ(plan("conv fwd fp32 nhwc n2 c16 k24 in9x9 f3x3 pad1x1 str2x2 bias math=tf32").refusal, "");
  const std::pair<const char*, const char*> refused[] = {
      {"conv bwd-weights fp32 nhwc n2 c16 k16 in9x9 f3x3 pad1x1 math=tf32", "K-major"},
      {"conv fwd fp32 nhwc n2 c3 k16 in9x9 f3x3 pad1x1 math=tf32", "multiple of 8"},
      {"conv fwd fp32 nchw n2 c16 k16 in9x9 f3x3 pad1x1 math=tf32", "NHWC"},
      // stride 1 with pad > dil*(R-1): no .flip, and the native bwd-data kernel's B is MN-major
      {"conv bwd-data fp32 nhwc n2 c16 k16 in9x9 f3x3 pad3x3 math=tf32", ".flip"},
  };
  for (auto [s, why] : refused) {
    const IgemmPlan pl = plan(s);
    EXPECT_TRUE(contains(pl.refusal, why)) << s << ": '" << pl.refusal << "'";
  }
}

// A tf32 plan lists only k32 configs on the kTf32Tiles, without .se/.p/.col2im/.im2col; bwd-data's
// are all .flip; the heuristic's pick is among them; k64 configs are refused for it and k32 ones
// for a bf16 plan, each with a reason naming the k-block.
TEST(IgemmTf32, ConfigsAreTheK32SubsetAndTheDefaultIsListed) {
  for (const char* s : {"conv fwd fp32 nhwc n2 c64 k64 in9x9 f3x3 pad1x1 math=tf32", "conv fwd fp32 nhwc n2 c64 k40 in7x7 f1x1 math=tf32",
                        "conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 math=tf32",
                        "conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 str2x2 math=tf32"}) {
    const IgemmPlan pl = plan(s);
    ASSERT_EQ(pl.refusal, "") << s;
    const std::vector<IgemmConfig> all = igemm_configs(pl);
    ASSERT_FALSE(all.empty()) << s;
    const bool bwd = pl.params.dir == IgemmDir::bwd_data;
    std::set<std::pair<int, int>> tiles;
    for (const IgemmConfig& c : all) {
      const std::string text = to_string(c);
      EXPECT_EQ(c.kb, 32) << s << " " << text;
      EXPECT_TRUE(contains(text, "k32.")) << text;
      EXPECT_EQ(parse_igemm_config(text), c) << text;
      EXPECT_FALSE(c.se || c.persist || c.col2im || c.im2col) << text;
      EXPECT_EQ(c.flip, bwd) << s << " " << text;
      tiles.insert({c.bm, c.bn});
    }
    const std::set<std::pair<int, int>> want = {{128, 128}, {128, 256}, {64, 128}, {64, 64}};
    EXPECT_EQ(tiles, want) << s;
    const IgemmConfig d = igemm_default_config(parse_conv_problem(s), pl);
    EXPECT_NE(std::find(all.begin(), all.end(), d), all.end()) << s << ": default " << to_string(d);
    EXPECT_TRUE(contains(igemm_config_refusal(pl, *parse_igemm_config(bwd ? "m128n128k64.s4.splitk1.flip" : "m128n128k64.s4.splitk1")),
                         "k-blocks of 64"))
        << s;
  }
  const IgemmPlan bf = plan("conv fwd bf16 nhwc n2 c64 k64 in9x9 f3x3 pad1x1");
  EXPECT_TRUE(contains(igemm_config_refusal(bf, *parse_igemm_config("m128n128k32.s4.splitk1")), "k-blocks of 32"));
  const IgemmPlan bd = plan("conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 math=tf32");
  EXPECT_TRUE(contains(igemm_config_refusal(bd, *parse_igemm_config("m128n128k32.s4.splitk1")), ".flip"));
  EXPECT_EQ(igemm_config_refusal(bd, *parse_igemm_config("m128n128k32.s4.splitk1.ws.tma.flip")), "");
}

TEST(IgemmTf32, TheSpaceListsTheK32ConfigsOnceAndRefusesTheRest) {
  const std::vector<IgemmConfig> space = igemm_config_space();
  std::size_t k32 = 0;
  for (const IgemmConfig& c : space)
    if (c.kb == 32) ++k32;
  // Stages within 227 KiB (stages * (BM + BN) * 128 + 1024 (+256 .ws)): m128n128 3..7, m128n256 3..4,
  // m64n128 and m64n64 3..8: 19 tile-stage pairs, x 14 splits x 3 variants x {native, .flip}.
  EXPECT_EQ(k32, static_cast<std::size_t>((5 + 2 + 6 + 6) * 14 * 3 * 2));
  for (const char* bad : {"m256n128k32.s4.splitk1", "m128n64k32.s4.splitk1", "m128n128k32.s4.splitk1.se",
                          "m128n128k32.s4.splitk1.ws.tma.se.p", "m64n128k32.s4.splitk1.col2im", "m64n128k32.s4.splitk1.im2col"}) {
    const auto c = parse_igemm_config(bad);
    ASSERT_TRUE(c.has_value()) << bad;
    EXPECT_NE(igemm_config_space_refusal(*c), "") << bad;
    EXPECT_EQ(std::find(space.begin(), space.end(), *c), space.end()) << bad;
  }
  EXPECT_FALSE(parse_igemm_config("m128n128k16.s4.splitk1").has_value());
  EXPECT_FALSE(parse_igemm_config("m128n128k064.s4.splitk1").has_value());
}

// Kred = 3*3*64 = 576: 18 k-blocks of 32 fp32 (9 of 64 for bf16); splitk 2 gives 9 per split (5).
TEST(IgemmTf32, SplitKCountsK32Blocks) {
  const IgemmPlan tf = plan("conv fwd fp32 nhwc n2 c64 k64 in9x9 f3x3 pad1x1 math=tf32");
  const IgemmPlan bf = plan("conv fwd bf16 nhwc n2 c64 k64 in9x9 f3x3 pad1x1");
  ASSERT_EQ(tf.kred_max, 576);
  const IgemmLaunch lt = make_igemm_launch(tf, *parse_igemm_config("m128n128k32.s4.splitk2"));
  const IgemmLaunch lb = make_igemm_launch(bf, *parse_igemm_config("m128n128k64.s4.splitk2"));
  EXPECT_EQ(lt.params.kb_per_split, 9);
  EXPECT_EQ(lb.params.kb_per_split, 5);
  EXPECT_EQ(lt.params.cls[0].splits, 2);
  EXPECT_EQ(make_igemm_launch(tf, *parse_igemm_config("m128n128k32.s4.splitk1")).params.kb_per_split, 18);
  // splitk 12 <= 18 k-blocks of 32 runs; above the k-blocks it is refused (16 > 9 for bf16)
  EXPECT_EQ(igemm_config_refusal(tf, *parse_igemm_config("m128n128k32.s4.splitk16")), "");
  EXPECT_NE(igemm_config_refusal(bf, *parse_igemm_config("m128n128k64.s4.splitk16")), "");
  EXPECT_NE(igemm_config_refusal(tf, *parse_igemm_config("m128n128k32.s4.splitk24")), "");
  // the flipped bwd-data plan (its fwd form) keeps k-blocks of 32
  const IgemmPlan bd = plan("conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 str2x2 math=tf32");
  ASSERT_TRUE(bd.flip != nullptr);
  EXPECT_TRUE(bd.flip_subpixel);
  EXPECT_EQ(bd.flip->kblock, 32);
  EXPECT_EQ(plan("conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 math=tf32").flip->kblock, 32);
}

// The fp32 k-block's geometry: the producers put fp32 element kk (< 32) of row r in chunk q = kk/4 at
// byte 4*(kk%4) (LoadActK / LoadDenseK: kmajor_chunk_offset(r, q)); wgmma m64nNk8.tf32 step j
// (descriptor advanced 32*j bytes) reads its element k' (< 8) of row mn, a 4-byte word, at the
// canonical K-major address of 16-bit index 2k' (the layout is in 16-byte units, element-free).
// Each step covers kk = 8j..8j+7, so the 4 steps read the 32 elements in order, each once.
TEST(IgemmTf32, ProducerAndTf32InstructionAgreeOnEveryElementOfAKBlock) {
  constexpr std::uint32_t base = 0x4000;
  for (int rows : {64, 128, 256}) {
    std::set<std::uint32_t> seen;
    for (int j = 0; j < kRowBytes / kKStepBytesK; ++j)
      for (int w = 0; w * 64 < rows; ++w) {
        const std::uint64_t d = desc_advance(desc_kmajor(base + w * 64 * kRowBytes), j * kKStepBytesK);
        for (int mn = 0; mn < 64; ++mn)
          for (int k = 0; k < 8; ++k) {
            const int r = 64 * w + mn, kk = 8 * j + k;
            const std::uint32_t written = base + kmajor_chunk_offset(r, kk / chunk_elems(4)) + 4 * (kk % chunk_elems(4));
            ASSERT_EQ(wgmma_canonical_address(d, Major::k, mn, 2 * k), written) << rows << " j " << j << " r " << r << " k " << k;
            ASSERT_TRUE(seen.insert(written).second) << "byte " << written << " read twice";
          }
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows) * kblock_elems(4));
  }
}

// The producers' k coverage for fp32: k-block kb, chunk q, element e is kk = 32*kb + 4*q + e; over
// the k-blocks that is every kk < Kred exactly once, and with C % 8 == 0 a chunk's 4 channels lie in
// one tap (so one gathered 16-byte copy is right).
TEST(IgemmTf32, ChunksCoverTheReductionOnceWithinATap) {
  const IgemmPlan pl = plan("conv fwd fp32 nhwc n1 c24 k8 in5x5 f3x3 pad1x1 math=tf32");
  ASSERT_EQ(pl.refusal, "");
  const IgemmClass& cl = pl.params.cls[0];
  const int kb_total = (cl.kred + pl.kblock - 1) / pl.kblock;
  std::vector<int> hits(static_cast<std::size_t>(kb_total) * pl.kblock, 0);
  for (int kb = 0; kb < kb_total; ++kb)
    for (int q = 0; q < 8; ++q) {
      const int kk0 = kb * pl.kblock + q * chunk_elems(4);
      const Tap t0 = tap_of(kk0, cl.act.sc, cl.act.ns);
      for (int e = 0; e < chunk_elems(4); ++e) {
        ++hits[kk0 + e];
        if (kk0 + e < cl.kred) {
          const Tap t = tap_of(kk0 + e, cl.act.sc, cl.act.ns);
          EXPECT_TRUE(t.tr == t0.tr && t.ts == t0.ts && t.ch == t0.ch + e) << kk0 + e;
        }
      }
    }
  EXPECT_EQ(cl.kred, 216);
  EXPECT_EQ(kb_total, 7);  // ceil(216 / 32)
  for (std::size_t kk = 0; kk < hits.size(); ++kk) EXPECT_EQ(hits[kk], 1) << kk;
}

}  // namespace
}  // namespace hiprim::gpu::sm90
