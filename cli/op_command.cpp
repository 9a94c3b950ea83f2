// Running op problems through the op solvers (cli/op_command.hpp).
#include "cli/op_command.hpp"

#include <cstdio>

#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::cli {

void run_op_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                    std::vector<verify::CaseRecord>& out, bool print_passed) {
  verify::PreparedCase c(p, o);
  for (auto& s : solvers) {
    if (s->op() != p->op()) continue;
    verify::RunOptions so = o;
    if (!o.dump_dir.empty()) so.dump_dir = o.dump_dir + "/" + s->name();
    auto rec = verify::run_case(c, *s, so);
    if (print_passed || rec.verdict.status != verify::Status::passed) print_case_line(rec);
    out.push_back(std::move(rec));
  }
}

int run_op_problems(const std::vector<OpProblemPtr>& problems, const OpCommonFlags& flags) {
  for (auto& p : problems) {
    auto errs = p->validate();
    if (!errs.empty()) throw_invalid_problem(p->op(), p->str(), errs);
  }
  if (flags.print_problem) {
    for (auto& p : problems) std::printf("%s\n", p->str().c_str());
    return 0;
  }
  std::vector<verify::CaseRecord> cases;
  for (auto& p : problems) {
    auto solvers = verify::match_op_solvers(flags.solver, p->op());
    if (solvers.empty()) {
      std::string names;
      for (auto& s : verify::match_op_solvers("*", p->op())) names += (names.empty() ? "" : ", ") + s->name();
      throw InputError("--solver '" + flags.solver + "' matches no " + p->op() + " solver; known: " + names);
    }
    auto o = flags.run.options();
    if (!flags.dump.empty()) o.dump_dir = flags.dump + "/" + folder_name(p->str());
    run_op_problem(p, solvers, o, cases, /*print_passed=*/true);
  }
  print_summary(cases);
  if (!flags.dump.empty()) std::printf("dump: %s\n", flags.dump.c_str());
  write_report_if_asked(flags.report, cases);
  return exit_code_for(cases);
}

}  // namespace hiprim::cli
