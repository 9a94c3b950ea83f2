#include "bench/bench_timing.hpp"

#ifdef HIPRIM_WITH_GPU
#include <algorithm>

#include "gpu/runtime/device.hpp"
#include "bench/event_series.hpp"

namespace hiprim::verify {

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
  const int timed = reps_within_budget(reps, est, budget_ms);
  gpu::EventSeries ev(timed + 1);
  run();  // primer: the device is busy with it while the host enqueues the timed runs
  ev.record(0, stream);
  for (int i = 0; i < timed; ++i) {
    run();
    ev.record(i + 1, stream);
  }
  TimingStats t = summarize_runs(ev.intervals_ms());
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
                        {"method", "hipMemcpyAsync device to device of 1 GiB; bytes read + written over the median"},
                        {"timing", timing_json(t)}};
}

}  // namespace hiprim::verify
#endif
