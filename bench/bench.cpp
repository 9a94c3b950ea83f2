#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <optional>

#include "bench/bench_clocks.hpp"
#include "bench/bench_primitive.hpp"
#include "bench/bench_report.hpp"
#include "core/error.hpp"
#include "verify/runner.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/event_series.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

void check_bench_ready(const BenchOptions& o) {
  auto at_least = [](int v, int lo, const char* flag) {
    if (v < lo) throw InputError(std::string(flag) + " " + std::to_string(v) + ": must be >= " + std::to_string(lo));
  };
  at_least(o.warmup, 0, "--warmup");
  at_least(o.reps, 1, "--reps");
  at_least(o.replays, 1, "--replays");
  at_least(o.repeats, 1, "--repeats");
  at_least(o.host_calls, 1, "--host-calls");
  at_least(o.peer_max_plans, 1, "--peer-max-plans");
  if (!(o.budget_ms > 0)) throw InputError("--budget-ms: must be > 0");
  if (!(o.retime_factor >= 0)) throw InputError("--retime-factor: must be >= 0 (0: re-time every passed solver)");
#ifndef HIPRIM_WITH_GPU
  throw RuntimeError("hiprim bench needs a GPU: this build has no GPU backend (configure with -DHIPRIM_GPU=cuda)");
#else
  std::string why;
  if (!gpu::device_available(&why)) throw RuntimeError("hiprim bench needs a GPU: " + why);
#endif
}

json bench_settings_json(const BenchOptions& o) {
  return json{{"warmup", o.warmup}, {"reps", o.reps}, {"replays", o.replays}, {"repeats", o.repeats}, {"host_calls", o.host_calls},
              {"min_reps", kMinReps}, {"min_replays", kMinReplays}, {"budget_ms", o.budget_ms},
              {"verify", verify_mode_name(o.verify)},
              {"fill", o.fill ? std::string(fill_tier_name(*o.fill)) + " (verification)"
                              : std::string("exact where the dot products allow it (r and L per case), else bounded (verification)")},
              {"timing_fill", "bounded reals in [-1, 1) of the dtype, separate buffers from the verification's"},
              {"seed", o.seed}, {"solver_glob", o.solver_glob}, {"peer", peer_kind_name(o.peer)},
              {"peer_transforms", o.peer_transforms}, {"peer_max_plans", o.peer_max_plans}, {"retime_factor", o.retime_factor},
              {"timing", "graph replay: reps runs (rounded up to whole rotations of the sets) captured into one graph, one "
                         "untimed replay, then replays timed replays between device events; per call = replay / runs; a "
                         "repeat's figure is the median of its replays, the case's the median of its repeats' figures; "
                         "fewer runs (>= min_reps) and replays (>= min_replays) when they would exceed budget_ms"},
              {"host_overhead", "wall time of host_calls back-to-back eager enqueues / host_calls"},
              {"alternation", "per problem, the timed replays of every solver and the peer's selected plan alternate"},
              {"repeats_rule", "repeat 1 verifies, autotunes the peer and times; later repeats re-time on fresh buffers the "
                               "peer's plan and the passed solvers within retime_factor of repeat 1's best (0: all)"},
              {"rotation", "inputs and output rotate over sets = ceil(3 x L2 / bytes of one set) copies (<= 64)"},
              {"bytes", "least traffic: every input read once, the output written once"},
              {"peer_accuracy", "a peer plan passes in the exact tier, or else (exact fills) in the bounded tier: factor x "
                                "gamma(L) x sum|terms| per element (inexact algorithms such as Winograd or FFT, which "
                                "cuDNN's users accept); its check says which. hiprim's solvers: the exact tier only"}};
}

struct Bench::State {
  explicit State(const BenchOptions& o) : cx(o) {}
  BenchContext cx;
  std::unique_ptr<BenchPrimitive> prim;
  nlohmann::json copy = nullptr;
  std::unique_ptr<ClockLog> clocks;
  int repeats_run = 0;
  std::vector<double> repeat_seconds;  // wall time of each repeat of the last run_all
};

// One solver of a problem across the repeats.
struct SolverRun {
  const OpSolver* solver = nullptr;
  CaseRecord rec;
  std::vector<ReplayTiming> timing;  // one per repeat that timed it
  std::string timing_error;
  bool retime = true;
};

struct Bench::ProblemState {
  SuiteProblem sp;
  PerfCaseInput in;
  std::vector<SolverRun> solvers;
  std::unique_ptr<BenchCase> c;  // null when it could not be made
  PeerResult peer;               // without timing; the timing is combined at the end
  std::vector<ReplayTiming> peer_timing;
  std::string peer_timing_error;
};

Bench::Bench(const BenchOptions& o, const std::vector<std::string>& ops) {
  check_bench_ready(o);
  s_ = std::make_unique<State>(o);
  const bool conv = std::find(ops.begin(), ops.end(), std::string(ConvProblem::kOp)) != ops.end();
  if (conv && ops.size() > 1) throw InputError("the bench times conv problems or the other primitives', not both in one run");
  s_->prim = conv ? make_conv_bench(s_->cx) : make_op_bench(s_->cx, ops);
#ifdef HIPRIM_WITH_GPU
  s_->cx.l2 = gpu::l2_cache_bytes();
#endif
  s_->clocks = std::make_unique<ClockLog>();
  s_->clocks->sample(0, -1);
}

Bench::~Bench() = default;

json Bench::settings_json() const {
  json j = bench_settings_json(s_->cx.o);
  s_->prim->add_settings(j);
#ifdef HIPRIM_WITH_GPU
  j["l2_bytes"] = s_->cx.l2;
#endif
  j["repeats_run"] = s_->repeats_run;
  j["repeat_seconds"] = s_->repeat_seconds;  // repeat 1 includes verification and the peer's autotuning
  j["phase_seconds"] = s_->cx.phases.json();
  return j;
}

json Bench::peer_json() const { return s_->prim->peer_json(); }
json Bench::ceilings_json() const { return json{{"copy", s_->copy}, {"gemm", s_->prim->gemm_ceilings_json()}}; }
json Bench::clocks_json() const { return s_->clocks->report_json(); }

void Bench::measure_ceilings(const std::vector<DType>& dtypes) {
  if (!s_->cx.o.ceilings) return;
#ifdef HIPRIM_WITH_GPU
  if (s_->copy.is_null()) s_->copy = measure_copy_ceiling(s_->cx.stream.handle(), &s_->cx.copy_gbps);
#endif
  s_->prim->measure_ceilings(dtypes);
}

// ---- The suite ----

json Bench::run(const SuiteProblem& sp) { return run_all({sp}); }

json Bench::run_all(const std::vector<SuiteProblem>& problems, const std::function<void(const std::string&)>& progress,
                    const std::function<bool()>& stop) {
  const BenchPrimitive& prim = *s_->prim;
  s_->prim->expect(problems);
  std::vector<std::unique_ptr<ProblemState>> states;
  bool stopped = false;
  s_->repeats_run = 0;
  s_->repeat_seconds.clear();
  s_->cx.phases.clear();
  // Repeat 1 prepares every problem ahead on other threads (inputs, references); later repeats
  // prepare the inputs again when the primitive times on copies of them, else nothing.
  for (int rep = 1; rep <= s_->cx.o.repeats && !stopped; ++rep) {
    const auto t_rep = std::chrono::steady_clock::now();
    const std::size_t n = rep == 1 ? problems.size() : states.size();
    const bool prepares = rep == 1 || prim.prepares_every_repeat();
    std::deque<std::future<std::unique_ptr<BenchInputs>>> ahead;
    std::size_t next = 0;
    auto refill = [&] {
      for (; prepares && next < n && ahead.size() < prim.prepare_ahead(); ++next)
        ahead.push_back(std::async(std::launch::async, [&prim, rep, p = problems[next].problem] { return prim.prepare(p, rep); }));
    };
    refill();
    for (std::size_t i = 0; i < n; ++i) {
      std::unique_ptr<BenchInputs> inputs;
      if (prepares) {
        inputs = s_->cx.phases.time("prepare_wait", [&] { return ahead.front().get(); });
        ahead.pop_front();
      }
      if (stop && stop()) {
        stopped = true;
        break;
      }
      refill();
      if (rep == 1) {
        auto st = std::make_unique<ProblemState>();
        st->sp = problems[i];
        run_first(*st, *inputs);
        states.push_back(std::move(st));
      } else {
        s_->cx.phases.time("timing", [&] { time_repeat(*states[i], rep, inputs.get()); });
      }
      s_->clocks->sample(rep, static_cast<int>(i));
      if (progress) progress(rep == 1 ? bench_problem_line(finish(*states[i])) : bench_repeat_line(finish(*states[i]), rep));
    }
    for (auto& f : ahead) f.wait();  // prepared but not run (stopped): let them finish before the state goes
    s_->repeat_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t_rep).count());
    if (!stopped) s_->repeats_run = rep;
  }
  json cases = json::array();
  for (const auto& st : states)
    for (auto& c : finish(*st)) cases.push_back(std::move(c));
  return cases;
}

// ---- One problem ----

void Bench::run_first(ProblemState& st, BenchInputs& inputs) {
  const BenchOptions& o = s_->cx.o;
  const OpProblem& p = *st.sp.problem;
  PerfCaseInput& in = st.in;
  in.verify = o.verify;
  in.count = st.sp.count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.copy_ceiling_gbps = s_->cx.copy_gbps;
  s_->prim->describe(p, in);
  for (const auto& solver : s_->prim->solvers()) {
    if (solver->op() != p.op()) continue;
    SolverRun r;
    r.solver = solver.get();
    r.rec = s_->prim->base_record(p, *solver);
    st.solvers.push_back(std::move(r));
  }
#ifdef HIPRIM_WITH_GPU
  try {
    if (!inputs.error.empty()) throw RuntimeError(inputs.error);
    st.c = s_->prim->start(st.sp.problem, inputs);
  } catch (const std::exception& e) {
    for (SolverRun& r : st.solvers) r.rec.verdict = Verdict{Status::error, e.what(), {}};
    st.peer = s_->prim->peer_without_case(e.what());
    return;
  }
  for (SolverRun& r : st.solvers) s_->cx.phases.time("verify", [&] {
    const OpSolver& s = *r.solver;
    try {
      if (auto a = s.applicable(p); !a)
        r.rec.verdict = Verdict{Status::unsupported, a.reason, {}};
      else if (o.verify == VerifyMode::none)
        r.rec.verdict = Verdict{Status::passed, "not verified (--verify none): ran without a runtime error", {}};
      else
        st.c->verify(s, r.rec);
    } catch (const std::exception& e) {
      r.rec.verdict = Verdict{Status::error, e.what(), {}};
    }
  });
  st.c->verified();
  st.peer = st.c->peer();
#else
  (void)inputs;
#endif
  s_->cx.phases.time("timing", [&] { time_repeat(st, 1, &inputs); });
  double best = -1;  // which solvers the later repeats time again
  for (const SolverRun& r : st.solvers)
    if (!r.timing.empty()) {
      const double m = median_of(r.timing.front().per_call_ms);
      best = best < 0 ? m : std::min(best, m);
    }
  if (s_->prim->retimes_by_factor())
    for (SolverRun& r : st.solvers)
      r.retime = !r.timing.empty() &&
                 (o.retime_factor <= 0 || median_of(r.timing.front().per_call_ms) <= o.retime_factor * best);
}

void Bench::time_repeat(ProblemState& st, int repeat, const BenchInputs* inputs) {
#ifdef HIPRIM_WITH_GPU
  if (!st.c) return;
  const OpProblem& p = *st.sp.problem;
  std::vector<SolverRun*> todo;
  for (SolverRun& r : st.solvers)
    if (r.rec.verdict.status == Status::passed && (repeat == 1 || r.retime)) todo.push_back(&r);
  const bool peer = st.c->times_peer();
  if (todo.empty() && !peer) return;
  const std::string rep = "repeat " + std::to_string(repeat) + ": ";
  int sets = 0;
  try {
    if (inputs && !inputs->error.empty()) throw RuntimeError(inputs->error);
    sets = st.c->make_sets(repeat, inputs);
  } catch (const std::exception& e) {
    for (SolverRun* r : todo) r->timing_error = rep + e.what();
    if (peer) st.peer_timing_error = rep + e.what();
    return;
  }
  void* stream = s_->cx.stream.handle();
  std::vector<gpu::DeviceBuffer> workspaces;
  workspaces.reserve(todo.size());
  std::vector<std::unique_ptr<GraphTimer>> timers;
  std::vector<std::string*> errors;
  std::vector<std::vector<ReplayTiming>*> results;
  const GraphTimerOptions topt = s_->cx.timer();
  for (SolverRun* r : todo) {
    const OpSolver& s = *r->solver;
    try {
      workspaces.emplace_back(s.workspace_bytes(p), s.name() + " workspace (timing)");
      timers.push_back(std::make_unique<GraphTimer>(st.c->timed_run(s, workspaces.back()), sets, topt, stream, s.name() + "'s run()"));
      errors.push_back(&r->timing_error);
      results.push_back(&r->timing);
    } catch (const std::exception& e) {
      r->timing_error = rep + e.what();
    }
  }
  if (peer) {
    try {
      std::string what;
      std::function<void(int)> run = st.c->timed_peer(&what);
      timers.push_back(std::make_unique<GraphTimer>(std::move(run), sets, topt, stream, what));
      errors.push_back(&st.peer_timing_error);
      results.push_back(&st.peer_timing);
    } catch (const std::exception& e) {
      st.peer_timing_error = rep + e.what();
    }
  }
  std::vector<GraphTimer*> raw;
  for (auto& t : timers) raw.push_back(t.get());
  try {
    replay_alternating(raw);
    for (std::size_t k = 0; k < timers.size(); ++k) results[k]->push_back(timers[k]->result());
  } catch (const std::exception& e) {
    for (std::string* err : errors) *err = rep + e.what();
  }
  timers.clear();
  st.c->drop_sets();
#else
  (void)st;
  (void)repeat;
  (void)inputs;
#endif
}

json Bench::finish(const ProblemState& st) const {
  json cases = json::array();
  for (const SolverRun& r : st.solvers) cases.push_back(timed_case_json(r.rec, st.in, r.timing, r.timing_error));
  mark_best(cases);
  if (s_->cx.o.peer == PeerKind::none) return cases;
  PeerResult peer = st.peer;
  if (!st.peer_timing.empty()) {
    peer.timing = combine_repeats(st.peer_timing);
  } else if (peer.status == "timed") {
    peer.status = "error";
    peer.reason = "its selected plan could not be timed: " + st.peer_timing_error;
  }
  attach_peer(cases, peer_result_json(peer, st.in.flops, st.in.bytes));
  return cases;
}

}  // namespace hiprim::verify
