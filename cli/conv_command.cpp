#include "cli/conv_command.hpp"

#include <cstdio>

#include "cli/output.hpp"
#include "verify/runner.hpp"

namespace hiprim::cli {

void run_problem(const ConvProblem& p, const ConvSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed) {
  verify::PreparedCase c(p, o);
  for (auto& s : solvers) {
    verify::RunOptions so = o;
    if (!o.dump_dir.empty()) so.dump_dir = o.dump_dir + "/" + s->name();
    auto rec = verify::run_case(c, *s, so);
    const bool bad = rec.verdict.status == verify::Status::failed || rec.verdict.status == verify::Status::error ||
                     rec.verdict.status == verify::Status::mistrusted;
    if (print_passed || bad) print_case_line(rec);
    out.push_back(std::move(rec));
  }
}

int run_conv_problems(const std::vector<ConvProblem>& problems, const std::string& solver_glob, const RunFlags& flags,
                      const std::string& dump, const std::string& report, bool print_problem) {
  if (print_problem) {
    for (auto& p : problems) std::printf("%s\n", to_string(p).c_str());
    return 0;
  }
  auto solvers = verify::select_conv_solvers(solver_glob);
  std::vector<verify::CaseRecord> cases;
  for (auto& p : problems) {
    auto o = flags.options();
    if (!dump.empty()) o.dump_dir = dump + "/" + folder_name(to_string(p));
    run_problem(p, solvers, o, cases, /*print_passed=*/true);
  }
  print_summary(cases);
  if (!dump.empty()) std::printf("dump: %s\n", dump.c_str());
  write_report_if_asked(report, cases);
  return exit_code_for(cases);
}

}  // namespace hiprim::cli
