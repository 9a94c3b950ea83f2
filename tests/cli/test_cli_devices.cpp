// `hiprim fuzz --devices N` and `hiprim check --devices N` end to end (issue 19, what the CPU machine
// can show): N worker processes (without GPUs, CPU workers), each a deterministic shard, merged into
// one report whose counters add up; a worker lost mid-run (HIPRIM_FUZZ_FAULT / HIPRIM_CHECK_FAULT =
// its label makes it abort, as a failed device would) is reported and its share re-run on the next
// device, so the merged cases are the same as without the fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "cli_runner.hpp"
#include "verify/report.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string temp_report(const std::string& name) {
  return (fs::temp_directory_path() / ("hiprim_fuzz_devices_" + std::to_string(::getpid()) + "_" + name + ".json")).string();
}

std::multiset<std::string> problems(const json& report) {
  std::multiset<std::string> s;
  for (const json& c : report.at("cases")) s.insert(c.at("problem").get<std::string>() + " | " + c.at("solver").get<std::string>());
  return s;
}

// The campaign with `env` set, every GPU hidden (the workers are CPU processes on any machine).
hiprim::test::Run campaign(const std::string& report, const std::string& env = "") {
  return hiprim::test::run_shell("CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= " + env + " " + hiprim::test::hiprim_binary() +
                                 " fuzz --op conv --solver ref.conv.fast --cases 24 --seed 7 --devices 3 --report " + report + " 2>&1");
}

TEST(FuzzDevices, ALostWorkersShardIsRerunAndNothingIsLost) {
  const std::string clean = temp_report("clean"), faulty = temp_report("faulty");
  const auto a = campaign(clean);
  ASSERT_EQ(a.code, 0) << a.out;
  const auto b = campaign(faulty, "HIPRIM_FUZZ_FAULT=worker1");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_NE(b.out.find("worker1 (device 1) lost"), std::string::npos) << b.out;
  const json ra = hiprim::verify::read_json(clean), rb = hiprim::verify::read_json(faulty);
  EXPECT_EQ(ra.at("campaign").at("cases"), 24);
  EXPECT_EQ(rb.at("campaign").at("cases"), 24);  // the counters add up
  EXPECT_EQ(problems(ra), problems(rb));          // the same cases, the lost share re-run
  EXPECT_TRUE(ra.at("lost_workers").empty());
  ASSERT_EQ(rb.at("lost_workers").size(), 1u) << rb.at("lost_workers").dump();
  const json& lost = rb.at("lost_workers")[0];
  EXPECT_EQ(lost.at("worker"), "worker1");
  EXPECT_EQ(lost.at("device"), 1);
  EXPECT_EQ(lost.at("rerun_device"), 2);
  EXPECT_EQ(lost.at("rerun"), "finished");
  ASSERT_EQ(rb.at("workers").size(), 3u) << rb.at("workers").dump();  // who ran each share, on which device
  EXPECT_EQ(rb.at("workers")[1].at("worker"), "worker1.rerun");
  EXPECT_EQ(rb.at("workers")[1].at("device"), 2);
  EXPECT_NE(lost.at("reason").get<std::string>().find("signal"), std::string::npos);
  fs::remove(clean);
  fs::remove(faulty);
}

// check: the smoke suite through the CPU reference solvers, in this process and over 3 workers of which
// one is lost; the same (problem, solver) cases and the same summary.
TEST(CheckDevices, ALostWorkersShardIsRerunAndTheMergedReportHasEveryCase) {
  const std::string one = temp_report("check_one"), three = temp_report("check_three");
  const auto check = [](const std::string& args) {
    return hiprim::test::run_shell("CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= " + args + " 2>&1");
  };
  const std::string bin = hiprim::test::hiprim_binary() + " check --suite smoke --solver 'ref.*' --report ";
  const auto a = check(bin + one);
  ASSERT_EQ(a.code, 0) << a.out;
  const auto b = check("HIPRIM_CHECK_FAULT=worker1 " + bin + three + " --devices 3");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_NE(b.out.find("worker1 (device 1) lost"), std::string::npos) << b.out;
  const json ra = hiprim::verify::read_json(one), rb = hiprim::verify::read_json(three);
  EXPECT_GT(ra.at("summary").at("total").get<int>(), 100);
  EXPECT_EQ(ra.at("summary"), rb.at("summary"));
  EXPECT_EQ(problems(ra), problems(rb));
  ASSERT_EQ(rb.at("lost_workers").size(), 1u) << rb.at("lost_workers").dump();
  EXPECT_EQ(rb.at("lost_workers")[0].at("rerun"), "finished");
  EXPECT_EQ(check(bin + three + " --devices 2 --shard 0/2").code, 2);  // the workers take the shards
  fs::remove(one);
  fs::remove(three);
}

}  // namespace
