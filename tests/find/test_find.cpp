// Perf configs carried in the run (not an environment variable), Find (verified records, a wrong
// solver never the winner), tuning (exhaustive and budgeted searches), on the host backend.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "find/find.hpp"
#include "find/tune.hpp"
#include "tests/find/config_solver.hpp"
#include "tests/tuning/tuning_fixture.hpp"
#include "verify/host_solvers.hpp"
#include "verify/immediate.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::test {
namespace {

const char* const kProblem = "conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3";

OpSolverList op_list(const std::vector<std::shared_ptr<const ConvSolver>>& ss) {
  OpSolverList out;
  for (auto& s : ss) out.push_back(verify::conv_op_solver(s));
  return out;
}

std::vector<std::string> numbered(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

class FindTest : public TuningDbTest {
 protected:
  tuning::TuningDbs dbs() { return tuning::TuningDbs({path("user.db"), ""}, keep_warnings()); }
  static find::MeasureOptions quick() {
    find::MeasureOptions m;
    m.host_runs = 5;
    m.budget_ms = 60;
    return m;
  }
};

TEST(PerfConfig, RunOptionsCarryTheConfigToTheSolver) {
  ConfigSolverSpec spec;
  spec.configs = {"a", "b", "c"};
  spec.wrong = {"b"};
  const auto s = verify::conv_op_solver(make_config_solver(spec));
  const auto p = parse_op_problem(kProblem);
  EXPECT_EQ(s->configs_for(*p), spec.configs);
  EXPECT_EQ(s->default_config_for(*p), "a");
  verify::RunOptions o;
  const verify::PreparedCase c(p, o);
  for (const auto& [cfg, want] : std::vector<std::pair<std::string, verify::Status>>{
           {"", verify::Status::passed}, {"a", verify::Status::passed}, {"b", verify::Status::failed}, {"c", verify::Status::passed}}) {
    o.config = cfg;
    const auto rec = verify::run_case(c, *s, o);
    EXPECT_EQ(rec.verdict.status, want) << "config '" << cfg << "': " << rec.verdict.reason;
    if (!cfg.empty()) {
      EXPECT_NE(rec.repro.find("--config " + cfg), std::string::npos) << rec.repro;
    }
  }
  o.config = "zzz";  // not one of its configs: an error naming it, never a run
  const auto rec = verify::run_case(c, *s, o);
  EXPECT_EQ(rec.verdict.status, verify::Status::error);
  EXPECT_NE(rec.verdict.reason.find("perf config 'zzz' cannot run"), std::string::npos) << rec.verdict.reason;
}

TEST(PerfConfig, ASolverWithoutConfigsHasTheImplicitOne) {
  const auto ref = verify::conv_op_solver(verify::make_fast_reference_solver());
  const auto p = parse_op_problem(kProblem);
  EXPECT_EQ(ref->configs_for(*p), std::vector<std::string>{""});
  EXPECT_EQ(ref->config_workspace_bytes(*p, ""), ref->workspace_bytes(*p));
  EXPECT_THROW((void)ref->config_workspace_bytes(*p, "m128"), InputError);
  // An op solver (ref.bnorm) the same way; another op's problem: no configs at all.
  const auto bn = verify::make_op_reference_solver("bnorm");
  EXPECT_TRUE(bn->configs_for(*p).empty());
}

TEST_F(FindTest, RecordsEverySolverAndNeverAWrongOneAsWinner) {
  ConfigSolverSpec wrong;  // the fastest by far, and wrong
  wrong.name = "test.wrong";
  wrong.wrong = {""};
  ConfigSolverSpec slow;
  slow.name = "test.slow";
  slow.cost_us = {{"", 3000}};
  const OpSolverList solvers = op_list({make_config_solver(wrong), make_config_solver(slow), verify::make_fast_reference_solver()});
  const auto d = dbs();
  find::FindOptions o;
  o.measure = quick();
  const find::FindResult r = find::find_problem(parse_op_problem(kProblem), solvers, Backend::host, d, o);
  ASSERT_EQ(r.tried.size(), 3u);
  ASSERT_GE(r.winner, 0);
  EXPECT_EQ(r.tried[r.winner].solver, "ref.conv.fast");
  EXPECT_FALSE(r.tried[0].verified);
  EXPECT_LT(r.tried[0].time_us, 0);  // a failed solver is never timed
  EXPECT_TRUE(r.recorded);
  const tuning::DbKey key = verify::machine_key(parse_op_problem(kProblem)->str(), Backend::host);
  const auto recs = d.find_records(key);
  ASSERT_EQ(recs.size(), 3u);
  for (const auto& rec : recs) {
    EXPECT_EQ(rec.verified, rec.solver != "test.wrong") << rec.solver;
    if (rec.verified) {
      EXPECT_GT(rec.time_us, 0) << rec.solver;
    }
  }
  ASSERT_TRUE(d.best_find(key));
  EXPECT_EQ(d.best_find(key)->solver, "ref.conv.fast");
  const auto j = find::find_json(r);
  EXPECT_EQ(j["winner"]["solver"], "ref.conv.fast");
  EXPECT_EQ(j["tried"][0]["status"], "failed");
}

TEST_F(FindTest, MeasuresThePerfDbsTunedConfigBesideTheDefault) {
  ConfigSolverSpec spec;
  spec.configs = {"c0", "c1", "c2"};
  spec.cost_us = {{"c0", 4000}, {"c1", 4000}, {"c2", 300}};
  const OpSolverList solvers = op_list({make_config_solver(spec)});
  const auto d = dbs();
  const auto p = parse_op_problem(kProblem);
  const tuning::DbKey key = verify::machine_key(p->str(), Backend::host);
  ASSERT_TRUE(d.put(tuning::PerfRecord{key, "test.configs", "c2", 300, 4000, 1, 0}));
  find::FindOptions o;
  o.measure = quick();
  const find::FindResult r = find::find_problem(p, solvers, Backend::host, d, o);
  ASSERT_EQ(r.tried.size(), 2u);
  EXPECT_EQ(r.tried[0].config, "c0");
  EXPECT_EQ(r.tried[1].config, "c2");
  ASSERT_TRUE(d.best_find(key));
  EXPECT_EQ(d.best_find(key)->config, "c2");
}

TEST_F(FindTest, NoCandidateOnAMachineWithoutTheBackend) {
  const auto d = dbs();
  find::FindOptions o;
  const auto r = find::find_problem(parse_op_problem(kProblem), verify::all_solvers(), Backend::device, d, o);
#ifndef HIPRIM_WITH_GPU
  EXPECT_TRUE(r.tried.empty());
  EXPECT_EQ(r.winner, -1);
#endif
  SUCCEED();
}

TEST(ConfigDistance, CountsDifferingFields) {
  EXPECT_EQ(find::config_distance("m128n128k64.s4.splitk1", "m128n128k64.s4.splitk1"), 0);
  EXPECT_EQ(find::config_distance("m128n128k64.s4.splitk1", "m128n128k64.s3.splitk1"), 1);
  EXPECT_EQ(find::config_distance("m128n128k64.s4.splitk1", "m64n128k64.s3.splitk1"), 2);
  EXPECT_EQ(find::config_distance("m128n128k64.s4.splitk1", "m128n128k64.s4.splitk1.ws"), 1);
}

TEST_F(FindTest, TuneSearchesASmallSpaceExhaustivelyAndRejectsAWrongConfig) {
  ConfigSolverSpec spec;
  spec.configs = numbered("c", 10);
  for (auto& c : spec.configs) spec.cost_us[c] = 3000;
  spec.cost_us["c7"] = 300;
  spec.cost_us["c2"] = 0;  // the fastest, and wrong
  spec.wrong = {"c2"};
  const auto d = dbs();
  find::TuneOptions o;
  o.measure = quick();
  std::vector<std::string> lines;
  o.progress = [&](const std::string& l) { lines.push_back(l); };
  const auto p = parse_op_problem(kProblem);
  const auto rs = find::tune_problem(p, op_list({make_config_solver(spec), verify::make_fast_reference_solver()}), Backend::host, d, o);
  ASSERT_EQ(rs.size(), 1u);  // ref.conv.fast has no configs to tune
  const find::TuneResult& r = rs[0];
  EXPECT_EQ(r.mode, "exhaustive");
  EXPECT_EQ(r.space, 10u);
  EXPECT_EQ(r.tried, 10u);
  EXPECT_EQ(lines.size(), 10u);
  EXPECT_EQ(r.best_config, "c7");
  EXPECT_EQ(r.default_config, "c0");
  EXPECT_GT(r.default_us, r.best_us);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].config, "c2");
  // Every verified config's time, the wrong one left out; the report lists them.
  ASSERT_EQ(r.timed.size(), 9u);
  for (const auto& [config, us] : r.timed) EXPECT_NE(config, "c2");
  const auto fastest = std::min_element(r.timed.begin(), r.timed.end(), [](auto& a, auto& b) { return a.second < b.second; });
  EXPECT_EQ(fastest->first, "c7");
  EXPECT_DOUBLE_EQ(fastest->second, r.best_us);
  EXPECT_EQ(find::tune_json(r)["timed"].size(), 9u);
  EXPECT_TRUE(r.recorded);
  const auto rec = d.perf(verify::machine_key(p->str(), Backend::host), "test.configs");
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->config, "c7");
  EXPECT_DOUBLE_EQ(rec->default_time_us, r.default_us);
  EXPECT_GT(rec->tuning_seconds, 0);
}

TEST_F(FindTest, TuneSamplesALargeSpaceWithinItsBudget) {
  ConfigSolverSpec spec;  // a 5 x 8 grid "a<i>.b<j>": 40 configs, over the exhaustive limit
  spec.configs.clear();
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j) {
      std::string c = "a";  // appended, not a literal + string chain (GCC 12 misreports those)
      c += std::to_string(i);
      c += ".b";
      c += std::to_string(j);
      spec.configs.push_back(c);
      spec.cost_us[c] = 6000 + 1500.0 * (std::abs(i - 3) + std::abs(j - 5));
    }
  spec.default_config = "a0.b0";
  const auto d = dbs();
  find::TuneOptions o;
  o.measure = quick();
  o.budget_s = 1.5;
  const auto rs = find::tune_problem(parse_op_problem(kProblem), op_list({make_config_solver(spec)}), Backend::host, d, o);
  ASSERT_EQ(rs.size(), 1u);
  const find::TuneResult& r = rs[0];
  EXPECT_EQ(r.mode, "sampled");
  EXPECT_EQ(r.space, 40u);
  EXPECT_GE(r.tried, 2u);
  EXPECT_LT(r.tried, 40u);  // each config costs ~10 runs of >= 6 ms: the budget stops the search
  EXPECT_LT(r.seconds, o.budget_s + 1.0);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_NE(r.best_config, "a0.b0");  // the default is the grid's slowest corner
  EXPECT_LT(r.best_us, r.default_us);
  EXPECT_TRUE(r.recorded);
}

TEST_F(FindTest, TuneRefusesANonPositiveBudget) {
  const auto d = dbs();
  find::TuneOptions o;
  o.budget_s = 0;
  EXPECT_THROW(find::tune_problem(parse_op_problem(kProblem), verify::all_solvers(), Backend::host, d, o), InputError);
}

}  // namespace
}  // namespace hiprim::test
