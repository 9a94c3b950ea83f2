// Campaigns: determinism and shards, retirement, time limits, corpus files, reports and their merge.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/conv_primitive.hpp"
#include "fuzz/corpus.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "verify/report.hpp"
#include "verify/solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

fuzz::FuzzTargetPtr target_of(Bug b) { return fuzz::conv_fuzz_target(make_host_mutant(b), fuzz::ConvTargetOptions{}); }

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
 protected:
  void run_checked(const ConvProblem&, const ConvTensors&) const override {}
};

TEST(FuzzCampaign, ATargetThatRefusesEverythingIsRetiredNotLoopedOn) {
  fuzz::CampaignOptions o;
  o.max_seconds = 30;
  o.max_consecutive_discards = 50;
  auto t = fuzz::conv_fuzz_target(std::make_shared<RefusesEverything>(), fuzz::ConvTargetOptions{});
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

// The bug-free direct conv, whose cases come back mistrusted when their problem string hashes to
// 0 mod 4 (the comparator's verdict on a mostly-zero output, without having to find such data).
class MistrustingTarget final : public fuzz::FuzzTarget {
 public:
  std::string op() const override { return inner_->op(); }
  std::string solver() const override { return "test.mistrusting"; }
  std::string domain() const override { return inner_->domain(); }
  std::vector<std::string> reachable_classes() const override { return inner_->reachable_classes(); }
  std::vector<fuzz::SkippedClass> skipped_classes() const override { return inner_->skipped_classes(); }
  rc::Shrinkable<fuzz::CaseSpecPtr> generate(const rc::Random& r, int size) const override { return inner_->generate(r, size); }
  verify::CaseRecord run(const fuzz::CaseSpec& c) const override {
    verify::CaseRecord rec = inner_->run(c);
    if (rec.verdict.status == verify::Status::passed && std::hash<std::string>{}(c.problem()) % 4 == 0) {
      rec.verdict.status = verify::Status::mistrusted;
      rec.verdict.reason = "90.0% of the expected values are zero (test)";
    }
    return rec;
  }
  void exclude_failure_class(const std::string& cls) override { inner_->exclude_failure_class(cls); }

 private:
  fuzz::FuzzTargetPtr inner_ = target_of(Bug::none);
};

TEST(FuzzCampaign, MistrustedCasesAreFailuresAndTheCountsAddUp) {
  fuzz::CampaignOptions o;
  o.max_cases = 200;
  o.max_shrink_runs = 20;
  const auto r = fuzz::run_campaign({std::make_shared<MistrustingTarget>(), target_of(Bug::none)}, o);
  ASSERT_EQ(r.failures.size(), 3u);  // the first three, then the target is retired
  for (const auto& f : r.failures) {
    EXPECT_EQ(f.target, "test.mistrusting");
    EXPECT_EQ(f.found.verdict.status, verify::Status::mistrusted);
    EXPECT_EQ(f.shrunk.verdict.status, verify::Status::mistrusted);  // shrunk to a smaller mistrusted case
  }
  EXPECT_TRUE(r.targets[0].retired);
  const auto report = fuzz::fuzz_report(r, o, "conv", "test");
  EXPECT_TRUE(verify::check_report_schema(report).empty());
  EXPECT_EQ(report["summary"]["mistrusted"], 3);
  const auto& c = report["campaign"];
  EXPECT_EQ(c["failures"], 3);
  EXPECT_EQ(c["statuses"]["mistrusted"], 3);
  EXPECT_EQ(c["statuses"]["failed"], 0);  // every status is listed, zeros included
  EXPECT_EQ(c["statuses"]["passed"].get<std::int64_t>() + 3, c["cases"].get<std::int64_t>());
  EXPECT_LE(c["cases"].get<std::int64_t>() + c["discards"].get<std::int64_t>(), 200);  // a retired target's share is not drawn
  EXPECT_TRUE(fuzz::campaign_count_errors(c).empty());
  // The identities catch a campaign that does not add up.
  auto broken = c;
  broken["statuses"]["passed"] = broken["statuses"]["passed"].get<std::int64_t>() - 1;
  EXPECT_FALSE(fuzz::campaign_count_errors(broken).empty());
  broken = c;
  broken["failures"] = 0;  // mistrusted cases left out of the failures
  const auto errs = fuzz::campaign_count_errors(broken);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("failed, errored or were mistrusted"), std::string::npos) << errs[0];
  broken = c;
  broken["targets"][1]["cases"] = broken["targets"][1]["cases"].get<std::int64_t>() + 1;
  EXPECT_GE(fuzz::campaign_count_errors(broken).size(), 2u);  // that target's statuses, and the targets' sum
}

TEST(FuzzCampaign, MergedShardCampaignsAddUp) {
  fuzz::CampaignOptions o0, o1;
  o0.max_cases = o1.max_cases = 100;
  o0.shard = {0, 2};
  o1.shard = {1, 2};
  const auto a = fuzz::run_campaign({target_of(Bug::none)}, o0), b = fuzz::run_campaign({target_of(Bug::none)}, o1);
  const auto m = fuzz::merge_fuzz_campaigns({fuzz::fuzz_report(a, o0, "conv", "a")["campaign"], fuzz::fuzz_report(b, o1, "conv", "b")["campaign"]});
  EXPECT_EQ(m["cases"], a.cases + b.cases);
  EXPECT_TRUE(fuzz::campaign_count_errors(m).empty());
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
  auto t = fuzz::conv_fuzz_target(make_flush_to_zero_solver(), fuzz::ConvTargetOptions{});
  fuzz::CampaignOptions o;
  o.max_cases = 400;
  // fp16 bounded data can have subnormal outputs too: those are failures of the solver proper, and
  // how many of them 400 cases hit depends on the generator's distribution; they must not retire the
  // target before the class question is answered.
  o.max_failures_per_target = 1000;
  const auto r = fuzz::run_campaign({t}, o);
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
