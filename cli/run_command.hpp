// Running problems through solvers, one flow for every primitive: used by repro, check and the
// MIOpenDriver front end (cli/cmd_driver.cpp). A problem is an OpProblemPtr (conv's too:
// make_op_problem), a solver an OpSolver (conv's through ConvOpSolver), so the only per-primitive
// parts are the parsing (parse_op_problem) and which solvers a --solver glob selects.
#pragma once
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "verify/report.hpp"

namespace hiprim::cli {

// The solvers of primitive `op` (conv or an op) in verify::all_solvers() that the comma-separated
// globs select; InputError naming the globs and the primitive's solvers when none does.
OpSolverList select_solvers(const std::string& op, const std::string& globs);

// The settings of a run of given problems (repro, the MIOpenDriver commands).
struct RunCommandFlags {
  std::string solver = "*", report, dump;
  bool print_problem = false;
  RunFlags run;
};

// Validates each problem (InputError listing the violations), then prints the canonical strings
// (print_problem) or runs each problem on every selected solver of its primitive, printing every
// case; then finish_run(). Returns the exit code (0 passed, 1 a case failed/errored, 2 bad input).
int run_problems(const std::vector<OpProblemPtr>& problems, const RunCommandFlags& flags);
// The cases of p on the solvers of `solvers` that are of p's primitive (none of them: p is not even
// prepared); prints the line of every case that failed, errored or was mistrusted, and with
// print_passed of every other case too; appends the records to `out`.
void run_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed);
// The end of every run: the summary, "dump: DIR" (dump non-empty), the report (report non-empty);
// returns exit_code_for(cases, require_gpu).
int finish_run(const std::vector<verify::CaseRecord>& cases, const std::string& report, const std::string& dump = "",
               bool require_gpu = false);

}  // namespace hiprim::cli
