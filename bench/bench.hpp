// The performance harness: hiprim's GPU solvers, and cuDNN as the peer, timed on device buffers
// in the same run, each output first checked against the CPU reference (a fast wrong answer is
// reported as failed, never as fast).
//
// Timing (/work/.library/device/METHOD.md): runs are enqueued back to back on one stream with an
// event after each, so each run is its own interval (EventSeries); `warmup` untimed runs come first
// (module load, cuDNN's lazy setup), then one untimed primer, then `reps` timed runs: median, min and
// max. Runs rotate over `sets` copies of the buffers, sets = ceil(3 x L2 / bytes of one set), so no run
// finds its inputs in the L2 the previous run left. A run longer than budget_ms / reps gets fewer timed
// runs (at least kMinReps); the report gives the count.
//
// Counts per problem: flops = 2 x MACs; bytes = the least traffic, every input read once and the
// output written once (x, w, y, bias in the problem's dtype). TFLOP/s and GB/s divide those by the
// median time. Ceilings, measured at the start of the run: device copy bandwidth (a device-to-device
// copy of 1 GiB, bytes read + written) and, per dtype, the best rate of a large GEMM
// (M = N = K = 8192) among hiprim's own gemm() and cuDNN's 1x1 convolution of the same size
// (n1 c8192 k8192 in64x128 f1x1, NHWC, find mode), which is a GEMM; the faster one is the ceiling,
// because the ceiling is what this device can be made to do, not what hiprim does today.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/conv_problem.hpp"
#include "bench/bench_check.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {

inline constexpr int kMinReps = 3;
inline constexpr int kMaxRotationSets = 64;

// Least bytes through device memory: x + w + y (+ bias) in the problem's dtype.
double conv_min_bytes(const ConvProblem& p);

struct TimingStats {
  int runs = 0, warmup = 0, sets = 1;
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
// Median (mean of the two middle values for an even count), min and max of runs_ms; InputError when
// empty. runs = runs_ms.size(); warmup and sets are left for the caller.
TimingStats summarize_runs(std::vector<double> runs_ms);
nlohmann::json timing_json(const TimingStats& t);
// ceil(3 x l2 / set_bytes) clamped to [1, kMaxRotationSets]; 1 when set_bytes is 0.
int rotation_sets(std::size_t set_bytes, std::size_t l2_bytes);
// reps when est_ms x reps fits budget_ms; else floor(budget_ms / est_ms), at least kMinReps.
int reps_within_budget(int reps, double est_ms, double budget_ms);

struct BenchOptions {
  int warmup = 5, reps = 20;
  double budget_ms = 1000;  // device time allowed for one solver's timed runs
  VerifyMode verify = VerifyMode::full;
  FillTier fill = FillTier::bounded;  // bounded: real data (no zeros to flatter), and cuDNN's
                                      // transform algorithms get a meaningful comparison
  std::uint64_t seed = 1;
  std::string solver_glob = "*";  // device solvers to time; the fastest passed one is "best"
  bool peer_cudnn = true;
  std::string cudnn_lib;  // --cudnn-lib; empty: $HIPRIM_CUDNN_LIB, then libcudnn.so.9
  bool ceilings = true;
};

// InputError for an option out of range; RuntimeError "hiprim bench needs a GPU: <why>" when no GPU
// can be used (or the build has no GPU backend).
void check_bench_ready(const BenchOptions& o);
// The settings every bench report shares: the options and the timing, rotation and byte rules as text.
nlohmann::json bench_settings_json(const BenchOptions& o);

// One problem and how often it occurs in the network (the weight of the suite totals).
struct BenchProblem {
  ConvProblem problem;
  std::int64_t count = 1;
};

class Bench {
 public:
  // RuntimeError naming the reason when no GPU can be used (or the build has no GPU backend);
  // InputError when solver_glob matches no GPU solver or an option is out of range.
  explicit Bench(const BenchOptions& o);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  // Measures the copy ceiling and the GEMM ceiling of each dtype not measured yet (when ceilings on).
  void measure_ceilings(const std::vector<DType>& dtypes);
  // Verifies and times every selected solver and the peer on one problem: the report's cases (one per
  // solver), each with the peer's result and the problem's counts.
  nlohmann::json run(const BenchProblem& bp);
  // The same for each problem in order, calling on_problem with its cases. The next problem's inputs
  // and reference are prepared on a second thread while the device works on the current one. Stops
  // before a problem when stop() (if given) says so.
  void run_all(const std::vector<BenchProblem>& problems, const std::function<void(const nlohmann::json&)>& on_problem,
               const std::function<bool()>& stop = {});

  nlohmann::json ceilings_json() const;  // {"copy": {...}|null, "gemm": {dtype: {...}}}
  nlohmann::json peer_json() const;      // {"name": "cudnn", "available", "library", "version", "reason", ...}
  nlohmann::json settings_json() const;

 private:
  struct State;
  struct Prepared;
  Prepared prepare(const ConvProblem& p) const;
  nlohmann::json run_prepared(const BenchProblem& bp, Prepared& prep);
  std::unique_ptr<State> s_;
};

}  // namespace hiprim::verify
