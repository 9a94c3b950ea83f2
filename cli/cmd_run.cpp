// hiprim run "<problem>": the library's default path from the command line: immediate mode
// (verify/immediate.hpp: find-db, then Find in mode normal, then the model, then the heuristic)
// picks one solver and config, which then runs through the verifying runner.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/find_flags.hpp"
#include "cli/output.hpp"
#include "cli/run_command.hpp"
#include "core/error.hpp"
#include "find/find.hpp"
#include "verify/immediate.hpp"
#include "verify/op_solvers.hpp"
#include "verify/runner.hpp"

namespace hiprim::cli {

Command add_run(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "Run a problem on the solver and config immediate mode picks (HIPRIM_FIND_MODE, HIPRIM_SOLVER, HIPRIM_DISABLE_SOLVERS)");
  struct Flags {
    std::string problem, backend = "device", report;
    bool choice_only = false;
    RunFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("problem", f->problem, "A problem string")->required();
  sub->add_option("--backend", f->backend, "device or host")->capture_default_str();
  sub->add_option("--report", f->report, "Write a JSON conformance report here");
  sub->add_flag("--choice-only", f->choice_only, "Print immediate mode's choice and exit without running it");
  f->run.add_to(*sub);
  return [f] {
    FindFlags ff;
    ff.problem = f->problem, ff.backend = f->backend;
    const OpProblemPtr p = ff.problems().front();
    const Backend b = ff.backend_value();
    const tuning::TuningDbs dbs;
    verify::ImmediateContext cx = verify::ImmediateContext::from_env(&dbs);
    const auto& all = verify::all_solvers();
    auto mine = [&](const OpSolver& s) { return s.op() == p->op(); };
    cx.find = [&]() -> std::optional<verify::NamedPick> {  // mode normal on a miss: Find now, recorded
      OpSolverList listed;
      for (auto& s : all)
        if (mine(*s) && verify::SolverSwitches::from_env().admits(s->name())) listed.push_back(s);
      find::FindOptions o;
      o.measure.run = f->run.options();
      const find::FindResult r = find::find_problem(p, listed, b, dbs, o);
      std::printf("find: %zu configs measured, %s\n", r.tried.size(), r.winner < 0 ? "no verified winner" : r.tried[r.winner].solver.c_str());
      if (r.winner < 0) return std::nullopt;
      return verify::NamedPick{r.tried[r.winner].solver, r.tried[r.winner].config, "find"};
    };
    const auto c = verify::choose_solver(all, *p, p->str(), b, cx, mine, [](const std::string& why) -> void { throw RuntimeError(why); });
    std::printf("immediate (mode %s): %s config %s (%s)\n", std::string(verify::find_mode_name(cx.mode)).c_str(), c.solver->name().c_str(),
                c.config.empty() ? "\"\"" : c.config.c_str(), c.source.c_str());
    std::fflush(stdout);
    if (f->choice_only) return 0;
    verify::RunOptions o = f->run.options();
    if (o.config.empty()) o.config = c.config;
    const verify::PreparedCase pc(p, o);
    std::vector<verify::CaseRecord> cases{verify::run_case(pc, *c.solver, o)};
    print_case_line(cases.back());
    return finish_run(cases, f->report);
  };
}

}  // namespace hiprim::cli
