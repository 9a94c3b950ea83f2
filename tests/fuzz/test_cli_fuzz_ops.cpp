// `hiprim fuzz --op <op>` and the corpus replay of op repro lines, run as a user runs them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_runner.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz_test {
namespace {

using test::has;
using test::exits_with;
using test::hiprim;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hiprim_cli_fuzz_ops_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(FuzzOpsCli, PoolCampaignWritesAValidReport) {
  const std::string report = temp_path("pool.json");
  const auto r = hiprim("fuzz --op pool --cases 50 --solver 'ref.*' --seed 4 --report " + report);
  EXPECT_EQ(r.code, 0) << r.out;
  const auto j = verify::read_json(report);
  EXPECT_TRUE(verify::check_report_schema(j).empty());
  EXPECT_EQ(j["kind"], "fuzz");
  EXPECT_EQ(j["campaign"]["op"], "pool");
  EXPECT_EQ(j["campaign"]["cases"].get<std::int64_t>() + j["campaign"]["discards"].get<std::int64_t>(), 50);
  EXPECT_EQ(j["campaign"]["oracle"], "cpu");
  const auto& t = j["campaign"]["targets"].at(0);
  EXPECT_EQ(t["solver"], "ref.pool");
  EXPECT_TRUE(t["coverage"].contains("pool:pad>=half"));
  EXPECT_TRUE(t["coverage"].contains("layout:ndhwc"));
  std::filesystem::remove(report);
}

TEST(FuzzOpsCli, BadOpAndConvOnlyFlagsExit2) {
  EXPECT_TRUE(exits_with("fuzz --op nosuch --cases 5", 2,
                         "known: conv, activ, bnorm, ctc, dropout, fusion, lrn, pool, reduce, rnn, softmax, tensorop"));
  EXPECT_TRUE(exits_with("fuzz --op softmax --cases 5 --solver 'ref.*' --specials nan", 2, "conv only"));
  EXPECT_TRUE(exits_with("fuzz --op bnorm --cases 5 --solver 'ref.*' --oracle gpu", 2, "CPU reference only"));
  EXPECT_TRUE(exits_with("fuzz --op pool --cases 5 --solver 'conv.*'", 2, "matches no pool solver"));
}

TEST(FuzzOpsCli, CorpusReplaysOpReproLines) {
  const std::string dir = temp_path("corpus");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/softmax-ref.repro") << "# an op line\nhiprim repro \"softmax fwd log channel fp16 nhwc n3 c5 in2x3\" --solver 'ref.*' --seed 3\n";
  std::ofstream(dir + "/reduce-ref.repro") << "hiprim repro \"reduce max bf16 nhwc dims2x3x5x7 over1x3 nan_ignore indices\" --solver ref.reduce --seed 9\n";
  const std::string report = temp_path("corpus.json");
  const auto r = hiprim("check --suite corpus --corpus " + dir + " --solver 'ref.*' --report " + report);
  EXPECT_EQ(r.code, 0) << r.out;
  const auto j = verify::read_json(report);
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["summary"]["passed"], 2);
  std::ofstream(dir + "/bad.repro") << "hiprim repro \"softmax fwd log channel fp16 nhwc n3 c5 in2x3\" --solver 'ref.*' --seed 3 --fill exact\n";
  const auto bad = hiprim("check --suite corpus --corpus " + dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.out, "bad.repro")) << bad.out;
  std::filesystem::remove_all(dir);
  std::filesystem::remove(report);
}

}  // namespace
}  // namespace hiprim::fuzz_test
