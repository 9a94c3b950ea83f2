// The hiprim command as a user runs it: exit codes, messages naming the bad input, print-problem
// round trips, a failing case printing its repro line, and a report file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using hiprim::test::exits_with;
using hiprim::test::has;
using hiprim::test::hiprim;
using hiprim::test::hiprim_stdout;
using hiprim::test::shell_quote;

// hiprim conv is MIOpenDriver conv: its parser's and MIOpen's rejections exit 2 with the reason.
TEST(Cli, BadFlagsExitTwoAndNameTheFlag) {
  EXPECT_TRUE(exits_with("conv -n 0", 2, "-n 0 makes a tensor length <= 0 (MIOpen: \"Lengths must be > 0\")"));
  EXPECT_TRUE(exits_with("conv -u 0", 2, "stride >= 1"));
  EXPECT_TRUE(exits_with("conv --dtype fp64", 2, "--dtype"));
  EXPECT_TRUE(exits_with("conv --bogus 1", 2, "Long Name: bogus Not Found"));
  EXPECT_TRUE(exits_with("frobnicate", 2));
  EXPECT_TRUE(exits_with("conv -_ 4", 2, "unsupported convolution dimension"));
  // MIOpenDriver reads -p with atoi: "x" is 0, said in a note; 3D flags on a 2D line are ignored.
  auto r = hiprim("conv -p x --in_d 3 --print-problem -F 1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "as 0 (atoi)") && has(r.out, "ignored on a 2D line")) << r.out;
}

TEST(Cli, InvalidGeometryExitsTwoWithTheRule) {
  EXPECT_TRUE(exits_with("conv -n 1 -c 3 -k 4 -H 5 -W 5 -y 7 -x 7", 2, "the height output would be -1"));
  EXPECT_TRUE(exits_with("conv -c 4 -k 6 -g 3", 2, "Invalid group number"));
}

TEST(Cli, BadProblemStringsExitTwoAndNameTheToken) {
  EXPECT_TRUE(exits_with("repro \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3 wat\"", 2, "token 10 'wat'"));
  EXPECT_TRUE(exits_with("repro \"\"", 2));
  EXPECT_TRUE(exits_with("check --suite /nonexistent/suite.txt", 2, "/nonexistent/suite.txt"));
  EXPECT_TRUE(exits_with("check --solver 'no.such.*'", 2, "matches no solver"));
}

// A suite option no selected suite reads (smoke is fixed as written) is refused, not silently ignored:
// `check --suite smoke --dtype bf16` used to run smoke's fp32 lines.
TEST(Cli, SuiteOptionsNoSelectedSuiteReadsExitTwo) {
  EXPECT_TRUE(exits_with("check --suite smoke --dtype bf16", 2, "--dtype is read by no suite of 'smoke'"));
  EXPECT_TRUE(exits_with("check --suite smoke,edge --batch 2", 2, "--batch is read by no suite of 'smoke,edge'"));
  EXPECT_TRUE(exits_with("check --suite corpus --layout nhwc", 2, "--layout"));
  EXPECT_TRUE(exits_with("bench --op all --suite fusion --combo bf16:nhwc", 2, "--combo is read by no suite"));
  // one suite that reads it is enough (then the unknown solver stops the run)
  EXPECT_TRUE(exits_with("check --suite smoke,edge --dtype bf16 --solver 'no.such.*'", 2, "matches no solver"));
}

TEST(Cli, PrintProblemRoundTrips) {
  auto r = hiprim_stdout("convbfp16 -n 2 -c 4 -k 8 -H 9 -W 7 -y 3 -x 1 -p 1 -u 2 -g 2 -F 2 --in_layout NHWC --fil_layout NHWC "
                         "--out_layout NHWC --print-problem");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string expected = "conv bwd-data bf16 nhwc n2 c4 k8 in9x7 f3x1 pad1x0 str2x1 dil1x1 g2\n";
  EXPECT_EQ(r.out, expected);
  auto back = hiprim("repro \"" + expected.substr(0, expected.size() - 1) + "\" --print-problem");
  EXPECT_EQ(back.code, 0);
  EXPECT_EQ(back.out, expected);
}

// The MIOpenDriver front end as a user meets it: whole lines, log lines, suffixed commands, help,
// notes on stderr, refusals with exit 2, a file of lines.
TEST(Cli, MIOpenDriverLinesThroughTheBinary) {
  const std::string log = "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver convfp16 -n 2 -c 8 -H 6 -W 6 -k 4 -y 3 -x 3 "
                          "-p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1";
  auto r = hiprim_stdout("driver " + shell_quote(log) + " --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "conv fwd fp16 nchw n2 c8 k4 in6x6 f3x3 pad1x1 str1x1 dil1x1 g1\n");
  r = hiprim("driver ./bin/MIOpenDriver bnormfp16 -n 2 -c 3 -H 4 -W 4 -m 1 -F 1 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "bnorm fwd-train spatial fp16 nchw n2 c3 in4x4 eps0.001 momentum1 scale=fp16 stats=fp16")) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim: note: hiprim's fwd-train also returns")) << r.out;
  EXPECT_TRUE(exits_with("poolfp16 --input 1x2x8x8 -y 2 -x 2 -v 2 -u 2 -F 1 --print-problem", 0,
                         "pool fwd max fp16 nchw n1 c2 in8x8 win2x2 pad0x0 str2x2"));
  EXPECT_TRUE(exits_with("dropout -d 2,3 -p 0.5", 2,
                         "hiprim: inexpressible: MIOpenDriver dropout: MIOpen's dropout mask comes from rocrand XORWOW"));
  EXPECT_TRUE(exits_with("gemm -n 4", 2, "unsupported: MIOpenDriver gemm is a primitive hiprim does not have"));
  EXPECT_TRUE(exits_with("rnn -n 4,3 -k 2", 2, "inexpressible: MIOpenDriver rnn -n 4,3: batch sizes that change over the steps"));
  EXPECT_TRUE(exits_with("rnnfp16 -m lstm -F 1 -k 3 -n 2 --print-problem", 0, "rnn fwd lstm fp16 layers1 hidden32 input32 seq3 n2 uni nobias"));
  EXPECT_TRUE(exits_with("CBAInfer -F 2 -M 1", 2, "inexpressible: MIOpenDriver CBAInfer -F 2 (bnorm+activ)"));
  r = hiprim_stdout("lrn --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "--lrnN") && has(r.out, "within | cross")) << r.out;
  const auto path = std::filesystem::temp_directory_path() / "hiprim_test_driver_lines.txt";
  {
    std::ofstream f(path);
    f << "# a comment\n./bin/MIOpenDriver conv -n 1 -c 1 -k 1 -H 4 -W 4 -F 1\nMIOpenDriver convint8\n";
  }
  r = hiprim("driver --file " + path.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "2: ok: conv fwd fp32 nchw n1 c1 k1 in4x4 f3x3 pad0x0 str1x1 dil1x1 g1")) << r.out;
  EXPECT_TRUE(has(r.out, "3: inexpressible: MIOpenDriver convint8: int8")) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim driver: inexpressible 1, ok 1")) << r.out;
  std::filesystem::remove(path);
}

// A conv line runs its directions on the host reference solver and passes.
TEST(Cli, ConvLineRunsOnTheReference) {
  auto r = hiprim("conv -n 1 -c 2 -k 3 -H 5 -W 5 -p 1 -q 1 --solver ref.conv.fast");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "passed")) << r.out;
  EXPECT_TRUE(has(r.out, "conv bwd-weights fp32 nchw n1 c2 k3 in5x5 f3x3 pad1x1")) << r.out;
}

// CBAInfer lines are fusion problems (driver/CBAInferFusion_driver.hpp: -F 0 is conv, bias, spatial
// batch-norm inference with EPSILON 1e-6 under -M 1, activation -m 3 relu); they run on ref.fusion.
TEST(Cli, CBAInferLinesAreFusionProblems) {
  auto r = hiprim_stdout("CBAInfer -F 0 -n 1 -c 2 -k 2 -H 5 -W 5 -M 1 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "fusion fwd fp32 nchw conv(n1 c2 k2 in5x5 f3x3 pad0x0 str1x1 dil1x1 g1) bias bnorm-infer(eps1e-06) activ(relu)\n");
  r = hiprim("driver " + shell_quote("./bin/MIOpenDriver CBAInferfp16 -F 0 -n 2 -c 3 -k 3 -H 6 -W 5 -p 1 -q 1 -M 1 -m 8 -A 0.5 -t 1") +
             " --solver ref.fusion");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "passed      ref.fusion             fusion fwd fp16 nchw conv(n2 c3 k3 in6x5 f3x3 pad1x1 str1x1 dil1x1 g1) bias "
                         "bnorm-infer(eps1e-06) activ(leakyrelu alpha0.5)")) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim: note: ignored (how MIOpenDriver runs, not what): -t 1")) << r.out;
  EXPECT_TRUE(has(r.out, "hiprim's bnorm-infer reads them in fp32")) << r.out;
  EXPECT_TRUE(exits_with("CBAInfer -F 5 -n 1 -c 2 -k 2 -H 4 -W 4 -m 9 --solver ref.fusion", 0, "passed"));
  EXPECT_TRUE(exits_with("CBAInfer", 2, "inexpressible: MIOpenDriver CBAInfer -F 0 (conv+bias+bnorm+activ) -M 0 (the default): per-activation"));
  EXPECT_TRUE(exits_with("CBAInfer -F 7", 2, "rejected: MIOpenDriver CBAInfer: -F 7: \"Fusion mode out of range.\""));
  EXPECT_TRUE(exits_with("CBAInfer -F 4 -M 3", 2, "rejected: MIOpenDriver CBAInfer: -M 3: \"Incorrect Batch Normalization Mode\""));
  EXPECT_TRUE(exits_with("CBAInfer -F 4 -c 4 -k 4 -g 2", 2, "inexpressible: MIOpenDriver CBAInfer: -g 2"));
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
  // A solver with a perf-config space (conv.igemm.wgmma, in GPU builds) lists it on a line of its own.
  if (has(r.out, "conv.igemm.wgmma")) {
    EXPECT_TRUE(has(r.out, "    perf configs: ")) << r.out;
  }
  EXPECT_FALSE(has(r.out.substr(0, r.out.find("conv.igemm.wgmma")), "perf configs")) << r.out;
  r = hiprim("list suites");
  EXPECT_TRUE(has(r.out, "smoke") && has(r.out, "resnet50") && has(r.out, "edge")) << r.out;
}

}  // namespace

namespace {

// Every 6th case of tests/cli/miopen_driver_corpus.txt through the binary: `hiprim driver '<line>'
// --print-problem` prints exactly the expected problems (exit 0), or exits 2 with the reason (help: 0).
TEST(Cli, CorpusSampleThroughTheBinary) {
  std::ifstream in(std::string(HIPRIM_SOURCE_DIR) + "/tests/cli/miopen_driver_corpus.txt");
  ASSERT_TRUE(in);
  struct Case {
    std::string line, problems, refusal;
  };
  std::vector<Case> cases;
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty() || l[0] == '#' || l[0] == '~') continue;
    if (l.rfind("= ", 0) == 0) cases.back().problems += l.substr(2) + "\n";
    else if (l.rfind("! ", 0) == 0) cases.back().refusal = l.substr(2);
    else cases.push_back({l, "", ""});
  }
  int ran = 0;
  for (std::size_t i = 0; i < cases.size(); i += 6, ++ran) {
    const Case& c = cases[i];
    const auto r = hiprim_stdout("driver " + shell_quote(c.line) + " --print-problem");
    if (!c.problems.empty()) {
      EXPECT_EQ(r.code, 0) << c.line;
      EXPECT_EQ(r.out, c.problems) << c.line;
    } else {
      const bool help = c.refusal.rfind("help:", 0) == 0;
      EXPECT_EQ(r.code, help ? 0 : 2) << c.line << "\n" << r.out;
      if (!help) {
        const auto all = hiprim("driver " + shell_quote(c.line) + " --print-problem");
        EXPECT_TRUE(has(all.out, "hiprim: " + c.refusal.substr(0, c.refusal.find(':')) + ": ")) << c.line << "\n" << all.out;
      }
    }
  }
  EXPECT_GT(ran, 30);
}

// hiprim fusion <chain words>: the chain after "fusion", quoted or not, run and verified like repro.
TEST(Cli, FusionRunsAChainGivenAsWords) {
  auto r = hiprim_stdout("fusion fwd fp32 nhwc 'conv(n2 c8 k16 in9x9 f3x3 pad1x1)' bias 'activ(relu)' --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "fusion fwd fp32 nhwc conv(n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1) bias activ(relu)\n");
  r = hiprim("fusion fwd fp32 nhwc conv\\(n2 c8 k16 in9x9 f3x3 pad1x1\\) bias add --solver 'ref.*'");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "ref.fusion") && has(r.out, "passed")) << r.out;
  EXPECT_TRUE(exits_with("fusion fwd fp32 nhwc 'conv(n2 c8 k16 in9x9 f3x3)' 'activ(relu)' bias", 2, "bias (step 3) comes after activ"));
  EXPECT_TRUE(exits_with("fusion fwd fp32 nhwc bias", 2, "fusion"));
}

// --math tf32 (check and bench): math=tf32 on every fp32 conv problem the suite loads, the other
// problems as written; a --dtype other than fp32, an unknown mode, --problem strings (bench) and
// the corpus (check) exit 2 naming the rule.
TEST(Cli, MathTf32MarksEveryFp32ConvProblemOfTheSuite) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto suite = dir / "hiprim_test_cli_math.txt", report = dir / "hiprim_test_cli_math.json";
  {
    std::ofstream f(suite);
    f << "conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1\nconv bwd-data bf16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1\n";
  }
  auto report_text = [&] {
    std::ifstream f(report);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  std::filesystem::remove(report);
  auto r = hiprim("check --suite " + suite.string() + " --solver ref.conv.fast --math tf32 --report " + report.string());
  EXPECT_EQ(r.code, 0) << r.out;
  const std::string text = report_text();
  EXPECT_TRUE(has(text, "conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1 math=tf32")) << text.substr(0, 400);
  EXPECT_TRUE(has(text, "conv bwd-data bf16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1\"")) << "bf16 left as written";
  EXPECT_FALSE(has(text, "bf16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1 math=tf32"));
  // Without --math the same suite has no token.
  std::filesystem::remove(report);
  r = hiprim("check --suite " + suite.string() + " --solver ref.conv.fast --report " + report.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(has(report_text(), "math=tf32"));
  EXPECT_TRUE(exits_with("check --suite edge --dtype bf16 --math tf32", 2, "--math tf32 takes fp32 data only (--dtype bf16"));
  EXPECT_TRUE(exits_with("check --suite smoke --math fp64", 2, "--math 'fp64': expected exact or tf32"));
  EXPECT_TRUE(exits_with("check --suite corpus --math tf32", 2, "--math applies to suites"));
  EXPECT_TRUE(exits_with("bench --op conv --suite resnet50 --dtype fp32,fp16 --layout nhwc --math tf32", 2, "fp32 data only (--dtype fp16"));
  EXPECT_TRUE(exits_with("bench --combo fp32:nhwc,bf16:nhwc --math tf32", 2, "fp32 data only (--dtype bf16"));
  EXPECT_TRUE(exits_with("bench --problem 'conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3' --math tf32", 2, "carries its own math=tf32"));
}

}  // namespace
