// The perf-config search of one problem's solvers (find/tune.hpp).
#include "find/tune.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "core/error.hpp"
#include "find/find.hpp"
#include "verify/immediate.hpp"

namespace hiprim::find {
namespace {

std::vector<std::string> fields(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

// One solver's search on a prepared case.
class Search {
 public:
  Search(const verify::PreparedCase& c, const OpSolver& s, const TuneOptions& o, TuneResult& r)
      : c_(c), s_(s), o_(o), r_(r), t0_(std::chrono::steady_clock::now()) {}

  double elapsed_s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  bool tried(const std::string& cfg) const { return seen_.count(cfg) > 0; }

  // Measures cfg once; true when it is the new best.
  bool try_config(const std::string& cfg) {
    if (!seen_.insert(cfg).second) return false;
    const Measurement m = measure(c_, s_, cfg, o_.measure);
    ++r_.tried;
    const bool ok = m.verified && m.time_us >= 0;
    if (cfg == r_.default_config) r_.default_us = ok ? m.time_us : -1;
    if (!ok) r_.failures.push_back(m);
    else r_.timed.emplace_back(cfg, m.time_us);
    const bool better = ok && (r_.best_us < 0 || m.time_us < r_.best_us);
    if (better) r_.best_config = cfg, r_.best_us = m.time_us;
    if (o_.progress) {
      char line[512];
      std::snprintf(line, sizeof line, "tune [%zu/%zu %s %.1fs] %s %s: %s%s", r_.tried, r_.space, r_.mode.c_str(), elapsed_s(),
                    s_.name().c_str(), cfg.empty() ? "\"\"" : cfg.c_str(), measurement_text(m).c_str(), better ? " (best)" : "");
      o_.progress(line);
    }
    return better;
  }

 private:
  const verify::PreparedCase& c_;
  const OpSolver& s_;
  const TuneOptions& o_;
  TuneResult& r_;
  std::chrono::steady_clock::time_point t0_;
  std::set<std::string> seen_;
};

void sampled_search(Search& q, const std::vector<std::string>& space, const TuneOptions& o, TuneResult& r) {
  std::vector<std::string> order = space;
  std::mt19937_64 rng(o.seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::size_t next = 0;
  auto out_of_time = [&](double share) { return q.elapsed_s() >= o.budget_s * share; };
  auto sample_until = [&](double share) {
    for (; next < order.size() && !out_of_time(share); ++next) q.try_config(order[next]);
  };
  sample_until(0.5);
  // Local refinement: the best's untried neighbours at distance 1, then 2, while one improves.
  for (bool improved = true; improved && r.best_us >= 0 && !out_of_time(1.0);) {
    improved = false;
    for (int d = 1; d <= 2 && !improved; ++d)
      for (const auto& cfg : space) {
        if (out_of_time(1.0)) break;
        if (q.tried(cfg) || config_distance(cfg, r.best_config) != d) continue;
        if (q.try_config(cfg)) improved = true;
      }
  }
  sample_until(1.0);
}

}  // namespace

int config_distance(const std::string& a, const std::string& b) {
  const auto fa = fields(a), fb = fields(b);
  int d = static_cast<int>(std::max(fa.size(), fb.size()) - std::min(fa.size(), fb.size()));
  for (std::size_t i = 0; i < std::min(fa.size(), fb.size()); ++i) d += fa[i] != fb[i];
  return d;
}

std::vector<TuneResult> tune_problem(const OpProblemPtr& p, const OpSolverList& solvers, Backend b, const tuning::TuningDbs& dbs,
                                     const TuneOptions& o) {
  if (auto errs = p->validate(); !errs.empty()) throw_invalid_problem(p->op(), p->str(), errs);
  if (!(o.budget_s > 0)) throw InputError("--budget-s " + std::to_string(o.budget_s) + ": expected a positive number of seconds");
  std::vector<TuneResult> out;
  OpSolverList tunable;
  for (const auto& s : candidates(*p, solvers, b))
    if (s->configs_for(*p).size() > 1) tunable.push_back(s);
  if (tunable.empty()) return out;
  const verify::PreparedCase c(p, o.measure.run);
  const tuning::DbKey key = verify::machine_key(p->str(), b);
  for (const auto& s : tunable) {
    TuneResult r;
    r.problem = p->str(), r.solver = s->name(), r.key = key;
    const std::vector<std::string> space = s->configs_for(*p);
    r.space = space.size();
    r.mode = space.size() <= o.exhaustive_max ? "exhaustive" : "sampled";
    r.default_config = s->default_config_for(*p);
    Search q(c, *s, o, r);
    q.try_config(r.default_config);
    if (r.mode == "exhaustive")
      for (const auto& cfg : space) q.try_config(cfg);
    else
      sampled_search(q, space, o, r);
    r.seconds = q.elapsed_s();
    if (o.record && r.best_us >= 0)
      r.recorded = dbs.put(tuning::PerfRecord{key, r.solver, r.best_config, r.best_us, std::max(r.default_us, 0.0), r.seconds, 0});
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json tune_json(const TuneResult& r) {
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& m : r.failures) failures.push_back(measurement_json(m));
  auto time = [](double us) { return us >= 0 ? nlohmann::json(us) : nlohmann::json(nullptr); };
  nlohmann::json timed = nlohmann::json::array();
  for (const auto& [config, us] : r.timed) timed.push_back({{"config", config}, {"time_us", us}});
  return {{"problem", r.problem}, {"solver", r.solver}, {"mode", r.mode}, {"space", r.space}, {"tried", r.tried},
          {"default_config", r.default_config}, {"default_us", time(r.default_us)}, {"best_config", r.best_config},
          {"best_us", time(r.best_us)}, {"speedup", r.default_us > 0 && r.best_us > 0 ? nlohmann::json(r.default_us / r.best_us) : nlohmann::json(nullptr)},
          {"seconds", r.seconds}, {"failures", failures}, {"timed", timed}, {"recorded", r.recorded}};
}

}  // namespace hiprim::find
