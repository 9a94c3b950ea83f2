// Option parsing helpers shared by the subcommands: dtype/layout/direction names, the run options.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "verify/runner.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

// --seed, --fill, --no-determinism-check, -i/--iter on a subcommand.
struct RunFlags {
  std::uint64_t seed = 1;
  std::string fill;  // "", "exact", "bounded"
  bool no_determinism = false;
  void add_to(CLI::App& sub);
  verify::RunOptions options() const;
};

DType dtype_from(const std::string& s);   // InputError names the flag value
ConvDir dir_from(const std::string& s);
std::vector<std::string> split_list(const std::string& s);  // "a,b,c"
// Generated-suite options from --batch and the comma-separated --dtype, --layout (nchw|nhwc), --dir.
verify::SuiteOptions suite_options_from(std::int64_t batch, const std::string& dtypes, const std::string& layouts,
                                        const std::string& dirs);
// An integer option >= min; the message names the value and the rule (defined in cmd_conv.cpp).
CLI::Validator int_at_least(long long min);

// Prints the canonical strings (print_problem) or runs every matching conv solver on each problem,
// prints the summary, writes the report; returns the exit code (cli/cmd_conv.cpp).
int run_conv_problems(const std::vector<ConvProblem>& problems, const std::string& solver_glob, const RunFlags& flags,
                      const std::string& dump, const std::string& report, bool print_problem);
// Runs every solver in `solvers` on p; prints one line per case; appends to `out`.
void run_problem(const ConvProblem& p, const ConvSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed);

}  // namespace hiprim::cli
