// The per-primitive part of the one bench (bench/bench.hpp). bench.cpp owns what every primitive
// shares: the suite loop and its preparation ahead on other threads, the repeats, the alternating
// timed replays of a problem's solvers (and the peer's plan), and the cases' report entries. A
// BenchPrimitive says what differs: the conv part (bench_conv.cpp: exact-tier fills, the shared
// reference cache, the cuDNN peer, the GEMM ceiling) or the other primitives' (bench_ops.cpp: each
// op's own fill, full or quick verification, no peer). Internal to bench/: not an interface.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_timing.hpp"
#include "core/op_solver.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

// What the bench and its primitive part share.
struct BenchContext {
  explicit BenchContext(const BenchOptions& opt) : o(opt) {}
  BenchOptions o;
  PhaseSeconds phases;  // where the wall time went
  double copy_gbps = 0;
#ifdef HIPRIM_WITH_GPU
  gpu::Stream stream;
  std::size_t l2 = 0;
  GraphTimerOptions timer() const {
    GraphTimerOptions t;
    t.graph = GraphTimingOptions{o.reps, o.replays, o.host_calls, o.budget_ms};
    t.warmup = o.warmup;
    return t;
  }
#endif
};

#ifdef HIPRIM_WITH_GPU
// A shorter clock for ranking a peer's plans (the selected one is then timed like the solvers).
inline GraphTimerOptions peer_autotune_timer(const BenchOptions& o) {
  GraphTimerOptions t;
  t.graph = GraphTimingOptions{o.reps, std::min(o.replays, 2), 3, o.budget_ms / 4};
  t.warmup = 1;
  return t;
}
#endif

// One problem's host preparation for one repeat, made on a preparing thread.
struct BenchInputs {
  virtual ~BenchInputs() = default;
  std::string error;  // non-empty: preparing failed
};

// One problem's per-primitive state across the repeats, made on the device thread in repeat 1.
class BenchCase {
 public:
  virtual ~BenchCase() = default;
  // Verifies solver s, applicable to the problem, with --verify full or quick, into rec.
  virtual void verify(const OpSolver& s, CaseRecord& rec) = 0;
  // After every solver's verification (conv: the peer's plans checked and autotuned); releases
  // what only the verification needed.
  virtual void verified() {}
  // The peer's result without its timing (attached to the cases when a peer was asked for).
  virtual PeerResult peer() const = 0;
#ifdef HIPRIM_WITH_GPU
  // The rotating buffer sets of one repeat's timing, from that repeat's inputs (repeat 1's, or
  // null when the primitive prepares repeat 1 only); throws when they cannot be made.
  virtual int make_sets(int repeat, const BenchInputs* inputs) = 0;
  // s's run on set i with workspace ws, to be captured into a graph.
  virtual std::function<void(int)> timed_run(const OpSolver& s, const gpu::DeviceBuffer& ws) = 0;
  // Whether the peer has a selected plan to time; its run on set i, and its name.
  virtual bool times_peer() const { return false; }
  virtual std::function<void(int)> timed_peer(std::string* /*what*/) { return {}; }
  virtual void drop_sets() = 0;
#endif
};

class BenchPrimitive {
 public:
  virtual ~BenchPrimitive() = default;
  // The device solvers that --solver selected, in list order; a problem gets those of its op.
  virtual const OpSolverList& solvers() const = 0;
  virtual std::size_t prepare_ahead() const = 0;      // problems prepared ahead of the device thread
  virtual bool prepares_every_repeat() const = 0;     // later repeats' inputs prepared too (else repeat 1 only)
  virtual bool retimes_by_factor() const = 0;         // later repeats time only solvers within retime_factor
  virtual void expect(const std::vector<SuiteProblem>& /*suite*/) {}  // told the suite before it runs
  // Thread-safe: the inputs of p for `repeat` (errors caught into BenchInputs::error).
  virtual std::unique_ptr<BenchInputs> prepare(const OpProblemPtr& p, int repeat) const = 0;
  // s's case before it runs: problem, solver, seed, fill, tolerance rule, repro line.
  virtual CaseRecord base_record(const OpProblem& p, const OpSolver& s) const = 0;
  // The primitive's counts beyond flops, bytes and the copy ceiling (conv: GEMM ceiling, fill).
  virtual void describe(const OpProblem& /*p*/, PerfCaseInput& /*in*/) const {}
  // p's case from repeat 1's inputs; throws (every solver then errors) when it cannot be made.
  virtual std::unique_ptr<BenchCase> start(const OpProblemPtr& p, BenchInputs& inputs) = 0;
  // The peer's result when start() threw `why`.
  virtual PeerResult peer_without_case(const std::string& why) const = 0;
  virtual void measure_ceilings(const std::vector<DType>& /*dtypes*/) {}  // beyond the copy ceiling
  virtual nlohmann::json gemm_ceilings_json() const { return nlohmann::json::object(); }
  virtual nlohmann::json peer_json() const = 0;
  virtual void add_settings(nlohmann::json& settings) const = 0;
};

// The conv part (bench_conv.cpp): InputError when --solver matches no GPU conv solver.
std::unique_ptr<BenchPrimitive> make_conv_bench(BenchContext& cx);
// The part of the other primitives (bench_ops.cpp), for the ops named: InputError likewise.
std::unique_ptr<BenchPrimitive> make_op_bench(BenchContext& cx, const std::vector<std::string>& ops);

}  // namespace hiprim::verify
