// Repro lines and corpus files; the committed corpus replays clean on this build's solvers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "fuzz/conv_primitive.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/op_primitive.hpp"
#include "fuzz/primitive.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"

namespace hiprim::fuzz {
namespace {

TEST(FuzzCorpus, ReproLineRoundTrip) {
  ReproLine r;
  r.problem = "conv bwd-data bf16 nhwc n2 c4 k6 in5x7 f3x3 pad1x1 str2x1 dil1x1 g2";
  r.solver = "conv.*";
  r.seed = 18446744073709551615ULL;
  r.fill = "bounded";
  r.special = "nan";
  EXPECT_EQ(r.str(), "hiprim repro \"conv bwd-data bf16 nhwc n2 c4 k6 in5x7 f3x3 pad1x1 str2x1 dil1x1 g2\" --solver 'conv.*' --seed "
                     "18446744073709551615 --fill bounded --special nan");
  EXPECT_EQ(parse_repro_line(r.str()), r);
  EXPECT_EQ(r.op(), "conv");
  // The runner's own repro lines parse too (flags in any order).
  const ReproLine q = parse_repro_line("hiprim repro --seed 7 \"conv n1 c1 k1 in2x2 f1x1\" --solver ref.conv.fast");
  EXPECT_EQ(q.seed, 7u);
  EXPECT_EQ(q.solver, "ref.conv.fast");
  EXPECT_EQ(q.problem, "conv n1 c1 k1 in2x2 f1x1");
}

TEST(FuzzCorpus, BadReproLinesNameTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"hiprim check \"conv n1\"", "hiprim repro"},
      {"hiprim repro --seed 1", "no problem"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --seed x", "--seed"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --seed 99999999999999999999", "2^64"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --seed 1 --seed 2", "twice"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --bogus 1", "unknown flag"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --solver", "needs a value"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1", "unterminated"},
      {"hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --fill sometimes", "exact or bounded"},
      {"hiprim repro \"conv\" \"conv\"", "unexpected word"},
  };
  for (auto [line, needle] : cases) {
    try {
      parse_repro_line(line);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << line << " -> " << e.what();
    }
  }
}

TEST(FuzzCorpus, CorpusTextHoldsExactlyOneLine) {
  EXPECT_EQ(parse_corpus_text("# found by a campaign\n\nhiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --seed 3\n", "a.repro").seed, 3u);
  EXPECT_THROW(parse_corpus_text("# nothing\n", "a.repro"), InputError);
  EXPECT_THROW(parse_corpus_text("hiprim repro \"conv n1 c1 k1 in2x2 f1x1\"\nhiprim repro \"conv n1 c1 k1 in2x2 f1x1\"\n", "a.repro"), InputError);
  try {
    parse_corpus_text("\nhiprim repro \"x\" --what\n", "dir/b.repro");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("dir/b.repro:2:", 0), 0u) << e.what();
  }
}

TEST(FuzzCorpus, SaveAndLoadAFolder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hiprim_corpus_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ReproLine a, b;
  a.problem = "conv fwd fp32 nchw n1 c1 k1 in1x3 f1x1 pad0x0 str1x1 dil1x1 g1";
  a.solver = "mutant.dropped_tail";
  b = a;
  b.seed = 9;
  const std::string pa = save_to_corpus(dir.string(), a);
  EXPECT_EQ(save_to_corpus(dir.string(), a), pa);  // the same line, the same file
  save_to_corpus(dir.string(), b);
  std::ofstream(dir / "README.md") << "not a corpus file\n";
  const auto entries = load_corpus_dir(dir.string());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].repro == a || entries[1].repro == a);
  EXPECT_EQ(fs::path(pa).filename().string().rfind("conv-mutant.dropped_tail-", 0), 0u) << pa;
  EXPECT_THROW(load_corpus_dir((dir / "missing").string()), InputError);
  fs::remove_all(dir);
}

// Every committed corpus entry passes on every solver of this build that its glob selects (conv
// lines on the conv solvers, op lines on their op's solvers).
TEST(FuzzCorpus, CommittedCorpusReplaysClean) {
  const auto entries = embedded_corpus();
  EXPECT_GE(entries.size(), 6u);
  int runs = 0, op_runs = 0;
  auto check = [&](const verify::CaseRecord& rec) {
    EXPECT_NE(rec.verdict.status, verify::Status::failed) << rec.repro << ": " << rec.verdict.reason;
    EXPECT_NE(rec.verdict.status, verify::Status::error) << rec.repro << ": " << rec.verdict.reason;
  };
  for (const auto& e : entries) {
    SCOPED_TRACE(e.source);
    const FuzzPrimitive& primitive = fuzz_primitive(e.repro.op());
    const CaseSpecPtr c = primitive.case_from_repro(e.repro);
    for (const auto& s : verify::all_solvers()) {
      if (s->op() != e.repro.op() || !verify::glob_match(e.repro.solver, s->name())) continue;
      check(primitive.run(*c, *s));
      ++(e.repro.op() == "conv" ? runs : op_runs);
    }
  }
  EXPECT_GT(runs, 0);
  EXPECT_GT(op_runs, 0);
}

// The primitive's repro-line case on a solver of verify::all_solvers() runs exactly as the typed
// entry points do (conv: run_conv_case on the registry's ConvSolver; ops: run_op_fuzz_case), and
// conv's refuses another op's solver.
TEST(FuzzCorpus, ThePrimitivesCaseOfAReproLineRunsAsItsOwnPath) {
  ReproLine conv_line{"conv fwd fp32 nchw n1 c1 k1 in1x1 f1x3 pad0x1 str1x1 dil1x1 g1", "ref.conv.fast", 120, "bounded", "nan"};
  ReproLine op_line{"activ bwd clippedrelu fp32 nchw n1 c1 in1x8 alpha0.01", "ref.activ", 3, "", ""};
  auto solver = [](const std::string& name) {
    for (const auto& s : verify::all_solvers())
      if (s->name() == name) return s;
    throw InputError("no solver " + name);
  };
  const FuzzPrimitive& conv = fuzz_primitive("conv");
  const FuzzPrimitive& ops = fuzz_primitive("activ");
  EXPECT_STREQ(conv.size_unit(), "MACs");
  EXPECT_STREQ(ops.size_unit(), "elements");
  const auto a = conv.run(*conv.case_from_repro(conv_line), *solver("ref.conv.fast"));
  const auto b = run_conv_case(conv_case_from_repro(conv_line), *verify::select_conv_solvers("ref.conv.fast").front());
  EXPECT_EQ(a.verdict.status, verify::Status::passed) << a.verdict.reason;
  EXPECT_EQ(a.repro, b.repro);
  EXPECT_EQ(a.verdict.reason, b.verdict.reason);
  EXPECT_NE(a.repro.find("--special nan"), std::string::npos) << a.repro;
  const auto c = ops.run(*ops.case_from_repro(op_line), *solver("ref.activ"));
  const auto d = run_op_fuzz_case(op_case_from_repro(op_line), *solver("ref.activ"));
  EXPECT_EQ(c.verdict.status, verify::Status::passed) << c.verdict.reason;
  EXPECT_EQ(c.repro, d.repro);
  EXPECT_EQ(c.verdict.metrics.worst_ratio, d.verdict.metrics.worst_ratio);
  EXPECT_THROW(conv.run(*conv.case_from_repro(conv_line), *solver("ref.activ")), InputError);
  EXPECT_THROW(ops.case_from_repro(conv_line), InputError);  // a conv line is no op case
}

}  // namespace
}  // namespace hiprim::fuzz
