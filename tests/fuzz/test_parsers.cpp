// The parsers, fuzzed: problem strings, repro/corpus lines, suite text, shard specs, report files
// and CLI arguments get arbitrary input (RapidCheck strings, and token soups built from the
// grammars' own words so the parsers get deep). Never a crash or a foreign exception: either a
// result or hiprim::InputError with a message (CLI11's own parse errors for unknown flags).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/shard.hpp"
#include "verify/report.hpp"
#include "verify/suite.hpp"

namespace hiprim::fuzz_test {
namespace {

// Words of the problem and repro grammars, plus near misses.
const std::vector<std::string> kWords = {
    "conv", "fwd", "bwd-data", "bwd-weights", "fp32", "fp16", "bf16", "nchw", "nhwc", "ncdhw", "ndhwc", "n1", "n0", "n-1", "c3", "c0",
    "k8", "k9999999999999999999", "in8x8", "in8x8x8", "in8", "inx", "in0x4", "f3x3", "f3", "f3x3x3", "pad1x1", "pad1", "pad-1x0", "str2x2",
    "str0x1", "dil1x1", "dil2", "g1", "g2", "g0", "trans", "opad1x1", "opad", "bias", "x", "", "#", "\"", "'", "--solver", "--seed",
    "--fill", "--special", "exact", "bounded", "nan", "inf", "hiprim", "repro", "*", "conv.*", "18446744073709551616", "-3", "1", "\t"};

rc::Gen<std::string> token_soup() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(kWords)), [](const std::vector<std::string>& w) {
    std::string s;
    for (auto& x : w) s += (s.empty() ? "" : " ") + x;
    return s;
  });
}

rc::Gen<std::string> any_text() { return rc::gen::oneOf(rc::gen::arbitrary<std::string>(), token_soup()); }

// Runs f; true when it returned or threw InputError with a non-empty message. Anything else fails the property.
template <typename F>
void only_input_errors(F&& f, const std::string& input) {
  try {
    f();
  } catch (const InputError& e) {
    RC_ASSERT(std::string(e.what()).size() > 0);
  } catch (const std::exception& e) {
    RC_FAIL("input '" + input + "' threw a non-InputError: " + e.what());
  }
}

RC_GTEST_PROP(FuzzParsers, ProblemStringsParseOrSayWhy, ()) {
  const std::string s = *any_text();
  only_input_errors([&] {
    const ConvProblem p = parse_conv_problem(s);
    RC_ASSERT(parse_conv_problem(to_string(p)) == p);
  }, s);
}

RC_GTEST_PROP(FuzzParsers, ReproAndCorpusLinesParseOrSayWhy, ()) {
  const std::string s = *rc::gen::oneOf(any_text(), rc::gen::map(token_soup(), [](std::string t) { return "hiprim repro \"" + t + "\" " + t; }));
  only_input_errors([&] {
    const fuzz::ReproLine r = fuzz::parse_repro_line(s);
    RC_ASSERT(fuzz::parse_repro_line(r.str()) == r);
  }, s);
  only_input_errors([&] { fuzz::parse_corpus_text(s, "fuzzed.repro"); }, s);
}

RC_GTEST_PROP(FuzzParsers, SuiteTextParsesOrSaysWhy, ()) {
  const std::string s = *rc::gen::oneOf(any_text(), rc::gen::map(rc::gen::container<std::vector<std::string>>(token_soup()), [](const std::vector<std::string>& lines) {
    std::string t;
    for (auto& l : lines) t += l + "\n";
    return t;
  }));
  only_input_errors([&] { verify::parse_suite(s, "fuzzed.txt"); }, s);
}

RC_GTEST_PROP(FuzzParsers, ShardSpecsParseOrSayWhy, ()) {
  const std::string s = *rc::gen::oneOf(rc::gen::arbitrary<std::string>(),
                                       rc::gen::map(rc::gen::pair(rc::gen::arbitrary<int>(), rc::gen::arbitrary<int>()),
                                                    [](std::pair<int, int> p) { return std::to_string(p.first) + "/" + std::to_string(p.second); }));
  only_input_errors([&] {
    const fuzz::Shard sh = fuzz::parse_shard(s);
    RC_ASSERT(sh.index >= 0 && sh.index < sh.count);
    RC_ASSERT(fuzz::parse_shard(sh.str()) == sh);
  }, s);
}

// Random JSON values: scalars, arrays and objects whose keys are sometimes the report's own keys.
rc::Gen<nlohmann::json> json_value(int depth) {
  using nlohmann::json;
  std::vector<rc::Gen<json>> leaves = {
      rc::gen::map(rc::gen::arbitrary<int>(), [](int v) { return json(v); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double v) { return std::isfinite(v) ? json(v) : json("nan"); }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool v) { return json(v); }),
      rc::gen::map(rc::gen::elementOf(std::vector<std::string>{"hiprim.report", "fuzz", "conformance", "passed", "failed", "inf", "x"}),
                   [](std::string v) { return json(v); }),
      rc::gen::just(json(nullptr))};
  if (depth <= 0) return rc::gen::oneOf(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4]);
  const std::vector<std::string> keys = {"schema", "schema_version", "kind", "created", "machine", "command", "cases", "summary", "campaign",
                                         "problem", "solver", "status", "reason", "repro", "metrics", "total", "passed", "targets", "coverage",
                                         "statuses", "shard", "seconds", "cases_per_second", "gpu", "host"};
  auto obj = rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, json>>>(rc::gen::pair(rc::gen::elementOf(keys), json_value(depth - 1))),
                          [](const std::vector<std::pair<std::string, json>>& kv) {
                            json o = json::object();
                            for (auto& [k, v] : kv) o[k] = v;
                            return o;
                          });
  auto arr = rc::gen::map(rc::gen::container<std::vector<json>>(json_value(depth - 1)), [](const std::vector<json>& v) { return json(v); });
  return rc::gen::oneOf(leaves[0], leaves[3], obj, obj, arr);
}

RC_GTEST_PROP(FuzzParsers, ReportCheckerAndCampaignMergeNeverThrowOnArbitraryJson, ()) {
  const nlohmann::json j = *json_value(3);
  const auto errs = verify::check_report_schema(j);  // lists violations; never throws
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "hiprim.report") RC_ASSERT(!errs.empty());
  only_input_errors([&] { fuzz::merge_fuzz_campaigns({j}); }, j.dump());
}

RC_GTEST_PROP(FuzzParsers, ReportFilesReadOrSayWhy, ()) {
  const std::string text = *rc::gen::oneOf(rc::gen::arbitrary<std::string>(), rc::gen::map(json_value(2), [](const nlohmann::json& j) { return j.dump(); }));
  const std::string path = (std::filesystem::temp_directory_path() / ("hiprim_parser_fuzz_" + std::to_string(::getpid()) + ".json")).string();
  { std::ofstream(path, std::ios::binary) << text; }
  only_input_errors([&] { verify::read_json(path); }, text);
  std::remove(path.c_str());
}

// The hiprim command's argument parsing: subcommands conv, repro, check, list, fuzz, report with
// arbitrary words. Commands that would run work are made dry: conv/repro get --print-problem, fuzz
// gets --dry-run (after which nothing runs), check and report are only parsed.
RC_GTEST_PROP(FuzzParsers, CommandLinesParseOrSayWhy, ()) {
  static const std::vector<std::string> flag_words = {"--solver", "--seed", "--fill", "--special", "--cases", "--time", "--shard", "--shard-count",
                                                      "--devices", "--oracle", "--size", "--max-macs", "--specials", "--corpus", "--op", "-n", "-c",
                                                      "-H", "-W", "-k", "-y", "-x", "-p", "-q", "-u", "-v", "-g", "-m", "-F", "--dtype", "--layout",
                                                      "conv", "all", "none", "nan,inf", "1/2", "3/2", "10m", "0", "-1", "x", "90s", "auto", "gpu"};
  const std::string sub = *rc::gen::elementOf(std::vector<std::string>{"conv", "repro", "check", "list", "fuzz", "report", "bogus"});
  auto words = *rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(rc::gen::elementOf(flag_words), rc::gen::arbitrary<std::string>(), token_soup()));
  std::vector<std::string> args{"hiprim", sub};
  args.insert(args.end(), words.begin(), words.end());
  if (sub == "conv" || sub == "repro") args.push_back("--print-problem");
  if (sub == "fuzz") args.push_back("--dry-run");
  CLI::App app{"hiprim"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, cli::Command>> cmds;
  for (auto add : {cli::add_conv, cli::add_repro, cli::add_check, cli::add_list, cli::add_fuzz, cli::add_report}) {
    const std::size_t before = app.get_subcommands({}).size();
    auto cmd = add(app);
    cmds.emplace_back(app.get_subcommands({})[before], std::move(cmd));
  }
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::string joined;
  for (auto& a : args) joined += "[" + a + "] ";
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return;  // CLI11's message: unknown flag, missing value, failed validator, ...
  }
  if (sub != "conv" && sub != "repro" && sub != "fuzz") return;  // check and report would run work
  for (auto& [s, run] : cmds)
    if (s->parsed()) only_input_errors([&] { run(); }, joined);
}

}  // namespace
}  // namespace hiprim::fuzz_test
