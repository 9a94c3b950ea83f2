// hiprim report diff (the CI gate) and merge: regressions by status and by time, bad input, and the
// recomputed summary, best marks and totals of merged reports.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench_report.hpp"
#include "report/report_diff.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using hiprim::testutil::kFwd1x1;
using hiprim::testutil::kFwd3x3;
using nlohmann::json;

namespace {

bool any_contains(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

json perf_of(double median_a, double median_b) {
  json cases = json::array({testutil::perf_case(kFwd3x3, "a", Status::passed, median_a, 1),
                            testutil::perf_case(kFwd3x3, "b", Status::passed, median_b, 1)});
  mark_best(cases);
  return testutil::perf_report(cases);
}

}  // namespace

TEST(ReportDiff, ParseSlowdown) {
  EXPECT_DOUBLE_EQ(parse_slowdown("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_slowdown("2.5"), 0.025);
  EXPECT_DOUBLE_EQ(parse_slowdown("0%"), 0.0);
  for (const char* bad : {"", "%", "abc", "-1%", "5%%", "1e999", "5 %"}) EXPECT_THROW(parse_slowdown(bad), InputError) << bad;
}

TEST(ReportDiff, StatusRegressionsFailTheGate) {
  using testutil::record;
  const json old_r = testutil::conf_report({record(kFwd3x3, "s1", Status::passed), record(kFwd3x3, "s2", Status::passed),
                                            record(kFwd3x3, "s3", Status::failed), record(kFwd1x1, "s1", Status::passed),
                                            record(kFwd1x1, "s4", Status::unsupported)});
  const json new_r = testutil::conf_report({record(kFwd3x3, "s1", Status::passed), record(kFwd3x3, "s2", Status::failed, "bad element"),
                                            record(kFwd3x3, "s3", Status::passed), record(kFwd1x1, "s4", Status::unsupported),
                                            record(kFwd1x1, "s5", Status::passed)});
  const DiffResult d = diff_reports(old_r, new_r, 0.05);
  EXPECT_EQ(d.regressions.size(), 2u);
  EXPECT_TRUE(any_contains(d.regressions, "passed -> failed: " + kFwd3x3 + " [s2]: bad element"));
  EXPECT_TRUE(any_contains(d.regressions, "repro: hiprim repro"));
  EXPECT_TRUE(any_contains(d.regressions, "passed -> missing: " + kFwd1x1 + " [s1]"));
  EXPECT_TRUE(any_contains(d.notes, "failed -> passed"));
  EXPECT_TRUE(any_contains(d.notes, "new case (passed)"));
  EXPECT_EQ(d.compared, 4);
  // The same report against itself: nothing to report.
  const DiffResult same = diff_reports(new_r, new_r, 0.0);
  EXPECT_TRUE(same.regressions.empty());
}

TEST(ReportDiff, RepeatedKeysTakeTheWorstStatus) {
  using testutil::record;
  const json old_r = testutil::conf_report({record(kFwd3x3, "s", Status::passed)});
  const json new_r = testutil::conf_report({record(kFwd3x3, "s", Status::passed), record(kFwd3x3, "s", Status::error, "boom")});
  EXPECT_EQ(diff_reports(old_r, new_r, 0.05).regressions.size(), 1u);
}

TEST(ReportDiff, SlowdownsBeyondTheLimitFailTheGate) {
  const json old_r = perf_of(1.0, 2.0);
  DiffResult d = diff_reports(old_r, perf_of(1.06, 2.08), 0.05);  // +6% fails, +4% does not
  ASSERT_EQ(d.regressions.size(), 1u);
  EXPECT_NE(d.regressions[0].find("slower +6.0%"), std::string::npos) << d.regressions[0];
  EXPECT_NE(d.regressions[0].find("[a]"), std::string::npos);
  EXPECT_EQ(d.timed, 2);
  d = diff_reports(old_r, perf_of(0.5, 2.0), 0.05);
  EXPECT_TRUE(d.regressions.empty());
  EXPECT_TRUE(any_contains(d.notes, "faster -50.0%"));
  EXPECT_EQ(diff_reports(old_r, perf_of(1.06, 2.0), 0.10).regressions.size(), 0u);
}

TEST(ReportDiff, BadInputIsAnInputError) {
  const json conf = testutil::conf_report({testutil::record(kFwd3x3, "s", Status::passed)});
  EXPECT_THROW(diff_reports(conf, perf_of(1, 1), 0.05), InputError);  // kinds differ
  json broken = conf;
  broken["summary"]["passed"] = 7;
  EXPECT_THROW(diff_reports(broken, conf, 0.05), InputError);
  EXPECT_THROW(diff_reports(json::array(), conf, 0.05), InputError);
}

TEST(ReportMerge, ConcatenatesAndRecomputes) {
  using testutil::record;
  const json a = testutil::conf_report({record(kFwd3x3, "s1", Status::passed), record(kFwd3x3, "s2", Status::failed)});
  const json b = testutil::conf_report({record(kFwd1x1, "s1", Status::passed)});
  const json m = merge_reports({a, b}, {"a.json", "b.json"}, "hiprim report merge a.json b.json -o m.json");
  EXPECT_TRUE(check_report_schema(m).empty());
  EXPECT_EQ(m["cases"].size(), 3u);
  EXPECT_EQ(m["summary"]["total"], 3);
  EXPECT_EQ(m["summary"]["passed"], 2);
  EXPECT_EQ(m["summary"]["failed"], 1);
  EXPECT_EQ(m["cases"][2]["problem"], kFwd1x1);  // sources' order
  ASSERT_EQ(m["merged_from"].size(), 2u);
  EXPECT_EQ(m["merged_from"][1]["name"], "b.json");
  EXPECT_EQ(m["merged_from"][1]["cases"], 1);
  EXPECT_EQ(m["command"], "hiprim report merge a.json b.json -o m.json");
  EXPECT_THROW(merge_reports({a, perf_of(1, 1)}, {"a.json", "p.json"}, "x"), InputError);
  EXPECT_THROW(merge_reports({}, {}, "x"), InputError);
}

TEST(ReportMerge, PerformanceBestAndTotalsSpanTheSources) {
  // The same problem timed in two shards: the merged report keeps one best, the faster.
  json s1 = json::array({testutil::perf_case(kFwd3x3, "a", Status::passed, 2.0, 3)});
  json s2 = json::array({testutil::perf_case(kFwd3x3, "b", Status::passed, 1.0, 3)});
  mark_best(s1), mark_best(s2);
  json r2 = testutil::perf_report(s2);
  r2["ceilings"]["gemm"]["fp32"] = json{{"tflops", 50.0}, {"source", "test"}};
  r2["ceilings"]["gemm"]["bf16"]["tflops"] = 1.0;  // the first source's bf16 ceiling wins
  const json m = merge_reports({testutil::perf_report(s1), r2}, {"1", "2"}, "merge");
  EXPECT_DOUBLE_EQ(m["ceilings"]["gemm"]["bf16"]["tflops"].get<double>(), 700.0);
  EXPECT_DOUBLE_EQ(m["ceilings"]["gemm"]["fp32"]["tflops"].get<double>(), 50.0);
  EXPECT_TRUE(check_report_schema(m).empty());
  EXPECT_FALSE(m["cases"][0]["best"].get<bool>());
  EXPECT_TRUE(m["cases"][1]["best"].get<bool>());
  for (const auto& t : m["totals"])
    if (t["dir"] == "fwd") {
      EXPECT_DOUBLE_EQ(t["hiprim_ms"].get<double>(), 3 * 1.0);
    }
}
