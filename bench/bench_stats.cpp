#include "bench/bench_stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

using nlohmann::json;

double median_of(std::vector<double> v) {
  if (v.empty()) throw InputError("median_of: no values");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TimingStats summarize_runs(std::vector<double> runs_ms) {
  if (runs_ms.empty()) throw InputError("summarize_runs: no runs to summarize");
  TimingStats t;
  t.runs = static_cast<int>(runs_ms.size());
  t.min_ms = *std::min_element(runs_ms.begin(), runs_ms.end());
  t.max_ms = *std::max_element(runs_ms.begin(), runs_ms.end());
  t.median_ms = median_of(std::move(runs_ms));
  return t;
}

TimingStats combine_repeats(const std::vector<ReplayTiming>& repeats) {
  if (repeats.empty()) throw InputError("combine_repeats: no repeats");
  TimingStats t;
  t.method = "graph_replay";
  t.runs_per_replay = repeats.front().runs_per_replay;
  t.replays = static_cast<int>(repeats.front().per_call_ms.size());
  t.sets = repeats.front().sets;
  t.warmup = repeats.front().warmup;
  t.host_calls = repeats.front().host_calls;
  std::vector<double> medians, hosts;
  t.min_ms = INFINITY;
  t.max_ms = -INFINITY;
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    const ReplayTiming& r = repeats[i];
    if (r.per_call_ms.empty() || r.runs_per_replay < 1)
      throw InputError("combine_repeats: repeat " + std::to_string(i + 1) + " has no timed replay");
    const TimingStats one = summarize_runs(r.per_call_ms);
    t.repeats.push_back(RepeatStats{one.median_ms, one.min_ms, one.max_ms, one.runs, r.runs_per_replay, r.host_ms_per_call});
    medians.push_back(one.median_ms);
    if (r.host_ms_per_call >= 0) hosts.push_back(r.host_ms_per_call);
    t.min_ms = std::min(t.min_ms, one.min_ms);
    t.max_ms = std::max(t.max_ms, one.max_ms);
    t.runs += one.runs * r.runs_per_replay;
  }
  t.median_ms = median_of(medians);
  if (medians.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    t.spread = t.median_ms > 0 ? (*hi - *lo) / t.median_ms : 0.0;
  }
  if (!hosts.empty()) t.host_ms_per_call = median_of(hosts);
  return t;
}

json timing_json(const TimingStats& t) {
  json j{{"median_ms", number_json(t.median_ms)}, {"min_ms", number_json(t.min_ms)}, {"max_ms", number_json(t.max_ms)},
         {"runs", t.runs}, {"warmup", t.warmup}, {"sets", t.sets}};
  if (t.method.empty()) return j;
  j["method"] = t.method;
  if (t.method != "graph_replay") return j;
  j["runs_per_replay"] = t.runs_per_replay;
  j["replays"] = t.replays;
  json reps = json::array();
  for (const RepeatStats& r : t.repeats)
    reps.push_back(json{{"median_ms", number_json(r.median_ms)}, {"min_ms", number_json(r.min_ms)},
                        {"max_ms", number_json(r.max_ms)}, {"replays", r.replays}, {"runs_per_replay", r.runs_per_replay},
                        {"host_ms_per_call", r.host_ms_per_call >= 0 ? number_json(r.host_ms_per_call) : json(nullptr)}});
  j["repeats"] = std::move(reps);
  j["spread"] = t.spread ? number_json(*t.spread) : json(nullptr);
  j["host_ms_per_call"] = t.host_ms_per_call ? number_json(*t.host_ms_per_call) : json(nullptr);
  j["host_calls"] = t.host_calls;
  return j;
}

int rotation_sets(std::size_t set_bytes, std::size_t l2_bytes) {
  if (set_bytes == 0) return 1;
  const std::size_t want = (3 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::clamp<std::size_t>(want, 1, kMaxRotationSets));
}

GraphPlan plan_graph(double est_ms, const GraphTimingOptions& o, int sets) {
  if (o.reps < 1 || o.replays < 1 || o.host_calls < 1)
    throw InputError("plan_graph: reps, replays and host_calls must be >= 1 (got " + std::to_string(o.reps) + ", " +
                     std::to_string(o.replays) + ", " + std::to_string(o.host_calls) + ")");
  if (sets < 1) throw InputError("plan_graph: sets = " + std::to_string(sets) + " must be >= 1");
  if (!(o.budget_ms > 0)) throw InputError("plan_graph: budget_ms must be > 0");
  const double est = est_ms > 0 && std::isfinite(est_ms) ? est_ms : 0.0;
  GraphPlan g;
  g.runs_per_replay = (o.reps + sets - 1) / sets * sets;
  g.replays = o.replays;
  if (est * g.runs_per_replay * g.replays > o.budget_ms) {
    g.runs_per_replay = std::max(kMinReps, static_cast<int>(std::floor(o.budget_ms / (est * g.replays))));
    if (g.runs_per_replay == 1 && est * g.replays > o.budget_ms)
      g.replays = std::min(o.replays, std::max(kMinReplays, static_cast<int>(std::floor(o.budget_ms / est))));
  }
  g.host_calls = o.host_calls;
  if (est > 0)
    g.host_calls = std::min(o.host_calls, std::max(kMinHostCalls, static_cast<int>(std::floor(o.budget_ms / (4 * est)))));
  return g;
}

}  // namespace hiprim::verify
