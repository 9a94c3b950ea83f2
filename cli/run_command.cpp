// Running problems through solvers, one flow for every primitive (cli/run_command.hpp).
#include "cli/run_command.hpp"

#include <cstdio>

#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/op_solvers.hpp"
#include "verify/runner.hpp"
#include "verify/solvers.hpp"

namespace hiprim::cli {
OpSolverList select_solvers(const std::string& op, const std::string& globs) {
  OpSolverList out;
  for (auto& s : verify::match_solvers(verify::all_solvers(), globs))
    if (s->op() == op) out.push_back(s);
  if (!out.empty()) return out;
  if (op == ConvProblem::kOp) verify::select_conv_solvers(globs);  // throws, naming the conv solvers
  std::string names;
  for (auto& s : verify::all_solvers())
    if (s->op() == op) names += (names.empty() ? "" : ", ") + s->name();
  throw InputError("--solver '" + globs + "' matches no " + op + " solver; known: " + names);
}

void run_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed) {
  OpSolverList mine;
  for (auto& s : solvers)
    if (s->op() == p->op()) mine.push_back(s);
  if (mine.empty()) return;
  verify::PreparedCase c(p, o);
  for (auto& s : mine) {
    verify::RunOptions so = o;
    if (!o.dump_dir.empty()) so.dump_dir = o.dump_dir + "/" + s->name();
    auto rec = verify::run_case(c, *s, so);
    if (print_passed || is_bad(rec)) print_case_line(rec);
    out.push_back(std::move(rec));
  }
}

int finish_run(const std::vector<verify::CaseRecord>& cases, const std::string& report, const std::string& dump, bool require_gpu) {
  print_summary(cases);
  if (!dump.empty()) std::printf("dump: %s\n", dump.c_str());
  write_report_if_asked(report, cases);
  return exit_code_for(cases, require_gpu);
}

int run_problems(const std::vector<OpProblemPtr>& problems, const RunCommandFlags& flags) {
  for (auto& p : problems) {
    auto errs = p->validate();
    if (!errs.empty()) throw_invalid_problem(p->op(), p->str(), errs);
  }
  if (flags.print_problem) {
    for (auto& p : problems) std::printf("%s\n", p->str().c_str());
    return 0;
  }
  std::vector<OpSolverList> solvers;
  for (auto& p : problems) solvers.push_back(select_solvers(p->op(), flags.solver));
  std::vector<verify::CaseRecord> cases;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    auto o = flags.run.options();
    if (!flags.dump.empty()) o.dump_dir = flags.dump + "/" + folder_name(problems[i]->str());
    run_problem(problems[i], solvers[i], o, cases, /*print_passed=*/true);
  }
  return finish_run(cases, flags.report, flags.dump);
}

}  // namespace hiprim::cli
