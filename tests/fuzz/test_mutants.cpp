// Proof that the fuzzer bites: every CPU mutant (tests/fuzz/mutant_conv.hpp) is caught within a
// bounded number of cases and shrunk to a small problem whose repro line fails again on the mutant
// and passes on the bug-free control. The control itself survives a campaign (special values
// included), so the catches are the bugs', not the harness's.
#include <gtest/gtest.h>

#include "fuzz/corpus.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "tests/fuzz/mutant_hunt.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz_test {
namespace {

// Bounds the fuzzer must meet: each bug is caught within kMaxCases cases of every one of kSeeds
// campaign seeds, and its shrunk case has at most kMaxShrunkMacs multiply-accumulates (a few output
// elements with a few terms each).
constexpr std::int64_t kMaxCases = 2000;
constexpr double kMaxShrunkMacs = 64;
constexpr std::int64_t kControlCases = 1500;
constexpr std::uint64_t kSeeds = 8;

// hunts()[i][s]: mutant all_bugs()[i] hunted with campaign seed s + 1.
const std::vector<MutantHunts>& all_hunts() {
  static const std::vector<MutantHunts> all = [] {
    std::vector<MutantHunts> v;
    for (Bug b : all_bugs()) {
      MutantHunts by_seed;
      for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) by_seed.push_back(hunt(make_host_mutant(b), bug_description(b), kMaxCases, seed));
      v.push_back(std::move(by_seed));
    }
    return v;
  }();
  return all;
}

// The seed-1 hunt of each mutant.
const std::vector<Hunt>& hunts() {
  static const std::vector<Hunt> first = [] {
    std::vector<Hunt> v;
    for (auto& by_seed : all_hunts()) v.push_back(by_seed.front());
    return v;
  }();
  return first;
}

const Hunt& control() {
  static const Hunt c = hunt(make_host_mutant(Bug::none), bug_description(Bug::none), kControlCases);
  return c;
}

TEST(FuzzMutants, ControlSurvivesACampaignWithSpecialValues) {
  const Hunt& c = control();
  EXPECT_EQ(c.result.cases, kControlCases);
  for (const auto& f : c.result.failures) ADD_FAILURE() << "control failed: " << f.shrunk.repro << ": " << f.shrunk.verdict.reason;
  // The control saw the corners, special values included.
  const auto& cov = c.result.targets.at(0).coverage;
  for (const char* cls : {"special:nan", "special:inf", "special:subnormal", "special:huge", "pad_ge_half_filter", "trans", "3d", "depthwise"})
    EXPECT_GT(cov.at(cls), 0) << cls;
}

TEST(FuzzMutants, EveryMutantIsCaughtAndShrunk) {
  const auto control_solver = make_host_mutant(Bug::none);
  for (std::size_t i = 0; i < hunts().size(); ++i) {
    const Hunt& h = hunts()[i];
    const auto mutant = make_host_mutant(all_bugs()[i]);
    SCOPED_TRACE(h.solver);
    const fuzz::Failure* f = h.catch_failure();
    ASSERT_NE(f, nullptr) << h.solver << " survived " << h.result.cases << " cases";
    EXPECT_LE(f->cases_to_catch, kMaxCases);
    EXPECT_LE(f->shrunk_size, kMaxShrunkMacs) << f->shrunk.problem;
    EXPECT_LE(f->shrunk_size, f->found_size);
    EXPECT_EQ(f->shrunk.verdict.status, verify::Status::failed) << f->shrunk.verdict.reason;
    // The repro line alone reruns it: still failing on the mutant, passing on the control.
    const fuzz::ReproLine line = fuzz::parse_repro_line(f->shrunk.repro);
    EXPECT_EQ(line.solver, h.solver);
    EXPECT_EQ(line.problem, f->shrunk.problem);
    const fuzz::ConvCase c = fuzz::conv_case_from_repro(line);
    EXPECT_EQ(fuzz::run_conv_case(c, *mutant).verdict.status, verify::Status::failed);
    EXPECT_NE(fuzz::run_conv_case(c, *control_solver).verdict.status, verify::Status::failed) << "the shrunk case fails without the bug";
    std::printf("%-26s caught after %4lld cases (%.3f s); shrunk %8.0f -> %3.0f MACs: %s\n", h.solver.c_str(),
                static_cast<long long>(f->cases_to_catch), h.result.seconds, f->found_size, f->shrunk_size, f->shrunk.repro.c_str());
  }
  const std::string path = write_mutant_report_if_asked(all_hunts(), control(), "test_fuzz --gtest_filter=FuzzMutants.*");
  if (!path.empty()) {
    auto errs = verify::check_report_schema(verify::read_json(path));
    EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  }
}

// A solver right on every run but not the same twice (conv.igemm.wgmma's splitk_order mutant on
// the host): only the runner's repeat-run determinism check catches it, and its failures shrink.
TEST(FuzzMutants, VaryingOrderIsCaughtAsNondeterminismAndShrunk) {
  const auto mutant = make_host_mutant(Bug::varying_order);
  const Hunt h = hunt(mutant, bug_description(Bug::varying_order), kMaxCases);
  const fuzz::Failure* f = h.catch_failure();
  ASSERT_NE(f, nullptr) << h.solver << " survived " << h.result.cases << " cases";
  EXPECT_NE(f->shrunk.verdict.reason.find("second run differs"), std::string::npos) << f->shrunk.verdict.reason;
  EXPECT_LE(f->shrunk_size, f->found_size);
  const fuzz::ConvCase c = fuzz::conv_case_from_repro(fuzz::parse_repro_line(f->shrunk.repro));
  EXPECT_EQ(fuzz::run_conv_case(c, *mutant).verdict.status, verify::Status::failed);
  EXPECT_EQ(fuzz::run_conv_case(c, *make_host_mutant(Bug::none)).verdict.status, verify::Status::passed);
  EXPECT_EQ(fuzz::run_conv_case(c, *mutant, /*check_determinism=*/false).verdict.status, verify::Status::passed)
      << "right on every single run: only the determinism check sees it";
  std::printf("%-26s caught after %4lld cases; shrunk %.0f -> %.0f MACs: %s\n  %s\n", h.solver.c_str(),
              static_cast<long long>(f->cases_to_catch), f->found_size, f->shrunk_size, f->shrunk.repro.c_str(), f->shrunk.verdict.reason.c_str());
}

TEST(FuzzMutants, EverySeedCatchesEveryMutantWithinTheBound) {
  for (const MutantHunts& by_seed : all_hunts())
    for (std::size_t s = 0; s < by_seed.size(); ++s) {
      const fuzz::Failure* f = by_seed[s].catch_failure();
      ASSERT_NE(f, nullptr) << by_seed[s].solver << " survived seed " << s + 1;
      EXPECT_LE(f->cases_to_catch, kMaxCases);
      EXPECT_LE(f->shrunk_size, kMaxShrunkMacs) << by_seed[s].solver << " seed " << s + 1 << ": " << f->shrunk.problem;
    }
}

// Bug-specific shapes of the minimal cases: each shrinks to the feature that exposes it.
TEST(FuzzMutants, ShrunkCasesKeepOnlyTheTriggeringFeature) {
  for (const Hunt& h : hunts()) {
    const fuzz::Failure* f = h.catch_failure();
    ASSERT_NE(f, nullptr) << h.solver;
    const ConvProblem p = parse_conv_problem(f->shrunk.problem);
    SCOPED_TRACE(f->shrunk.problem);
    if (h.solver == "mutant.bwd_data_stride") {
      EXPECT_EQ(p.dir, ConvDir::bwd_data);
      EXPECT_NE(p.stride[0], p.stride[1]);
    } else if (h.solver == "mutant.bf16_truncation") {
      EXPECT_EQ(p.dtype, DType::bf16);
    } else if (h.solver == "mutant.dw_overwrite") {
      EXPECT_EQ(p.dir, ConvDir::bwd_weights);
      EXPECT_GE(p.n, 2);
    } else if (h.solver == "mutant.group_offset") {
      EXPECT_GT(p.groups, 1);
    } else if (h.solver == "mutant.dropped_tail") {
      EXPECT_EQ(p.n * p.c * p.k, 1);  // one element of everything: the whole output is a tail
    }
    // Shrinking simplifies the data too: no special values are needed for these bugs.
    EXPECT_TRUE(f->failure_class.empty());
    EXPECT_EQ(f->shrunk.repro.find("--special"), std::string::npos);
  }
}

}  // namespace
}  // namespace hiprim::fuzz_test

namespace hiprim::fuzz_test {
namespace {

// The committed corpus keeps the catches: every mutant fails at least one committed entry, while
// CommittedCorpusReplaysClean (test_corpus.cpp) shows the real solvers pass them all.
TEST(FuzzMutants, CommittedCorpusCatchesEveryMutant) {
  const auto entries = fuzz::embedded_corpus();
  for (Bug b : all_bugs()) {
    const auto mutant = make_host_mutant(b);
    int failed = 0;
    for (const auto& e : entries)
      if (e.repro.op() == "conv")
        failed += fuzz::run_conv_case(fuzz::conv_case_from_repro(e.repro), *mutant).verdict.status == verify::Status::failed;
    EXPECT_GT(failed, 0) << mutant->name() << " passes the whole committed corpus";
  }
}

}  // namespace
}  // namespace hiprim::fuzz_test
