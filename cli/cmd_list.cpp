// hiprim list solvers [--problem P] | suites | ops [--globs]: the solvers (and whether each applies to
// P), the suites, the non-convolution primitives (core/primitives.def; one name a line, or with
// --globs "bnorm.*,activ.*,...": what scripts loop over).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/op_problem.hpp"
#include "core/primitives.hpp"
#include "core/solver.hpp"
#include "verify/op_solvers.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

Command add_list(CLI::App& app) {
  auto* sub = app.add_subcommand("list", "List solvers (optionally with their applicability to a problem), suites or ops");
  sub->require_subcommand(1);
  auto* solvers = sub->add_subcommand("solvers", "List solvers: name, backend, coverage; with --problem, whether each applies and why not");
  auto problem = std::make_shared<std::string>();
  solvers->add_option("--problem", *problem, "Canonical problem string");
  auto* suites = sub->add_subcommand("suites", "List the built-in suites");
  auto* ops = sub->add_subcommand("ops", "List the non-convolution primitives (op names), one a line");
  auto globs = std::make_shared<bool>(false);
  ops->add_flag("--globs", *globs, "Print one --solver glob list of every op's solvers instead (bnorm.*,activ.*,...)");
  return [solvers, suites, ops, problem, globs] {
    if (solvers->parsed()) {
      // With --problem, the solvers of its primitive (conv or an op) and whether each applies.
      const OpProblemPtr p = problem->empty() ? nullptr : parse_op_problem(*problem);
      auto line = [](const auto& s) {
        std::printf("%-26s %-6s %-6s %s\n", s->name().c_str(), s->backend() == Backend::device ? "device" : "host",
                    s->deterministic() ? "det" : "nondet", s->summary().c_str());
      };
      auto verdict = [](const Applicability& a) {
        std::printf("    %s%s\n", a ? "applicable" : "not applicable: ", a ? "" : a.reason.c_str());
      };
      // A solver with a perf-config space gets one more line: its size, first and last, the default.
      auto configs = [](const Solver& s) {
        const std::vector<std::string> c = s.perf_configs();
        if (c.empty()) return;
        const std::string d = s.default_perf_config();
        std::printf("    perf configs: %zu, %s .. %s; default: %s\n", c.size(), c.front().c_str(), c.back().c_str(),
                    d.empty() ? "picked per problem" : d.c_str());
      };
      for (auto& s : verify::all_solvers()) {
        if (p && s->op() != p->op()) continue;
        line(s);
        if (p) verdict(s->applicable(*p));
        configs(*s);
      }
    } else if (suites->parsed()) {
      for (const auto& s : verify::builtin_suites()) std::printf("%s%s\n", s.name.c_str(), s.bench_only ? " (hiprim bench --op ...)" : "");
    } else if (ops->parsed()) {
      std::string list;
      for (auto& n : primitive_names()) list += *globs ? (list.empty() ? "" : ",") + n + ".*" : n + "\n";
      std::printf("%s%s", list.c_str(), *globs ? "\n" : "");
    }
    return 0;
  };
}

}  // namespace hiprim::cli
