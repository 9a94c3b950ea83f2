// Shared parts of the op subcommands (bnorm, activ, softmax, dropout, pool, lrn, tensorop, reduce):
// the data-shape flags in MIOpenDriver's names, the run/report flags, and running problems through
// the op solvers. A subcommand adds its own flags, builds its problem struct(s) and calls
// run_op_problems; bad values -> InputError naming the flag (exit 2).
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

// -n -c -H -W (-D for 3D) --dtype --layout, and --solver --report --dump --print-problem --seed
// --no-determinism-check.
struct OpCommonFlags {
  std::int64_t n = 1, c = 1, H = 1, W = 1, D = 0;  // D > 0 (with ncdhw/ndhwc or alone): 3D
  std::string dtype = "fp32", layout, solver = "*", report, dump;
  bool print_problem = false;
  RunFlags run;
  // Defaults for n, c, H, W are the subcommand's (set them before add_to).
  void add_to(CLI::App& sub);
  // The shape from the flags; InputError naming the flag when --layout and -D disagree.
  OpShape shape() const;
};

// Validates each problem (InputError listing the violations), then prints the canonical strings
// (print_problem) or runs every matching solver of the problem's op on it; prints the summary,
// writes the report; returns the exit code (0 passed, 1 a case failed/errored, 2 no solver).
int run_op_problems(const std::vector<OpProblemPtr>& problems, const OpCommonFlags& flags);
// The cases of one problem through the given solvers (used by run_op_problems and hiprim check).
void run_op_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                    std::vector<verify::CaseRecord>& out, bool print_passed);

// A double option in [lo, hi) (or [lo, hi] when hi_inclusive); the message names the value and the
// range. For flags like -e (epsilon) and -r (dropout rate).
CLI::Validator real_in(double lo, double hi, bool hi_inclusive);

}  // namespace hiprim::cli
