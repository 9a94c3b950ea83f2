// The op subcommands (bnorm, activ, softmax, dropout) and the op paths of repro, check and list as a
// user runs them: exit codes, messages naming the bad flag or quantity, print-problem round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using hiprim::test::has;
using hiprim::test::hiprim;

TEST(CliOps, BadParametersExitTwoAndNameTheQuantity) {
  auto r = hiprim("bnorm -e -1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--epsilon")) << r.out;
  r = hiprim("dropout -r 1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--rate: must be in [0, 1) (got 1)")) << r.out;
  r = hiprim("activ -m 11");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "-m/--mode '11'")) << r.out;
  r = hiprim("activ -m relu -A 2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "alpha = 2 is not used by mode relu")) << r.out;
  r = hiprim("softmax -a 3");
  EXPECT_EQ(r.code, 2) << r.out;
  r = hiprim("bnorm -F 0 -b 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = hiprim("bnorm --layout nhwc -D 2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "-D/--in_d")) << r.out;
  r = hiprim("repro \"bnorm fwd-train spatial fp32 nchw n2 c3 in4x4 eps-1\"");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "epsilon = -1 must be a finite number > 0")) << r.out;
  r = hiprim("repro \"frob fwd\"");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "token 1 'frob': unknown primitive")) << r.out;
}

TEST(CliOps, PrintProblemRoundTripsThroughRepro) {
  for (const char* cmd : {"bnorm -n 3 -c 4 -H 5 -W 6 -m 0 -F 1 -b 1 --dtype bf16 --layout nhwc --print-problem",
                          "activ -m 6 -A 1 -B 0.5 -G 2 -D 2 --print-problem", "softmax -a 2 -m 0 --dtype fp16 --print-problem",
                          "dropout -r 0.25 -s 9 --layout ndhwc --print-problem"}) {
    const auto r = hiprim(cmd);
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.out;
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      ++n;
      const auto back = hiprim("repro \"" + line + "\" --print-problem");
      EXPECT_EQ(back.code, 0) << back.out;
      EXPECT_EQ(back.out, line + "\n");
    }
    EXPECT_GE(n, 1) << cmd;
  }
  EXPECT_EQ(hiprim("bnorm -F 1 -b 1 --print-problem").out,
            "bnorm fwd-train spatial fp32 nchw n2 c4 in8x8 eps1e-05 momentum0.1\nbnorm bwd spatial fp32 nchw n2 c4 in8x8 eps1e-05\n");
}

TEST(CliOps, ReproRunsAnOpCaseAndCheckWritesAReport) {
  auto r = hiprim("repro \"activ fwd gelu fp16 nhwc n1 c3 in4x4\" --solver ref.activ --seed 3");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "passed")) << r.out;
  const auto path = std::filesystem::temp_directory_path() / "hiprim_cli_ops_f.json";
  r = hiprim("check --suite smoke_ops --solver 'ref.dropout,ref.softmax' --report " + path.string());
  EXPECT_EQ(r.code, 0) << r.out;
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_TRUE(has(text.str(), "\"solver\": \"ref.dropout\"")) << text.str().substr(0, 500);
  EXPECT_TRUE(has(text.str(), "\"solver\": \"ref.softmax\""));
  EXPECT_FALSE(has(text.str(), "\"solver\": \"ref.activ\""));
  std::filesystem::remove(path);
  r = hiprim("list solvers --problem \"dropout fwd fp32 nchw n1 c1 in2x2 rate0.5 seed1\"");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "ref.dropout")) << r.out;
  EXPECT_TRUE(has(r.out, "applicable")) << r.out;
  EXPECT_FALSE(has(r.out, "ref.activ")) << r.out;
  r = hiprim("list suites");
  EXPECT_TRUE(has(r.out, "smoke_ops") && has(r.out, "ops")) << r.out;
}

}  // namespace
