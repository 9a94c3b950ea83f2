// The hiprim command as a user runs it: exit codes, messages naming the bad input, print-problem
// round trips, a failing case printing its repro line, and a report file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using hiprim::test::has;
using hiprim::test::hiprim;

TEST(Cli, BadFlagsExitTwoAndNameTheFlag) {
  auto r = hiprim("conv -n 0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--batchsize: must be >= 1 (got 0)")) << r.out;
  r = hiprim("conv -p x");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "--pad_h: 'x' is not an integer")) << r.out;
  r = hiprim("conv --dtype fp64");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "--dtype")) << r.out;
  r = hiprim("conv --bogus");
  EXPECT_EQ(r.code, 2);
  r = hiprim("frobnicate");
  EXPECT_EQ(r.code, 2);
  r = hiprim("conv --in_d 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "--in_d needs --spatial_dim 3")) << r.out;
}

TEST(Cli, InvalidGeometryExitsTwoWithTheRule) {
  auto r = hiprim("conv -n 1 -c 3 -k 4 -H 5 -W 5 -y 7 -x 7");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "output height is 0")) << r.out;
  r = hiprim("conv -c 4 -k 6 -g 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "not divisible by groups g = 3")) << r.out;
}

TEST(Cli, BadProblemStringsExitTwoAndNameTheToken) {
  auto r = hiprim("repro \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3 wat\"");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "token 10 'wat'")) << r.out;
  r = hiprim("repro \"\"");
  EXPECT_EQ(r.code, 2);
  r = hiprim("check --suite /nonexistent/suite.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "/nonexistent/suite.txt")) << r.out;
  r = hiprim("check --solver 'no.such.*'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.out, "matches no solver")) << r.out;
}

TEST(Cli, PrintProblemRoundTrips) {
  auto r = hiprim("conv -n 2 -c 4 -k 8 -H 9 -W 7 -y 3 -x 1 -p 1 -u 2 -g 2 -F 2 --dtype bf16 --layout nhwc --print-problem");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string expected = "conv bwd-data bf16 nhwc n2 c4 k8 in9x7 f3x1 pad1x0 str2x1 dil1x1 g2\n";
  EXPECT_EQ(r.out, expected);
  auto back = hiprim("repro \"" + expected.substr(0, expected.size() - 1) + "\" --print-problem");
  EXPECT_EQ(back.code, 0);
  EXPECT_EQ(back.out, expected);
}

TEST(Cli, ReproRunsTheCaseAndWritesAReport) {
  auto path = std::filesystem::temp_directory_path() / "hiprim_test_cli_report.json";
  std::filesystem::remove(path);
  auto r = hiprim("repro \"conv bwd-weights fp16 nchw n2 c4 k6 in7x7 f3x3 pad1x1 g2\" --solver ref.conv.fast --seed 3 --report " +
                  path.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "passed")) << r.out;
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(text, "\"schema\"")) << text.substr(0, 200);
  EXPECT_TRUE(has(text, "--seed 3")) << "the case's repro line carries the seed";
}

TEST(Cli, ListsSolversWithApplicability) {
  auto r = hiprim("list solvers --problem \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\"");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "ref.conv.fast")) << r.out;
  EXPECT_TRUE(has(r.out, "applicable")) << r.out;
  r = hiprim("list suites");
  EXPECT_TRUE(has(r.out, "smoke") && has(r.out, "resnet50") && has(r.out, "edge")) << r.out;
}

}  // namespace
