// conv.winograd.tc.f2x3 / .f4x3 / .f5x3 / .f6x3 (gpu/conv/winograd.hip: fp16/bf16 data, U and V, bwd-weights D and V,
// stored in bf16, the GEMMs on tensor cores) run by the host emulation, which has no tensor cores: their "simt"
// config, the same bf16 operands on the SIMT tile (k ascending, one fmaf a step). Each output must pass the
// derived bound the solver declares (ConvErrorModel{m, winograd_operands = bf16}, reference/winograd.hpp), equal
// reference/winograd.hpp's fp32 evaluation with bf16 operands bit for bit, and differ from the evaluation with
// fp32 operands (the rounding is really there). The bound without the operands' rounding (u_T left out) must
// fail: the model needs it. The tensor-core config itself runs on the device (reports/h200).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/winograd_transforms.hpp"
#include "fuzz/conv_primitive.hpp"
#include "gpu/conv/winograd_tc_plan.hpp"
#include "reference/winograd.hpp"
#include "verify/case_check.hpp"
#include "verify/compare.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "emu/emulated_solver.hpp"
#include "transform_emu_cases.hpp"
#include "winograd_bitwise.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f2x3();  // tests/gpu/emu/emu_winograd.cpp
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f4x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f5x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f6x3();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

const ConvSolvers& tc_solvers() {
  static const ConvSolvers s = emulated(gpu_emu::make_conv_winograd_tc_f2x3, gpu_emu::make_conv_winograd_tc_f4x3,
                                         gpu_emu::make_conv_winograd_tc_f5x3, gpu_emu::make_conv_winograd_tc_f6x3);
  return s;
}

// The dtype is set per run (fp16, bf16).
const char* const kProblems[] = {
    "conv fwd fp16 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv fwd fp16 nhwc n2 c5 k3 in7x9 f3x3 pad1x1",        // odd sizes: clipped last tiles
    "conv fwd fp16 nchw n2 c6 k4 in9x7 f3x3 pad1x0 g2",      // groups, asymmetric padding
    "conv fwd fp16 nhwc n3 c70 k66 in11x10 f3x3 pad1x1",     // K and C past the GEMM's 64 x 64 tile
    "conv bwd-data fp16 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv bwd-data fp16 nhwc n1 c6 k4 in9x7 f3x3 pad2x1 g2",
    "conv bwd-weights fp16 nchw n1 c3 k4 in8x8 f3x3 pad1x1",
    "conv bwd-weights fp16 nhwc n2 c68 k66 in10x11 f3x3 pad1x1",  // K and C past a 64 x 64 tile
    "conv bwd-weights fp16 nhwc n4 c3 k5 in30x30 f3x3 pad1x1",    // F(2x2): 900 tile terms, the sum split in 3 (304 each)
};

int tile_of(const ConvSolver& s) { return s.error_model(parse_conv_problem(kProblems[0])).winograd_m; }

// The tile sum's run length of bwd-weights on the simt config's tile; 0 for one run.
std::int64_t simt_chunk(const ConvProblem& p, int m) {
  return p.dir == ConvDir::bwd_weights ? gpu::winograd_tc_wgrad_run_length<gpu::GemmTileDefault>(p, m) : 0;
}

TEST(WinogradTcEmulated, EveryProblemPassesItsDerivedBound) {
  for (const auto& s : tc_solvers())
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp16, DType::bf16})
        for (const verify::FillTier tier : {verify::FillTier::bounded, verify::FillTier::exact})
          expect_within_derived_bound(in_dtype(line, dt), *s, tier, 17);
}

// Bit for bit the fp32 evaluation with bf16 operands; never (on every problem here) the one with fp32 operands.
// And judged without u_T (the operands taken as exact), the same outputs fail the bound on most problems.
TEST(WinogradTcEmulated, OutputIsTheBf16OperandEvaluationAndNeedsItsRoundingInTheBound) {
  for (const auto& s : tc_solvers()) {
    const int m = tile_of(*s);
    int cases = 0, fail_without_ut = 0;
    for (const char* line : kProblems)
      for (const DType dt : {DType::fp16, DType::bf16}) {
        const ConvProblem p = in_dtype(line, dt);
        SCOPED_TRACE(s->name() + " on " + to_string(p));
        verify::RunOptions o;
        o.seed = 3;
        o.fill = verify::FillTier::bounded;
        verify::PreparedCase c(p, o);
        const ref::ConvInputs in = verify::conv_inputs(c);
        ASSERT_EQ(s->configs_for(p), std::vector<std::string>{"simt"});
        const std::int64_t chunk = simt_chunk(p, m);
        EXPECT_EQ(winograd_bits_differing(*s, p, in, m, "simt", chunk, DType::bf16), 0);
        EXPECT_GT(winograd_bits_differing(*s, p, in, m, "simt", chunk, DType::fp32), 0);
        // the output judged by the bound with fp32 operands (no input unit), the solver's factor 2
        const bool wgrad = p.dir == ConvDir::bwd_weights, fwd = p.dir == ConvDir::fwd;
        const TensorDesc out = wgrad ? p.w_desc() : fwd ? p.y_desc() : p.x_desc();
        HostTensor got(out);
        got.from_bytes(run_emulated_conv(*s, p, in, "simt").data());
        const ref::ConvOutput& exp = verify::conv_expected(c, false);
        const std::vector<double> sum = wgrad ? ref::winograd_wgrad_abs_sum(p, winograd_f3(m), *in.x, *in.y)
                                              : ref::winograd_abs_sum(p, winograd_f3(m), fwd ? *in.x : *in.y, *in.w);
        const verify::Verdict v = verify::compare(got, exp.value, sum, exp.desc, verify::winograd_tolerance(p, m, 2.0));
        fail_without_ut += v.status != verify::Status::passed;
        ++cases;
      }
    EXPECT_GT(fail_without_ut, cases / 2) << s->name() << ": without u_T the bound failed " << fail_without_ut << " of " << cases;
  }
}

// Special values (the fuzzer's kinds and judge): NaN / Inf spread over the tiles they reach, the rest in the bound.
TEST(WinogradTcEmulated, SpecialValuesSpreadOverTilesAsTheJudgeExpects) {
  const char* const lines[] = {"conv fwd bf16 nchw n1 c3 k4 in8x8 f3x3 pad1x1", "conv bwd-data fp16 nhwc n1 c3 k4 in8x8 f3x3 pad1x1",
                               "conv bwd-weights bf16 nhwc n2 c3 k4 in7x8 f3x3 pad1x1"};
  for (const auto& s : tc_solvers())
    for (const char* line : lines)
      for (const fuzz::Special kind : {fuzz::Special::nan, fuzz::Special::inf, fuzz::Special::mixed}) {
        SCOPED_TRACE(s->name() + " on " + line + ", special " + std::string(fuzz::special_name(kind)));
        const verify::Verdict v = run_with_special_values(parse_conv_problem(line), *s, kind, 5);
        EXPECT_EQ(v.status, verify::Status::passed) << v.reason;
      }
}

TEST(WinogradTcEmulated, RefusesFp32AndWhatTheTransformDoesNotTakeWithAReason) {
  const ConvSolver& s = *tc_solvers()[1];
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1", "fp32 data"},
      {"conv fwd bf16 nchw n1 c4 k4 in8x8 f3x3 pad1x1 str2x2", "stride 1"},
      {"conv fwd fp16 nchw n1 c4 k4 in8x8 f5x5 pad2x2", "filter 5x5"},
      {"conv bwd-data bf16 nchw n1 c4 k4 in8x8 f3x3 pad3x1", "bwd-data with pad 3x1"},
  };
  for (const auto& [line, why] : cases) {
    expect_refused(s, line, why);
    EXPECT_TRUE(s.configs_for(parse_conv_problem(line)).empty()) << line;
  }
  EXPECT_EQ(s.accumulation_error_factor(), 2.0);
  EXPECT_EQ(s.error_model(parse_conv_problem("conv fwd bf16 nchw n1 c4 k4 in8x8 f3x3 pad1x1")).winograd_operands, DType::bf16);
  // F(4x4), n2 c3 k5 8x8 (8 tiles), 36 matrices: U 36*15 bf16 (1080 bytes, to 1280), V 36*3*8 bf16 (1728, from 1280
  // to 3008, to 3072), M 36*5*8 fp32 (5760): 8832 bytes.
  EXPECT_EQ(s.workspace_bytes(parse_conv_problem("conv fwd bf16 nchw n2 c3 k5 in8x8 f3x3 pad1x1")), 8832u);
  // bwd-weights, n4 c3 k5 30x30 on F(4x4): M 36*15 fp32 (2160, to 2304), V 36*3*P, D 36*5*P bf16 with P = 4*8*8 = 256
  // tiles (55296 at 2304, to 57600; 92160 more: 149760); 36 blocks, T = 256 < 2 * 256: one run, no partial sums.
  EXPECT_EQ(s.workspace_bytes(parse_conv_problem("conv bwd-weights fp16 nhwc n4 c3 k5 in30x30 f3x3 pad1x1")), 149760u);
}

}  // namespace
}  // namespace hiprim
