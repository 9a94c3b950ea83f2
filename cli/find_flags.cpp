// The flags of hiprim find, tune and run (cli/find_flags.hpp).
#include "cli/find_flags.hpp"

#include <set>

#include "cli/options.hpp"
#include "cli/run_command.hpp"
#include "core/error.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

void FindFlags::add_to(CLI::App& sub) {
  sub.add_option("problem", problem, "A problem string, e.g. \"conv fwd fp32 nchw n1 c8 k8 in16x16 f3x3\" (or --suite)");
  sub.add_option("--suite", suite, "A built-in suite (hiprim list suites) or a suite file instead of a problem");
  sub.add_option("--batch", batch, "Batch size for generated suites (resnet50)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))->capture_default_str();
  sub.add_option("--dtype", dtypes, "Generated suites: comma-separated dtypes")->capture_default_str();
  sub.add_option("--layout", layouts, "Generated suites: comma-separated layouts (nchw, nhwc)")->capture_default_str();
  sub.add_option("--dir", dirs, "Generated suites: comma-separated directions")->capture_default_str();
  sub.add_option("--limit", limit, "Only the suite's first N problems (0: all)")->capture_default_str();
  sub.add_option("--solver", solver, "Solver name globs (comma-separated)")->capture_default_str();
  sub.add_option("--backend", backend, "device (the GPU solvers) or host (the CPU solvers: machines without a GPU)")->capture_default_str();
  sub.add_option("--time-budget-ms", budget_ms, "Timing budget of one config (device time on the GPU, wall time on the host)")->capture_default_str();
  sub.add_option("--seed", seed, "Seed of the verification's data fills")->capture_default_str();
  sub.add_flag("--no-determinism-check", no_determinism, "Skip the verification's second run");
  sub.add_flag("--no-record", no_record, "Measure and report only; write nothing to the tuning db");
  sub.add_option("--report", report, "Write a JSON report here");
}

std::vector<verify::SuiteProblem> FindFlags::counted_problems() const {
  if (problem.empty() == suite.empty()) throw InputError("give either a problem string or --suite (not both, not neither)");
  std::vector<verify::SuiteProblem> out;
  if (!problem.empty()) {
    out.push_back({parse_op_problem(problem), 1});
  } else {
    out = verify::load_suite(suite, suite_options_from(batch, dtypes, layouts, dirs));
    if (limit > 0 && out.size() > limit) out.resize(limit);
  }
  for (auto& sp : out)
    if (auto errs = sp.problem->validate(); !errs.empty()) throw_invalid_problem(sp.problem->op(), sp.problem->str(), errs);
  return out;
}

std::vector<OpProblemPtr> FindFlags::problems() const {
  std::vector<OpProblemPtr> out;
  for (auto& sp : counted_problems()) out.push_back(sp.problem);
  return out;
}

Backend FindFlags::backend_value() const {
  if (backend == "device") return Backend::device;
  if (backend == "host") return Backend::host;
  throw InputError("--backend '" + backend + "': expected device or host");
}

OpSolverList FindFlags::solvers(const std::vector<OpProblemPtr>& problems) const {
  std::set<std::string> ops;
  for (auto& p : problems) ops.insert(p->op());
  OpSolverList out;
  for (const auto& op : ops)
    for (auto& s : select_solvers(op, solver)) out.push_back(s);
  return out;
}

find::MeasureOptions FindFlags::measure() const {
  if (!(budget_ms > 0)) throw InputError("--time-budget-ms " + std::to_string(budget_ms) + ": expected a positive number");
  find::MeasureOptions m;
  m.budget_ms = budget_ms;
  m.run.seed = seed;
  m.run.check_determinism = !no_determinism;
  return m;
}

}  // namespace hiprim::cli
