// conv.winograd.f2x3, .f4x3, .f6x3 and .f5x3 (fwd, bwd-data as its fwd equivalent, and bwd-weights) run by the host emulation of the HIP layer (tests/gpu/emu)
// through the runner against the CPU reference: each must pass the derived bound it declares
// (ConvErrorModel{m}, reference/winograd.hpp), on both fill tiers and in every dtype it takes, over layouts, paddings (0 to 2,
// also past the tile), groups, odd sizes (tiles clipped at the image edge), channel and tile counts
// past the GEMM's 64 x 64 tile; and the emulated output must equal reference/winograd.hpp's fp32
// evaluation bit for bit (the host compiler does not contract a*b+c, so the same operations in the
// same order give the same bits: a transform in another order, a wrong coefficient or a tile read one
// row off fails it, and a tile overlap or a wrong coefficient also breaks the bound).
// Refusals name the reason. (Mutants run by hand: a B^T entry changed, the input tile's first row
// one off, the GEMM's K (channels) one short: each fails both the bound and the bitwise cases.)
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/winograd_transforms.hpp"
#include "fuzz/conv_primitive.hpp"
#include "reference/winograd.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "emu/emulated_solver.hpp"
#include "transform_emu_cases.hpp"
#include "winograd_bitwise.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_winograd_f2x3();  // tests/gpu/emu/emu_winograd.cpp
std::shared_ptr<const ConvSolver> make_conv_winograd_f4x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_f6x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_f5x3();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

const ConvSolvers& solvers() {
  static const ConvSolvers s = emulated(gpu_emu::make_conv_winograd_f2x3, gpu_emu::make_conv_winograd_f4x3,
                                         gpu_emu::make_conv_winograd_f6x3, gpu_emu::make_conv_winograd_f5x3);
  return s;
}

const char* const kProblems[] = {
    "conv fwd fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv fwd fp32 nhwc n2 c5 k3 in7x9 f3x3 pad1x1",        // odd sizes: clipped last tiles
    "conv fwd fp32 nchw n1 c2 k2 in5x6 f3x3 pad0x0",        // no padding: 3x4 outputs
    "conv fwd fp32 nhwc n1 c4 k5 in6x5 f3x3 pad2x2",        // padding 2: a tile reads two rows of zeros
    "conv fwd fp32 nchw n2 c6 k4 in9x7 f3x3 pad1x0 g2",      // groups, asymmetric padding
    "conv fwd fp32 nhwc n1 c8 k8 in6x6 f3x3 pad1x1 g8",      // depthwise
    "conv fwd fp32 nchw n1 c1 k1 in3x3 f3x3 pad0x0",         // one output
    "conv fwd fp32 nhwc n3 c70 k66 in11x10 f3x3 pad1x1",     // K and C past the GEMM's 64 x 64 tile, P = 3 * tiles
    "conv fwd fp32 nchw n2 c17 k9 in23x21 f3x3 pad1x1",      // P = 2 * 12 * 11 = 264 tiles (F2): several GEMM tiles
    // bwd-data as the fwd equivalent (dy by the flipped, channel-swapped filter, pad 2 - pad)
    "conv bwd-data fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv bwd-data fp32 nhwc n2 c5 k3 in7x9 f3x3 pad0x2",
    "conv bwd-data fp32 nchw n1 c6 k4 in9x7 f3x3 pad2x1 g2",
    "conv bwd-data fp32 nhwc n1 c66 k70 in10x11 f3x3 pad1x1",
    // bwd-weights: dw = G^T [sum_t (A dy_t A^T) . (B^T x_t B)] G
    "conv bwd-weights fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv bwd-weights fp32 nhwc n2 c5 k3 in7x9 f3x3 pad0x2",       // dy tiles clipped
    "conv bwd-weights fp32 nchw n1 c6 k4 in9x7 f3x3 pad2x1 g2",
    "conv bwd-weights fp32 nhwc n2 c68 k66 in10x11 f3x3 pad1x1",   // K and C past a 64 x 64 tile
    "conv bwd-weights fp32 nchw n3 c5 k6 in21x23 f3x3 pad1x1",     // T = 3 * 11 * 12 = 396 (F2): split runs of 8 to 200
};

// The tile sum's run length of a bwd-weights config "t<BM>x<BN>.sk<S>" over T terms, as
// simt_batched_gemm.hpp states it: ceil(T / S) rounded up to 8; 0 (one run) when that covers T.
std::int64_t wgrad_chunk(const std::string& config, std::int64_t terms) {
  const std::size_t at = config.find(".sk");
  if (at == std::string::npos) return 0;
  const std::int64_t s = std::stoll(config.substr(at + 3));
  const std::int64_t chunk = std::max<std::int64_t>(8, ((terms + s - 1) / s + 7) / 8 * 8);
  return chunk >= terms ? 0 : chunk;
}

std::vector<std::string> expected_configs(bool wgrad) {
  std::vector<std::string> all;
  for (const char* tile : {"t128x128", "t128x64", "t64x128", "t64x64"})
    if (!wgrad)
      all.push_back(tile);
    else
      for (int s = 1; s <= 32; s *= 2) all.push_back(std::string(tile) + ".sk" + std::to_string(s));
  return all;
}

TEST(WinogradEmulated, EveryProblemPassesItsDerivedBound) {
  for (const auto& s : solvers())
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp32, DType::fp16, DType::bf16})
        for (const verify::FillTier tier : {verify::FillTier::bounded, verify::FillTier::exact})
          expect_within_derived_bound(in_dtype(line, dt), *s, tier, 11);
}

// The emulated output is reference/winograd.hpp's fp32 evaluation, bit for bit (16-bit outputs: that
// value rounded to the dtype once).
TEST(WinogradEmulated, OutputIsTheFp32EvaluationBitForBit) {
  for (const auto& s : solvers()) {
    const int m = s->error_model(parse_conv_problem(kProblems[0])).winograd_m;
    ASSERT_TRUE(m == 2 || m == 4 || m == 5 || m == 6) << s->name();
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
        const ConvProblem p = in_dtype(line, dt);
        SCOPED_TRACE(s->name() + " on " + to_string(p));
        verify::RunOptions o;
        o.seed = 3;
        o.fill = verify::FillTier::bounded;
        verify::PreparedCase c(p, o);
        const ref::ConvInputs in = verify::conv_inputs(c);
        const bool wgrad = p.dir == ConvDir::bwd_weights;
        const std::vector<std::string> configs = s->configs_for(p);
        ASSERT_EQ(configs, expected_configs(wgrad));
        for (const std::string& config : configs) {  // every GEMM tile (and split): the same sums in the same order
          if (dt != DType::fp32 && config != s->default_config_for(p)) continue;  // the tile does not depend on the dtype
          // F(5x5): the default only (the GEMM's tiles and splits are m-independent code, every one run above for
          // m = 2, 4, 6; all of F(5)'s passed once, s32, in 10 min of emulation)
          if (m == 5 && config != s->default_config_for(p)) continue;
          const std::int64_t chunk = wgrad ? wgrad_chunk(config, ref::winograd_wgrad_terms(p, m)) : 0;
          EXPECT_EQ(winograd_bits_differing(*s, p, in, m, config, chunk), 0) << "config " << config;
        }
      }
  }
}

// Special values (the fuzzer's kinds and judge, fuzz/conv_primitive.hpp): a NaN or Inf spreads over the
// tiles and output channels it reaches, exactly as winograd_nonfinite_outputs says, the rest stays within
// the derived bound; the same outputs judged as a direct-sum solver's (NaN only where windows meet it) fail.
TEST(WinogradEmulated, SpecialValuesSpreadOverTilesAsTheJudgeExpects) {
  const char* const lines[] = {"conv fwd fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1", "conv fwd fp32 nhwc n2 c4 k4 in9x7 f3x3 pad1x0 g2",
                               "conv bwd-data fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1", "conv bwd-weights fp32 nhwc n2 c3 k4 in7x8 f3x3 pad1x1"};
  for (const auto& s : solvers()) {
    const int m = s->error_model(parse_conv_problem(lines[0])).winograd_m;
    const EmulatedConvSolver direct(
        m == 2   ? gpu_emu::make_conv_winograd_f2x3()
        : m == 4 ? gpu_emu::make_conv_winograd_f4x3()
        : m == 5 ? gpu_emu::make_conv_winograd_f5x3()
                 : gpu_emu::make_conv_winograd_f6x3(),
        true);
    int direct_failed = 0, runs = 0;
    for (const char* line : lines)
      for (const fuzz::Special kind : {fuzz::Special::nan, fuzz::Special::inf, fuzz::Special::mixed})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          SCOPED_TRACE(s->name() + " on " + line + ", special " + std::string(fuzz::special_name(kind)) + ", seed " + std::to_string(seed));
          const ConvProblem p = parse_conv_problem(line);
          const verify::Verdict v = run_with_special_values(p, *s, kind, seed);
          EXPECT_EQ(v.status, verify::Status::passed) << v.reason;
          direct_failed += run_with_special_values(p, direct, kind, seed).status != verify::Status::passed;
          ++runs;
        }
    EXPECT_GT(direct_failed, runs / 2) << "judged as a direct-sum solver, " << s->name() << " passed " << runs - direct_failed << " of " << runs;
  }
}

TEST(WinogradEmulated, RefusesWhatTheTransformDoesNotTakeWithAReason) {
  const ConvSolver& s = *solvers()[1];
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 dil2x2", "dilation 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f5x5 pad2x2", "filter 5x5"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 bias", "no bias"},
      {"conv bwd-weights fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv bwd-data fp32 nchw n1 c4 k4 in8x8 f3x3 pad3x1", "bwd-data with pad 3x1"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 trans", "mode conv"},
      {"conv fwd fp32 ncdhw n1 c4 k4 in4x8x8 f3x3x3 pad1x1x1", "2D only"},
      {"conv fwd fp32 nhwc n1 c4 k4 in8x8 f3x3 pad1x1 math=tf32", "math=tf32"},
  };
  for (const auto& [line, why] : cases) expect_refused(s, line, why);
  // The batched GEMM's tile (kernel rows x columns: tiles x channels NHWC, channels x tiles NCHW): the
  // largest with at most a fifth of padding and 264 blocks over the 36 F(4x4) GEMMs, else t64x64.
  EXPECT_EQ(s.default_config_for(parse_conv_problem("conv fwd fp32 nchw n1 c4 k128 in8x8 f3x3 pad1x1")), "t64x64");  // 4 tiles
  EXPECT_EQ(s.default_config_for(parse_conv_problem("conv fwd fp32 nhwc n32 c4 k64 in32x32 f3x3 pad1x1")), "t128x64");
  EXPECT_EQ(s.default_config_for(parse_conv_problem("conv fwd fp32 nchw n32 c4 k128 in32x32 f3x3 pad1x1")), "t128x128");
  EXPECT_EQ(s.default_config_for(parse_conv_problem("conv fwd fp32 nchw n32 c4 k64 in32x32 f3x3 pad1x1")), "t64x128");
  EXPECT_EQ(s.default_config_for(parse_conv_problem("conv bwd-data fp32 nhwc n32 c128 k4 in32x32 f3x3 pad1x1")), "t128x128");  // dx channels
  // bwd-weights (kernel rows x columns: K x C, the tile sum split): unsplit from 256 blocks, else the
  // largest snug tile split (power of two, >= 128 terms a slice) to 65536 threads: ResNet-50's four
  // 3x3 layers at batch 32 get the picks the s21 H100 sweep measured within 5% of the best.
  auto wgrad_pick = [&](const char* shape) {
    return s.default_config_for(parse_conv_problem(std::string("conv bwd-weights fp32 nhwc n32 ") + shape + " f3x3 pad1x1"));
  };
  EXPECT_EQ(wgrad_pick("c64 k64 in56x56"), "t64x64.sk32");     // 36 blocks, T = 6272 terms
  EXPECT_EQ(wgrad_pick("c128 k128 in28x28"), "t128x128.sk8");  // 36 blocks, T = 1568
  EXPECT_EQ(wgrad_pick("c256 k256 in14x14"), "t128x64.sk1");   // 288 blocks
  EXPECT_EQ(wgrad_pick("c512 k512 in7x7"), "t128x128.sk1");    // 576 blocks
  // F(6x6), 64 GEMMs: c128 28x28's t64x64 has 256 blocks but 16384 threads (152 us); split t128x128 (105 us)
  EXPECT_EQ(solvers()[2]->default_config_for(parse_conv_problem("conv bwd-weights fp32 nhwc n32 c128 k128 in28x28 f3x3 pad1x1")),
            "t128x128.sk4");
  EXPECT_EQ(solvers()[2]->default_config_for(parse_conv_problem("conv bwd-weights fp32 nhwc n32 c256 k256 in14x14 f3x3 pad1x1")),
            "t128x128.sk1");  // 256 blocks of 256 threads (108 us, the sweep's best)
  // its workspace: M, V and D (36 x (K C + C T + K T) floats), then 32 slices of 36 K x C partial sums
  const ConvProblem wp = parse_conv_problem("conv bwd-weights fp32 nhwc n32 c64 k64 in56x56 f3x3 pad1x1");
  EXPECT_EQ(s.workspace_bytes(wp), (36 * (64 * 64 + 2 * 64 * 6272) + 32 * 36 * 64 * 64) * sizeof(float));
  EXPECT_EQ(s.config_workspace_bytes(wp, "t64x64.sk1"), 36 * (64 * 64 + 2 * 64 * 6272) * sizeof(float));
  // U, V and M of F(4x4): a^2 = 36 matrices of kg x cg, cg x P and kg x P floats.
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k5 in8x8 f3x3 pad1x1");
  const std::size_t tiles = 2 * 2 * 2;
  EXPECT_EQ(s.workspace_bytes(p), 36 * (5 * 3 + 3 * tiles + 5 * tiles) * sizeof(float));
}

// Three bf16 exact-fill cases the s19 H100 fuzz campaign reported against conv.naive's output
// (the exact sum rounded to bf16, the GPU oracle): against the exact reference they are inside the
// derived bound (the oracle no longer serves them: fuzz::gpu_oracle_serves).
TEST(WinogradEmulated, SixteenBitExactFillCasesOfTheGpuCampaignPassAgainstTheExactSum) {
  struct R { const char* line; int solver; std::uint64_t seed; };
  const R rs[] = {{"conv fwd bf16 nchw n1 c7 k3 in67x67 f3x3 pad0x0 str1x1 dil1x1 g1", 2, 1398594465},
                  {"conv fwd bf16 nchw n1 c15 k1 in3x47 f3x3 pad0x0 str1x1 dil1x1 g1", 1, 1914866254},
                  {"conv fwd bf16 nchw n1 c11 k58 in7x13 f3x3 pad0x1 str1x1 dil1x1 g1", 1, 1}};
  for (const R& r : rs) {
    const ConvProblem p = parse_conv_problem(r.line);
    const verify::CaseRecord rec = run_case_with(p, *solvers()[r.solver], verify::FillTier::exact, r.seed);
    EXPECT_EQ(rec.verdict.status, verify::Status::passed) << r.line << ": " << rec.verdict.reason;
  }
}

}  // namespace
}  // namespace hiprim
