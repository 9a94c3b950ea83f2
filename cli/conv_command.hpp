// Running conv problems through the conv solvers: used by the MIOpenDriver front end
// (cli/cmd_driver.cpp), repro and check (the op problems' counterpart is cli/op_command.hpp).
#pragma once
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/conv_problem.hpp"
#include "verify/report.hpp"
#include "verify/solvers.hpp"

namespace hiprim::cli {

// Prints the canonical strings (print_problem) or runs every matching conv solver on each problem,
// prints the summary, writes the report; returns the exit code.
int run_conv_problems(const std::vector<ConvProblem>& problems, const std::string& solver_glob, const RunFlags& flags,
                      const std::string& dump, const std::string& report, bool print_problem);
// Runs every solver in `solvers` on p; prints one line per case (passed ones when print_passed);
// appends to `out`.
void run_problem(const ConvProblem& p, const ConvSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed);

}  // namespace hiprim::cli
