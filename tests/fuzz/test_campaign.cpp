// Campaigns: determinism and shards, retirement, time limits, corpus files, reports and their merge.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/conv_target.hpp"
#include "fuzz/corpus.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "verify/report.hpp"
#include "verify/solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

fuzz::FuzzTargetPtr target_of(Bug b) { return std::make_shared<fuzz::ConvFuzzTarget>(make_host_mutant(b), fuzz::ConvTargetOptions{}); }

fuzz::CampaignResult run(std::vector<fuzz::FuzzTargetPtr> targets, std::int64_t cases, fuzz::Shard shard = {}, std::uint64_t seed = 5) {
  fuzz::CampaignOptions o;
  o.seed = seed;
  o.max_cases = cases;
  o.shard = shard;
  return fuzz::run_campaign(targets, o);
}

TEST(FuzzCampaign, ShardsSplitTheSameCasesAsOneRun) {
  const auto whole = run({target_of(Bug::none)}, 120);
  const auto a = run({target_of(Bug::none)}, 120, {0, 2});
  const auto b = run({target_of(Bug::none)}, 120, {1, 2});
  EXPECT_EQ(a.cases + a.discards + b.cases + b.discards, whole.cases + whole.discards);
  EXPECT_EQ(whole.cases + whole.discards, 120);
  for (auto& [cls, n] : whole.targets[0].coverage) EXPECT_EQ(a.targets[0].coverage.at(cls) + b.targets[0].coverage.at(cls), n) << cls;
  // And a rerun is identical.
  const auto again = run({target_of(Bug::none)}, 120);
  EXPECT_EQ(again.targets[0].coverage, whole.targets[0].coverage);
  EXPECT_EQ(again.targets[0].statuses, whole.targets[0].statuses);
}

TEST(FuzzCampaign, CasesAreSpreadOverTargetsAndFailuresStayWithTheirTarget) {
  const auto r = run({target_of(Bug::none), target_of(Bug::dropped_tail)}, 200);
  ASSERT_EQ(r.targets.size(), 2u);
  EXPECT_GT(r.targets[0].cases, 0);
  EXPECT_TRUE(r.targets[1].retired);  // max 3 failures of the solver proper
  EXPECT_EQ(r.targets[0].statuses.count("failed"), 0u);
  for (auto& f : r.failures) EXPECT_EQ(f.target, "mutant.dropped_tail");
  EXPECT_EQ(r.failures.size(), 3u);
}

class RefusesEverything final : public ConvSolver {
 public:
  std::string name() const override { return "test.refuses"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "refuses every problem"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  Applicability applicable(const ConvProblem&) const override { return Applicability::no("never"); }
  void run(const ConvProblem&, const ConvTensors&) const override {}
};

TEST(FuzzCampaign, ATargetThatRefusesEverythingIsRetiredNotLoopedOn) {
  fuzz::CampaignOptions o;
  o.max_seconds = 30;
  o.max_consecutive_discards = 50;
  auto t = std::make_shared<fuzz::ConvFuzzTarget>(std::make_shared<RefusesEverything>(), fuzz::ConvTargetOptions{});
  const auto r = fuzz::run_campaign({t}, o);
  EXPECT_TRUE(r.targets[0].retired);
  EXPECT_EQ(r.discards, 50);
  EXPECT_NE(r.targets[0].retired_reason.find("never"), std::string::npos);
  EXPECT_LT(r.seconds, 10);
}

TEST(FuzzCampaign, TimeLimitStopsTheCampaign) {
  fuzz::CampaignOptions o;
  o.max_seconds = 0.5;
  const auto r = fuzz::run_campaign({target_of(Bug::none)}, o);
  EXPECT_GT(r.cases, 0);
  EXPECT_LT(r.seconds, 5);
  EXPECT_THROW(fuzz::run_campaign({target_of(Bug::none)}, fuzz::CampaignOptions{}), InputError);  // no limit at all
}

TEST(FuzzCampaign, FailuresGoToTheCorpusAndTheReportConformsToTheSchema) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hiprim_campaign_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fuzz::CampaignOptions o;
  o.max_cases = 300;
  o.corpus_dir = dir.string();
  o.max_failures_per_target = 1;
  int ticks = 0;
  const auto r = fuzz::run_campaign({target_of(Bug::dw_overwrite)}, o, [&](const fuzz::Progress&) { ++ticks; }, 0.0);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_GT(ticks, 1);
  const auto entries = fuzz::load_corpus_dir(dir.string());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].repro.str(), fuzz::parse_repro_line(r.failures[0].shrunk.repro).str());
  const auto report = fuzz::fuzz_report(r, o, "conv", "test");
  const auto errs = verify::check_report_schema(report);
  EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  EXPECT_EQ(report["summary"]["failed"], 1);
  EXPECT_EQ(report["cases"][0]["fuzz"]["corpus_file"], entries[0].source);
  EXPECT_EQ(report["campaign"]["targets"][0]["solver"], "mutant.dw_overwrite");
  fs::remove_all(dir);
}

TEST(FuzzCampaign, MergedShardCampaignsAddUp) {
  fuzz::CampaignOptions o0, o1;
  o0.max_cases = o1.max_cases = 100;
  o0.shard = {0, 2};
  o1.shard = {1, 2};
  const auto a = fuzz::run_campaign({target_of(Bug::none)}, o0), b = fuzz::run_campaign({target_of(Bug::none)}, o1);
  const auto m = fuzz::merge_fuzz_campaigns({fuzz::fuzz_report(a, o0, "conv", "a")["campaign"], fuzz::fuzz_report(b, o1, "conv", "b")["campaign"]});
  EXPECT_EQ(m["cases"], a.cases + b.cases);
  EXPECT_EQ(m["shards"].size(), 2u);
  EXPECT_EQ(m["targets"].size(), 1u);
  for (auto& [cls, n] : m["targets"][0]["coverage"].items())
    EXPECT_EQ(n.get<std::int64_t>(), a.targets[0].coverage.at(cls) + b.targets[0].coverage.at(cls)) << cls;
  EXPECT_THROW(fuzz::merge_fuzz_campaigns({nlohmann::json{{"cases", "x"}}}), InputError);
  // A merged campaign merges again (the H200 run merged per-op reports that were each merged over
  // GPU workers): its shards are carried over, the counts add up, and the ops are listed.
  auto other = fuzz::fuzz_report(a, o0, "pool", "c")["campaign"];
  const auto twice = fuzz::merge_fuzz_campaigns({m, other});
  EXPECT_EQ(twice["cases"], m["cases"].get<std::int64_t>() + a.cases);
  EXPECT_EQ(twice["shards"].size(), 3u);
  EXPECT_EQ(twice["op"], "conv,pool");
}

TEST(FuzzCampaign, AFailureOfASpecialValueClassIsReportedOnceAndNoLongerDrawn) {
  // The flush-to-zero solver fails special subnormal data (test_special.cpp): the campaign reports
  // that kind once, stops drawing it, and keeps fuzzing the solver.
  auto t = std::make_shared<fuzz::ConvFuzzTarget>(make_flush_to_zero_solver(), fuzz::ConvTargetOptions{});
  fuzz::CampaignOptions o;
  o.max_cases = 400;
  const auto r = fuzz::run_campaign({t}, o);
  // (fp16 bounded data can have subnormal outputs too: those are failures of the solver proper.)
  int subnormal = 0;
  for (auto& f : r.failures) {
    if (f.failure_class.empty()) continue;
    EXPECT_EQ(f.failure_class, "special:subnormal") << f.shrunk.repro;
    ++subnormal;
  }
  EXPECT_EQ(subnormal, 1);
  EXPECT_FALSE(r.targets[0].retired);
  EXPECT_EQ(r.cases + r.discards, 400);
}

}  // namespace
}  // namespace hiprim::fuzz_test
