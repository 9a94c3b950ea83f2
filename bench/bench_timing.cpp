#include "bench/bench_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/event_series.hpp"
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

int event_runs_within_budget(int reps, double est_ms, double budget_ms) {
  if (est_ms <= 0 || est_ms * reps <= budget_ms) return reps;
  const double fit = std::floor(budget_ms / est_ms);
  return std::max(kMinEventRuns, static_cast<int>(std::min<double>(fit, reps)));
}

#ifdef HIPRIM_WITH_GPU

struct GraphTimer::Impl {
  GraphPlan plan;
  gpu::CapturedGraph graph;
  std::optional<gpu::EventSeries> events;  // marks 2r, 2r+1 around replay r
  void* stream = nullptr;
  int done = 0, sets = 1, warmup = 0;
  double host_ms = -1;
  int host_calls = 0;
};

GraphTimer::GraphTimer(std::function<void(int)> enqueue, int sets, const GraphTimerOptions& o, void* stream,
                       const std::string& what)
    : impl_(std::make_unique<Impl>()) {
  if (sets < 1) throw InputError("GraphTimer: sets = " + std::to_string(sets) + " must be >= 1");
  Impl& m = *impl_;
  m.stream = stream;
  m.sets = sets;
  int next = 0;
  auto run = [&] { enqueue(next++ % sets); };
  // 1. Eager warm-up.
  gpu::EventSeries first(2);
  first.record(0, stream);
  for (int i = 0; i < std::max(1, o.warmup); ++i) run();
  first.record(1, stream);
  const double est0 = first.intervals_ms()[0] / std::max(1, o.warmup);  // waits: the device is idle after it
  // 2. Host overhead of back-to-back enqueues, sized by the first estimate.
  m.host_calls = plan_graph(est0, o.graph, sets).host_calls;
  gpu::EventSeries eager(2);
  eager.record(0, stream);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < m.host_calls; ++i) run();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  eager.record(1, stream);
  m.host_ms = wall_ms / m.host_calls;
  const double est = eager.intervals_ms()[0] / m.host_calls;
  m.warmup = std::max(1, o.warmup) + m.host_calls;
  // 3-4. Plan, capture, instantiate, one untimed replay.
  m.plan = plan_graph(est, o.graph, sets);
  const int runs = m.plan.runs_per_replay;
  m.graph = gpu::CapturedGraph::capture(
      stream, [&] { for (int j = 0; j < runs; ++j) enqueue(j % sets); }, what);
  m.graph.launch(stream);
  m.events.emplace(2 * m.plan.replays);
}

GraphTimer::~GraphTimer() = default;

const GraphPlan& GraphTimer::plan() const { return impl_->plan; }
int GraphTimer::replays_done() const { return impl_->done; }

void GraphTimer::replay() {
  Impl& m = *impl_;
  if (m.done >= m.plan.replays)
    throw InputError("GraphTimer::replay: all " + std::to_string(m.plan.replays) + " replays are done");
  m.events->record(2 * m.done, m.stream);
  m.graph.launch(m.stream);
  m.events->record(2 * m.done + 1, m.stream);
  ++m.done;
}

ReplayTiming GraphTimer::result() const {
  const Impl& m = *impl_;
  if (m.done == 0) throw InputError("GraphTimer::result: no replay was timed");
  ReplayTiming t;
  t.runs_per_replay = m.plan.runs_per_replay;
  t.sets = m.sets;
  t.warmup = m.warmup;
  t.host_ms_per_call = m.host_ms;
  t.host_calls = m.host_calls;
  for (int r = 0; r < m.done; ++r) t.per_call_ms.push_back(m.events->elapsed_ms(2 * r, 2 * r + 1) / m.plan.runs_per_replay);
  return t;
}

ReplayTiming time_graph(std::function<void(int)> enqueue, int sets, const GraphTimerOptions& o, void* stream,
                        const std::string& what) {
  GraphTimer t(std::move(enqueue), sets, o, stream, what);
  while (t.replays_done() < t.plan().replays) t.replay();
  return t.result();
}

void replay_alternating(const std::vector<GraphTimer*>& timers) {
  for (bool any = true; any;) {
    any = false;
    for (GraphTimer* t : timers)
      if (t && t->replays_done() < t->plan().replays) {
        t->replay();
        any = true;
      }
  }
}

namespace {
constexpr std::size_t kCopyCeilingBytes = std::size_t{1} << 30;  // each of the two copy buffers
}

TimingStats time_on_device(const std::function<void(int)>& enqueue, int sets, int warmup, int reps, double budget_ms,
                           void* stream) {
  int next = 0;
  auto run = [&] { enqueue(next++ % sets); };
  gpu::EventSeries first(2);
  first.record(0, stream);
  run();
  first.record(1, stream);
  double est = std::max(first.intervals_ms()[0], 1e-4);  // includes one-time setup: an overestimate
  int more = std::max(0, warmup - 2);
  if (est * more > budget_ms / 4) more = static_cast<int>(budget_ms / 4 / est);
  if (more > 0) {
    gpu::EventSeries w(2);
    w.record(0, stream);
    for (int i = 0; i < more; ++i) run();
    w.record(1, stream);
    est = std::max(w.intervals_ms()[0] / more, 1e-4);
  }
  const int timed = event_runs_within_budget(reps, est, budget_ms);
  gpu::EventSeries ev(timed + 1);
  run();  // primer: the device is busy with it while the host enqueues the timed runs
  ev.record(0, stream);
  for (int i = 0; i < timed; ++i) {
    run();
    ev.record(i + 1, stream);
  }
  TimingStats t = summarize_runs(ev.intervals_ms());
  t.method = "events";
  t.warmup = more + 2;
  t.sets = sets;
  return t;
}

nlohmann::json measure_copy_ceiling(void* stream, double* gbps) {
  gpu::DeviceBuffer a(kCopyCeilingBytes, "copy ceiling source"), b(kCopyCeilingBytes, "copy ceiling destination");
  a.fill_bytes(0x3C);
  auto t = time_on_device([&](int) { gpu::copy_device_to_device_async(b.data(), a.data(), a.bytes(), stream); }, 1,
                          kCeilingWarmup, kCeilingReps, kCeilingBudgetMs, stream);
  *gbps = 2.0 * static_cast<double>(kCopyCeilingBytes) / (t.median_ms * 1e-3) * 1e-9;
  return nlohmann::json{{"gbps", *gbps}, {"bytes_moved", 2 * kCopyCeilingBytes},
                        {"method", "hipMemcpyAsync device to device of 1 GiB, back to back between device events; bytes "
                                   "read + written over the median"},
                        {"timing", timing_json(t)}};
}

#endif

}  // namespace hiprim::verify
