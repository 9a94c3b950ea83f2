// The fuzz command line end to end (through the subcommands' library entry points, as main runs
// them): a campaign's report and exit code, repro --special, check --suite corpus.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz_test {
namespace {

// Parses and runs one hiprim command line; returns its exit code (2 for bad input, as main does).
int hiprim(std::vector<std::string> args) {
  args.insert(args.begin(), "hiprim");
  CLI::App app{"hiprim"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, cli::Command>> cmds;
  for (auto add : {cli::add_repro, cli::add_check, cli::add_fuzz}) {
    const std::size_t before = app.get_subcommands({}).size();
    auto cmd = add(app);
    cmds.emplace_back(app.get_subcommands({})[before], std::move(cmd));
  }
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    for (auto& [sub, run] : cmds)
      if (sub->parsed()) return run();
  } catch (const CLI::ParseError&) {
    return 2;
  } catch (const InputError&) {
    return 2;
  }
  return 2;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hiprim_cli_fuzz_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(FuzzCli, CampaignWritesAValidReport) {
  const std::string report = temp_path("fuzz.json");
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv", "--solver", "ref.conv.fast", "--cases", "80", "--specials", "none", "--seed", "3", "--report", report}), 0);
  const auto r = verify::read_json(report);
  EXPECT_TRUE(verify::check_report_schema(r).empty());
  EXPECT_EQ(r["kind"], "fuzz");
  EXPECT_EQ(r["campaign"]["cases"].get<std::int64_t>() + r["campaign"]["discards"].get<std::int64_t>(), 80);
  EXPECT_EQ(r["campaign"]["seed"], 3);
  EXPECT_EQ(r["campaign"]["oracle"], "cpu");
  std::filesystem::remove(report);
}

TEST(FuzzCli, BadFlagsAreInputErrors) {
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv"}), 2);                                    // no limit
  EXPECT_EQ(hiprim({"fuzz", "--op", "nosuch", "--cases", "5"}), 2);                  // no generator
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv", "--cases", "5", "--shard", "2/2"}), 2);  // index out of range
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv", "--time", "5parsecs"}), 2);
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv", "--cases", "5", "--specials", "nan,tea"}), 2);
  EXPECT_EQ(hiprim({"fuzz", "--op", "conv", "--cases", "5", "--solver", "no.such.*"}), 2);
  EXPECT_EQ(hiprim({"repro", "conv n1 c1 k1 in2x2 f1x1", "--special", "tea"}), 2);
}

TEST(FuzzCli, ReproSpecialRerunsTheCase) {
  // The fast reference passes NaN with and without padding (NaN at padded taps is accepted,
  // test_special.cpp); the flush-free special kinds pass, and a bad kind is refused.
  EXPECT_EQ(hiprim({"repro", "conv fwd fp32 nchw n2 c3 k4 in6x6 f3x3 pad0x0 str1x1 dil1x1 g1", "--solver", "ref.conv.fast", "--seed", "4", "--special", "nan"}), 0);
  EXPECT_EQ(hiprim({"repro", "conv fwd fp32 nchw n1 c1 k1 in1x1 f1x1 pad0x1 str1x1 dil1x1 g1", "--solver", "ref.conv.fast", "--seed", "1", "--special", "inf"}), 0);
  EXPECT_EQ(hiprim({"repro", "conv fwd fp32 nchw n1 c1 k1 in1x1 f1x1 pad0x1 str1x1 dil1x1 g1", "--solver", "ref.conv.fast", "--seed", "1", "--special", "what"}), 2);
}

TEST(FuzzCli, CheckSuiteCorpusReplaysTheCommittedCorpus) {
  const std::string report = temp_path("corpus.json");
  EXPECT_EQ(hiprim({"check", "--suite", "corpus", "--solver", "ref.conv.fast", "--report", report}), 0);
  const auto r = verify::read_json(report);
  EXPECT_TRUE(verify::check_report_schema(r).empty());
  EXPECT_GE(r["cases"].size(), 10u);
  EXPECT_EQ(r["summary"]["failed"], 0);
  std::filesystem::remove(report);
  EXPECT_EQ(hiprim({"check", "--suite", "corpus", "--corpus", temp_path("no_such_dir")}), 2);
}

}  // namespace
}  // namespace hiprim::fuzz_test
