// The flags that hiprim find, tune and run share: the problems (a problem string or --suite with
// the generated suites' options), --solver, --backend, the measurement's settings, --report.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "find/measure.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

struct FindFlags {
  std::string problem, suite, solver = "*", backend = "device", report;
  std::string dtypes = "fp32", layouts = "nchw", dirs = "fwd,bwd-data,bwd-weights";
  std::int64_t batch = 1;
  std::size_t limit = 0;  // 0: every problem of the suite
  double budget_ms = 100;
  bool no_record = false;
  std::uint64_t seed = 1;
  bool no_determinism = false;

  void add_to(CLI::App& sub);
  // The problem or the suite's problems (each validated); InputError when both or neither is given.
  std::vector<OpProblemPtr> problems() const;
  // The same with each problem's count in its suite (1 for a problem string): the whole-suite totals.
  std::vector<verify::SuiteProblem> counted_problems() const;
  Backend backend_value() const;  // InputError for a name other than host or device
  // The solvers --solver selects among verify::all_solvers() of the problems' ops; InputError when none.
  OpSolverList solvers(const std::vector<OpProblemPtr>& problems) const;
  find::MeasureOptions measure() const;
};

}  // namespace hiprim::cli
