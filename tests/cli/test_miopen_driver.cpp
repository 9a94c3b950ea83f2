// The MIOpenDriver front end (cli/miopen/translation.hpp) against
//   - tests/cli/miopen_driver_corpus.txt: lines with what MIOpenDriver runs for them, written from
//     MIOpen's driver sources (the expected problems, refusals and notes are the file's, not the
//     code's);
//   - tests/cli/miopen_driver_flags.tsv: every command's flag table as extracted from MIOpen's
//     AddCmdLineArgs (scripts/extract_miopen_driver_flags.py);
//   - tests/cli/miopen_driver_harvest.txt: every real line found in MIOpen's history
//     (scripts/harvest_miopen_driver_lines.py): each must map to problems that round-trip through
//     hiprim's parsers, or be refused with a reason.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/miopen/commands.hpp"
#include "cli/miopen/translation.hpp"
#include "core/conv_problem.hpp"
#include "core/op_problem.hpp"

namespace {

using namespace hiprim;
using namespace hiprim::mdriver;

std::string data_path(const std::string& name) { return std::string(HIPRIM_SOURCE_DIR) + "/tests/cli/" + name; }

struct Case {
  int line = 0;
  std::string text;
  std::vector<std::string> problems;
  std::string refusal_kind, refusal_words;
  std::vector<std::string> notes;
};

std::vector<Case> read_corpus() {
  std::ifstream in(data_path("miopen_driver_corpus.txt"));
  EXPECT_TRUE(in) << "cannot read the corpus";
  std::vector<Case> cases;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("= ", 0) == 0) {
      cases.back().problems.push_back(line.substr(2));
    } else if (line.rfind("! ", 0) == 0) {
      const auto colon = line.find(": ");
      cases.back().refusal_kind = line.substr(2, colon - 2);
      cases.back().refusal_words = line.substr(colon + 2);
    } else if (line.rfind("~ ", 0) == 0) {
      cases.back().notes.push_back(line.substr(2));
    } else {
      cases.push_back({n, line, {}, "", "", {}});
    }
  }
  return cases;
}

// A canonical string parses back to the same problem and prints the same string.
void expect_round_trip(const std::string& s, const std::string& where) {
  try {
    if (first_token(s) == "conv") EXPECT_EQ(to_string(parse_conv_problem(s)), s) << where;
    else EXPECT_EQ(parse_op_problem(s)->str(), s) << where;
  } catch (const std::exception& e) {
    ADD_FAILURE() << where << ": " << s << " does not parse back: " << e.what();
  }
}

TEST(MIOpenDriverCorpus, EveryLineMeansWhatMIOpenDriverRuns) {
  const auto cases = read_corpus();
  ASSERT_GT(cases.size(), 150u);
  for (const auto& c : cases) {
    const std::string where = "corpus line " + std::to_string(c.line) + ": " + c.text;
    ASSERT_TRUE(!c.problems.empty() || !c.refusal_kind.empty()) << where << ": no expectation";
    const Result r = translate_line(c.text);
    if (!c.problems.empty()) {
      ASSERT_TRUE(r.ok()) << where << "\n  refused: " << r.refused->reason;
      EXPECT_EQ(r.accepted->problem_strings(), c.problems) << where;
      for (auto& s : r.accepted->problem_strings()) expect_round_trip(s, where);
      for (auto& want : c.notes) {
        bool found = false;
        for (auto& n : r.accepted->notes) found = found || n.find(want) != std::string::npos;
        std::string all;
        for (auto& n : r.accepted->notes) all += "\n  note: " + n;
        EXPECT_TRUE(found) << where << ": no note with '" << want << "'" << all;
      }
    } else {
      ASSERT_FALSE(r.ok()) << where << "\n  accepted: " << (r.ok() ? r.accepted->problem_strings().front() : "");
      EXPECT_EQ(std::string(refusal_kind_name(r.refused->kind)), c.refusal_kind) << where << "\n  reason: " << r.refused->reason;
      EXPECT_NE(r.refused->reason.find(c.refusal_words), std::string::npos)
          << where << "\n  want: " << c.refusal_words << "\n  reason: " << r.refused->reason;
    }
  }
}

// Every flag of every command (long or short spelling) and every command name the front end
// accepts appears in a corpus line.
TEST(MIOpenDriverCorpus, CoversEveryFlagAndCommand) {
  const auto cases = read_corpus();
  std::map<std::string, std::set<std::string>> words_by_command;
  for (const auto& c : cases) {
    auto w = split_words(c.text);
    std::size_t i = 0;
    while (i < w.size() && w[i].find("MIOpenDriver") == std::string::npos) ++i;
    if (i + 1 >= w.size()) continue;
    for (std::size_t j = i + 2; j < w.size(); ++j) words_by_command[w[i + 1]].insert(w[j]);
  }
  for (const auto& name : command_names()) EXPECT_TRUE(words_by_command.count(name)) << "no corpus line for MIOpenDriver " << name;
  const std::map<std::string, std::vector<std::string>> families = {
      {"conv", {"conv", "convfp16", "convbfp16"}}, {"bnorm", {"bnorm", "bnormfp16"}}, {"pool", {"pool", "poolfp16"}},
      {"lrn", {"lrn", "lrnfp16"}},  {"activ", {"activ", "activfp16"}}, {"softmax", {"softmax", "softmaxfp16"}},
      {"tensorop", {"tensorop", "tensoropfp16"}}, {"reduce", {"reduce", "reducefp16"}}, {"dropout", {"dropout", "dropoutfp16"}},
      {"CBAInfer", {"CBAInfer", "CBAInferfp16"}}, {"ctc", {"ctc"}}, {"rnn", {"rnn", "rnnfp16"}}};
  for (const auto& [family, names] : families) {
    std::set<std::string> words;
    for (auto& n : names)
      for (auto& w : words_by_command[n]) words.insert(w);
    std::vector<FlagSpec> specs = family_flags(family);
    if (family == "pool")
      for (auto& s : pool_legacy_flags()) specs.push_back(s);
    for (const auto& s : specs) {
      const bool used = words.count("--" + s.long_name) || words.count(std::string("-") + s.short_name);
      EXPECT_TRUE(used) << family << ": no corpus line uses -" << s.short_name << " / --" << s.long_name;
    }
  }
}

// The front end's tables are MIOpen's (long name, letter, default, upper-casing) for every command.
TEST(MIOpenDriverFlags, TablesAreMIOpensAddCmdLineArgs) {
  std::ifstream in(data_path("miopen_driver_flags.tsv"));
  ASSERT_TRUE(in);
  std::map<std::string, std::set<std::string>> miopen;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string fam, lng, sht, def, up;
    std::getline(ss, fam, '\t');
    std::getline(ss, lng, '\t');
    std::getline(ss, sht, '\t');
    std::getline(ss, def, '\t');
    std::getline(ss, up, '\t');
    miopen[fam].insert(lng + " -" + sht + " [" + def + "] " + up);
  }
  ASSERT_EQ(miopen.size(), 13u);
  for (const auto& [fam, rows] : miopen) {
    std::set<std::string> ours;
    for (const auto& s : fam == "pool_legacy" ? pool_legacy_flags() : family_flags(fam)) {
      if (fam == "lrn" && s.long_name == "back") continue;  // the 2016 flag, accepted on purpose
      ours.insert(s.long_name + " -" + std::string(1, s.short_name) + " [" + s.default_value + "] " + (s.uppercase ? "true" : "false"));
    }
    EXPECT_EQ(ours, rows) << fam;
  }
}

// Real lines from MIOpen's history: a verdict for each, the accepted ones round-trip.
TEST(MIOpenDriverHarvest, EveryRealLineMapsOrIsRefusedWithAReason) {
  std::ifstream in(data_path("miopen_driver_harvest.txt"));
  ASSERT_TRUE(in);
  std::string line;
  std::map<std::string, int> counts;
  int total = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string text = line.substr(line.find('\t') + 1);
    ++total;
    Result r;
    try {
      r = translate_line(text);
    } catch (const std::exception& e) {
      ADD_FAILURE() << text << ": the translation threw " << e.what();
      continue;
    }
    if (r.ok()) {
      ASSERT_FALSE(r.accepted->problem_strings().empty()) << text;
      for (auto& s : r.accepted->problem_strings()) expect_round_trip(s, text);
      ++counts["mapped"];
    } else {
      EXPECT_FALSE(r.refused->reason.empty()) << text;
      EXPECT_NE(r.refused->kind, RefusalKind::help) << text;
      ++counts[std::string(refusal_kind_name(r.refused->kind))];
    }
  }
  EXPECT_GT(total, 4000);
  std::string summary;
  for (auto& [k, v] : counts) summary += " " + k + " " + std::to_string(v);
  std::printf("harvested lines: %d:%s\n", total, summary.c_str());
  // Most real lines are conv lines of test/perf_models; far more than half must map.
  EXPECT_GT(counts["mapped"], total * 9 / 10) << summary;
}

// Splitting like a shell: quotes, backslashes, blanks.
TEST(MIOpenDriverLine, SplitsWordsLikeAShell) {
  EXPECT_EQ(split_words("  a 'b c'  \"d\\\"e\" f\\ g  "), (std::vector<std::string>{"a", "b c", "d\"e", "f g"}));
  EXPECT_TRUE(split_words(" \t ").empty());
}

}  // namespace

// CBAInfer's batch-norm parameters are Tgpu (driver/dm_fusion.cpp: float for CBAInfer, half for
// CBAInferfp16): the fp32-parameter note belongs to CBAInferfp16, not to CBAInfer with --dtype.
TEST(MIOpenDriverLine, CBAInferNotesHalfBatchNormParametersOnlyForFp16) {
  auto has_note = [](const Result& r) {
    for (auto& n : r.accepted->notes)
      if (n.find("keeps the batch-norm scale") != std::string::npos) return true;
    return false;
  };
  const Result half = translate_line("MIOpenDriver CBAInferfp16 -F 3 -n 1 -c 2 -H 3 -W 3 -k 2 -M 1");
  ASSERT_TRUE(half.ok()) << half.refused->reason;
  EXPECT_TRUE(has_note(half));
  const Result bf16 = translate_line("MIOpenDriver CBAInfer -F 3 -n 1 -c 2 -H 3 -W 3 -k 2 -M 1 --dtype bf16");
  ASSERT_TRUE(bf16.ok()) << bf16.refused->reason;
  EXPECT_EQ(bf16.accepted->problem_strings().front(), "fusion fwd bf16 nchw conv(n1 c2 k2 in3x3 f3x3 pad0x0 str1x1 dil1x1 g1) bnorm-infer(eps1e-06)");
  EXPECT_FALSE(has_note(bf16));
}
