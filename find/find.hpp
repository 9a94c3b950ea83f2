// Find: for one problem, every candidate solver (the given solvers of its op and backend) is run
// with its default config and with the perf db's tuned config (when it has one that differs), each
// verified against the reference and, when it passed, timed (find/measure.hpp). Per solver the
// fastest verified config becomes its find record (solver, config, time_us, workspace, verified =
// 1); a solver none of whose configs verified gets a record with verified = 0 (and time 0), so that
// it is never a find-db winner; all records of the problem are written in one transaction. The
// winner is the fastest verified one.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "find/measure.hpp"
#include "tuning/tuning_dbs.hpp"

namespace hiprim::find {

struct FindOptions {
  MeasureOptions measure;
  bool record = true;  // write the find records to the user db
};

struct FindResult {
  std::string problem;
  tuning::DbKey key;
  std::vector<Measurement> tried;       // every (solver, config) measured, in order
  std::vector<std::string> skipped;     // "<solver>: <why>" of those that refuse the problem
  int winner = -1;                      // index into tried: the fastest verified and timed; -1: none
  std::vector<tuning::FindRecord> records;
  bool recorded = false;                // the records were written
};

// The solvers of `solvers` of p's op and backend b that take p, in list order; the others' reasons
// go to *skipped when given.
OpSolverList candidates(const OpProblem& p, const OpSolverList& solvers, Backend b, std::vector<std::string>* skipped = nullptr);

// Find for p (see above); key: machine_key(p, b). InputError when p is invalid.
FindResult find_problem(const OpProblemPtr& p, const OpSolverList& solvers, Backend b, const tuning::TuningDbs& dbs,
                        const FindOptions& o);

nlohmann::json measurement_json(const Measurement& m);
nlohmann::json find_json(const FindResult& r);

}  // namespace hiprim::find
