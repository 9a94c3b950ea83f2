// conv.igemm.simt run by the host emulation of the HIP layer (tests/gpu/emu) against the CPU
// reference, exact tier (integer data in [-2, 2]: every fp32 sum exact, so each output must equal the
// reference bit for bit), through gputest::check_exact_guarded (guard bytes, poisoned output and
// workspace, inputs unchanged, repeated runs with a workspace give the same bits). Covers every
// direction, strides, pads past the edge, dilation, odd sizes, channel counts that are not multiples
// of 4 (the scalar path), every tile and split counts that leave empty and partial slices, M, N and K
// tails inside a tile, unaligned buffers, and the plan: refusals with reasons, config grammar,
// workspace, heuristic.
//
// Why a wrong kernel fails here: the poisoned output makes an unwritten row/column tail NaN; a
// dropped K tail (kk past the last full 8) changes every sum of the odd-C cases (c5, c3: RSC not a
// multiple of 8); a split slice summed twice or skipped changes the split cases; the flipped filter
// read unflipped breaks every bwd-data case with R > 1; a class written to the wrong dx rows, or a
// class without taps left unwritten (poisoned NaN), breaks the strided bwd-data cases. (A mutant with `k0 + BK <= k_hi` as the
// loop bound was run by hand: the c5/c3 cases fail.)
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/error.hpp"
#define gpu gpu_emu  // the plan as compiled into the emulation library (namespace hiprim::gpu_emu)
#include "gpu/conv/igemm_simt_plan.hpp"
#undef gpu
#include "tests/gpu/conv_exact_cases.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_igemm_simt();  // tests/gpu/emu/emu_igemm_simt.cpp
std::shared_ptr<const ConvSolver> make_conv_nchw_via_nhwc(std::shared_ptr<const ConvSolver> inner);
}  // namespace hiprim::gpu_emu

using namespace hiprim;

namespace {

const ConvSolver& solver() {
  static const auto s = gpu_emu::make_conv_igemm_simt();
  return *s;
}

const char* const kFixed[] = {
    "conv fwd fp32 nhwc n2 c8 k12 in7x9 f3x3 pad1x1",
    "conv fwd fp32 nhwc n1 c16 k20 in9x8 f3x3 pad1x1 str2x2",
    "conv fwd fp32 nhwc n1 c12 k8 in6x7 f1x1",
    "conv fwd fp32 nhwc n1 c5 k6 in5x6 f3x3 pad1x1",            // scalar path, K tail
    "conv fwd fp32 nhwc n2 c3 k8 in9x9 f7x7 pad3x3 str2x2",     // the stem's shape, small
    "conv fwd fp32 nhwc n1 c8 k8 in9x10 f3x3 pad2x3 dil2x3",
    "conv fwd fp32 nhwc n1 c4 k4 in3x4 f3x3 pad3x2",            // pads past the edge
    "conv fwd fp32 nhwc n3 c8 k4 in12x11 f3x3 pad1x1",          // M = 396 > 3 row tiles
    "conv fwd fp32 nhwc n1 c68 k136 in4x4 f1x1",                // N = 136 > 128, K = 68
    "conv fwd fp32 nhwc n1 c8 k12 in11x10 f3x3 pad1x2 str3x2 dil2x1",  // bwd-data: 3 x 2 classes, gcd(dil, str) = 1
    "conv fwd fp32 nhwc n2 c4 k8 in7x9 f1x1 str3x2",            // bwd-data: classes without taps (zeros)
    "conv fwd fp32 nhwc n1 c8 k4 in6x6 f3x2 pad3x2 str2x2 dil2x2",  // gcd(dil, str) = 2: odd classes empty
};

std::vector<ConvProblem> fixed_cases() {
  std::vector<ConvProblem> all;
  for (const char* s : kFixed)
    for (ConvDir d : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
      for (bool bias : {false, true}) {
        if (bias && d != ConvDir::fwd) continue;
        ConvProblem p = parse_conv_problem(s);
        p.dir = d, p.bias = bias;
        if (p.valid()) all.push_back(p);
      }
  return all;
}

ConvProblem random_problem(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  while (true) {
    ConvProblem p;
    p.channels_last = true;
    p.dir = static_cast<ConvDir>(pick(0, 2));
    p.c = pick(0, 1) ? 4 * pick(1, 6) : pick(1, 13);
    p.k = pick(0, 1) ? 4 * pick(1, 10) : pick(1, 19);
    p.n = pick(1, 2);
    p.in = {pick(1, 10), pick(1, 10)};
    p.filter = {pick(1, 4), pick(1, 4)};
    p.pad = {pick(0, 3), pick(0, 3)};
    p.stride = {pick(1, 3), pick(1, 3)};
    p.dilation = {pick(1, 2), pick(1, 2)};
    p.bias = p.dir == ConvDir::fwd && pick(0, 1) == 1;
    if (p.valid() && solver().applicable(p)) return p;
  }
}

}  // namespace

TEST(IgemmSimtEmu, DeclaresItsClaims) {
  const ConvSolver& s = solver();
  EXPECT_EQ(s.name(), "conv.igemm.simt");
  EXPECT_EQ(s.backend(), Backend::device);
  EXPECT_TRUE(s.deterministic());
  EXPECT_EQ(s.accumulation_error_factor(), 1.0);
  const ImplicitZeros zeros{.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::multiplied,
                            .stride_holes = ZeroTerm::skipped};
  EXPECT_EQ(s.implicit_zeros(parse_conv_problem("conv bwd-data fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str2x2")), zeros);
  EXPECT_EQ(s.workspace_bytes(parse_conv_problem("conv fwd fp32 nhwc n32 c64 k256 in56x56 f1x1")), 0u);  // unsplit
  // bwd-data: the flipped filter (8*8*9 floats, 256-byte rounded)
  EXPECT_GE(s.config_workspace_bytes(parse_conv_problem("conv bwd-data fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1"),
                                     "t64x64.sk1"),
            8u * 8 * 9 * 4);
}

TEST(IgemmSimtEmu, FixedProblemsMatchTheReferenceExactly) {
  int ran = 0;
  for (const ConvProblem& p : fixed_cases()) {
    ASSERT_TRUE(solver().applicable(p)) << to_string(p) << ": " << solver().applicable(p).reason;
    ++ran;
    EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 17), "") << to_string(p) << " config " << solver().default_config_for(p);
  }
  EXPECT_EQ(ran, static_cast<int>(std::size(kFixed)) * 4);
}

// Every tile and split count on a problem with tails in M, N and K (M = 2*6*7 = 84, N = 12 or
// RSC = 117, K = 117 or 84).
TEST(IgemmSimtEmu, EveryConfigMatchesTheReferenceExactly) {
  for (const char* str : {"conv fwd fp32 nhwc n2 c13 k12 in6x7 f3x3 pad1x1 bias", "conv bwd-weights fp32 nhwc n2 c12 k8 in6x7 f3x3 pad1x1",
                          "conv bwd-data fp32 nhwc n2 c8 k12 in6x7 f3x3 pad1x1", "conv bwd-data fp32 nhwc n2 c8 k12 in13x11 f3x3 pad1x1 str2x2"}) {
    const ConvProblem p = parse_conv_problem(str);
    const std::vector<std::string> configs = solver().configs_for(p);
    EXPECT_GE(configs.size(), 9u) << str;  // the strided case: K slices up to 4 (its largest class: kred 48)
    for (const std::string& c : configs) EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 3, 0, c), "") << str << " " << c;
  }
}

TEST(IgemmSimtEmu, RandomProblemsMatchTheReferenceExactly) {
  std::mt19937 rng(4242);
  for (int i = 0; i < 60; ++i) {
    const ConvProblem p = random_problem(rng);
    EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 100 + i), "") << to_string(p);
  }
}

// Buffers one element off 16 bytes: the scalar loads (same sums, same order), same bits.
TEST(IgemmSimtEmu, UnalignedBuffersTakeTheScalarPathAndStillMatch) {
  for (const char* s : {"conv fwd fp32 nhwc n1 c8 k8 in6x7 f3x3 pad1x1 bias", "conv bwd-data fp32 nhwc n1 c8 k12 in5x5 f3x3 pad1x1",
                        "conv bwd-weights fp32 nhwc n2 c8 k8 in7x6 f3x3 pad1x1 str2x2"})
    EXPECT_EQ(gputest::check_exact_guarded(solver(), parse_conv_problem(s), 5, 4), "") << s << " shifted by 4 bytes";
}

TEST(IgemmSimtEmu, RefusesWhatItDoesNotImplementWithTheReason) {
  struct Refusal {
    const char* problem;
    const char* reason_part;
  };
  const Refusal cases[] = {
      {"conv fwd fp16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1", "fp32 only"},
      {"conv fwd fp32 nchw n1 c8 k8 in5x5 f3x3 pad1x1", "NHWC only"},
      {"conv fwd fp32 ndhwc n1 c8 k8 in3x5x5 f3x3x3 pad1x1x1", "2D only"},
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 g2", "groups 1 only"},
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 str2x2 trans opad1x1", "mode conv only"},
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f7x7", "invalid problem"},
  };
  for (const auto& c : cases) {
    const Applicability a = solver().applicable(parse_conv_problem_unchecked(c.problem));
    EXPECT_FALSE(a.ok) << c.problem;
    EXPECT_NE(a.reason.find(c.reason_part), std::string::npos) << c.problem << ": " << a.reason;
  }
}

// .col (C < 16): every problem of the fixed list with few channels, every direction, through im2col
// (fwd, bwd-weights) or the dcol GEMM and the col2im gather (bwd-data), unsplit and split, exact. A
// tap's channels copied to the wrong q, a pad entry left unwritten (poisoned workspace: NaN where
// RSC % 4 != 0), a col2im tap skipped or taken twice, or a wrong transposed weight copy changes these
// sums. (Mutants run by hand: col2im's `th < 0` break as `th <= 0`, and im2col's zero pad loop
// dropped: both fail here.)
TEST(IgemmSimtEmu, ColumnModeMatchesTheReferenceExactly) {
  int ran = 0;
  for (const ConvProblem& p : fixed_cases()) {
    if (p.c >= 16) continue;
    for (const std::string& c : solver().configs_for(p)) {
      if (c.find(".col") == std::string::npos || (c.find(".sk1.") == std::string::npos && c.find(".sk4.") == std::string::npos))
        continue;
      ++ran;
      EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 41, 0, c), "") << to_string(p) << " " << c;
    }
  }
  EXPECT_GE(ran, 150);
}

// The stem (C = 3, x of 4.8M elements): every direction defaults to .col; its bwd-data has no direct
// config (3 GEMM columns in a 64-wide tile ran 14.7 ms on the H200) and says why when one is asked for.
TEST(IgemmSimtPlan, TheStemRunsThroughTheColumnBuffer) {
  for (const char* dir : {"fwd", "bwd-data", "bwd-weights"}) {
    const ConvProblem p =
        parse_conv_problem(std::string("conv ") + dir + " fp32 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2");
    ASSERT_TRUE(solver().applicable(p)) << dir;
    const std::string d = solver().default_config_for(p);
    EXPECT_NE(d.find(".col"), std::string::npos) << dir << " " << d;
    const gpu_emu::SimtConvPlan pl = gpu_emu::plan_simt_conv(p);
    EXPECT_EQ(pl.col_ld, 148);  // 7*7*3 = 147 rounded up to 4
    // the workspace holds col (401408 pixels x 148 floats) at least
    EXPECT_GE(solver().workspace_bytes(p), 401408u * 148 * 4) << dir;
  }
  // col2im gathers real taps only: the stem's bwd-data skips its border taps (the classes multiply them)
  EXPECT_EQ(solver().implicit_zeros(parse_conv_problem("conv bwd-data fp32 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2")).border_taps,
            ZeroTerm::skipped);
  EXPECT_EQ(solver().implicit_zeros(parse_conv_problem("conv bwd-data fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str2x2")).border_taps,
            ZeroTerm::multiplied);
  const ConvProblem bwd = parse_conv_problem("conv bwd-data fp32 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2");
  for (const std::string& c : solver().configs_for(bwd)) EXPECT_NE(c.find(".col"), std::string::npos) << c;
  try {
    solver().config_workspace_bytes(bwd, "t64x64.sk1");
    ADD_FAILURE() << "a direct config was accepted for the stem's bwd-data";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run"), std::string::npos) << e.what();
  }
  // C >= 16: no .col configs
  for (const std::string& c : solver().configs_for(parse_conv_problem("conv fwd fp32 nhwc n1 c16 k8 in5x5 f3x3 pad1x1")))
    EXPECT_EQ(c.find(".col"), std::string::npos) << c;
}

// NCHW 1x1 pad 0 read in place (fwd any stride, bwd-data stride 1): every config, exact, including
// P*Q % 4 != 0 (scalar pixel loads and stores), C % 4 != 0 (scalar W loads), strides (gathered
// pixels), M and N tails, the bias per row; and one element off 16 bytes (scalar paths). A pixel
// column mapped to the wrong image or channel plane, W read untransposed in bwd-data (C != K
// here), or the bias taken per column would change these outputs.
TEST(IgemmSimtEmu, NchwOneByOneReadsInPlaceAndMatchesTheReferenceExactly) {
  const char* const cases[] = {
      "conv fwd fp32 nchw n2 c8 k20 in4x6 f1x1 bias",   // P*Q = 24: vector pixels
      "conv fwd fp32 nchw n2 c12 k8 in6x7 f1x1",        // P*Q = 42: scalar pixels
      "conv fwd fp32 nchw n1 c68 k136 in4x4 f1x1",      // M = 136 > 128
      "conv fwd fp32 nchw n2 c5 k6 in5x5 f1x1 bias",    // C = 5: scalar W
      "conv fwd fp32 nchw n2 c16 k12 in9x8 f1x1 str2x2 bias",
      "conv fwd fp32 nchw n3 c8 k8 in7x7 f1x1 str3x2",
      "conv bwd-data fp32 nchw n2 c8 k20 in4x6 f1x1",
      "conv bwd-data fp32 nchw n2 c12 k8 in6x7 f1x1",
      "conv bwd-data fp32 nchw n1 c136 k68 in4x4 f1x1",
      "conv bwd-data fp32 nchw n2 c6 k5 in5x5 f1x1",
  };
  int ran = 0;
  for (const char* str : cases) {
    const ConvProblem p = parse_conv_problem(str);
    ASSERT_TRUE(solver().applicable(p)) << str << ": " << solver().applicable(p).reason;
    const std::vector<std::string> configs = solver().configs_for(p);
    EXPECT_GE(configs.size(), 4u) << str;
    for (const std::string& c : configs) {
      if (c.find(".sk1") == std::string::npos && c.find(".sk2") == std::string::npos && c.find(".sk4") == std::string::npos)
        continue;
      ++ran;
      EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 53, 0, c), "") << str << " " << c;
    }
    EXPECT_EQ(gputest::check_exact_guarded(solver(), p, 7, 4), "") << str << " shifted by 4 bytes";
  }
  EXPECT_GE(ran, 60);
  for (const char* other : {"conv fwd fp32 nchw n1 c8 k8 in5x5 f1x1 pad1x1", "conv bwd-data fp32 nchw n1 c8 k8 in6x6 f1x1 str2x2",
                            "conv bwd-weights fp32 nchw n1 c8 k8 in5x5 f1x1"}) {
    const Applicability a = solver().applicable(parse_conv_problem(other));
    EXPECT_FALSE(a.ok) << other;
    EXPECT_NE(a.reason.find("conv.igemm.simt.nchw runs the rest"), std::string::npos) << other << ": " << a.reason;
  }
}

// conv.igemm.simt.nchw: the NCHW problems of the fixed list (bias too) through the transposed fp32
// copies (transpose32) and the NHWC kernel, every direction, exact; a copy transposed the wrong way
// or left untransposed scrambles channels and pixels (C, K, H*W > 1 here, so every case would fail).
TEST(IgemmSimtEmu, NchwThroughTransposedCopiesMatchesTheReferenceExactly) {
  const auto nchw = gpu_emu::make_conv_nchw_via_nhwc(gpu_emu::make_conv_igemm_simt());
  EXPECT_EQ(nchw->name(), "conv.igemm.simt.nchw");
  int ran = 0;
  for (ConvProblem p : fixed_cases()) {
    p.channels_last = false;
    ASSERT_TRUE(nchw->applicable(p)) << to_string(p) << ": " << nchw->applicable(p).reason;
    ++ran;
    EXPECT_EQ(gputest::check_exact_guarded(*nchw, p, 29), "") << to_string(p);
  }
  EXPECT_EQ(ran, static_cast<int>(std::size(kFixed)) * 4);
  const Applicability nhwc = nchw->applicable(parse_conv_problem("conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1"));
  EXPECT_FALSE(nhwc.ok);
  EXPECT_NE(nhwc.reason.find("conv.igemm.simt takes it directly"), std::string::npos) << nhwc.reason;
}

TEST(IgemmSimtPlan, ConfigGrammarAndErrors) {
  EXPECT_EQ(gpu_emu::parse_simt_conv_config("t128x64.sk4"), (gpu_emu::SimtConvConfig{128, 64, 4}));
  EXPECT_EQ(gpu_emu::parse_simt_conv_config("t64x64.sk1").str(), "t64x64.sk1");
  EXPECT_EQ(gpu_emu::parse_simt_conv_config("t64x64.sk256.col"), (gpu_emu::SimtConvConfig{64, 64, 256, true}));
  EXPECT_EQ(gpu_emu::parse_simt_conv_config("t64x128.sk2").str(), "t64x128.sk2");
  EXPECT_EQ(gpu_emu::parse_simt_conv_config("t64x64.sk256.col").str(), "t64x64.sk256.col");
  for (const char* bad : {"t128x64", "t96x64.sk1", "t128x128.sk3", "t128x128.sk1024", "t128x128.sk1x", "",
                          "t64x64.sk1.co", "t64x64.sk1.col.col", "t64x64.sk1col"})
    EXPECT_THROW(gpu_emu::parse_simt_conv_config(bad), InputError) << bad;
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1");
  EXPECT_THROW(solver().config_workspace_bytes(p, "t64x64.sk64"), InputError);  // K = 72 < 8 * 64
  // the partial sums of 512 slices of a 512 x 4608 wgrad (c512 k512 3x3) would take 4.5 GiB: not listed
  const auto big = gpu_emu::simt_conv_configs(gpu_emu::plan_simt_conv(parse_conv_problem("conv bwd-weights fp32 nhwc n32 c512 k512 in7x7 f3x3 pad1x1")));
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(big.back().splits, 32);
}

// The heuristic on ResNet-50 shapes at batch 32: big layers take a 128-row tile unsplit (128x64:
// measured 132 vs 140 us for 128x128 on c64 k256 1x1 fwd); a small output with a long reduction
// splits K.
TEST(IgemmSimtPlan, HeuristicSplitsOnlyWhereTheOutputIsSmall) {
  const auto pick = [](const char* s) { return gpu_emu::simt_conv_default(gpu_emu::plan_simt_conv(parse_conv_problem(s))); };
  const auto big = pick("conv fwd fp32 nhwc n32 c64 k256 in56x56 f1x1");
  EXPECT_EQ(big.splits, 1);
  EXPECT_EQ(big.bm, 128);
  EXPECT_GT(pick("conv bwd-weights fp32 nhwc n32 c64 k64 in56x56 f3x3 pad1x1").splits, 4);
  // measured in the twelfth session's tune: one 4-warp block per SM ran at a third of the SM's rate
  // (sk16 -> sk32 -> sk64 halved the time), so a 64 x 64 wgrad over 100352 pixels splits past 64
  EXPECT_GT(pick("conv bwd-weights fp32 nhwc n32 c64 k64 in56x56 f1x1").splits, 64);
  // and a full layer is not split (t128x64.sk2 measured 13% slower than sk1 on c64 k64 3x3 fwd)
  EXPECT_EQ(pick("conv fwd fp32 nhwc n32 c64 k64 in56x56 f3x3 pad1x1").splits, 1);
  EXPECT_GT(pick("conv fwd fp32 nhwc n32 c512 k512 in7x7 f3x3 pad1x1").splits, 1);
  // NCHW 1x1 (fourteenth session's tune, call 2): stride 2 takes 64x128 (210 us against 265 for the
  // 128x64 of the NHWC fit); c1024 k256 at 14x14 splits K in two (t64x64.sk2 99.9 us, sk1 116, sk4 105)
  const auto s2 = pick("conv fwd fp32 nchw n32 c256 k512 in56x56 f1x1 str2x2");
  EXPECT_EQ(s2.bm, 64);
  EXPECT_EQ(s2.bn, 128);
  EXPECT_EQ(pick("conv fwd fp32 nchw n32 c1024 k256 in14x14 f1x1").splits, 2);
}
