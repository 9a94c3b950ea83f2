// The bench's timing arithmetic and statistics (host-only, no device): how many runs a graph holds
// and how often it is replayed, per-call times from replays, and the statistics over the suite's
// repeats that a report keeps.
//
// The clock (bench/bench_timing.hpp does the device side): one graph holds L = runs_per_replay
// enqueues of the solver, rotating over the `sets` copies of the buffers (set i mod sets), so a run
// never finds its inputs in the L2 the previous one left; one untimed replay, then R = replays timed
// replays, each bracketed by device events. A replay's time / L is one per-call sample; a repeat's
// figure is the median of its R samples. Over the repeats of a run: the median of the repeat
// medians is the reported time, min/max run over every sample, spread = (largest repeat median -
// smallest) / reported time. Host overhead per call: the wall time of host_calls back-to-back eager
// enqueues (no synchronisation between them) / host_calls.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiprim::verify {

inline constexpr int kMinReps = 1;      // runs in a graph, at the least (a run slower than the budget)
inline constexpr int kMinReplays = 3;   // timed replays, at the least
inline constexpr int kMinHostCalls = 3;
inline constexpr int kMaxRotationSets = 64;

// One repeat of one solver (or the peer): what the graph timer measured.
struct ReplayTiming {
  std::vector<double> per_call_ms;  // each timed replay's device time / runs_per_replay
  int runs_per_replay = 0;          // L
  int sets = 1;
  int warmup = 0;                   // eager runs before the capture (the host-overhead calls included)
  double host_ms_per_call = -1;     // < 0: not measured
  int host_calls = 0;
};

// One repeat as the report keeps it.
struct RepeatStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int replays = 0, runs_per_replay = 0;
  double host_ms_per_call = -1;
};

// A case's timing. method "graph_replay" (the bench), "events" (back-to-back runs between device
// events: the copy ceiling only) or "" (not said: hand-made reports). median/min/max as above
// (for "events": over the runs).
struct TimingStats {
  int runs = 0, warmup = 0, sets = 1;  // timed runs in total (L x R summed over repeats)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::string method;
  int runs_per_replay = 0, replays = 0;  // of the first repeat
  std::vector<RepeatStats> repeats;
  std::optional<double> spread;            // with >= 2 repeats
  std::optional<double> host_ms_per_call;  // median over the repeats that measured it
  int host_calls = 0;
};

// Median (mean of the two middle values for an even count), min and max of runs_ms; InputError when
// empty. runs = runs_ms.size(); the rest stays default.
TimingStats summarize_runs(std::vector<double> runs_ms);
// The median of values (as above); InputError when empty.
double median_of(std::vector<double> values);
// The statistics of a case over its repeats (each with >= 1 replay); InputError when there is none
// or a repeat has no replays or runs_per_replay < 1.
TimingStats combine_repeats(const std::vector<ReplayTiming>& repeats);
nlohmann::json timing_json(const TimingStats& t);

// ceil(3 x l2 / set_bytes) clamped to [1, kMaxRotationSets]; 1 when set_bytes is 0.
int rotation_sets(std::size_t set_bytes, std::size_t l2_bytes);

// What one graph timer does, from its options and the estimated device time of one run.
struct GraphTimingOptions {
  int reps = 20;         // wanted runs per graph (rounded up to a multiple of sets)
  int replays = 5;       // wanted timed replays
  int host_calls = 20;   // wanted eager enqueues for the host-overhead figure
  double budget_ms = 200;  // device time allowed for the timed replays of one repeat
};
struct GraphPlan {
  int runs_per_replay = 1, replays = kMinReplays, host_calls = kMinHostCalls;
};
// L = reps rounded up to a multiple of sets; R = replays. When est_ms x L x R exceeds budget_ms:
// L = max(1, floor(budget / (est x R))), and with L = 1 still over budget R = max(kMinReplays,
// floor(budget / est)). host_calls = min(wanted, max(kMinHostCalls, floor(budget / (4 est)))).
// InputError for reps, replays or host_calls < 1, sets < 1 or budget <= 0; est_ms <= 0 counts as 0.
GraphPlan plan_graph(double est_ms, const GraphTimingOptions& o, int sets);

// Wall seconds a bench spends per phase ("prepare_wait": waiting for the host's fills and
// references, "verify", "peer_autotune", "timing"), summed over the suite; the report keeps them
// under settings.phase_seconds so a device run can be sized from the last one.
class PhaseSeconds {
 public:
  template <typename F>
  decltype(auto) time(const std::string& phase, F&& f) {
    struct Lap {  // adds the elapsed time also when f throws
      PhaseSeconds& ps;
      const std::string& phase;
      std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
      ~Lap() { ps.s_[phase] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
    } lap{*this, phase};
    return f();
  }
  nlohmann::json json() const { return nlohmann::json(s_); }
  void clear() { s_.clear(); }

 private:
  std::map<std::string, double> s_;
};

}  // namespace hiprim::verify
