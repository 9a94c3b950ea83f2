// The conv bench's state, shared by bench.cpp (the suite and its problems) and bench_ceilings.cpp.
// Internal to bench/: not an interface.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "bench/bench_clocks.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_timing.hpp"
#include "bench/reference_cache.hpp"
#include "verify/solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

inline constexpr std::size_t kPeerWorkspaceBytes = std::size_t{1} << 30;

// ---- Per-problem state across the repeats ----

struct SolverRun {
  const ConvSolver* solver = nullptr;
  CaseRecord rec;
  std::vector<ReplayTiming> timing;  // one per repeat that timed it
  std::string timing_error;
  bool retime = true;
};

struct Bench::ProblemState {
  BenchProblem bp;
  PerfCaseInput in;
  std::vector<SolverRun> solvers;
  PeerResult peer;                  // without timing; the timing is combined at the end
  bool peer_enabled = false;
  std::unique_ptr<PeerProblem> peer_problem;
  int peer_plan = -1;               // the selected candidate
  std::vector<ReplayTiming> peer_timing;
  std::string peer_timing_error;
};

struct Bench::State {
  explicit State(const BenchOptions& opt) : o(opt), cache(opt.seed) {}
  BenchOptions o;
  ConvSolverList solvers;
  double copy_gbps = 0;
  nlohmann::json copy = nullptr;
  nlohmann::json gemm = nlohmann::json::object();
  std::map<DType, double> gemm_tflops;
  std::unique_ptr<ConvPeer> peer;
  std::string peer_reason;
  mutable ReferenceCache cache;
  std::unique_ptr<ClockLog> clocks;
  int repeats_run = 0;
  std::size_t problems_run = 0;
  std::vector<double> repeat_seconds;  // wall time of each repeat of the last run_all
  PhaseSeconds phases;                 // where the wall time went
#ifdef HIPRIM_WITH_GPU
  gpu::Stream stream;
  std::size_t l2 = 0;
  gpu::DeviceBuffer peer_ws;
  const gpu::DeviceBuffer& peer_workspace() {
    if (!peer_ws.data()) peer_ws = gpu::DeviceBuffer(kPeerWorkspaceBytes, "peer workspace");
    return peer_ws;
  }
  GraphTimerOptions timer() const {
    GraphTimerOptions t;
    t.graph = GraphTimingOptions{o.reps, o.replays, o.host_calls, o.budget_ms};
    t.warmup = o.warmup;
    return t;
  }
  GraphTimerOptions autotune_timer() const {  // a shorter clock for ranking the peer's plans
    GraphTimerOptions t;
    t.graph = GraphTimingOptions{o.reps, std::min(o.replays, 2), 3, o.budget_ms / 4};
    t.warmup = 1;
    return t;
  }
#endif
};

}  // namespace hiprim::verify
