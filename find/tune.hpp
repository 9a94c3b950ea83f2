// Tuning: for one problem and each candidate solver with more than one perf config for it
// (OpSolver::configs_for), the search for its fastest verified config (find/measure.hpp measures
// every config tried: verified first, timed only when it passed; a config that fails is reported,
// never chosen):
//   exhaustive  when the problem's space has at most exhaustive_max (24) configs: every one;
//   sampled     otherwise, within budget_s of wall time: the default first, then random configs
//               (seeded) until half the budget is spent, then local refinement: from the best so
//               far, its untried neighbours (configs differing in one '.'-separated field, then
//               two) while one is faster; random sampling again with what budget is left.
// The best verified config goes to the perf db with the default's time (default_time_us) and the
// search's wall time (tuning_seconds).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "find/measure.hpp"
#include "tuning/tuning_dbs.hpp"

namespace hiprim::find {

struct TuneOptions {
  MeasureOptions measure;
  double budget_s = 30;             // per problem and solver, for the sampled search
  std::size_t exhaustive_max = 24;  // spaces up to this size are searched exhaustively
  std::uint64_t seed = 1;           // of the sampled search's random order
  bool record = true;               // write the perf records to the user db
  std::function<void(const std::string&)> progress;  // one line per config measured
};

struct TuneResult {
  std::string problem, solver;
  tuning::DbKey key;
  std::string mode;                  // "exhaustive" or "sampled"
  std::size_t space = 0, tried = 0;  // configs for the problem; configs measured
  std::string default_config, best_config;
  double default_us = -1, best_us = -1;  // < 0: none verified
  double seconds = 0;
  std::vector<Measurement> failures;  // configs that did not verify or could not be timed
  std::vector<std::pair<std::string, double>> timed;  // every verified config's time (us), in search order
  bool recorded = false;
};

// Configs a, b differ in how many '.'-separated fields (position by position; extra fields count).
int config_distance(const std::string& a, const std::string& b);

// The search above for every candidate of p (find::candidates) with more than one config.
std::vector<TuneResult> tune_problem(const OpProblemPtr& p, const OpSolverList& solvers, Backend b, const tuning::TuningDbs& dbs,
                                     const TuneOptions& o);

nlohmann::json tune_json(const TuneResult& r);

}  // namespace hiprim::find
