// `hiprim report` and `hiprim bench` as a user (or CI) runs them: exit codes 0 / 1 / 2, files written.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "tests/report/report_fixture.hpp"
#include "bench/bench_report.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

struct Run {
  int code;
  std::string out;
};

// The binary: $HIPRIM_BIN when set (binaries carried to another machine), else the build's.
Run hiprim_cmd(const std::string& args) {
  const char* env = std::getenv("HIPRIM_BIN");
  const std::string cmd = std::string(env && *env ? env : HIPRIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

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
  auto r = hiprim_cmd("report diff " + path("old.json") + " " + path("new.json"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "REGRESSION: passed -> failed")) << r.out;
  r = hiprim_cmd("report diff " + path("old.json") + " " + path("old.json"));
  EXPECT_EQ(r.code, 0) << r.out;
  r = hiprim_cmd("report diff " + path("old.json") + " " + path("nonexistent.json"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "nonexistent.json")) << r.out;
  r = hiprim_cmd("report diff " + path("old.json") + " " + path("new.json") + " --max-slowdown fast");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--max-slowdown 'fast'")) << r.out;
  r = hiprim_cmd("report diff " + path("old.json") + " " + path("perf.json"));
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST_F(ReportCli, MergeHtmlMarkdownValidate) {
  auto r = hiprim_cmd("report merge " + path("old.json") + " " + path("new.json") + " -o " + path("m.json"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(check_report_schema(read_json(path("m.json"))).empty());
  EXPECT_EQ(read_json(path("m.json"))["summary"]["total"], 4);
  r = hiprim_cmd("report merge " + path("old.json") + " " + path("perf.json") + " -o " + path("mixed.json"));
  EXPECT_EQ(r.code, 2) << r.out;

  r = hiprim_cmd("report html " + path("perf.json"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(path("perf.html")));
  r = hiprim_cmd("report markdown " + path("perf.json") + " -o " + path("perf.md"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(path("perf.time_bf16_nhwc_fwd.svg")));
  EXPECT_TRUE(std::filesystem::exists(path("perf.roofline_bf16.svg")));
  r = hiprim_cmd("report markdown " + path("new.json"));
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "# hiprim conformance report")) << r.out;
  r = hiprim_cmd("report summary " + path("perf.json"));
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "hiprim ms")) << r.out;

  r = hiprim_cmd("report validate " + path("old.json") + " " + path("broken.json"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "broken.json: ")) << r.out;
  r = hiprim_cmd("report html " + path("broken.json"));
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(BenchCli, BadFlagsExitTwo) {
  auto r = hiprim_cmd("bench --verify maybe");
  EXPECT_EQ(r.code, 2) << r.out;
  r = hiprim_cmd("bench --dtype fp64");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--dtype 'fp64'")) << r.out;
  r = hiprim_cmd("bench --best --solver 'conv.*'");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(BenchCli, RefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present: bench would run";
  auto r = hiprim_cmd("bench --problem \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\" --peer none");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim bench needs a GPU")) << r.out;
}

TEST(BenchCli, BadOpSuiteAndBatchExitTwoNamingThem) {
  auto r = hiprim_cmd("bench --op froboz");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--op 'froboz'")) << r.out;
  EXPECT_TRUE(has(r.out, "bnorm")) << r.out;  // the ops are listed
  r = hiprim_cmd("bench --op bnorm --suite no_such_suite");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "no_such_suite")) << r.out;
  r = hiprim_cmd("bench --op bnorm --batch 0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--batch")) << r.out;
  r = hiprim_cmd("bench --op bnorm --suite resnet50");  // a conv suite holds no bnorm problem
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--op 'bnorm'")) << r.out;
  r = hiprim_cmd("list suites");
  EXPECT_TRUE(has(r.out, "resnet50_ops (hiprim bench --op ...)")) << r.out;
  r = hiprim_cmd("bench --suite resnet50_ops");  // op problems without --op
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--op all")) << r.out;
}

TEST(BenchCli, OpBenchRefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present: bench would run";
  auto r = hiprim_cmd("bench --op relu --suite resnet50_ops --batch 2 --dtype bf16 --layout nhwc");
  EXPECT_EQ(r.code, 1) << r.out;  // as conv's bench: no usable device is exit 1
  EXPECT_TRUE(has(r.out, "hiprim bench needs a GPU")) << r.out;
}
