// ctc.alpha_beta on the device (skips without a GPU): every ctc problem of smoke_ops, ops and
// test_ctc::kProblems through the runner within reference/ctc.hpp's bound, and the data rules (a
// broken sequence gets NaN outputs; the others are bit-identical) in guarded device buffers.
#include <gtest/gtest.h>

#include "gpu/ctc/solvers.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/ctc_cases.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "tests/gpu/op_device_run.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

namespace hiprim {
namespace {

TEST(CtcGpu, PassesEveryProblemWithinTheBound) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::vector<OpProblemPtr> problems;
  for (const char* suite : {"smoke_ops", "ops"})
    for (const auto& p : test_ops::op_problems({}, suite))
      if (p->op() == "ctc") problems.push_back(p);
  for (const auto& p : test_ops::op_problems(test_ctc::kProblems)) problems.push_back(p);
  const auto ran = test_ops::expect_solvers_pass(problems, gpu::ctc_solvers());
  EXPECT_EQ(ran.at("ctc.alpha_beta"), static_cast<int>(problems.size()));
}

TEST(CtcGpu, DataRuleViolationsGiveNaNForThatSequenceOnly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  test_ctc::expect_data_rules_give_nan(*gpu::ctc_solvers()[0], gputest::run_op_on_device);
}

}  // namespace
}  // namespace hiprim
