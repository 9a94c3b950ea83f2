// hiprim find / tune / run / db train / db eval-immediate on the host backend, as a user runs them:
// records written and shown, immediate mode's source per HIPRIM_FIND_MODE, bad input (exit 2), and
// several finds at once on one user db (every record kept, the db sound).
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/tuning/tuning_fixture.hpp"

namespace hiprim::test {
namespace {

const std::string kProblem = "'conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3'";

class CliFind : public TuningDbTest {
 protected:
  void SetUp() override {
    TuningDbTest::SetUp();
    setenv("HIPRIM_USER_DB", path("user.db").c_str(), 1);
    setenv("HIPRIM_SYSTEM_DB", "", 1);  // no system db, installed or not
    for (const char* v : {"HIPRIM_FIND_MODE", "HIPRIM_SOLVER", "HIPRIM_DISABLE_SOLVERS"}) unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : {"HIPRIM_USER_DB", "HIPRIM_FIND_MODE", "HIPRIM_SOLVER", "HIPRIM_DISABLE_SOLVERS"}) unsetenv(v);
    TuningDbTest::TearDown();
  }
  std::size_t find_records() {
    const auto db = tuning::Db::open(path("user.db"), tuning::tuning_schema(), tuning::Db::Access::read_shared);
    return tuning::FindDb(db).all().size();
  }
};

TEST_F(CliFind, FindVerifiesTimesAndRecordsTheWinner) {
  EXPECT_TRUE(exits_with("find " + kProblem + " --backend host --report " + path("find.json"), 0, "WINNER"));
  const hiprim::test::Run r = hiprim("find " + kProblem + " --backend host");
  EXPECT_TRUE(has(r.out, "winner: ref.conv.fast")) << r.out;
  EXPECT_TRUE(has(r.out, "(recorded)")) << r.out;
  EXPECT_EQ(find_records(), 1u);
  EXPECT_TRUE(exits_with("db show --db " + path("user.db"), 0, "find ref.conv.fast config= time_us="));
  EXPECT_TRUE(exits_with("db show --db " + path("user.db"), 0, "verified=yes"));
  std::ifstream report(path("find.json"));
  const std::string text((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(text, "\"winner\"")) << text;
  EXPECT_TRUE(has(text, "\"solver\": \"ref.conv.fast\"")) << text;
  // --no-record measures without writing; the device backend on a machine without a GPU finds nothing.
  EXPECT_TRUE(exits_with("find 'conv fwd fp32 nchw n1 c4 k8 in8x8 f3x3' --backend host --no-record", 0, "winner: ref.conv.fast"));
  EXPECT_EQ(find_records(), 1u);
}

TEST_F(CliFind, TuneWithoutConfigsSaysSo) {
  EXPECT_TRUE(exits_with("tune " + kProblem + " --backend host --budget-s 2", 0, "no candidate solver with perf configs"));
}

TEST_F(CliFind, RunTakesItsChoiceFromTheFindDbThenTheModel) {
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host", 0, "ref.conv.fast config \"\" (heuristic)"));
  ASSERT_TRUE(exits_with("find " + kProblem + " --backend host", 0));
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host", 0, "(find-db)"));
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host", 0, "passed"));
  setenv("HIPRIM_FIND_MODE", "fast", 1);  // immediate only: no model trained yet
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host --choice-only", 0, "(mode fast): ref.conv.fast config \"\" (heuristic)"));
  ASSERT_TRUE(exits_with("db train", 0, "trained: 1 problems"));
  EXPECT_TRUE(exits_with("run 'conv fwd fp32 nchw n1 c6 k4 in8x8 f3x3' --backend host --choice-only", 0, "(model)"));
  setenv("HIPRIM_FIND_MODE", "normal", 1);  // a miss runs Find and records it
  EXPECT_TRUE(exits_with("run 'conv fwd fp32 nchw n1 c4 k4 in10x10 f3x3' --backend host --choice-only", 0, "(find)"));
  EXPECT_EQ(find_records(), 2u);
  setenv("HIPRIM_FIND_MODE", "sometimes", 1);
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host", 2, "HIPRIM_FIND_MODE='sometimes': expected normal, fast or hybrid"));
  unsetenv("HIPRIM_FIND_MODE");
  setenv("HIPRIM_DISABLE_SOLVERS", "ref.*", 1);
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host", 1, "outside HIPRIM_DISABLE_SOLVERS='ref.*'"));
}

TEST_F(CliFind, EvalImmediateReportsTheHitRate) {
  for (int c : {4, 6, 8, 12, 16, 24})
    ASSERT_TRUE(exits_with("find 'conv fwd fp32 nchw n1 c" + std::to_string(c) + " k4 in8x8 f3x3' --backend host", 0));
  EXPECT_TRUE(exits_with("db eval-immediate --holdout 0.5 --db " + path("user.db") + " --report " + path("eval.json"), 0,
                         "within 10% of Find's best"));
  EXPECT_TRUE(std::filesystem::exists(path("eval.json")));
  // --measure: each held-out pick run as immediate mode runs it (the solver's default config) and
  // Find's best beside it, both verified and timed now.
  EXPECT_TRUE(exits_with("db eval-immediate --holdout 0.5 --db " + path("user.db") + " --measure --backend host --time-budget-ms 5 --report " +
                             path("measured.json"),
                         0, "picks run as immediate mode runs them"));
  std::ifstream in(path("measured.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& m = j.at("measured");
  EXPECT_EQ(m.at("picks").get<std::size_t>(), j.at("picked").get<std::size_t>());
  EXPECT_GT(m.at("picks").get<std::size_t>(), 0u);
  EXPECT_EQ(m.at("failed").get<std::size_t>(), 0u);
  for (const auto& c : m.at("cases")) {
    EXPECT_TRUE(c.at("picked").at("verified").get<bool>()) << c.dump();
    EXPECT_GT(c.at("picked").at("time_us").get<double>(), 0) << c.dump();
    const bool within = c.at("picked").at("time_us").get<double>() <= 1.1 * c.at("best").at("time_us").get<double>();
    EXPECT_EQ(c.at("hit").get<bool>(), within) << c.dump();
  }
}

TEST_F(CliFind, BadInputIsExitTwo) {
  EXPECT_TRUE(exits_with("find", 2, "give either a problem string or --suite"));
  EXPECT_TRUE(exits_with("find " + kProblem + " --suite smoke", 2, "not both"));
  EXPECT_TRUE(exits_with("find 'conv sideways fp32'", 2, ""));
  EXPECT_TRUE(exits_with("find " + kProblem + " --backend gpu", 2, "--backend 'gpu': expected device or host"));
  EXPECT_TRUE(exits_with("find " + kProblem + " --backend host --solver nothing.like.this", 2, "matches no solver"));
  EXPECT_TRUE(exits_with("find " + kProblem + " --backend host --time-budget-ms 0", 2, "--time-budget-ms"));
  EXPECT_TRUE(exits_with("find --suite no_such_suite --backend host", 2, ""));
  EXPECT_TRUE(exits_with("tune " + kProblem + " --backend host --budget-s -1", 2, "--budget-s"));
  EXPECT_TRUE(exits_with("db eval-immediate --holdout 1.5", 2, "--holdout"));
  EXPECT_TRUE(exits_with("db eval-immediate --holdout 0.5 --measure --backend gpu", 2, "--backend 'gpu'"));
  EXPECT_TRUE(exits_with("db train --db " + path("absent.db"), 2, "no such db"));
  EXPECT_TRUE(exits_with("run 'conv fwd fp32 nchw n1 c0 k4 in8x8 f3x3' --backend host", 2, ""));
  EXPECT_TRUE(exits_with("run " + kProblem + " --backend host --config nonsense", 1, "perf config 'nonsense' cannot run"));
}

TEST_F(CliFind, ConcurrentFindsOnOneUserDbKeepEveryRecord) {
  // Six processes at once, each finding four problems of its own and one shared problem.
  constexpr int kProcs = 6, kOwn = 4;
  std::string cmd;
  for (int i = 0; i < kProcs; ++i) {
    std::ofstream suite(path("suite" + std::to_string(i) + ".txt"));
    // Sizes that take each process a good part of a second, so that their writes overlap.
    for (int j = 0; j < kOwn; ++j) suite << "conv fwd fp32 nchw n2 c" << (8 + i) << " k" << (8 + j) << " in16x16 f3x3\n";
    suite << "conv fwd fp32 nchw n2 c8 k8 in8x8 f3x3\n";
    cmd += hiprim_binary() + " find --suite " + path("suite" + std::to_string(i) + ".txt") + " --backend host --time-budget-ms 20 > " +
           path("out" + std::to_string(i)) + " 2>&1 & ";
  }
  const hiprim::test::Run r = run_shell(cmd + "wait; cat " + path("out*"));
  std::size_t done = 0;
  for (std::size_t at = 0; (at = r.out.find("find: 5 problems, 0 without a verified winner", at)) != std::string::npos; ++at) ++done;
  EXPECT_EQ(done, std::size_t{kProcs}) << r.out;
  EXPECT_EQ(find_records(), std::size_t{kProcs * kOwn + 1});
  EXPECT_TRUE(exits_with("db check --db " + path("user.db"), 0, "ok: schema version 2, 25 find records"));
}

}  // namespace
}  // namespace hiprim::test
