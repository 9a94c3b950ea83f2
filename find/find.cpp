// Find over a problem's candidate solvers (find/find.hpp).
#include "find/find.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/immediate.hpp"

namespace hiprim::find {

OpSolverList candidates(const OpProblem& p, const OpSolverList& solvers, Backend b, std::vector<std::string>* skipped) {
  OpSolverList out;
  for (const auto& s : solvers) {
    if (s->op() != p.op() || s->backend() != b) continue;
    std::string why;
    if (auto no = verify::backend_unavailable(b)) why = *no;
    else if (auto a = s->applicable(p); !a) why = a.reason;
    if (why.empty()) out.push_back(s);
    else if (skipped) skipped->push_back(s->name() + ": " + why);
  }
  return out;
}

FindResult find_problem(const OpProblemPtr& p, const OpSolverList& solvers, Backend b, const tuning::TuningDbs& dbs, const FindOptions& o) {
  if (auto errs = p->validate(); !errs.empty()) throw_invalid_problem(p->op(), p->str(), errs);
  FindResult r;
  r.problem = p->str();
  const OpSolverList cand = candidates(*p, solvers, b, &r.skipped);
  if (cand.empty()) return r;
  r.key = verify::machine_key(r.problem, b);
  const verify::PreparedCase c(p, o.measure.run);
  for (const auto& s : cand) {
    std::vector<std::string> configs{s->default_config_for(*p)};
    if (const auto tuned = dbs.perf(r.key, s->name()); tuned && tuned->config != configs[0]) {
      const auto valid = s->configs_for(*p);
      if (std::find(valid.begin(), valid.end(), tuned->config) != valid.end()) configs.push_back(tuned->config);
    }
    int best = -1;
    for (const auto& cfg : configs) {
      r.tried.push_back(measure(c, *s, cfg, o.measure));
      const Measurement& m = r.tried.back();
      const int i = static_cast<int>(r.tried.size()) - 1;
      if (m.verified && m.time_us >= 0 && (best < 0 || m.time_us < r.tried[best].time_us)) best = i;
    }
    tuning::FindRecord rec{r.key, s->name(), configs[0], 0, 0, false, 0};
    if (best >= 0) {
      const Measurement& m = r.tried[best];
      rec.config = m.config, rec.time_us = m.time_us, rec.workspace_bytes = m.workspace_bytes, rec.verified = true;
      if (r.winner < 0 || m.time_us < r.tried[r.winner].time_us) r.winner = best;
    }
    r.records.push_back(rec);
  }
  if (o.record) r.recorded = dbs.put(r.records);
  return r;
}

nlohmann::json measurement_json(const Measurement& m) {
  nlohmann::json j{{"solver", m.solver},
                   {"config", m.config},
                   {"verified", m.verified},
                   {"status", std::string(verify::status_name(m.check.verdict.status))},
                   {"reason", m.check.verdict.reason},
                   {"workspace_bytes", m.workspace_bytes},
                   {"time_us", m.time_us >= 0 ? nlohmann::json(m.time_us) : nlohmann::json(nullptr)},
                   {"repro", m.check.repro}};
  if (!m.error.empty()) j["error"] = m.error;
  return j;
}

nlohmann::json find_json(const FindResult& r) {
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& m : r.tried) tried.push_back(measurement_json(m));
  nlohmann::json j{{"problem", r.problem}, {"tried", tried}, {"skipped", r.skipped}, {"recorded", r.recorded}};
  j["key"] = r.key.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.key.text());
  j["winner"] = r.winner < 0 ? nlohmann::json(nullptr) : measurement_json(r.tried[r.winner]);
  return j;
}

}  // namespace hiprim::find
