// The performance harness: hiprim's GPU solvers of any primitive and, for convolutions, a peer
// (cuDNN's graph API by default, bench/bench_peer.hpp) timed by the same clock in the same run,
// every timed output verified first (a fast wrong answer is reported as failed, never as fast).
// One Bench runs conv problems or the other primitives' (bench/bench_primitive.hpp: the
// per-primitive part; bench/bench_conv.cpp, bench/bench_ops.hpp). Per problem, in the first repeat:
//   1. verification of each applicable solver (--verify full, the default; conv: through the
//      runner on the exact tier, integer fills in [-r, r], r = exact_fill_range(L), so every partial
//      sum is exact and the threshold is zero; guards, poisoned output, determinism re-run; the
//      reference is computed ahead on a background thread and shared between the dtype x layout
//      variants of the problem, bench/reference_cache.hpp). Only a passed solver is timed.
//   2. conv: the peer: its candidates (graph API: every execution plan of the heuristics) each
//      checked in full against the same reference and timed; the fastest that passed is the
//      peer's time. Ops have no peer (its columns say "unavailable").
//   3. timing (bench/bench_timing.hpp): on separately filled buffers (conv: bounded reals, never
//      zeros; ops: copies of the op's own fill) rotating over sets = ceil(3 x L2 / bytes of one set)
//      copies, each passed solver and the peer's plan captured into a graph of L runs; their timed
//      replays alternate (solver a, solver b, ..., peer, then again) so a drifting clock touches all
//      alike. Per call: replay time / L. Host overhead per call: wall time of back-to-back eager
//      enqueues / count.
// Later repeats (--repeats, default 3) time again on fresh buffers: the passed solvers (conv: those
// within retime_factor of repeat 1's best) and the peer's selected plan. The report keeps each
// repeat's median, the median of them (the figure), the spread, and the NVML clocks sampled after
// every problem.
//
// Counts per problem: flops = 2 x MACs (conv); bytes = the least traffic, every input read once and
// the output written once (OpProblem::bytes()). TFLOP/s and GB/s divide those by the time.
// Ceilings, measured at the start: device copy bandwidth (1 GiB copies between events) and, for
// conv, per dtype the best of hiprim's gemm() and the peer's 1x1 convolution at M = N = K = 8192,
// both by graph replay (bench_ceilings.cpp): what this device can be made to do.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_check.hpp"
#include "bench/bench_peer.hpp"
#include "bench/bench_stats.hpp"
#include "core/conv_problem.hpp"
#include "verify/fill.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {

struct BenchOptions {
  int warmup = 1;          // eager runs before the host-overhead calls
  int reps = 20;           // runs per graph (rounded up to whole rotations of the sets)
  int replays = 5;         // timed replays per repeat
  int repeats = 3;         // of the whole suite
  int host_calls = 20;     // eager enqueues for the host overhead
  double budget_ms = 200;  // device time of one solver's timed replays in one repeat
  VerifyMode verify = VerifyMode::full;
  std::optional<FillTier> fill;  // the verification tier; default exact where L allows, else bounded
  std::uint64_t seed = 1;
  std::string solver_glob = "*";  // device solvers to time; the fastest passed one is "best"
  PeerKind peer = PeerKind::cudnn;
  std::string cudnn_lib;         // --cudnn-lib; empty: $HIPRIM_CUDNN_LIB, then libcudnn.so.9
  bool peer_transforms = false;  // may the autotuner select an FFT/Winograd plan
  int peer_max_plans = 24;       // the graph API peer's usable plans per problem (autotuning is device time)
  double retime_factor = 3.0;    // repeats >= 2 re-time solvers within this factor of repeat 1's best; 0: all
  bool ceilings = true;
};

// InputError for an option out of range; RuntimeError "hiprim bench needs a GPU: <why>" when no GPU
// can be used (or the build has no GPU backend).
void check_bench_ready(const BenchOptions& o);
// The settings every bench report shares: the options and the clock's rules as text.
nlohmann::json bench_settings_json(const BenchOptions& o);

class BenchPrimitive;
struct BenchContext;
struct BenchInputs;

class Bench {
 public:
  // ops: the op names of the problems to time: {"conv"}, or any of the other primitives (not both).
  // RuntimeError naming the reason when no GPU can be used (or the build has no GPU backend);
  // InputError when solver_glob matches no GPU solver of those ops or an option is out of range. A
  // peer that cannot be loaded is not an error: its columns say "unavailable" with the reason.
  Bench(const BenchOptions& o, const std::vector<std::string>& ops);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  // Measures the copy ceiling and (conv) the GEMM ceiling of each dtype not measured yet (when
  // ceilings are on).
  void measure_ceilings(const std::vector<DType>& dtypes = {});
  // One problem, every repeat: its cases (one per solver of its op), each with the peer's result.
  nlohmann::json run(const SuiteProblem& sp);
  // The suite, `repeats` times (see above); progress(line) after each problem of each repeat.
  // Stops starting problems when stop() says so: problems of an unfinished later repeat keep the
  // repeats they have; problems repeat 1 did not reach are absent. Returns every case.
  nlohmann::json run_all(const std::vector<SuiteProblem>& problems,
                         const std::function<void(const std::string&)>& progress = {},
                         const std::function<bool()>& stop = {});

  nlohmann::json ceilings_json() const;  // {"copy": {...}|null, "gemm": {dtype: {...}}}
  nlohmann::json peer_json() const;      // null with --peer none; else name, available, library, version, reason, ...
  nlohmann::json settings_json() const;  // bench_settings_json + l2_bytes + what the last run_all did
  nlohmann::json clocks_json() const;    // ClockLog::report_json()

 private:
  struct State;
  struct ProblemState;
  void run_first(ProblemState& st, BenchInputs& inputs);
  void time_repeat(ProblemState& st, int repeat, const BenchInputs* inputs);
  nlohmann::json finish(const ProblemState& st) const;
  std::unique_ptr<State> s_;
};

}  // namespace hiprim::verify
