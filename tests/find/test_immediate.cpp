// Immediate mode: the find-db winner, the model's nearest-neighbour pick on synthetic records, the
// heuristic fallback, HIPRIM_FIND_MODE, HIPRIM_SOLVER and HIPRIM_DISABLE_SOLVERS.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>

#include "core/error.hpp"
#include "tests/find/config_solver.hpp"
#include "tests/tuning/tuning_fixture.hpp"
#include "tuning/model.hpp"
#include "verify/immediate.hpp"

namespace hiprim::test {
namespace {

std::string conv(int c, const std::string& dtype = "fp32") {
  return parse_op_problem("conv fwd " + dtype + " nchw n1 c" + std::to_string(c) + " k" + std::to_string(c) + " in8x8 f3x3")->str();
}

tuning::FindRecord rec(const std::string& problem, const std::string& solver, const std::string& config, double us) {
  return tuning::FindRecord{verify::machine_key(problem, Backend::host), solver, config, us, 0, true, 0};
}

// Two host solvers: "test.a" (no configs), "test.b" (configs b0, b1); registry order a, b.
ConvSolverList two_solvers() {
  ConfigSolverSpec a, b;
  a.name = "test.a";
  b.name = "test.b";
  b.configs = {"b0", "b1"};
  return {make_config_solver(a), make_config_solver(b)};
}

// Unsets the switches around each test.
class Immediate : public TuningDbTest {
 protected:
  void SetUp() override {
    TuningDbTest::SetUp();
    for (const char* v : {"HIPRIM_FIND_MODE", "HIPRIM_SOLVER", "HIPRIM_DISABLE_SOLVERS", "HIPRIM_CONV_CONFIG"}) unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : {"HIPRIM_FIND_MODE", "HIPRIM_SOLVER", "HIPRIM_DISABLE_SOLVERS", "HIPRIM_CONV_CONFIG"}) unsetenv(v);
    TuningDbTest::TearDown();
  }
  // Immediate mode's choice for problem among two_solvers(): "solver config source".
  std::string choice(const std::string& problem, const tuning::TuningDbs& dbs) {
    const ConvSolverList list = two_solvers();
    const ConvProblem p = *op_problem_cast<ConvProblem>(*parse_op_problem(problem));
    const auto cx = verify::ImmediateContext::from_env(&dbs);
    const auto c = verify::choose_solver(list, p, problem, Backend::host, cx, [](const ConvSolver&) { return true; },
                                         [](const std::string& why) { throw RuntimeError(why); });
    return c.solver->name() + " " + c.config + " " + c.source;
  }
};

TEST_F(Immediate, PicksTheFindDbWinnerThenTheModelThenTheHeuristic) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  EXPECT_EQ(choice(conv(16), dbs), "test.a  heuristic");  // nothing known: registry order
  ASSERT_TRUE(dbs.put(std::vector<tuning::FindRecord>{rec(conv(16), "test.a", "", 50), rec(conv(16), "test.b", "b1", 20)}));
  EXPECT_EQ(choice(conv(16), dbs), "test.b b1 find-db");
  EXPECT_EQ(choice(conv(24), dbs), "test.a  heuristic");  // no model trained yet
  tuning::ImmediateModel::train(*dbs.user()).store(*dbs.user());
  const tuning::TuningDbs fresh({path("user.db"), ""}, keep_warnings());  // the model is loaded once per session
  // The model picks the solver; its config came from conv(16), so on conv(24) the solver's default runs.
  EXPECT_EQ(choice(conv(24), fresh), "test.b  model");
  setenv("HIPRIM_FIND_MODE", "fast", 1);  // the find db is not asked: the model's pick from this very problem keeps its config
  EXPECT_EQ(choice(conv(16), fresh), "test.b b1 model");
  unsetenv("HIPRIM_FIND_MODE");
  EXPECT_EQ(choice(conv(16, "fp16"), fresh), "test.a  heuristic");  // another dtype: no neighbour
}

TEST_F(Immediate, FindModeSwitches) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(std::vector<tuning::FindRecord>{rec(conv(16), "test.b", "b1", 20)}));
  setenv("HIPRIM_FIND_MODE", "hybrid", 1);
  EXPECT_EQ(choice(conv(16), dbs), "test.b b1 find-db");
  setenv("HIPRIM_FIND_MODE", "fast", 1);  // immediate only: the find db is not asked, no model yet
  EXPECT_EQ(choice(conv(16), dbs), "test.a  heuristic");
  setenv("HIPRIM_FIND_MODE", "normal", 1);  // a hit is used; a miss without a finder falls through
  EXPECT_EQ(choice(conv(16), dbs), "test.b b1 find-db");
  EXPECT_EQ(choice(conv(32), dbs), "test.a  heuristic");
  setenv("HIPRIM_FIND_MODE", "slow", 1);
  EXPECT_THROW(choice(conv(16), dbs), InputError);
}

TEST_F(Immediate, ModeNormalRunsTheFinderOnAMiss) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  const ConvSolverList list = two_solvers();
  const ConvProblem p = *op_problem_cast<ConvProblem>(*parse_op_problem(conv(16)));
  for (const auto mode : {verify::FindMode::normal, verify::FindMode::hybrid}) {
    verify::ImmediateContext cx;
    cx.mode = mode;
    cx.dbs = &dbs;
    int calls = 0;
    cx.find = [&]() -> std::optional<verify::NamedPick> { return ++calls, verify::NamedPick{"test.b", "b0", "find"}; };
    const auto c = verify::choose_solver(list, p, conv(16), Backend::host, cx, [](const ConvSolver&) { return true; },
                                         [](const std::string& why) { throw RuntimeError(why); });
    EXPECT_EQ(calls, mode == verify::FindMode::normal ? 1 : 0);
    EXPECT_EQ(c.source, mode == verify::FindMode::normal ? "find" : "heuristic");
  }
}

TEST_F(Immediate, OnlyAndDisabledSolvers) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(std::vector<tuning::FindRecord>{rec(conv(16), "test.b", "b1", 20)}));
  setenv("HIPRIM_SOLVER", "test.a", 1);  // only test.a: the find db's test.b is not a candidate
  EXPECT_EQ(choice(conv(16), dbs), "test.a  heuristic");
  unsetenv("HIPRIM_SOLVER");
  setenv("HIPRIM_DISABLE_SOLVERS", "test.b*", 1);
  EXPECT_EQ(choice(conv(16), dbs), "test.a  heuristic");
  setenv("HIPRIM_DISABLE_SOLVERS", "test.*", 1);
  try {
    choice(conv(16), dbs);
    ADD_FAILURE() << "no candidate should be left";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("outside HIPRIM_DISABLE_SOLVERS='test.*'"), std::string::npos) << e.what();
  }
}

TEST_F(Immediate, HipConvConfigLeavesTheConfigToTheVariable) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(std::vector<tuning::FindRecord>{rec(conv(16), "test.b", "b1", 20)}));
  setenv("HIPRIM_CONV_CONFIG", "b0", 1);  // the solver's default, overridden: the pick must not override it back
  EXPECT_EQ(choice(conv(16), dbs), "test.b  find-db");
}

TEST_F(Immediate, ARecordWithAConfigThatNoLongerFitsIsNotUsed) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(std::vector<tuning::FindRecord>{rec(conv(16), "test.b", "b9", 20)}));
  EXPECT_EQ(choice(conv(16), dbs), "test.a  heuristic");
}

// Synthetic records: small channel counts are won by "small", large ones by "large".
std::vector<tuning::FindRecord> synthetic() {
  std::vector<tuning::FindRecord> out;
  for (int c : {8, 12, 16, 24, 32, 48, 64}) out.push_back(rec(conv(c), "small", "s" + std::to_string(c), 10)), out.push_back(rec(conv(c), "large", "", 30));
  for (int c : {1024, 1536, 2048, 3072, 4096}) out.push_back(rec(conv(c), "small", "", 90)), out.push_back(rec(conv(c), "large", "l", 40));
  return out;
}

TEST_F(Immediate, ModelPicksTheNearestTrainedProblem) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(synthetic()));
  const tuning::ImmediateModel m = tuning::ImmediateModel::train(*dbs.user());
  EXPECT_EQ(m.problems(), 12u);
  const auto near_small = m.rank(verify::machine_key(conv(20), Backend::host));
  ASSERT_GE(near_small.size(), 2u);
  EXPECT_EQ(near_small[0].solver, "small");
  EXPECT_TRUE(near_small[0].config == "s16" || near_small[0].config == "s24") << near_small[0].config;
  EXPECT_EQ(near_small[1].solver, "large");  // the same point's second-fastest
  const auto near_large = m.rank(verify::machine_key(conv(2500), Backend::host));
  ASSERT_FALSE(near_large.empty());
  EXPECT_EQ(near_large[0].solver, "large");
  EXPECT_EQ(near_large[0].from_problem, conv(2048));
  EXPECT_TRUE(m.rank(verify::machine_key(conv(20, "bf16"), Backend::host)).empty());
  tuning::DbKey other = verify::machine_key(conv(20), Backend::host);
  other.device = "another device";
  EXPECT_TRUE(m.rank(other).empty());
  // Stored and loaded: the same picks.
  m.store(*dbs.user());
  const auto loaded = tuning::ImmediateModel::load(*dbs.user());
  EXPECT_EQ(loaded.points().size(), m.points().size());
  EXPECT_EQ(loaded.rank(verify::machine_key(conv(20), Backend::host))[0].config, near_small[0].config);
}

TEST_F(Immediate, EvaluationCountsPicksWithinTenPercent) {
  const tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.put(synthetic()));
  const tuning::ImmediateEval ev = tuning::evaluate_immediate(*dbs.user(), 0.5);
  ASSERT_GT(ev.held_out, 0u);
  EXPECT_EQ(ev.trained + ev.held_out, 12u);
  EXPECT_EQ(ev.picked, ev.held_out);
  EXPECT_EQ(ev.hits, ev.held_out);  // the classes are far apart: every nearest neighbour has the right winner
  EXPECT_GE(ev.mean_pick_us, 0);
  EXPECT_THROW(tuning::evaluate_immediate(*dbs.user(), 1.0), InputError);
  // Swap the winners of the held-out problems: the model, trained on the others, now misses them all.
  std::vector<tuning::FindRecord> swapped;
  for (const auto& c : ev.cases) {
    swapped.push_back(rec(c.problem, "small", "", c.best_solver == "small" ? 90 : 10));
    swapped.push_back(rec(c.problem, "large", "", c.best_solver == "large" ? 90 : 10));
  }
  ASSERT_TRUE(dbs.put(swapped));
  const tuning::ImmediateEval bad = tuning::evaluate_immediate(*dbs.user(), 0.5);
  EXPECT_EQ(bad.held_out, ev.held_out);
  EXPECT_EQ(bad.hits, 0u);
}

TEST(ProblemFeatures, ConvCategoryAndSizes) {
  const auto f = tuning::problem_features("conv bwd-data bf16 nhwc n32 c64 k128 in56x56 f3x3 pad1x1");
  EXPECT_EQ(f.category, "conv bwd-data bf16 nhwc conv d2");
  EXPECT_EQ(f.values.size(), 4u + 2 * 5);
  EXPECT_DOUBLE_EQ(f.values[0], std::log2(33.0));
  const auto g = tuning::problem_features("activ fwd relu fp32 nchw n1 c3 in8x8");
  EXPECT_EQ(g.category.find_first_of("0123456789"), std::string::npos) << g.category;
  EXPECT_FALSE(g.values.empty());
  EXPECT_THROW(tuning::problem_features("not a problem"), InputError);
}

}  // namespace
}  // namespace hiprim::test
