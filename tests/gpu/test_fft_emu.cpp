// conv.fft.t16, .t32 and .t64 (gpu/conv/fft.hip; fwd, and bwd-data as its fwd equivalent) run by the host emulation of the HIP layer
// (tests/gpu/emu) through the runner against the CPU reference: each must pass the derived bound it
// declares (ConvErrorModel::fft_tile, reference/fft_conv.hpp) on both fill tiers, over layouts,
// paddings (0 to filter - 1), 3x3 / 5x5 / 7x7 and non-square filters, odd sizes (tiles clipped at the
// image edge), C up to 64 and K past the GEMM's tile; and the emulated output must equal
// reference/fft_conv.hpp's fp32 evaluation bit for bit (explicit fmaf butterflies and the GEMM's one
// fmaf chain: the same operations in the same order give the same bits, whatever the GEMM tile).
// The reference's tests (tests/reference/test_fft_conv.cpp) show that a wrong twiddle sign or a tile
// read one off breaks the bound; the bitwise case here ties the kernels to that evaluation.
// Refusals name the reason; the workspace is the three spectra.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/fft_tiles.hpp"
#include "fuzz/conv_primitive.hpp"
#include "reference/fft_conv.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "emu/emulated_solver.hpp"
#include "transform_emu_cases.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_fft_t16();  // tests/gpu/emu/emu_fft.cpp
std::shared_ptr<const ConvSolver> make_conv_fft_t32();
std::shared_ptr<const ConvSolver> make_conv_fft_t64();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

const ConvSolvers& solvers() {
  static const ConvSolvers s = emulated(gpu_emu::make_conv_fft_t16, gpu_emu::make_conv_fft_t32, gpu_emu::make_conv_fft_t64);
  return s;
}

const char* const kProblems[] = {
    "conv fwd fp32 nchw n1 c3 k4 in20x20 f5x5 pad2x2",
    "conv fwd fp32 nhwc n2 c5 k3 in23x19 f5x5 pad0x1",     // odd sizes: clipped last tiles
    "conv fwd fp32 nchw n1 c4 k5 in31x29 f7x7 pad3x3",
    "conv fwd fp32 nhwc n1 c6 k2 in17x33 f3x3 pad1x1",
    "conv fwd fp32 nchw n1 c2 k3 in12x40 f3x7 pad2x6",     // R != S, pad = filter - 1
    "conv fwd fp32 nhwc n1 c64 k66 in14x14 f5x5 pad2x2",   // C = 64; 2K = 132 past a 128-wide GEMM tile
    "conv fwd fp32 nchw n2 c1 k1 in5x5 f5x5 pad0x0",       // one output per image
    "conv fwd fp32 nhwc n3 c7 k9 in40x37 f5x5 pad2x2",     // many tiles (T 16: 48)
    // bwd-data as the fwd equivalent (dy by the flipped, channel-swapped filter, pad' = filter - 1 - pad)
    "conv bwd-data fp32 nchw n1 c4 k3 in20x20 f5x5 pad2x2",
    "conv bwd-data fp32 nhwc n2 c3 k5 in19x23 f7x5 pad1x4",
    "conv bwd-data fp32 nhwc n1 c9 k12 in13x14 f3x3 pad0x1",
};
// The emulation runs a block's 256 threads as host threads: T = 64 (one transform a block) and the
// exact tier (judged by the same bound) on the first problems only.
constexpr int kT64Problems = 2;

int tile_of(const ConvSolver& s) { return s.error_model(parse_conv_problem(kProblems[0])).fft_tile; }

TEST(FftEmulated, EveryProblemPassesItsDerivedBound) {
  for (const auto& s : solvers())
    for (int i = 0; i < static_cast<int>(std::size(kProblems)); ++i)
      for (const verify::FillTier tier : {verify::FillTier::bounded, verify::FillTier::exact}) {
        const ConvProblem p = parse_conv_problem(kProblems[i]);
        if (!fft_conv_refusal(p, tile_of(*s)).empty()) continue;  // a filter past T - 1
        if ((tile_of(*s) == 64 || tier == verify::FillTier::exact) && i >= kT64Problems) continue;
        const verify::CaseRecord r = expect_within_derived_bound(p, *s, tier, 11);
        EXPECT_NE(r.tolerance.find("FFT"), std::string::npos) << r.tolerance;
      }
}

// The emulated output is reference/fft_conv.hpp's fp32 evaluation, bit for bit, under every GEMM tile.
TEST(FftEmulated, OutputIsTheFp32EvaluationBitForBit) {
  for (const auto& s : solvers()) {
    const int t = tile_of(*s);
    ASSERT_TRUE(t == 16 || t == 32 || t == 64) << s->name();
    for (int i = 0; i < static_cast<int>(std::size(kProblems)); ++i) {
      const char* line = kProblems[i];
      const ConvProblem p = parse_conv_problem(line);
      if (!fft_conv_refusal(p, t).empty() || (t == 64 && i >= kT64Problems)) continue;
      SCOPED_TRACE(s->name() + " on " + to_string(p));
      verify::RunOptions o;
      o.seed = 3;
      o.fill = verify::FillTier::bounded;
      verify::PreparedCase c(p, o);
      const ref::ConvInputs in = verify::conv_inputs(c);
      const bool fwd = p.dir == ConvDir::fwd;  // bwd-data: dy in, dx out
      HostTensor want(fwd ? p.y_desc() : p.x_desc());
      want.data = ref::fft_conv_fp32(p, ref::fft_conv_plan(p, t), fwd ? *in.x : *in.y, *in.w);
      const std::vector<unsigned char> want_bytes = want.to_bytes();
      const std::vector<std::string> configs = s->configs_for(p);
      ASSERT_EQ(configs, (std::vector<std::string>{"t128x128", "t128x64", "t64x128", "t64x64"}));
      for (const std::string& config : configs) {
        if (i != 5 && config != s->default_config_for(p)) continue;  // every tile on the C = 64 case
        const std::vector<unsigned char> y = run_emulated_conv(*s, p, in, config);
        EXPECT_EQ(differing_elements(want_bytes, y, 4), 0) << "config " << config << ": of " << want_bytes.size() / 4 << " outputs";
      }
    }
  }
}

// Special values (the fuzzer's kinds and judge, fuzz/conv_primitive.hpp): a NaN or Inf spreads over the
// tiles (T x T windows) and output channels it reaches, exactly as fft_nonfinite_outputs says, the
// rest stays within the derived bound.
TEST(FftEmulated, SpecialValuesSpreadOverTilesAsTheJudgeExpects) {
  const char* const lines[] = {"conv fwd fp32 nchw n1 c3 k4 in20x22 f5x5 pad2x2", "conv fwd fp32 nhwc n2 c2 k3 in19x17 f3x5 pad1x0",
                               "conv bwd-data fp32 nchw n1 c3 k2 in18x17 f5x3 pad1x2"};
  int spread = 0;
  for (int si = 0; si < 2; ++si) {  // T = 16 and 32
    const ConvSolver& s = *solvers()[static_cast<std::size_t>(si)];
    for (const char* line : lines)
      for (const fuzz::Special kind : {fuzz::Special::nan, fuzz::Special::inf, fuzz::Special::mixed})
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
          SCOPED_TRACE(s.name() + " on " + line + ", special " + std::string(fuzz::special_name(kind)) + ", seed " + std::to_string(seed));
          const verify::Verdict v = run_with_special_values(parse_conv_problem(line), s, kind, seed);
          EXPECT_EQ(v.status, verify::Status::passed) << v.reason;
          spread += v.reason.find("spread a non-finite value") != std::string::npos;
        }
  }
  EXPECT_GT(spread, 18) << "of 36 cases, the non-finite values reached few outputs";
}

TEST(FftEmulated, RefusesWhatItDoesNotTakeWithAReason) {
  const ConvSolver& s = *solvers()[1];
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 str2x2", "stride 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 dil2x2", "dilation 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f1x1", "filter 1x1"},
      {"conv fwd fp32 nchw n1 c4 k4 in40x40 f33x3", "filter 33x3"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 bias", "no bias"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 g2", "groups 1"},
      {"conv fwd bf16 nchw n1 c4 k4 in16x16 f5x5 pad2x2", "fp32 only"},
      {"conv bwd-data fp32 nchw n1 c4 k4 in16x16 f5x5 pad5x2", "bwd-data with pad 5x2"},
      {"conv bwd-weights fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2", "fwd or bwd-data convolution"},
      {"conv fwd fp32 nchw n1 c4 k4 in16x16 f5x5 pad2x2 trans", "mode conv"},
      {"conv fwd fp32 ncdhw n1 c4 k4 in4x16x16 f3x5x5 pad1x2x2", "2D only"},
      {"conv fwd fp32 nhwc n1 c4 k4 in16x16 f5x5 pad2x2 math=tf32", "math=tf32"},
  };
  for (const auto& [line, why] : cases) expect_refused(s, line, why);
  // U [F][2K][2C], V [F][P][2C], O [F][P][2K] floats, F = 32 * 17; here P = 2 images * 1 tile.
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k5 in20x20 f5x5 pad2x2");
  const std::size_t f = 32 * 17, tiles = 2;
  EXPECT_EQ(s.workspace_bytes(p), f * (10 * 6 + tiles * 6 + tiles * 10) * sizeof(float));
  EXPECT_EQ(s.error_model(p).fft_tile, 32);
  EXPECT_EQ(s.error_model(p).winograd_m, 0);
  // a refused problem keeps the direct model (hiprim check describes every case's tolerance)
  EXPECT_EQ(s.error_model(parse_conv_problem("conv bwd-weights fp32 nchw n2 c3 k4 in7x7 f3x3 pad1x1")), ConvErrorModel{});
}

}  // namespace
}  // namespace hiprim
