// Running op problems (bnorm, activ, softmax, dropout, pool, lrn, tensorop, reduce) through the op
// solvers: used by the MIOpenDriver front end (cli/cmd_driver.cpp), repro and check.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "verify/report.hpp"

namespace hiprim::cli {

// The run/report settings of an op run.
struct OpCommonFlags {
  std::string solver = "*", report, dump;
  bool print_problem = false;
  RunFlags run;
};

// Validates each problem (InputError listing the violations), then prints the canonical strings
// (print_problem) or runs every matching solver of the problem's op on it; prints the summary,
// writes the report; returns the exit code (0 passed, 1 a case failed/errored, 2 no solver).
int run_op_problems(const std::vector<OpProblemPtr>& problems, const OpCommonFlags& flags);
// The cases of one problem through the given solvers (used by run_op_problems and hiprim check).
void run_op_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                    std::vector<verify::CaseRecord>& out, bool print_passed);

}  // namespace hiprim::cli
