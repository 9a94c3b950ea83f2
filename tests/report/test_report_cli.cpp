// `hiprim report` and `hiprim bench` as a user (or CI) runs them: exit codes 0 / 1 / 2, files written.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/cli/cli_runner.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench_report.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

using test::has;
using test::exits_with;

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("hiprim_report_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    using testutil::record;
    write_json(path("old.json"), testutil::conf_report({record(testutil::kFwd3x3, "s1", Status::passed),
                                                        record(testutil::kFwd1x1, "s1", Status::passed)}));
    write_json(path("new.json"), testutil::conf_report({record(testutil::kFwd3x3, "s1", Status::passed),
                                                        record(testutil::kFwd1x1, "s1", Status::failed, "wrong")}));
    json cases = json::array({testutil::perf_case(testutil::kFwd3x3, "a", Status::passed, 1.0, 3)});
    mark_best(cases);
    attach_peer(cases, testutil::peer(0.8, Status::passed));
    write_json(path("perf.json"), testutil::perf_report(cases));
    std::ofstream(path("broken.json")) << "{\"schema\": \"hiprim.report\"}";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& f) const { return (dir_ / f).string(); }
  std::filesystem::path dir_;
};

}  // namespace

TEST_F(ReportCli, DiffExitCodes) {
  EXPECT_TRUE(exits_with("report diff " + path("old.json") + " " + path("new.json"), 1,
                         "REGRESSION: passed -> failed"));
  EXPECT_TRUE(exits_with("report diff " + path("old.json") + " " + path("old.json"), 0));
  EXPECT_TRUE(exits_with("report diff " + path("old.json") + " " + path("nonexistent.json"), 2, "nonexistent.json"));
  EXPECT_TRUE(exits_with("report diff " + path("old.json") + " " + path("new.json") + " --max-slowdown fast", 2,
                         "--max-slowdown 'fast'"));
  EXPECT_TRUE(exits_with("report diff " + path("old.json") + " " + path("perf.json"), 2));
}

TEST_F(ReportCli, MergeHtmlMarkdownValidate) {
  EXPECT_TRUE(exits_with("report merge " + path("old.json") + " " + path("new.json") + " -o " + path("m.json"), 0));
  EXPECT_TRUE(check_report_schema(read_json(path("m.json"))).empty());
  EXPECT_EQ(read_json(path("m.json"))["summary"]["total"], 4);
  EXPECT_TRUE(exits_with("report merge " + path("old.json") + " " + path("perf.json") + " -o " + path("mixed.json"), 2));

  EXPECT_TRUE(exits_with("report html " + path("perf.json"), 0));
  EXPECT_TRUE(std::filesystem::exists(path("perf.html")));
  EXPECT_TRUE(exits_with("report markdown " + path("perf.json") + " -o " + path("perf.md"), 0));
  EXPECT_TRUE(std::filesystem::exists(path("perf.time_bf16_nhwc_fwd.svg")));
  EXPECT_TRUE(std::filesystem::exists(path("perf.roofline_bf16.svg")));
  EXPECT_TRUE(exits_with("report markdown " + path("new.json"), 0, "# hiprim conformance report"));
  EXPECT_TRUE(exits_with("report summary " + path("perf.json"), 0, "hiprim ms"));

  EXPECT_TRUE(exits_with("report validate " + path("old.json") + " " + path("broken.json"), 1, "broken.json: "));
  EXPECT_TRUE(exits_with("report html " + path("broken.json"), 2));
}

TEST(BenchCli, BadFlagsExitTwo) {
  EXPECT_TRUE(exits_with("bench --verify maybe", 2));
  EXPECT_TRUE(exits_with("bench --dtype fp64", 2, "--dtype 'fp64'"));
  EXPECT_TRUE(exits_with("bench --best --solver 'conv.*'", 2));
}

TEST(BenchCli, RefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present: bench would run";
  EXPECT_TRUE(exits_with("bench --problem \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\" --peer none", 1,
                         "hiprim bench needs a GPU"));
}

TEST(BenchCli, BadOpSuiteAndBatchExitTwoNamingThem) {
  auto r = test::hiprim("bench --op froboz");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--op 'froboz'")) << r.out;
  EXPECT_TRUE(has(r.out, "bnorm")) << r.out;  // the ops are listed
  EXPECT_TRUE(has(r.out, "give an op (activ, bnorm, ctc, dropout, ")) << r.out;  // conv is not an --op list entry
  EXPECT_TRUE(exits_with("bench --op all --problem \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\"", 2,
                         "--problem 'conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3' is a convolution: time it with --op conv"));
  EXPECT_TRUE(exits_with("bench --op bnorm --suite no_such_suite", 2, "no_such_suite"));
  EXPECT_TRUE(exits_with("bench --op bnorm --batch 0", 2, "--batch"));
  EXPECT_TRUE(exits_with("bench --op bnorm --suite resnet50", 2,
                         "--op 'bnorm'"));  // a conv suite holds no bnorm problem
  r = test::hiprim("list suites");
  EXPECT_TRUE(has(r.out, "resnet50_ops (hiprim bench --op ...)")) << r.out;
  EXPECT_TRUE(exits_with("bench --suite resnet50_ops", 2, "--op all"));  // op problems without --op
}

TEST(BenchCli, OpBenchRefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present: bench would run";
  auto r = test::hiprim("bench --op relu --suite resnet50_ops --batch 2 --dtype bf16 --layout nhwc");
  EXPECT_EQ(r.code, 1) << r.out;  // as conv's bench: no usable device is exit 1
  EXPECT_TRUE(has(r.out, "hiprim bench needs a GPU")) << r.out;
}
