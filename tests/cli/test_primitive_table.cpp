// The primitive table (core/primitives.def) against everything a primitive must have. For every row:
// a parser, a CPU reference and its ref.<name> solver, the fill its fill column names, GPU solvers
// (in a build with a GPU backend; skipped visibly otherwise), a fuzz generator and the fuzz --op
// path, the hiprim command (listed by --help, its footer and `hiprim list ops`), the MIOpenDriver mapping
// (<name> and <name>fp16, a flag table, the help text, a corpus line that runs a <name> problem),
// and smoke_ops lines that fill and run on the reference (and that a GPU solver applies to). A
// negative control runs the same checks on a name without a row and sees every piece missing.
// Rows of HIPRIM_PRIMITIVE_WITHOUT_DRIVER (no MIOpenDriver command of their own) skip the hiprim
// <name> subcommand and the MIOpenDriver <name> pieces, and must be exactly kWithoutDriver below (a
// command of another name mapping onto one, CBAInfer for fusion, must run it in a corpus line).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.hpp"
#include "cli/miopen/commands.hpp"
#include "cli/miopen/translation.hpp"
#include "core/error.hpp"
#include "core/op_problem.hpp"
#include "core/primitives.hpp"
#include "fuzz/op_gen.hpp"
#include "fuzz/op_primitive.hpp"
#include "reference/op_reference.hpp"
#include "verify/op_fill.hpp"
#include "verify/op_solvers.hpp"
#include "verify/suite.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/ops_registry.hpp"
#endif

namespace {

using namespace hiprim;

struct Row {
  std::string name;
  bool own_fill = false;
  bool driver = true;  // MIOpenDriver has a command <name>
};

// The table as the test reads it (the same file the catalogs expand).
const std::vector<Row>& table_rows() {
  static const std::vector<Row> rows = {
#define HIPRIM_PRIMITIVE(name, fill) {#name, std::string_view(#fill) == "own_fill", true},
#define HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill) {#name, std::string_view(#fill) == "own_fill", false},
#include "core/primitives.def"
  };
  return rows;
}

// The primitives MIOpenDriver has no command of their name for, so no MIOpenDriver <name> mapping is
// required of them; each with the MIOpenDriver command of another name that maps onto it ("" if none),
// whose corpus lines must then run it:
//   fusion  MIOpenDriver's fused command is CBAInfer (cli/miopen/cbainfer.cpp: -F 0, 1, 3..6 with a
//           conv first map onto fusion problems).
const std::map<std::string, std::string> kWithoutDriver = {{"fusion", "CBAInfer"}};

// The rows whose MIOpenDriver command has no fp16 form (driver.hpp ParseBaseArg):
//   ctc  CTCDriver<float> only ("ctc"; ctcfp16 is no MIOpenDriver command)
const std::set<std::string> kFp32OnlyDriver = {"ctc"};

// What the checks read once: the binary's listings, the MIOpenDriver corpus, the smoke suite.
struct Sources {
  std::vector<std::string> listed_ops;                       // hiprim list ops
  std::set<std::string> help_commands;                       // the subcommands hiprim --help lists
  std::string help_footer;                                   // its "MIOpenDriver commands (...)" line
  std::map<std::string, std::set<std::string>> driver_ops;   // corpus: command word -> ops of its accepted lines
  std::vector<OpProblemPtr> smoke;                           // smoke_ops
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const Sources& sources() {
  static const Sources s = [] {
    Sources s;
    const test::Run list = test::hiprim_stdout("list ops");
    EXPECT_EQ(list.code, 0) << list.out;
    s.listed_ops = lines_of(list.out);
    // "Subcommands:" then "  <name>   <summary>" lines until a blank line.
    const test::Run help = test::hiprim_stdout("--help");
    EXPECT_EQ(help.code, 0) << help.out;
    bool in_list = false;
    for (const auto& l : lines_of(help.out)) {
      if (l == "Subcommands:") in_list = true;
      else if (in_list && l.empty()) in_list = false;
      else if (in_list) s.help_commands.insert(first_token(l));
      if (l.rfind("MIOpenDriver commands (", 0) == 0) s.help_footer = l;
    }
    std::ifstream corpus(std::string(HIPRIM_SOURCE_DIR) + "/tests/cli/miopen_driver_corpus.txt");
    EXPECT_TRUE(corpus) << "cannot read tests/cli/miopen_driver_corpus.txt";
    for (std::string l; std::getline(corpus, l);) {
      if (l.empty() || std::string("#=!~").find(l[0]) != std::string::npos) continue;
      const mdriver::Result r = mdriver::translate_line(l);
      if (!r.ok()) continue;
      for (const auto& p : r.accepted->ops) s.driver_ops[r.accepted->command].insert(p->op());
    }
    for (const auto& sp : verify::load_suite("smoke_ops", verify::SuiteOptions{})) s.smoke.push_back(sp.problem);
    return s;
  }();
  return s;
}

// Whether text names `word` as a list item (delimited by blanks, commas or parentheses).
bool names_word(const std::string& text, const std::string& word) {
  auto delim = [](char c) { return c == ' ' || c == ',' || c == '(' || c == ')' || c == '\n'; };
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    if ((at == 0 || delim(text[at - 1])) && (at + word.size() == text.size() || delim(text[at + word.size()]))) return true;
  return false;
}

#ifdef HIPRIM_WITH_GPU
bool device_solver(const OpSolver& s, const std::string& op) { return s.op() == op && s.backend() == Backend::device; }
#endif

// The pieces a row lacks, each as "<piece>: <what is missing>"; the piece names are the same for
// every row (the negative control compares them).
std::vector<std::string> missing_pieces(const Row& row) {
  const std::string& op = row.name;
  const Sources& src = sources();
  std::vector<std::string> miss;
  auto need = [&](bool ok, const std::string& piece, const std::string& what) {
    if (!ok) miss.push_back(piece + ": " + what);
  };
  auto contains = [](const auto& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };

  need(contains(op_names(), op), "parser", "no parser registered (core/op_catalog.cpp, parse_" + op + "_problem_unchecked)");
  need(ref::has_op_reference(op), "reference", "no reference registered (ref::" + op + "_expected)");
  const auto& solvers = verify::op_solvers();
  need(std::any_of(solvers.begin(), solvers.end(), [&](auto& s) { return s->name() == "ref." + op; }), "reference solver",
       "no ref." + op + " in verify::op_solvers()");
  if (row.own_fill)
    need(verify::has_op_fill(op), "fill", "own_fill, but no fill registered (verify::" + op + "_fill)");
  else
    need(!verify::has_op_fill(op), "fill", "default_fill, but a fill is registered");
#ifdef HIPRIM_WITH_GPU
  need(std::any_of(solvers.begin(), solvers.end(), [&](auto& s) { return device_solver(*s, op); }), "gpu solvers",
       "no GPU solver of op " + op + " (gpu::" + op + "_solvers)");
#endif

  const fuzz::OpGeneratorPtr gen = fuzz::op_generator(op);
  need(gen && gen->op() == op, "fuzz generator", "no generator of op " + op + " (fuzz::make_" + op + "_gen)");
  std::string fuzz_error = "no target";
  try {
    if (!fuzz::make_targets(op, "ref." + op, fuzz::op_cases()).empty()) fuzz_error.clear();
  } catch (const std::exception& e) {
    fuzz_error = e.what();
  }
  need(fuzz_error.empty(), "fuzz --op", "hiprim fuzz --op " + op + " --solver ref." + op + ": " + fuzz_error);

  need(contains(src.listed_ops, op), "hiprim list ops", "does not list " + op);
  if (!row.driver) {
    // (hiprim's own subcommand of that name may exist, e.g. `hiprim fusion <chain>`: it is no MIOpenDriver translator.)
    need(!contains(mdriver::command_names(), op), "MIOpenDriver command", "translates MIOpenDriver " + op + ", which does not exist");
    const auto other = kWithoutDriver.find(op);
    if (other != kWithoutDriver.end() && !other->second.empty()) {
      const auto it = src.driver_ops.find(other->second);
      need(it != src.driver_ops.end() && it->second.count(op) > 0, "MIOpenDriver corpus",
           "no line of tests/cli/miopen_driver_corpus.txt runs MIOpenDriver " + other->second + " as a " + op + " problem");
    }
  } else {
    need(src.help_commands.count(op) > 0, "hiprim --help", "no subcommand " + op + " listed");
    need(names_word(src.help_footer, op), "hiprim --help footer", "cli/main.cpp's list of MIOpenDriver commands lacks " + op);
    const auto& commands = mdriver::command_names();
    const bool fp16_form = kFp32OnlyDriver.count(op) == 0;
    need(contains(commands, op) && contains(commands, op + "fp16") == fp16_form, "MIOpenDriver command",
         "no MIOpenDriver " + op + (fp16_form ? " / " + op + "fp16" : " (and no " + op + "fp16)") + " (mdriver::translate_" + op + ")");
    need(!mdriver::family_flags(op).empty(), "MIOpenDriver flags", "no flag table (mdriver::" + op + "_flags)");
    need(names_word(mdriver::help_text(""), op), "MIOpenDriver help",
         "mdriver::help_text's list of known commands lacks " + op);
    bool runs = false;
    for (const std::string& c : {op, op + "fp16"})
      if (auto it = src.driver_ops.find(c); it != src.driver_ops.end()) runs = runs || it->second.count(op) > 0;
    need(runs, "MIOpenDriver corpus", "no line of tests/cli/miopen_driver_corpus.txt runs MIOpenDriver " + op + " as a " + op + " problem");
  }

  std::vector<OpProblemPtr> smoke;
  for (const auto& p : src.smoke)
    if (p->op() == op) smoke.push_back(p);
  need(!smoke.empty(), "smoke_ops", "no line of op " + op + " in verify/suites/smoke_ops.txt");
  for (const auto& p : smoke) {
    try {
      const auto filled = verify::op_fill(*p, 1);
      std::vector<const HostTensor*> inputs;
      const auto ts = p->tensors();
      for (std::size_t i = 0; i < ts.size(); ++i) inputs.push_back(ts[i].role == OpTensor::Role::output ? nullptr : &filled[i]);
      ref::op_expected(*p, inputs);
    } catch (const std::exception& e) {
      miss.push_back("smoke_ops: " + p->str() + ": fill or reference failed: " + e.what());
    }
  }
#ifdef HIPRIM_WITH_GPU
  bool applies = false;
  for (const auto& s : solvers)
    for (const auto& p : smoke) applies = applies || (device_solver(*s, op) && s->applicable(*p));
  need(applies, "smoke_ops gpu", "no GPU solver of op " + op + " applies to a smoke_ops line");
#endif
  return miss;
}

std::string piece_of(const std::string& m) { return m.substr(0, m.find(':')); }

TEST(PrimitiveTable, EveryRowHasEveryPiece) {
  ASSERT_FALSE(table_rows().empty());
  for (const Row& row : table_rows()) {
    const auto miss = missing_pieces(row);
    std::string all;
    for (const auto& m : miss) all += "\n  " + m;
    EXPECT_TRUE(miss.empty()) << "primitive " << row.name << " (core/primitives.def) lacks:" << all;
  }
}

// The rows without a MIOpenDriver command are exactly the commented exemptions above.
TEST(PrimitiveTable, RowsWithoutDriverAreTheExemptions) {
  std::set<std::string> without, exempt;
  for (const Row& row : table_rows())
    if (!row.driver) without.insert(row.name);
  for (const auto& [name, command] : kWithoutDriver) exempt.insert(name);
  EXPECT_EQ(without, exempt);
}

// The checks bite: a name without a row lacks every piece; a row with the other fill column is caught.
TEST(PrimitiveTable, ChecksSeeWhatANameWithoutARowLacks) {
  std::set<std::string> pieces;
  for (const auto& m : missing_pieces({"foo", true})) pieces.insert(piece_of(m));
  std::set<std::string> expected = {"parser", "reference", "reference solver", "fill", "fuzz generator", "fuzz --op",
                                    "hiprim list ops", "hiprim --help", "hiprim --help footer", "MIOpenDriver command", "MIOpenDriver flags",
                                    "MIOpenDriver help", "MIOpenDriver corpus", "smoke_ops"};
#ifdef HIPRIM_WITH_GPU
  expected.insert({"gpu solvers", "smoke_ops gpu"});
#endif
  EXPECT_EQ(pieces, expected);
  for (const Row& row : table_rows()) {
    const auto miss = missing_pieces({row.name, !row.own_fill, row.driver});
    ASSERT_EQ(miss.size(), 1u) << row.name;
    EXPECT_EQ(piece_of(miss[0]), "fill") << miss[0];
  }
}

// No primitive outside the table: the parser registry, the fuzz targets and the op solvers name
// exactly the table's ops; hiprim list ops prints them in table order.
TEST(PrimitiveTable, RegistriesHoldNoOtherOp) {
  std::vector<std::string> names;
  for (const Row& row : table_rows()) names.push_back(row.name);
  EXPECT_EQ(primitive_names(), names);
  EXPECT_EQ(sources().listed_ops, names);
  const test::Run globs = test::hiprim_stdout("list ops --globs");
  std::string want;
  for (const auto& n : names) want += (want.empty() ? "" : ",") + n + ".*";
  EXPECT_EQ(globs.out, want + "\n");
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(fuzz::fuzzed_ops(), sorted);
  sorted.push_back("conv");  // the parser registry also reads conv problems
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(op_names(), sorted);
  for (const auto& s : verify::op_solvers()) EXPECT_TRUE(is_primitive(s->op())) << s->name() << " of op " << s->op();
  EXPECT_FALSE(is_primitive("conv"));
}

// The GPU registry (gpu/ops_registry.cpp): every row's solvers, together, in table order.
TEST(PrimitiveTable, GpuRegistryFollowsTheTable) {
#ifndef HIPRIM_WITH_GPU
  GTEST_SKIP() << "this build has no GPU backend (HIPRIM_GPU=off): the GPU solver registry and the rows' GPU pieces "
                  "(gpu solvers, smoke_ops gpu) are not checked";
#else
  std::vector<std::string> ops;  // the registry's op of each run of solvers
  for (const auto& s : gpu::gpu_op_solvers())
    if (ops.empty() || ops.back() != s->op()) ops.push_back(s->op());
  EXPECT_EQ(ops, primitive_names());
#endif
}

}  // namespace
