// Immediate mode's held-out picks measured (find/immediate_eval.hpp).
#include "find/immediate_eval.hpp"

#include "core/error.hpp"
#include "verify/immediate.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::find {
namespace {

const OpSolver& solver_named(const std::string& op, const std::string& name, Backend b) {
  for (const auto& s : verify::all_solvers())
    if (s->op() == op && s->name() == name && s->backend() == b) return *s;
  throw InputError("solver '" + name + "' (op " + op + "): not registered in this build's backend");
}

}  // namespace

MeasuredEval measure_immediate_eval(const tuning::ImmediateEval& ev, Backend b, const MeasureOptions& o, double tolerance,
                                    const std::function<void(const MeasuredPick&)>& progress) {
  MeasuredEval out;
  for (const auto& c : ev.cases) {
    if (c.picked_us < 0) continue;  // the model had no candidate: nothing to run
    const OpProblemPtr p = parse_op_problem(c.problem);
    const OpSolver& pick = solver_named(p->op(), c.picked_solver, b);
    const OpSolver& best = solver_named(p->op(), c.best_solver, b);
    tuning::ModelPick m;
    m.solver = c.picked_solver;  // a held-out problem is never the pick's own: the solver's default config
    const std::string pick_config = verify::model_pick_config(m, c.problem);
    const verify::PreparedCase pc(p, o.run);
    MeasuredPick r;
    r.problem = c.problem;
    r.picked = measure(pc, pick, pick_config, o);
    const std::string pick_ran = pick_config.empty() ? pick.default_config_for(*p) : pick_config;
    r.same = &pick == &best && pick_ran == c.best_config;
    r.best = r.same ? r.picked : measure(pc, best, c.best_config, o);
    const bool ok = r.picked.verified && r.picked.time_us >= 0 && r.best.verified && r.best.time_us >= 0;
    r.hit = ok && r.picked.time_us <= r.best.time_us * (1 + tolerance);
    out.failed += !ok;
    out.hits += r.hit;
    if (progress) progress(r);
    out.cases.push_back(std::move(r));
  }
  return out;
}

}  // namespace hiprim::find
