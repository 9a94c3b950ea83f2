// The performance report (kind "performance", reports/README.md): case JSON, weighted suite totals,
// summary, and the console lines of `hiprim bench`. Host-only: the bench fills these from its runs.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "bench/bench_check.hpp"
#include "bench/bench_stats.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

// The peer's result on one problem.
struct PeerResult {
  std::string name = "cudnn";
  // "timed", "unavailable", "unsupported", "failed" (no candidate passed its check), "error"
  std::string status;
  std::string reason;
  std::string algo, math;  // the selected engine and its knobs (legacy peer: algorithm and math type)
  std::string source;      // where the candidate came from (heuristics mode, fallback, find)
  std::vector<std::string> numerical_notes, behavior_notes;
  std::size_t workspace_bytes = 0;
  bool transform = false;  // FFT/Winograd: the direct-sum error bound does not apply to it
  bool deterministic = false;
  double setup_ms = 0;     // building the graph and its plans, or the legacy find
  std::optional<TimingStats> timing;
  std::optional<Verdict> check;  // of the selected candidate; absent with --verify none or when none ran
  double algorithm_factor = 1.0;
  int bounded_passes = 0;          // candidates that missed the exact tier but passed the bounded one
  std::string tolerance;           // the rule the check applied (bench_tolerance_string)
  nlohmann::json autotune = nullptr;  // autotune_json(): every candidate, its check and time
};

// The rate of one timed run set against the ceilings (null members when a count or ceiling is 0).
nlohmann::json peer_result_json(const PeerResult& r, double flops, double bytes);

// Everything a performance case holds besides the conformance keys.
struct PerfCaseInput {
  VerifyMode verify = VerifyMode::full;
  std::int64_t count = 1;
  double flops = 0, bytes = 0;
  std::optional<TimingStats> timing;
  double gemm_ceiling_tflops = 0;  // of the problem's dtype; 0: not measured
  double copy_ceiling_gbps = 0;    // 0: not measured
  // The exact tier's fill: r (0: not the exact tier) and the dot-product length L it is chosen for.
  int fill_range = 0;
  std::int64_t reduction_length = 0;
  std::string timing_error;  // a repeat whose timing failed (e.g. the run could not be captured)
};
// case_json(rec) plus verify, count, flops, bytes, intensity, timing, tflops, gbps, fractions of the
// ceilings, host_ms_per_call, exact_fill ({r, L, max_partial_sum = L r^2 + r} or null),
// timing_error (null), best (false; the bench marks the fastest), peer (null), speedup_vs_peer
// (null), peer_disagreement (null). time_ms is the median when timed, else 0.
nlohmann::json perf_case_json(const CaseRecord& rec, const PerfCaseInput& in);
// One solver's case of a bench problem (conv and op benches alike): its verdict with the repeats'
// combined timing when it was timed; a verified solver whose timing failed becomes an error (a
// defect of the solver, e.g. a run() that cannot be captured into a graph).
nlohmann::json timed_case_json(CaseRecord rec, PerfCaseInput in, const std::vector<ReplayTiming>& timing,
                               const std::string& timing_error);
// Marks best = true on the passed, timed case with the smallest median among `cases` (one problem's).
void mark_best(nlohmann::json& cases);
// Attaches the peer to each case of one problem: peer, speedup_vs_peer (peer median / case median)
// and peer_disagreement (hiprim's verdict and cuDNN's differ where the bound applies to both).
void attach_peer(nlohmann::json& cases, const nlohmann::json& peer);

// The group of a problem in the totals and the rendered tables. Conv: its dtype, layout and
// direction. Ops: the dtype and layout tokens of the string ("-" when it has none, e.g. a rank-2
// tensorop) and as dir the op with its first token ("bnorm fwd-train", "activ fwd", "tensorop add").
// InputError when the string does not parse.
struct BenchGroup {
  std::string dtype, layout, dir;
  bool op = false;  // not a convolution
};
BenchGroup bench_group(const std::string& problem);

// {total, passed, failed, mistrusted, unsupported, error} from JSON cases.
nlohmann::json summary_from_cases(const nlohmann::json& cases);
// Weighted totals (array): per (dtype, layout, dir) and per (dtype, layout) with dir "all":
// problems, layers (sum of counts), hiprim_ms = sum of count x the best case's median, peer_ms = sum
// of count x the peer's median, hiprim_missing / peer_missing = problems of count > 0 without a time
// (then the total is partial; count 0 weighs nothing), speedup_vs_peer = peer_ms / hiprim_ms when neither is partial, else null,
// bytes = sum of count x bytes, gbps = bytes / hiprim_ms when hiprim's total is complete, else null.
// Per repeat (a case without timing.repeats counts as one repeat of its median): repeats (the most
// any problem has), hiprim_ms_repeats / peer_ms_repeats (entry r: the sum of count x repeat r's
// median, null when a counted problem lacks repeat r), speedup_vs_peer_repeats; host overhead:
// hiprim_host_ms / peer_host_ms = sum of count x host_ms_per_call (null when one is missing).
nlohmann::json performance_totals(const nlohmann::json& cases);

// clocks: ClockLog::report_json() (null when the run did not log clocks).
nlohmann::json performance_report(const nlohmann::json& machine, const nlohmann::json& settings,
                                  const nlohmann::json& ceilings, const nlohmann::json& peer,
                                  const nlohmann::json& cases, const std::string& command,
                                  const nlohmann::json& clocks = nullptr);

// One console line per problem: best solver, its median and TFLOP/s, the host overhead, the peer's,
// the ratio, flags.
std::string bench_problem_line(const nlohmann::json& cases);
// The short line of a later repeat: "repeat r: <problem>: <solver> <ms> | peer <ms>".
std::string bench_repeat_line(const nlohmann::json& cases, int repeat);
// The totals as a fixed-width text table.
std::string totals_text(const nlohmann::json& totals);

}  // namespace hiprim::verify
