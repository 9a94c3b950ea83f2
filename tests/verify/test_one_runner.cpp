// One runner for every primitive (verify/runner.hpp): conv solvers run through the buffer-list
// interface (ConvOpSolver, core/conv_solver.hpp), conv cases keep their fills (the same tags, so
// the same inputs as before), hooks see each input by its tensors() entry, and a case of another
// primitive refuses conv's judging hooks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "verify/conv_check.hpp"
#include "verify/host_solvers.hpp"
#include "verify/op_check.hpp"
#include "verify/op_solvers.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify_test {
namespace {

TEST(OneRunner, ConvOpSolverMapsTheTensorListAndReportsTheConvSolversProperties) {
  const auto fast = verify::make_fast_reference_solver();
  const ConvOpSolver s(*fast);
  EXPECT_EQ(s.op(), "conv");
  EXPECT_EQ(s.name(), fast->name());
  EXPECT_EQ(s.backend(), fast->backend());
  EXPECT_TRUE(s.needs_independent_oracle());
  EXPECT_EQ(s.accumulation_error_factor(), fast->accumulation_error_factor());
  const OpProblemPtr bn = parse_op_problem("bnorm fwd-train spatial fp32 nchw n2 c3 in5x4 eps1e-05 momentum0.1");
  EXPECT_FALSE(s.applicable(*bn));
  EXPECT_THROW(s.run(*bn, std::vector<void*>(bn->tensors().size(), nullptr), nullptr, 0, nullptr), InputError);
  const OpProblemPtr cv = parse_op_problem("conv bwd-data fp32 nchw n1 c2 k2 in4x4 f3x3 pad1x1");
  EXPECT_TRUE(s.applicable(*cv));
  EXPECT_THROW(s.run(*cv, std::vector<void*>(2, nullptr), nullptr, 0, nullptr), InputError);  // 2 of 3 buffers
  EXPECT_EQ(conv_slot("dy"), ConvSlot::y);
  EXPECT_EQ(conv_slot("dw"), ConvSlot::w);
  EXPECT_EQ(conv_slot("dx"), ConvSlot::x);
  EXPECT_THROW(conv_slot("z"), InputError);
}

// Every direction: each input holds the fill of its tag (x kTagX, w kTagW, dy kTagY, bias kTagBias),
// what the conv runner always filled; every direction passes through the buffer list.
TEST(OneRunner, ConvCasesFillByTagAndPassInEveryDirection) {
  const auto fast = verify::make_fast_reference_solver();
  for (const char* s : {"conv fwd fp16 nhwc n1 c3 k4 in5x5 f3x3 pad1x1 bias", "conv bwd-data fp32 nchw n2 c4 k2 in5x5 f3x3 str2x2",
                        "conv bwd-weights bf16 nchw n2 c2 k3 in4x4 f3x3 pad1x1"}) {
    const ConvProblem p = parse_conv_problem(s);
    verify::RunOptions o;
    o.seed = 9;
    const verify::PreparedCase c(p, o);
    const int r = verify::exact_fill_range(p);
    for (std::size_t i = 0; i < c.tensors().size(); ++i) {
      const OpTensor& t = c.tensors()[i];
      if (t.role == OpTensor::Role::output) continue;
      HostTensor want(t.desc);
      verify::fill(want, verify::FillTier::exact, 9, verify::conv_fill_tag(t.name), r);
      EXPECT_EQ(c.data()[i].data, want.data) << s << " " << t.name;
    }
    const verify::CaseRecord rec = verify::run_case(c, *fast, o);
    EXPECT_EQ(rec.verdict.status, verify::Status::passed) << s << ": " << rec.verdict.reason;
    EXPECT_EQ(rec.deterministic, std::optional<bool>(true)) << s;
  }
}

TEST(OneRunner, AdjustInputSeesEveryInputAndInOutTensorByName) {
  std::vector<std::string> seen;
  verify::RunOptions o;
  o.hooks.adjust_input = [&](HostTensor&, const OpTensor& t) { seen.push_back(t.name); };
  (void)verify::PreparedCase(parse_conv_problem("conv bwd-data fp32 nchw n1 c2 k2 in4x4 f3x3 pad1x1"), o);
  EXPECT_EQ(seen, (std::vector<std::string>{"dy", "w"}));
  seen.clear();
  const OpProblemPtr bn = parse_op_problem("bnorm fwd-train spatial fp32 nchw n2 c3 in5x4 eps1e-05 momentum0.1");
  (void)verify::PreparedCase(bn, o);
  std::vector<std::string> want;
  for (const OpTensor& t : bn->tensors())
    if (t.role != OpTensor::Role::output) want.push_back(t.name);
  EXPECT_EQ(seen, want);
  EXPECT_TRUE(std::find(want.begin(), want.end(), "running_mean") != want.end());  // in_out tensors too
}

// An adjusted input is what the solver and the oracle both read, so a correct solver still passes.
TEST(OneRunner, AdjustedInputsReachSolverAndOracleAlike) {
  verify::RunOptions o;
  o.fill = verify::FillTier::bounded;
  o.hooks.adjust_input = [](HostTensor& t, const OpTensor& d) {
    if (d.name == "x") t.data[0] = 0.5f;
  };
  const verify::PreparedCase c(parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 pad1x1"), o);
  EXPECT_EQ(c.tensor("x").data[0], 0.5f);
  EXPECT_EQ(verify::conv_inputs(c).x, &c.tensor("x"));
  const verify::CaseRecord rec = verify::run_case(c, *verify::make_fast_reference_solver(), o);
  EXPECT_EQ(rec.verdict.status, verify::Status::passed) << rec.verdict.reason;
  EXPECT_EQ(rec.repro, "hiprim repro \"" + rec.problem + "\" --solver ref.conv.fast --seed 1 --fill bounded");
  EXPECT_THROW((void)c.tensor("dy"), InputError);
}

TEST(OneRunner, AnOpCaseRefusesConvsJudgingHooksAndIgnoresTheFillTier) {
  const OpProblemPtr a = parse_op_problem("activ fwd relu fp32 nchw n1 c2 in5x5");
  verify::RunOptions o;
  o.hooks.judge_bytes = [](const std::vector<unsigned char>&, const verify::Tolerance&) { return verify::Verdict{}; };
  EXPECT_THROW(verify::PreparedCase(a, o), InputError);
  verify::RunOptions f;
  f.fill = verify::FillTier::exact;
  const verify::PreparedCase c(a, f);
  EXPECT_EQ(c.fill(), verify::FillTier::bounded);
  EXPECT_FALSE(c.fill_given());
  EXPECT_THROW((void)verify::conv_problem(c), InputError);
  EXPECT_FALSE(verify::op_expected_of(c).empty());
  // A conv solver on an op case: unsupported, naming both ops.
  const verify::CaseRecord rec = verify::run_case(c, *verify::make_fast_reference_solver(), f);
  EXPECT_EQ(rec.verdict.status, verify::Status::unsupported);
  EXPECT_EQ(rec.verdict.reason, "solver of op conv, problem of op activ");
}

}  // namespace
}  // namespace hiprim::verify_test
