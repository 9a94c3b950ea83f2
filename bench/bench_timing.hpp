// The device side of the clock (the arithmetic is bench/bench_stats.hpp): graph replay for every
// solver and peer, and back-to-back event timing for the copy ceiling only. GPU builds only.
//
// GraphTimer, for one solver (or peer plan) on one problem:
//   1. `warmup` eager runs, then one synchronisation (module loading, lazy library setup);
//   2. host overhead: host_calls eager enqueues back to back, wall clock from before the first to
//      after the last returns, divided by host_calls (the device runs them meanwhile; their device
//      time over the count is the estimate the plan is sized by);
//   3. plan_graph(estimate): L runs per graph, R timed replays;
//   4. capture L enqueues (set j mod sets for run j) into one graph, instantiate, replay once untimed;
//   5. replay(): events around one graph launch; per-call time = replay time / L.
// A solver whose run cannot be captured (a host synchronisation, an allocation, a read-back, work
// on another stream) fails step 4 with a RuntimeError naming the runtime's error: the bench
// reports that as an error case (a solver defect), never as a time.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_stats.hpp"

namespace hiprim::verify {

// The copy ceiling's budget: its runs (1 GiB copies, ~0.5 ms each at 4 TB/s) are few.
inline constexpr int kCeilingWarmup = 3, kCeilingReps = 10;
inline constexpr double kCeilingBudgetMs = 1500;
inline constexpr int kMinEventRuns = 3;

// Event-timed runs under a budget (the copy ceiling): reps when est_ms x reps fits budget_ms, else
// floor(budget_ms / est_ms), at least kMinEventRuns.
int event_runs_within_budget(int reps, double est_ms, double budget_ms);

#ifdef HIPRIM_WITH_GPU
struct GraphTimerOptions {
  GraphTimingOptions graph;
  int warmup = 1;  // eager runs before the host-overhead calls
};

class GraphTimer {
 public:
  // Steps 1-4 above for enqueue(set) on stream. RuntimeError when capturing or instantiating fails
  // (the message starts "<what> cannot be captured into a graph"), or a run fails.
  GraphTimer(std::function<void(int)> enqueue, int sets, const GraphTimerOptions& o, void* stream, const std::string& what);
  ~GraphTimer();
  GraphTimer(const GraphTimer&) = delete;
  GraphTimer& operator=(const GraphTimer&) = delete;

  const GraphPlan& plan() const;
  int replays_done() const;
  // One timed replay (asynchronous); InputError after plan().replays of them.
  void replay();
  // Waits for the last replay; the per-call times and the host overhead. InputError before any replay.
  ReplayTiming result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One timer alone: every replay back to back.
ReplayTiming time_graph(std::function<void(int)> enqueue, int sets, const GraphTimerOptions& o, void* stream,
                        const std::string& what);
// Several timers of one problem, alternating: round r replays each timer that has replays left, in
// order, until none has (so drifting clocks touch every solver and the peer alike).
void replay_alternating(const std::vector<GraphTimer*>& timers);

// Back-to-back event timing (the copy ceiling): max(warmup, 2) untimed runs, then up to reps timed
// runs within budget_ms, each its own event interval. method "events".
TimingStats time_on_device(const std::function<void(int)>& enqueue, int sets, int warmup, int reps, double budget_ms,
                           void* stream);
// The device copy ceiling: a device-to-device copy of 1 GiB; bytes read + written over the median.
// Returns {"gbps", "bytes_moved", "method", "timing"} and stores the rate in *gbps.
nlohmann::json measure_copy_ceiling(void* stream, double* gbps);
#endif

}  // namespace hiprim::verify
