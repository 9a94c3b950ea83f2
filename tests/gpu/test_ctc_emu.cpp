// ctc.alpha_beta (gpu/ctc/ctc_alpha_beta.hip) compiled for the host emulation of the HIP layer
// (tests/gpu/emu: every thread of a block a CPU thread meeting the others at __syncthreads(), warpSize
// 64), through the runner against the CPU reference and its fp32 error bound (reference/ctc.hpp):
// every ctc problem of smoke_ops and ops (ops in all three dtypes) and test_ctc::kProblems, with the
// fills' mix of sequences (L_b = 0, T_b = 1, repeats, full length). Two mutants of the same source
// (HIPRIM_CTC_MUTANT: a repeated label allowed to skip its blank; beta reading log y one step early)
// must fail; a sequence that breaks a data rule gets NaN outputs and leaves the others unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "emu/emulated_solver.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/op_primitive.hpp"
#include "tests/gpu/ctc_cases.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "verify/runner.hpp"

namespace hiprim {
namespace gpu_emu {  // the emulated build of hiprim::gpu (-Dgpu=gpu_emu)
OpSolverList ctc_solvers();
}
namespace gpu_emu_ctc_skip {  // HIPRIM_CTC_MUTANT 1
OpSolverList ctc_solvers();
}
namespace gpu_emu_ctc_beta {  // HIPRIM_CTC_MUTANT 2
OpSolverList ctc_solvers();
}

namespace {

std::vector<OpProblemPtr> ctc_problems() {
  std::vector<OpProblemPtr> v;
  for (const char* suite : {"smoke_ops", "ops"})
    for (const auto& p : test_ops::op_problems({}, suite))
      if (p->op() == "ctc") v.push_back(p);
  for (const auto& p : test_ops::op_problems(test_ctc::kProblems)) v.push_back(p);
  return v;
}

OpSolverList emulated(const OpSolverList& l) {
  OpSolverList out;
  for (const auto& s : l) out.push_back(std::make_shared<EmulatedOpSolver>(s));
  return out;
}

TEST(CtcEmulated, PassesEveryProblemWithinTheBound) {
  const auto problems = ctc_problems();
  ASSERT_GE(problems.size(), 20u);
  const auto ran = test_ops::expect_solvers_pass(problems, emulated(gpu_emu::ctc_solvers()));
  ASSERT_EQ(ran.count("ctc.alpha_beta"), 1u);
  EXPECT_EQ(ran.at("ctc.alpha_beta"), static_cast<int>(problems.size()));
  // How much of the bound the fp32 evaluation uses (informative: the bound is worst case).
  double worst = 0;
  for (const auto& p : test_ops::op_problems({"ctc fp32 t60 n8 c100 l25 blank99 softmax", "ctc fp32 t40 n6 c33 l15 blank16 probs"})) {
    verify::PreparedCase c(p, {});
    const auto r = verify::run_case(c, *emulated(gpu_emu::ctc_solvers())[0], {});
    worst = std::max(worst, r.verdict.metrics.worst_ratio);
  }
  std::printf("ctc.alpha_beta (emulated): largest error/bound %.3g\n", worst);
}

// Each mutant fails on some problem (and the verdict says the values are out of their bound).
TEST(CtcEmulated, MutantsFail) {
  for (const auto& [name, solvers] : {std::pair{"skip rule without the repeat check", gpu_emu_ctc_skip::ctc_solvers()},
                                      std::pair{"beta reads log y at t instead of t+1", gpu_emu_ctc_beta::ctc_solvers()}}) {
    int failed = 0, ran = 0;
    for (const auto& p : ctc_problems()) {
      verify::PreparedCase c(p, {});
      const auto r = verify::run_case(c, *emulated(solvers)[0], {});
      ++ran;
      failed += r.verdict.status == verify::Status::failed ? 1 : 0;
      if (r.verdict.status == verify::Status::failed && failed == 1) std::printf("  first catch: %s: %s\n", r.repro.c_str(), r.verdict.reason.substr(0, 160).c_str());
    }
    EXPECT_GT(failed, 0) << "mutant (" << name << ") passed all " << ran << " problems";
    std::printf("mutant (%s): failed %d of %d problems\n", name, failed, ran);
  }
}

// The fuzz campaign's first kCases cases of seed 1 (its generator, its fills with each case's seed:
// shapes up to T, L = 300, C = 65, every blank position and dtype) through the op fuzz target of the
// emulated solver: every case passes; the same cases catch each mutant.
TEST(CtcEmulated, FuzzCampaignCasesPassAndCatchTheMutants) {
  constexpr std::uint64_t kCases = 40;
  auto run_cases = [](const OpSolverList& solvers) {
    const auto t = fuzz::op_fuzz_target(emulated(solvers)[0]);
    int failed = 0;
    for (std::uint64_t i = 0; i < kCases; ++i) {
      const std::uint64_t key = fuzz::case_key(1, i);
      const auto spec = t->generate(rc::Random(key), 10 + static_cast<int>(key % 91)).value();
      const auto r = t->run(*spec);
      failed += r.verdict.status == verify::Status::passed ? 0 : 1;
      if (r.verdict.status == verify::Status::error) ADD_FAILURE() << r.repro << ": " << r.verdict.reason;
    }
    return failed;
  };
  EXPECT_EQ(run_cases(gpu_emu::ctc_solvers()), 0);
  EXPECT_GT(run_cases(gpu_emu_ctc_skip::ctc_solvers()), 0);
  EXPECT_GT(run_cases(gpu_emu_ctc_beta::ctc_solvers()), 0);
}

// The bound is not vacuous: on the smoke problems, the loss bound is below 1e-5 of the loss and the
// gradient bound below 1e-4 of max(1, |gradient|) (fp32 storage): a wrong recursion is off by far more.
TEST(CtcEmulated, BoundIsTightOnSmallProblems) {
  for (const auto& p : test_ops::op_problems({}, "smoke_ops")) {
    if (p->op() != "ctc" || p->str().find("fp32") == std::string::npos) continue;
    const auto in = verify::op_fill(*p, 1);
    const auto e = ref::op_expected(*p, {&in[0], &in[1], &in[2], &in[3], nullptr, nullptr});
    for (std::size_t i = 0; i < e[0].value.size(); ++i)
      if (std::isfinite(e[0].value[i])) EXPECT_LT(e[0].bound[i], 1e-5 * std::max(1.0, e[0].value[i])) << p->str() << " loss " << i;
    for (std::size_t i = 0; i < e[1].value.size(); ++i)
      EXPECT_LT(e[1].bound[i], 1e-4 * std::max(1.0, std::fabs(e[1].value[i]))) << p->str() << " grad " << i;
  }
}

// The solver on host tensors (the emulated kernels' device memory is host memory).
std::vector<HostTensor> run_emulated(const OpProblem& p, const OpSolver& s, const std::vector<HostTensor>& in) {
  const auto ts = p.tensors();
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<void*> ptrs;
  for (std::size_t i = 0; i < ts.size(); ++i) bytes.push_back(in[i].to_bytes());
  for (auto& b : bytes) ptrs.push_back(b.data());
  std::vector<unsigned char> ws(s.workspace_bytes(p) + 1);
  s.run(p, ptrs, ws.data(), ws.size(), nullptr);
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    HostTensor t(ts[i].desc);
    t.from_bytes(bytes[i].data());
    out.push_back(std::move(t));
  }
  return out;
}

// Probabilities with a zero where every alignment needs a nonzero one: the loss is +inf and the
// gradient 0 for that sequence (the reference's convention; logp = -inf on the device), the other
// sequence within the bound.
TEST(CtcEmulated, ImpossibleSequenceGivesInfiniteLossAndZeroGradient) {
  const OpProblemPtr p = parse_op_problem("ctc fp32 t4 n2 c3 l2 blank0 probs");
  auto in = verify::op_fill(*p, 1);
  in[1].data = {1, 2, 2, 1};  // sequence 0: labels 1 2, sequence 1: 2 1
  in[2].data = {2, 2};
  in[3].data = {4, 4};
  for (int t = 0; t < 4; ++t) in[0].data[(t * 2 + 0) * 3 + 2] = 0.0f;  // class 2 never occurs for sequence 0
  const auto e = ref::op_expected(*p, {&in[0], &in[1], &in[2], &in[3], nullptr, nullptr});
  ASSERT_TRUE(std::isinf(e[0].value[0]));
  const auto got = run_emulated(*p, *gpu_emu::ctc_solvers()[0], in);
  EXPECT_EQ(got[4].data[0], std::numeric_limits<float>::infinity());
  EXPECT_LE(std::fabs(got[4].data[1] - e[0].value[1]), e[0].bound[1]);
  for (std::size_t i = 0; i < got[5].data.size(); ++i) {
    const bool seq0 = (i / 3) % 2 == 0;
    if (seq0) EXPECT_EQ(got[5].data[i], 0.0f) << i;
    else EXPECT_LE(std::fabs(got[5].data[i] - e[1].value[i]), e[1].bound[i]) << i;
  }
}

TEST(CtcEmulated, DataRuleViolationsGiveNaNForThatSequenceOnly) {
  test_ctc::expect_data_rules_give_nan(*gpu_emu::ctc_solvers()[0], run_emulated);
}

}  // namespace
}  // namespace hiprim
