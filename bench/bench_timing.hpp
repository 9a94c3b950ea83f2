// Device timing and the copy ceiling, shared by the convolution bench (bench/bench.hpp, which
// describes the timing model) and the op bench (bench/bench_ops.hpp). GPU builds only.
#pragma once
#include <functional>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"  // TimingStats

namespace hiprim::verify {

// The budget for ceiling runs: they are long (a 1 GiB copy, a 2^40-flop GEMM) and few.
inline constexpr int kCeilingWarmup = 3, kCeilingReps = 10;
inline constexpr double kCeilingBudgetMs = 1500;

#ifdef HIPRIM_WITH_GPU
// Warm-up, primer and timed runs of enqueue(set), set = 0, 1, ... mod sets, back to back on stream:
// max(warmup, 2) untimed runs (limited to a quarter of budget_ms), one primer, then
// reps_within_budget(reps, estimate, budget_ms) timed runs, each its own event interval.
TimingStats time_on_device(const std::function<void(int)>& enqueue, int sets, int warmup, int reps, double budget_ms,
                           void* stream);
// The device copy ceiling: a device-to-device copy of 1 GiB; bytes read + written over the median.
// Returns {"gbps", "bytes_moved", "method", "timing"} and stores the rate in *gbps.
nlohmann::json measure_copy_ceiling(void* stream, double* gbps);
#endif

}  // namespace hiprim::verify
