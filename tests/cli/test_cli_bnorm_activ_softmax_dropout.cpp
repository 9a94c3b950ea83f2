// hiprim bnorm, activ, softmax, dropout (MIOpenDriver's commands and meaning) and the op paths of
// repro, check and list as a user runs them: exit codes, messages naming the rule, print-problem
// round trips through repro, runs on the host reference solvers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using hiprim::test::exits_with;
using hiprim::test::has;
using hiprim::test::hiprim;
using hiprim::test::hiprim_stdout;

TEST(CliOps, BadParametersExitTwoAndNameTheQuantity) {
  EXPECT_TRUE(exits_with("bnorm --epsilon -1 -F 1", 2,
                         "epsilon = -1 must be a finite number > 0"));  // hiprim's option: the problem's rule names it
  EXPECT_TRUE(exits_with("dropout -p 1 --philox", 2, "dropout rate = 1 must be in [0, 1)"));
  EXPECT_TRUE(exits_with("activ -m 11", 2, "-m 11: MIOpen's activation modes are 0..9"));
  EXPECT_TRUE(exits_with("softmax -a 3", 2));
  EXPECT_TRUE(exits_with("bnorm --layout NHWC -D 2", 2,
                         "MIOpen rejects the tensor"));  // a 4-letter layout for a 5-d tensor
  EXPECT_TRUE(exits_with("repro \"bnorm fwd-train spatial fp32 nchw n2 c3 in4x4 eps-1\"", 2,
                         "epsilon = -1 must be a finite number > 0"));
  EXPECT_TRUE(exits_with("repro \"frob fwd\"", 2, "token 1 'frob': unknown primitive"));
}

// MIOpenDriver's meaning where hiprim's native subcommands used to differ.
TEST(CliOps, MIOpenDriverDefaultsAndNotes) {
  // bnorm: -F 0 -b 0 is forward training, per-activation, n32 c3 32x32, epsilon 1e-3.
  auto r = hiprim_stdout("bnorm --print-problem");
  EXPECT_EQ(r.out, "bnorm fwd-train per-act fp32 nchw n32 c3 in32x32 eps0.001 momentum1\n");
  // -F 1 -b 1 runs the forward only (MIOpenDriver's warning becomes a note).
  r = hiprim("bnorm -m 1 -F 1 -b 1 --print-problem");
  EXPECT_TRUE(has(r.out, "Running forward only")) << r.out;
  EXPECT_TRUE(has(r.out, "bnorm fwd-train spatial fp32 nchw n32 c3 in32x32 eps0.001 momentum1\n")) << r.out;
  EXPECT_EQ(hiprim_stdout("bnorm -F 0 -b 1 --print-problem").out, "bnorm bwd per-act fp32 nchw n32 c3 in32x32 eps0.001\n");
  // activ: MIOpen ignores a coefficient the mode does not use; hiprim says so.
  EXPECT_TRUE(exits_with("activ -m 3 -A 2 -F 1 --print-problem", 0, "relu does not use -A 2"));
}

TEST(CliOps, PrintProblemRoundTripsThroughRepro) {
  for (const char* cmd : {"bnorm -n 3 -c 4 -H 5 -W 6 -m 0 -F 1 --dtype bf16 --layout NHWC --print-problem",
                          "bnormfp16 -n 3 -c 4 -H 5 -W 6 -m 1 -F 0 -b 1 --print-problem",
                          "bnormbfp16fp32 -n 3 -c 4 -H 5 -W 6 -m 1 -F 2 -r 1 --print-problem",
                          "activ -m 2 -A 1 -B 0.5 -G 2 --print-problem", "softmax -a 2 -m 0 --dtype fp16 --print-problem",
                          "dropout -p 0.25 -l 9 -d 1,2,3,4,5 --layout ndhwc --philox --print-problem"}) {
    const auto r = hiprim_stdout(cmd);
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
}

// MIOpenDriver bnorm lines run on the host reference solver, fp16 parameters (bnormfp16) included.
TEST(CliOps, BnormLinesRunOnTheReference) {
  for (const char* args : {"bnorm -n 2 -c 3 -H 4 -W 4 -m 1 -s 1 -r 1", "bnormfp16 -n 2 -c 3 -H 4 -W 4 -m 1 -F 1",
                           "bnormfp16 -n 2 -c 3 -H 4 -W 4 -m 0 -F 0 -b 1", "bnormfp16fp32 -n 2 -c 3 -H 4 -W 4 -m 1 -F 2 -r 1"}) {
    auto r = hiprim(std::string(args) + " --solver 'ref.*'");
    EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "passed")) << r.out;
  }
}

TEST(CliOps, ReproRunsAnOpCaseAndCheckWritesAReport) {
  EXPECT_TRUE(exits_with("repro \"activ fwd gelu fp16 nhwc n1 c3 in4x4\" --solver ref.activ --seed 3", 0, "passed"));
  const auto path = std::filesystem::temp_directory_path() / "hiprim_cli_bnorm_activ_softmax_dropout.json";
  EXPECT_TRUE(exits_with("check --suite smoke_ops --solver 'ref.dropout,ref.softmax' --report " + path.string(), 0));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_TRUE(has(text.str(), "\"solver\": \"ref.dropout\"")) << text.str().substr(0, 500);
  EXPECT_TRUE(has(text.str(), "\"solver\": \"ref.softmax\""));
  EXPECT_FALSE(has(text.str(), "\"solver\": \"ref.activ\""));
  std::filesystem::remove(path);
  auto r = hiprim("list solvers --problem \"dropout fwd fp32 nchw n1 c1 in2x2 rate0.5 seed1\"");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "ref.dropout")) << r.out;
  EXPECT_TRUE(has(r.out, "applicable")) << r.out;
  EXPECT_FALSE(has(r.out, "ref.activ")) << r.out;
  r = hiprim("list suites");
  EXPECT_TRUE(has(r.out, "smoke_ops") && has(r.out, "ops")) << r.out;
}

}  // namespace
