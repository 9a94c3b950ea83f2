// Proof that the op fuzzer bites: every op mutant (tests/fuzz/mutant_ops.hpp) is caught within a
// bounded number of cases of every campaign seed and shrunk to a small problem whose repro line
// fails again on the mutant and passes on ref.<op>; the same campaigns against ref.<op> of every
// op find nothing. A case's repro line reruns it with the same verdict.
// HIPRIM_FUZZ_OPS_MUTANT_REPORT=<path> writes the report (reports/cpu/fuzz_ops_mutants.json).
#include <gtest/gtest.h>

#include "core/bnorm_problem.hpp"
#include "core/fusion_problem.hpp"
#include "core/lrn_problem.hpp"
#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "core/softmax_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "core/error.hpp"
#include "fuzz/op_primitive.hpp"
#include "tests/fuzz/mutant_hunt.hpp"
#include "tests/fuzz/mutant_ops.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

// Each bug is caught within kMaxCases cases of each of kSeeds campaign seeds, and its shrunk case
// has at most kMaxShrunkElements tensor elements in all.
constexpr std::int64_t kMaxCases = 100;
constexpr double kMaxShrunkElements = 64;
constexpr std::int64_t kControlCases = 150;  // per op
constexpr std::uint64_t kSeeds = 4;

fuzz::FuzzTargetPtr target_of(std::shared_ptr<const OpSolver> s) {
  return fuzz::op_fuzz_target(s);
}

const std::vector<MutantHunts>& all_hunts() {
  static const std::vector<MutantHunts> all = [] {
    std::vector<MutantHunts> v;
    for (OpBug b : all_op_bugs()) {
      MutantHunts by_seed;
      for (std::uint64_t seed = 1; seed <= kSeeds; ++seed)
        by_seed.push_back(hunt_target(target_of(make_op_mutant(b)), op_bug_description(b), kMaxCases, seed));
      v.push_back(std::move(by_seed));
    }
    return v;
  }();
  return all;
}

// ref.<op> of every fuzzed op, kControlCases cases each (seed 1), as one hunt.
const Hunt& control() {
  static const Hunt c = [] {
    Hunt all;
    all.solver = "ref.<op> of every fuzzed op";
    all.bug = "none";
    for (const std::string& op : fuzz::fuzzed_ops()) {
      const Hunt h = hunt_target(target_of(verify::make_op_reference_solver(op)), "none", kControlCases, 1);
      all.result.targets.insert(all.result.targets.end(), h.result.targets.begin(), h.result.targets.end());
      all.result.failures.insert(all.result.failures.end(), h.result.failures.begin(), h.result.failures.end());
      all.result.cases += h.result.cases;
      all.result.discards += h.result.discards;
      all.result.seconds += h.result.seconds;
    }
    return all;
  }();
  return c;
}

TEST(FuzzOpMutants, ReferenceSolversSurviveTheSameCampaigns) {
  const Hunt& c = control();
  EXPECT_EQ(c.result.cases, kControlCases * static_cast<std::int64_t>(fuzz::fuzzed_ops().size()));
  EXPECT_EQ(c.result.discards, 0);
  for (const auto& f : c.result.failures) ADD_FAILURE() << "reference failed: " << f.shrunk.repro << ": " << f.shrunk.verdict.reason;
  // The corners were visited.
  for (const auto& t : c.result.targets) {
    std::int64_t covered = 0;
    for (auto& [cls, n] : t.coverage) covered += n > 0 ? 1 : 0;
    EXPECT_GE(static_cast<double>(covered), 0.8 * static_cast<double>(t.coverage.size())) << t.solver;
  }
}

TEST(FuzzOpMutants, EveryMutantIsCaughtAndShrunk) {
  for (std::size_t i = 0; i < all_hunts().size(); ++i) {
    const OpBug bug = all_op_bugs()[i];
    const Hunt& h = all_hunts()[i].front();
    SCOPED_TRACE(h.solver);
    const fuzz::Failure* f = h.catch_failure();
    ASSERT_NE(f, nullptr) << h.solver << " survived " << h.result.cases << " cases";
    EXPECT_LE(f->cases_to_catch, kMaxCases);
    EXPECT_LE(f->shrunk_size, kMaxShrunkElements) << f->shrunk.problem;
    EXPECT_LE(f->shrunk_size, f->found_size);
    EXPECT_EQ(f->shrunk.verdict.status, verify::Status::failed) << f->shrunk.verdict.reason;
    // The repro line alone reruns it: failing on the mutant, passing on the reference.
    const fuzz::OpCase c = fuzz::op_case_from_repro(fuzz::parse_repro_line(f->shrunk.repro));
    EXPECT_EQ(c.problem->str(), f->shrunk.problem);
    EXPECT_EQ(fuzz::run_op_fuzz_case(c, *make_op_mutant(bug)).verdict.status, verify::Status::failed);
    EXPECT_EQ(fuzz::run_op_fuzz_case(c, *verify::make_op_reference_solver(op_bug_op(bug))).verdict.status, verify::Status::passed)
        << "the shrunk case fails without the bug";
    std::printf("%-36s caught after %4lld cases (%.3f s); shrunk %7.0f -> %3.0f elements: %s\n", h.solver.c_str(),
                static_cast<long long>(f->cases_to_catch), h.result.seconds, f->found_size, f->shrunk_size, f->shrunk.repro.c_str());
  }
  const std::string path = write_mutant_report_if_asked(all_hunts(), control(), "HIPRIM_FUZZ_OPS_MUTANT_REPORT=<path> test_fuzz_ops --gtest_filter='FuzzOpMutants.*'",
                                                        "ops", "HIPRIM_FUZZ_OPS_MUTANT_REPORT");
  if (!path.empty()) {
    auto errs = verify::check_report_schema(verify::read_json(path));
    EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  }
}

TEST(FuzzOpMutants, EverySeedCatchesEveryMutantWithinTheBound) {
  for (const MutantHunts& by_seed : all_hunts())
    for (std::size_t s = 0; s < by_seed.size(); ++s) {
      const fuzz::Failure* f = by_seed[s].catch_failure();
      ASSERT_NE(f, nullptr) << by_seed[s].solver << " survived seed " << s + 1;
      EXPECT_LE(f->cases_to_catch, kMaxCases);
      EXPECT_LE(f->shrunk_size, kMaxShrunkElements) << by_seed[s].solver << " seed " << s + 1 << ": " << f->shrunk.problem;
    }
}

// Each shrunk case keeps the feature that triggers its bug.
TEST(FuzzOpMutants, ShrunkCasesKeepTheTriggeringFeature) {
  for (std::size_t i = 0; i < all_hunts().size(); ++i) {
    const fuzz::Failure* f = all_hunts()[i].front().catch_failure();
    ASSERT_NE(f, nullptr);
    const OpProblemPtr p = parse_op_problem(f->shrunk.problem);
    SCOPED_TRACE(f->shrunk.problem);
    switch (all_op_bugs()[i]) {
      case OpBug::softmax_no_max: {
        const auto& q = *op_problem_cast<SoftmaxProblem>(*p);
        EXPECT_EQ(q.dir, SoftmaxDir::fwd);
        EXPECT_GE(q.rows(), 4);  // the fill's 1e4-magnitude rows are every 4th
        break;
      }
      case OpBug::pool_edge_window: EXPECT_EQ(op_problem_cast<PoolProblem>(*p)->dir, PoolDir::fwd); break;
      case OpBug::bnorm_biased_running_var: EXPECT_EQ(op_problem_cast<BnormProblem>(*p)->dir, BnormDir::fwd_train); break;
      case OpBug::reduce_drop_last: EXPECT_NE(op_problem_cast<ReduceProblem>(*p)->reduced_length() % 4, 0); break;
      case OpBug::tensorop_wrong_bcast: {
        const auto& q = *op_problem_cast<TensorOpProblem>(*p);
        const auto r = static_cast<std::size_t>(q.rank());
        ASSERT_GE(r, 2u);
        EXPECT_NE(q.b[r - 1] == 1, q.b[r - 2] == 1) << "exactly one of the last two dims broadcasts";
        break;
      }
      case OpBug::lrn_window_short: {
        const auto& q = *op_problem_cast<LrnProblem>(*p);
        EXPECT_EQ(q.dir, LrnDir::fwd);
        EXPECT_EQ(q.mode, LrnMode::across);
        break;
      }
      case OpBug::fusion_activ_before_add: {
        const auto& q = *op_problem_cast<FusionProblem>(*p);
        EXPECT_TRUE(q.has(FusionOp::add) && q.has(FusionOp::activ)) << "the chain keeps both the add and the activation";
        break;
      }
      case OpBug::fusion_bias_twice: EXPECT_TRUE(op_problem_cast<FusionProblem>(*p)->has(FusionOp::bias)); break;
    }
  }
}

// generated case -> record -> repro line -> parsed -> rerun: the same problem and verdict, for
// passing (ref.<op>) and failing (mutant) cases.
TEST(FuzzOpMutants, ReproLinesRoundTrip) {
  std::vector<std::shared_ptr<const OpSolver>> solvers;
  for (const std::string& op : fuzz::fuzzed_ops()) solvers.push_back(verify::make_op_reference_solver(op));
  for (OpBug b : all_op_bugs()) solvers.push_back(make_op_mutant(b));
  int failed = 0;
  for (const auto& s : solvers) {
    const auto t = target_of(s);
    for (std::uint64_t i = 0; i < 12; ++i) {
      const auto spec = t->generate(rc::Random(fuzz::case_key(5, i)), 30).value();
      const verify::CaseRecord rec = t->run(*spec);
      const fuzz::ReproLine line = fuzz::parse_repro_line(rec.repro);
      EXPECT_EQ(line.solver, s->name());
      const verify::CaseRecord again = fuzz::run_op_fuzz_case(fuzz::op_case_from_repro(line), *s);
      EXPECT_EQ(again.problem, rec.problem);
      EXPECT_EQ(again.verdict.status, rec.verdict.status) << rec.repro;
      EXPECT_EQ(again.verdict.reason, rec.verdict.reason) << rec.repro;
      failed += rec.verdict.status == verify::Status::failed;
    }
  }
  EXPECT_GT(failed, 0) << "some mutant case should fail, so failing verdicts round-trip too";
  EXPECT_THROW(fuzz::op_case_from_repro(fuzz::parse_repro_line("hiprim repro \"pool fwd max fp32 nchw n1 c1 in2x2 win2x2\" --special nan")), InputError);
  EXPECT_THROW(fuzz::op_case_from_repro(fuzz::parse_repro_line("hiprim repro \"pool fwd max fp32 nchw n1 c1 in2x2 win9x9\"")), InputError);
}

}  // namespace
}  // namespace hiprim::fuzz_test
