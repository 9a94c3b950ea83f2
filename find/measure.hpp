// One (solver, perf config) of one problem, measured as Find and tuning measure it: first verified by
// the one runner (verify/runner.hpp: guards, poisoned outputs, the primitive's judge, determinism),
// then, only when it passed, timed: on the device by the bench's graph replay (bench/bench_timing.hpp,
// per-call time = replay time / runs per graph, median of the replays; the runs rotate over copies of
// the inputs covering 3 x L2, as the bench's: a small tensor is not timed L2-resident); on the host by the wall clock
// (median of runs within a budget). A solver that failed is never timed: time_us stays < 0.
#pragma once
#include <cstdint>
#include <string>

#include "core/op_solver.hpp"
#include "verify/report.hpp"
#include "verify/runner.hpp"

namespace hiprim::find {

struct MeasureOptions {
  int reps = 20;            // device: runs per graph
  int replays = 5;          // device: timed replays
  double budget_ms = 100;   // device time (device) / wall time (host) of one config's timing
  int host_runs = 7;        // host: timed runs at most (at least 3 when the budget allows fewer)
  verify::RunOptions run;   // the verification's seed, fill, determinism check (config is set per call)
};

struct Measurement {
  std::string solver, config;  // config as run: "" for a solver without configs
  verify::CaseRecord check;    // the runner's record (status, reason, repro line)
  bool verified = false;       // check passed
  double time_us = -1;         // < 0: not timed (not verified, or the timing failed: see error)
  std::int64_t workspace_bytes = 0;
  std::string error;           // the timing's failure
};

// s with `config` on c's problem. Never throws for a solver's failure (it is in the record).
Measurement measure(const verify::PreparedCase& c, const OpSolver& s, const std::string& config, const MeasureOptions& o);

// "ok 12.3 us" / "FAILED: <reason>" / "not timed: <error>": one word on a measurement for tables.
std::string measurement_text(const Measurement& m);

}  // namespace hiprim::find
