// conv.winograd.fused.f2x3 and .f4x3 (gpu/conv/winograd_fused.hip) run by the host emulation of the HIP layer
// (tests/gpu/emu, 32 KiB of shared memory a block) through the runner against the CPU reference: fwd, bwd-data
// (as its fwd equivalent) and bwd-weights (runs of tiles) pass the derived bound on both fill tiers in every dtype, over layouts, paddings,
// groups, odd sizes, output channels past one and two 32- and 64-channel chunks and tile counts past one pass of
// a block; the output equals reference/winograd.hpp's fp32 evaluation bit for bit in every listed config (a
// wrong U / V / D index, a tile group's or a run's edge, a k chunk's offset or a sum in another order fails it); special
// values pass the fuzzer's judge; refusals and the config lists follow the shared-memory sizes.
// (Mutants run by hand: the output channel without its k chunk's offset k0; the runs' sum without its first run:
// each fails the bitwise and the bound cases; bwd-weights' second row half of V computed as the first: fails the
// bitwise cases; s31: the D-in-registers kernel's prefetch skipping a run's last tile fails the bound and the
// bitwise cases, the staged runs' sum dropping a row after its first round (the emulation's rounds are 4 runs) fails
// the bitwise cases.)
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "fuzz/conv_primitive.hpp"
#include "reference/winograd.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "emu/emulated_solver.hpp"
#include "transform_emu_cases.hpp"
#include "winograd_bitwise.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f2x3();  // tests/gpu/emu/emu_winograd_fused.cpp
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f4x3();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

const ConvSolvers& fused() {
  static const ConvSolvers s = emulated(gpu_emu::make_conv_winograd_fused_f2x3, gpu_emu::make_conv_winograd_fused_f4x3);
  return s;
}

const char* const kProblems[] = {
    "conv fwd fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv fwd fp32 nhwc n2 c3 k70 in7x9 f3x3 pad1x1",    // odd sizes (clipped tiles), K past two 32-channel chunks
    "conv fwd fp32 nhwc n1 c2 k5 in6x5 f3x3 pad2x2",     // padding 2: a tile reads two rows of zeros
    "conv fwd fp32 nchw n2 c6 k4 in9x7 f3x3 pad1x0 g2",   // groups, asymmetric padding
    "conv fwd fp32 nhwc n1 c8 k8 in6x6 f3x3 pad1x1 g8",   // depthwise
    "conv fwd fp32 nchw n1 c1 k1 in3x3 f3x3 pad0x0",      // one output
    "conv fwd fp32 nhwc n3 c3 k40 in23x21 f3x3 pad1x1",   // P = 3 * 12 * 11 = 396 tiles (F2): many tile groups a block
    "conv bwd-data fp32 nchw n1 c3 k3 in8x8 f3x3 pad1x1",
    "conv bwd-data fp32 nhwc n2 c40 k2 in7x9 f3x3 pad0x2",  // the fwd equivalent: 2 channels in, 40 out
    "conv bwd-data fp32 nchw n1 c4 k6 in9x7 f3x3 pad2x1 g2",
    // bwd-weights: runs of tiles (r<R>), D and V staged in shared memory (s<TP>), k chunks of KB channels; or
    // (".reg", C/G <= 3) D in registers, V staged, 4 runs a block (empty run lanes), k chunks of 32
    "conv bwd-weights fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv bwd-weights fp32 nhwc n2 c3 k40 in7x9 f3x3 pad0x2",     // dy tiles clipped
    "conv bwd-weights fp32 nchw n1 c6 k4 in9x7 f3x3 pad2x1 g2",
    "conv bwd-weights fp32 nhwc n3 c2 k70 in21x23 f3x3 pad1x1",   // T = 396 (F2): several runs; 3 chunks of 32 channels
};

int tile_m(const ConvSolver& s) { return s.error_model(parse_conv_problem(kProblems[0])).winograd_m; }

TEST(WinogradFusedEmulated, EveryProblemPassesItsDerivedBound) {
  for (const auto& s : fused())
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp32, DType::fp16, DType::bf16})
        for (const verify::FillTier tier : {verify::FillTier::bounded, verify::FillTier::exact})
          expect_within_derived_bound(in_dtype(line, dt), *s, tier, 11);
}

TEST(WinogradFusedEmulated, OutputIsTheFp32EvaluationBitForBitInEveryConfig) {
  for (const auto& s : fused()) {
    const int m = tile_m(*s);
    ASSERT_TRUE(m == 2 || m == 4) << s->name();
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp32, DType::bf16}) {
        const ConvProblem p = in_dtype(line, dt);
        SCOPED_TRACE(s->name() + " on " + to_string(p));
        verify::RunOptions o;
        o.seed = 3;
        o.fill = verify::FillTier::bounded;
        verify::PreparedCase c(p, o);
        const ref::ConvInputs in = verify::conv_inputs(c);
        const std::vector<std::string> configs = s->configs_for(p);
        ASSERT_FALSE(configs.empty());
        for (const std::string& config : configs) {  // bwd-weights: runs of R tiles (the reference's chunk), each summed from 0
          const std::int64_t run = p.dir == ConvDir::bwd_weights ? std::stoll(config.substr(1)) : 0;
          const std::int64_t chunk = run < ref::winograd_wgrad_terms(p, m) ? run : 0;
          EXPECT_EQ(winograd_bits_differing(*s, p, in, m, config, chunk), 0) << "config " << config;
        }
      }
  }
}

TEST(WinogradFusedEmulated, SpecialValuesPassTheJudge) {
  const char* const lines[] = {"conv fwd fp32 nchw n1 c3 k4 in8x8 f3x3 pad1x1", "conv fwd fp32 nhwc n2 c4 k4 in9x7 f3x3 pad1x0 g2",
                               "conv bwd-data fp32 nhwc n1 c3 k3 in8x8 f3x3 pad1x1", "conv bwd-weights fp32 nhwc n2 c3 k4 in7x8 f3x3 pad1x1"};
  for (const auto& s : fused())
    for (const char* line : lines)
      for (const fuzz::Special kind : {fuzz::Special::nan, fuzz::Special::inf, fuzz::Special::mixed})
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
          SCOPED_TRACE(s->name() + " on " + line + ", special " + std::string(fuzz::special_name(kind)) + ", seed " + std::to_string(seed));
          const verify::Verdict v = run_with_special_values(parse_conv_problem(line), *s, kind, seed);
          EXPECT_EQ(v.status, verify::Status::passed) << v.reason;
        }
}

TEST(WinogradFusedEmulated, ConfigsFollowTheSharedMemoryAndRefusalsNameTheReason) {
  const ConvSolver& f2 = *fused()[0];
  const ConvSolver& f4 = *fused()[1];
  // F(4x4): a^2 cg (KC + TP) 4 bytes = 144 * 3 * (KC + TP) <= 32 KiB: k32.t16 and k32.t32; 32 channels: no k64
  const ConvProblem c3 = parse_conv_problem("conv fwd fp32 nhwc n1 c3 k64 in8x8 f3x3 pad1x1");
  EXPECT_EQ(f4.configs_for(c3), (std::vector<std::string>{"k32.t16", "k32.t32"}));
  EXPECT_EQ(f4.default_config_for(c3), "k32.t32");
  // F(2x2): 64 * 3 * (KC + TP) bytes: all six where K > 32; the default takes 64 channels and 32 tiles a pass
  const ConvProblem k70 = parse_conv_problem("conv fwd fp32 nhwc n1 c3 k70 in8x8 f3x3 pad1x1");
  EXPECT_EQ(f2.configs_for(k70), (std::vector<std::string>{"k32.t16", "k32.t32", "k32.t64", "k64.t16", "k64.t32", "k64.t64"}));
  EXPECT_EQ(f2.default_config_for(k70), "k64.t32");
  EXPECT_EQ(f2.configs_for(parse_conv_problem("conv fwd fp32 nhwc n1 c3 k32 in8x8 f3x3 pad1x1")),
            (std::vector<std::string>{"k32.t16", "k32.t32", "k32.t64"}));
  // The workspace is U alone: a^2 G kg cg floats.
  EXPECT_EQ(f4.workspace_bytes(c3), 36u * 64 * 3 * sizeof(float));
  EXPECT_EQ(f2.workspace_bytes(parse_conv_problem("conv fwd fp32 nchw n2 c6 k4 in9x7 f3x3 pad1x0 g2")), 16u * 2 * 2 * 3 * sizeof(float));
  // bwd-weights: every stage (F2: 8, 16, 32 tiles of rows of 20 floats, KB halved to fit 32 KiB) of the runs
  // shorter than the tile count and of the first covering it (T = 3 * 11 * 12 = 396 for F2)
  const ConvProblem w70 = parse_conv_problem("conv bwd-weights fp32 nhwc n3 c2 k70 in21x23 f3x3 pad1x1");
  // then, C/G = 2 <= 4, the same runs with D in registers (V of 4 runs x TP tiles x 2 channels: 4 KiB at s8)
  EXPECT_EQ(f2.configs_for(w70),
            (std::vector<std::string>{"r64.s8", "r64.s16", "r64.s32", "r128.s8", "r128.s16", "r128.s32", "r256.s8", "r256.s16", "r256.s32",
                                      "r512.s8", "r512.s16", "r512.s32", "r64.s8.reg", "r64.s16.reg", "r64.s32.reg", "r128.s8.reg",
                                      "r128.s16.reg", "r128.s32.reg", "r256.s8.reg", "r256.s16.reg", "r256.s32.reg", "r512.s8.reg",
                                      "r512.s16.reg", "r512.s32.reg"}));
  // D in registers, s32 (fits); 7 runs in 2 blocks of 4 x 3 chunks of 32 channels: under 528 blocks, the shortest run
  EXPECT_EQ(f2.default_config_for(w70), "r64.s32.reg");
  // F(4)'s D in registers takes C/G <= 3 (its accumulators): C/G = 4 lists none, 3 does
  const auto has_reg = [](const std::vector<std::string>& configs) {
    return std::any_of(configs.begin(), configs.end(), [](const std::string& c) { return c.ends_with(".reg"); });
  };
  EXPECT_FALSE(has_reg(f4.configs_for(parse_conv_problem("conv bwd-weights fp32 nhwc n3 c4 k70 in21x23 f3x3 pad1x1"))));
  EXPECT_TRUE(has_reg(f4.configs_for(parse_conv_problem("conv bwd-weights fp32 nhwc n3 c3 k70 in21x23 f3x3 pad1x1"))));
  // VGG's conv1_1: T = 32 * 56 * 56 tiles (F4), D in registers, s16 (4 x 16 x 3 x 36 floats: 27 KiB fits 32, s32's
  // 54 KiB does not):
  // r64's 1568 runs in 392 blocks x 2 chunks is the longest >= 528 (r128: 392)
  const ConvProblem vgg = parse_conv_problem("conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1");
  EXPECT_EQ(f4.default_config_for(vgg), "r64.s16.reg");
  EXPECT_EQ(f4.workspace_bytes(vgg), 1569u * 36 * 64 * 3 * sizeof(float));  // M and 1568 runs' M_s
  EXPECT_EQ(f4.config_workspace_bytes(vgg, "r256.s4"), 393u * 36 * 64 * 3 * sizeof(float));  // 392 runs
  EXPECT_THROW(f4.config_workspace_bytes(vgg, "r64.s32.reg"), InputError);  // 54 KiB of V: past the 32 KiB
  EXPECT_THROW(f4.config_workspace_bytes(vgg, "r64.s8.ring"), InputError);  // s31's trial variant, reverted: no config
  EXPECT_EQ(f2.config_workspace_bytes(w70, "r512.s16"), 16u * 70 * 2 * sizeof(float));  // one run: M alone
  EXPECT_THROW(f2.config_workspace_bytes(w70, "r512"), InputError);  // a run without its stage is no config
  const std::pair<const char*, const char*> cases[] = {
      {"conv bwd-weights fp32 nhwc n1 c3 k4 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv bwd-weights fp32 nhwc n1 c300 k4 in8x8 f3x3 pad1x1", "C/G = 300 input channels per group need more than 256 threads"},
      {"conv fwd fp32 nhwc n1 c64 k64 in8x8 f3x3 pad1x1", "C/G = 64 input channels per group need 442368 bytes"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f5x5 pad2x2", "filter 5x5"},
      {"conv bwd-data fp32 nchw n1 c4 k4 in8x8 f3x3 pad3x1", "bwd-data with pad 3x1"},
      {"conv fwd fp32 nhwc n1 c4 k4 in8x8 f3x3 pad1x1 math=tf32", "math=tf32"},
  };
  for (const auto& [line, why] : cases) {
    expect_refused(f4, line, why);
    EXPECT_TRUE(f4.configs_for(parse_conv_problem(line)).empty()) << line;
  }
}

}  // namespace
}  // namespace hiprim
