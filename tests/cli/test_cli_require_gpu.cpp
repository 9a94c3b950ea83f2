// A gate that could not run must not look green: cases a GPU solver could not run for want of a GPU
// (verify::not_run_no_device) are counted apart from a solver's refusal, said plainly in the summary
// and the report, and make `check` and `fuzz` exit 1 under --require-gpu.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/report.hpp"

namespace {

using hiprim::test::has;
using hiprim::test::hiprim;
using nlohmann::json;
namespace fs = std::filesystem;
namespace verify = hiprim::verify;
using verify::Status;

verify::CaseRecord unsupported(const std::string& solver, const std::string& reason) {
  verify::CaseRecord c;
  c.problem = "conv fwd fp32 nchw n1 c1 k1 in5x5 f3x3 pad0x0 str1x1 dil1x1 g1";
  c.solver = solver;
  c.verdict.status = Status::unsupported;
  c.verdict.reason = reason;
  c.repro = "hiprim repro \"" + c.problem + "\" --solver " + solver + " --seed 1";
  return c;
}

TEST(NotRunNoDevice, TellsTheMissingGpuFromASolversRefusal) {
  EXPECT_TRUE(verify::not_run_no_device(Status::unsupported, "built without a GPU backend"));
  EXPECT_TRUE(verify::not_run_no_device(Status::unsupported, "no GPU device: no usable GPU: hipGetDeviceCount failed"));
  EXPECT_FALSE(verify::not_run_no_device(Status::unsupported, "layout nchw: this solver reads NHWC only (NCHW: not yet)"));
  EXPECT_FALSE(verify::not_run_no_device(Status::unsupported, "fp32: no GPU device path for fp32"));  // a refusal naming GPUs
  EXPECT_FALSE(verify::not_run_no_device(Status::failed, "no GPU device: x"));                        // only unsupported cases
  EXPECT_FALSE(verify::backend_unavailable(hiprim::Backend::host));
  // The marker is the runner's own reason (verify/guarded_buffer.cpp): pinned here on a machine without a GPU.
  if (auto why = verify::backend_unavailable(hiprim::Backend::device)) {
    EXPECT_TRUE(verify::not_run_no_device(Status::unsupported, *why)) << *why;
  }
}

TEST(NotRunNoDevice, TheReportSummaryCountsThemAndTheCheckerHoldsItToTheCases) {
  verify::CaseRecord passed = unsupported("ref.conv.fast", "");
  passed.verdict.status = Status::passed;
  const json r = verify::conformance_report(verify::machine_json(nullptr),
                                            {unsupported("conv.naive", "no GPU device: none"), unsupported("conv.gemm.1x1", "filter 3x3: 1x1 only"),
                                             unsupported("conv.direct.tiled", "built without a GPU backend"), passed},
                                            "hiprim check");
  EXPECT_EQ(r["summary"]["unsupported"], 3);
  EXPECT_EQ(r["summary"]["not_run_no_device"], 2);
  EXPECT_TRUE(verify::check_report_schema(r).empty());
  json bad = r;
  bad["summary"]["not_run_no_device"] = 0;  // a green-looking summary over cases that did not run
  const auto errs = verify::check_report_schema(bad);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_TRUE(has(errs[0], "report.summary.not_run_no_device")) << errs[0];
  bad["summary"]["not_run_no_device"] = "two";
  EXPECT_FALSE(verify::check_report_schema(bad).empty());
  json older = r;  // version 2 reports written before the count existed stay valid
  older["summary"].erase("not_run_no_device");
  EXPECT_TRUE(verify::check_report_schema(older).empty());
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Whether the build has no GPU solvers (then nothing can fail to run for want of a GPU).
bool build_has_no_gpu_solvers() {
#ifdef HIPRIM_WITH_GPU
  return false;
#else
  return true;
#endif
}

TEST(RequireGpu, CheckSaysTheGpuSolversWereNotCheckedAndFailsUnderTheFlag) {
  if (build_has_no_gpu_solvers()) GTEST_SKIP() << "built without a GPU backend: no GPU solver to leave unrun";
  const fs::path dir = fs::temp_directory_path() / "hiprim_test_require_gpu";
  fs::create_directories(dir);
  const fs::path suite = dir / "two.txt", report = dir / "check.json", merged = dir / "merged.json";
  std::ofstream(suite) << "conv fwd fp32 nchw n1 c2 k3 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1\n"
                          "conv bwd-data fp32 nchw n1 c2 k3 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1\n";
  const std::string args = "check --suite " + suite.string() + " --solver 'conv.naive,ref.conv.fast' --report " + report.string();
  const auto why = verify::backend_unavailable(hiprim::Backend::device);
  auto r = hiprim(args);
  if (!why) {  // a GPU machine: conv.naive ran, nothing to say, and the flag changes nothing
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_FALSE(has(r.out, "did not run")) << r.out;
    EXPECT_EQ(hiprim(args + " --require-gpu").code, 0);
    return;
  }
  EXPECT_EQ(r.code, 0) << r.out;  // ref.conv.fast passed; nothing failed
  EXPECT_TRUE(has(r.out, "2 cases did not run: " + *why + "; the GPU solver (conv.naive) was NOT checked")) << r.out;
  const json rep = json::parse(read_text(report));
  EXPECT_EQ(rep["summary"]["not_run_no_device"], 2);
  EXPECT_EQ(rep["summary"]["passed"], 2);

  r = hiprim(args + " --require-gpu");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim: --require-gpu: 2 cases did not run: no GPU device")) << r.out;
  // Host solvers only: nothing needed a GPU, so the flag passes.
  r = hiprim("check --suite " + suite.string() + " --solver ref.conv.fast --require-gpu --report " + report.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(has(r.out, "did not run")) << r.out;
  // The corpus replay goes through the same gate.
  r = hiprim("check --suite corpus --solver conv.naive --require-gpu --report " + report.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "the GPU solver (conv.naive) was NOT checked")) << r.out;

  // A merged report keeps the count, and its summary says it.
  ASSERT_EQ(hiprim(args).code, 0);
  r = hiprim("report merge " + report.string() + " " + report.string() + " -o " + merged.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(json::parse(read_text(merged))["summary"]["not_run_no_device"], 4);
  r = hiprim("report summary " + merged.string());
  EXPECT_TRUE(has(r.out, "4 cases did not run: no GPU device or no GPU backend; the GPU solvers were NOT checked")) << r.out;
  fs::remove_all(dir);
}

// One rule for every primitive: without --verbose, check prints the lines of cases that failed or
// errored only; the cases that did not run for want of a GPU are counted in the summary's line.
TEST(RequireGpu, CheckHidesTheCasesThatDidNotRunOfEveryPrimitiveUnlessVerbose) {
  if (build_has_no_gpu_solvers()) GTEST_SKIP() << "built without a GPU backend: no GPU solver to leave unrun";
  const auto why = verify::backend_unavailable(hiprim::Backend::device);
  if (!why) GTEST_SKIP() << "a GPU machine: every case runs";
  const fs::path dir = fs::temp_directory_path() / "hiprim_test_check_lines";
  fs::create_directories(dir);
  const fs::path suite = dir / "mixed.txt", report = dir / "check.json";
  std::ofstream(suite) << "conv fwd fp32 nchw n1 c2 k3 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1\n"
                          "activ fwd relu fp32 nchw n1 c3 in8x8\n";
  const std::string args = "check --suite " + suite.string() + " --solver 'conv.naive,ref.conv.fast,activ.elementwise,ref.activ' --report " +
                           report.string();
  auto r = hiprim(args);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(has(r.out, "\nunsupported ")) << r.out;
  EXPECT_FALSE(has(r.out, "\npassed ")) << r.out;
  EXPECT_TRUE(has(r.out, "2 cases did not run: " + *why + "; the GPU solvers (activ.elementwise, conv.naive) were NOT checked")) << r.out;
  r = hiprim(args + " --verbose");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "\nunsupported conv.naive ")) << r.out;
  EXPECT_TRUE(has(r.out, "\nunsupported activ.elementwise ")) << r.out;
  EXPECT_TRUE(has(r.out, "\npassed      ref.activ ")) << r.out;
  fs::remove_all(dir);
}

TEST(RequireGpu, FuzzSaysTheGpuSolversWereNotFuzzedAndFailsUnderTheFlag) {
  if (build_has_no_gpu_solvers()) GTEST_SKIP() << "built without a GPU backend: no GPU solver to leave unrun";
  const std::string args = "fuzz --op activ --solver 'activ.elementwise,ref.activ' --cases 20 --shrink-runs 0";
  const auto why = verify::backend_unavailable(hiprim::Backend::device);
  auto r = hiprim(args);
  if (!why) {
    EXPECT_FALSE(has(r.out, "did not run")) << r.out;
    return;
  }
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "1 solver did not run: " + *why + "; the GPU solver (activ.elementwise) was NOT fuzzed")) << r.out;
  r = hiprim(args + " --require-gpu");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim: --require-gpu: 1 solver did not run: no GPU device")) << r.out;
}

}  // namespace
