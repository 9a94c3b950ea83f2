#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <optional>
#include <thread>

#include "bench/bench_clocks.hpp"
#include "bench/bench_internal.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_timing.hpp"
#include "bench/reference_cache.hpp"
#include "core/error.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "verify/solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/bench_sets.hpp"
#include "bench/event_series.hpp"
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

inline constexpr int kPrepareAhead = 3;  // problems whose references and fills are made ahead

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

Bench::Bench(const BenchOptions& o) {
  check_bench_ready(o);
  s_ = std::make_unique<State>(o);
  std::string names;
  for (auto& s : select_conv_solvers(o.solver_glob)) {
    if (s->backend() == Backend::device) s_->solvers.push_back(s);
    names += (names.empty() ? "" : ", ") + s->name();
  }
  if (s_->solvers.empty())
    throw InputError("--solver '" + o.solver_glob + "' matches no GPU solver (bench times device solvers only; matched: " + names + ")");
#ifdef HIPRIM_WITH_GPU
  s_->l2 = gpu::l2_cache_bytes();
#endif
  if (o.peer != PeerKind::none) s_->peer = open_conv_peer(o.peer, o.cudnn_lib, &s_->peer_reason, o.peer_max_plans);
  s_->clocks = std::make_unique<ClockLog>();
  s_->clocks->sample(0, -1);
}

Bench::~Bench() = default;

json Bench::settings_json() const {
  json j = bench_settings_json(s_->o);
  if (s_->o.verify == VerifyMode::quick) j["sample_channels"] = kSampleChannels;
#ifdef HIPRIM_WITH_GPU
  j["l2_bytes"] = s_->l2;
#endif
  const ReferenceCache::Stats c = s_->cache.stats();
  j["repeats_run"] = s_->repeats_run;
  j["repeat_seconds"] = s_->repeat_seconds;  // repeat 1 includes verification and the peer's autotuning
  j["phase_seconds"] = s_->phases.json();
  j["references"] = json{{"computed", c.computed}, {"shared_hits", c.hits}, {"compute_s", c.compute_s},
                         {"rule", "exact tier: one reference per problem with dtype fp32 and channels first, shared by its "
                                  "dtype x layout variants (bench/reference_cache.hpp)"}};
  return j;
}

json Bench::peer_json() const {
  if (s_->o.peer == PeerKind::none) return nullptr;
  return s_->peer ? s_->peer->describe() : unavailable_peer_json(s_->o.peer, s_->peer_reason);
}

json Bench::ceilings_json() const { return json{{"copy", s_->copy}, {"gemm", s_->gemm}}; }
json Bench::clocks_json() const { return s_->clocks->report_json(); }

// ---- Host-side preparation (a background thread; reads only the options and the cache) ----

struct Bench::Prepared {
  RunOptions ro;                            // the runner's options, hooks included
  std::unique_ptr<PreparedCase> pc;         // the verification's inputs (and reference)
  std::shared_ptr<const ExactJudge> judge;  // full verification in the exact tier
  std::unique_ptr<SampleOracle> oracle;     // quick verification
  std::string error;                        // non-empty: preparing failed
};

namespace {

FillTier verify_tier(const BenchOptions& o, const ConvProblem& p) {
  return o.fill.value_or(exact_fill_range(p) > 0 ? FillTier::exact : FillTier::bounded);
}

bool shares_reference(const BenchOptions& o, const ConvProblem& p) {
  return o.verify == VerifyMode::full && verify_tier(o, p) == FillTier::exact && exact_fill_range(p) > 0;
}

}  // namespace

Bench::Prepared Bench::prepare(const ConvProblem& p) const {
  Prepared out;
  try {
    const BenchOptions& o = s_->o;
    out.ro.seed = o.seed;
    out.ro.fill = verify_tier(o, p);
    if (shares_reference(o, p)) {
      std::shared_ptr<const ref::ConvOutput> ref;
      try {
        ref = s_->cache.get(p);
      } catch (...) {
        s_->cache.release(p);
        throw;
      }
      s_->cache.release(p);
      out.judge = std::make_shared<const ExactJudge>(ref, output_desc(p));
      out.ro.hooks.oracle = [ref](const PreparedCase&) { return *ref; };
      out.ro.hooks.judge_bytes = [judge = out.judge](const std::vector<unsigned char>& got, const Tolerance& tol) {
        return judge->judge_bytes(got, tol);
      };
    }
    out.pc = std::make_unique<PreparedCase>(p, out.ro);
    if (o.verify == VerifyMode::full) (void)conv_expected(*out.pc, false);  // here, not on the device thread
    out.pc->convert_inputs();                                             // likewise the inputs' bytes
    if (o.verify == VerifyMode::quick) out.oracle = std::make_unique<SampleOracle>(*out.pc);
  } catch (const std::exception& e) {
    out.error = std::string("preparing the problem: ") + e.what();
  }
  return out;
}

// ---- The suite ----

json Bench::run(const BenchProblem& bp) { return run_all({bp}); }

json Bench::run_all(const std::vector<BenchProblem>& problems, const std::function<void(const std::string&)>& progress,
                    const std::function<bool()>& stop) {
  const BenchOptions& o = s_->o;
  for (const auto& bp : problems)
    if (shares_reference(o, bp.problem)) s_->cache.expect(bp.problem);
  std::vector<std::unique_ptr<ProblemState>> states;
  std::deque<std::future<Prepared>> ahead;
  std::size_t next = 0;
  auto refill = [&] {
    for (; next < problems.size() && ahead.size() < static_cast<std::size_t>(kPrepareAhead); ++next)
      ahead.push_back(std::async(std::launch::async, [this, p = problems[next].problem] { return prepare(p); }));
  };
  bool stopped = false;
  s_->repeats_run = 0;
  s_->repeat_seconds.clear();
  auto t_rep = std::chrono::steady_clock::now();
  auto lap = [&] {
    const auto now = std::chrono::steady_clock::now();
    s_->repeat_seconds.push_back(std::chrono::duration<double>(now - t_rep).count());
    t_rep = now;
  };
  refill();
  s_->phases.clear();
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Prepared prep = s_->phases.time("prepare_wait", [&] { return ahead.front().get(); });
    ahead.pop_front();
    if (stop && stop()) {
      stopped = true;
      break;
    }
    refill();
    auto st = std::make_unique<ProblemState>();
    st->bp = problems[i];
    run_first(*st, prep);
    s_->clocks->sample(1, static_cast<int>(i));
    if (progress) progress(bench_problem_line(finish(*st)));
    states.push_back(std::move(st));
  }
  for (auto& f : ahead) f.wait();  // prepared but not run (stopped): let them finish before the cache goes
  s_->problems_run = states.size();
  lap();
  if (!stopped) s_->repeats_run = 1;
  for (int rep = 2; rep <= o.repeats && !stopped; ++rep) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      if (stop && stop()) {
        stopped = true;
        break;
      }
      s_->phases.time("timing", [&] { time_repeat(*states[i], rep); });
      s_->clocks->sample(rep, static_cast<int>(i));
      if (progress) progress(bench_repeat_line(finish(*states[i]), rep));
    }
    lap();
    if (!stopped) s_->repeats_run = rep;
  }
  json cases = json::array();
  for (const auto& st : states)
    for (auto& c : finish(*st)) cases.push_back(std::move(c));
  return cases;
}

// ---- One problem ----

namespace {

CaseRecord base_record(const ConvProblem& p, const ConvSolver& s, const RunOptions& ro, FillTier tier) {
  CaseRecord rec;
  rec.problem = to_string(p);
  rec.solver = s.name();
  rec.seed = ro.seed;
  rec.fill = tier;
  rec.tolerance = bench_tolerance_string(tolerance_for(p, tier, s.accumulation_error_factor()));
  rec.repro = repro_command(rec.problem, rec.solver, ro.seed) + " --fill " + std::string(fill_tier_name(tier));
  return rec;
}

}  // namespace

void Bench::run_first(ProblemState& st, Prepared& prep) {
  const BenchOptions& o = s_->o;
  const ConvProblem& p = st.bp.problem;
  const FillTier tier = verify_tier(o, p);
  PerfCaseInput& in = st.in;
  in.verify = o.verify;
  in.count = st.bp.count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.gemm_ceiling_tflops = s_->gemm_tflops.count(p.dtype) ? s_->gemm_tflops[p.dtype] : 0;
  in.copy_ceiling_gbps = s_->copy_gbps;
  in.fill_range = tier == FillTier::exact ? exact_fill_range(p) : 0;
  in.reduction_length = p.reduction_length();
  st.peer_enabled = o.peer != PeerKind::none;
  st.peer.name = std::string(peer_kind_name(o.peer));
  for (const auto& solver : s_->solvers) {
    SolverRun r;
    r.solver = solver.get();
    r.rec = base_record(p, *solver, prep.ro, tier);
    st.solvers.push_back(std::move(r));
  }
#ifdef HIPRIM_WITH_GPU
  void* stream = s_->stream.handle();
  std::optional<VerifyBuffers> vb;
  try {
    if (!prep.error.empty()) throw RuntimeError(prep.error);
    if (o.verify == VerifyMode::quick || (st.peer_enabled && s_->peer)) vb.emplace(*prep.pc);
  } catch (const std::exception& e) {
    for (SolverRun& r : st.solvers) r.rec.verdict = Verdict{Status::error, e.what(), {}};
    st.peer.status = "error";
    st.peer.reason = e.what();
    return;
  }
  for (SolverRun& r : st.solvers) s_->phases.time("verify", [&] {
    const ConvSolver& s = *r.solver;
    try {
      if (auto a = s.applicable(p); !a) {
        r.rec.verdict = Verdict{Status::unsupported, a.reason, {}};
      } else if (o.verify == VerifyMode::full) {
        const std::string tol = r.rec.tolerance;
        r.rec = run_case(*prep.pc, s, prep.ro);
        r.rec.tolerance = tol;  // the same rule, naming the factor that applies
      } else if (o.verify == VerifyMode::quick) {
        gpu::DeviceBuffer ws(s.workspace_bytes(p), s.name() + " workspace");
        vb->poison_output();
        s.run(p, vb->tensors(ws, stream));
        s_->stream.synchronize();
        r.rec.verdict = prep.oracle->check(vb->download_output(), s.accumulation_error_factor());
      } else {
        r.rec.verdict = Verdict{Status::passed, "not verified (--verify none): ran without a runtime error", {}};
      }
    } catch (const std::exception& e) {
      r.rec.verdict = Verdict{Status::error, e.what(), {}};
    }
  });

  // The peer: its candidates, each checked against the same reference and timed; the fastest passed.
  if (st.peer_enabled) {
    PeerResult& pr = st.peer;
    if (!s_->peer) {
      pr.status = "unavailable";
      pr.reason = s_->peer_reason;
    } else if (auto a = s_->peer->supports(p); !a) {
      pr.status = "unsupported";
      pr.reason = a.reason;
    } else {
      try {
        const gpu::DeviceBuffer& ws = s_->peer_workspace();
        st.peer_problem = s_->phases.time("peer_plans", [&] { return s_->peer->prepare(p, vb->peer(ws, stream)); });
        pr.setup_ms = st.peer_problem->setup_ms();
        // fp16/bf16 data runs on tensor cores, whose adders may truncate: factor 2 (verify/compare.cpp).
        pr.algorithm_factor = p.dtype == DType::fp32 ? 1.0 : 2.0;
        const Tolerance tol = tolerance_for(p, tier, pr.algorithm_factor);
        pr.tolerance = bench_tolerance_string(tol);
        const TimingSets sets(p, s_->l2, o.seed);
        PeerProblem& pp = *st.peer_problem;
        // A candidate that misses the exact tier is judged again in the bounded tier (its error
        // bound factor x gamma(L) x sum|terms| per element): cuDNN's Winograd/FFT-like engines are
        // not exact on integer data, yet within the accuracy its users (PyTorch) accept. hiprim's
        // own solvers are held to the exact tier; the peer's pass in the bounded tier says so.
        std::optional<ref::ConvOutput> with_abs_sum;  // the reference with sum|terms|, made on first need
        auto bounded_retry = [&](Verdict exact, const HostTensor& got) {
          if (exact.status != Status::failed || tier != FillTier::exact || o.verify != VerifyMode::full) return exact;
          if (!with_abs_sum) {
            const ref::ConvInputs in = conv_inputs(*prep.pc);
            with_abs_sum = s_->phases.time("peer_bounded_reference", [&] { return ref::conv(p, in, /*with_abs_sum=*/true); });
          }
          Verdict b = compare(got, with_abs_sum->value, with_abs_sum->abs_sum, with_abs_sum->desc,
                              tolerance_for(p, FillTier::bounded, pr.algorithm_factor));
          if (b.status != Status::passed) return exact;
          char err[64];
          std::snprintf(err, sizeof err, "%.3g", b.metrics.max_abs_error);
          b.reason = "not exact (" + exact.reason + "); within the bounded tier: " + b.reason + " (max |error| " + err +
                     "): a peer plan of inexact arithmetic (e.g. Winograd, FFT), as cuDNN's users accept";
          ++st.peer.bounded_passes;
          return b;
        };
        auto check = [&](int i) {
          vb->poison_output();
          pp.run(i, vb->peer(ws, stream));
          s_->stream.synchronize();
          if (prep.judge && o.verify == VerifyMode::full) {
            const std::vector<unsigned char> bytes = vb->download_output_bytes();
            Verdict v = prep.judge->judge_bytes(bytes, tol);
            if (v.status != Status::failed) return v;
            HostTensor got(output_desc(p));
            got.from_bytes(bytes.data());
            return bounded_retry(std::move(v), got);
          }
          const HostTensor got = vb->download_output();
          if (o.verify == VerifyMode::quick) return prep.oracle->check(got, pr.algorithm_factor);
          const ref::ConvOutput& e = conv_expected(*prep.pc, false);
          return compare(got, e.value, e.abs_sum, e.desc, tol);
        };
        auto time_ms = [&](int i) {
          const ReplayTiming t = time_graph([&](int k) { pp.run(i, sets.peer(k, ws, stream)); }, sets.count(),
                                            s_->autotune_timer(), stream, st.peer.name + " plan " + std::to_string(i));
          return median_of(t.per_call_ms);
        };
        const AutotuneRules rules{o.verify != VerifyMode::none, o.peer_transforms};
        const AutotuneResult ar = s_->phases.time("peer_autotune", [&] { return autotune(pp.candidates(), rules, check, time_ms); });
        pr.autotune = autotune_json(ar, rules);
        if (ar.selected < 0) {
          pr.status = "failed";
          pr.reason = ar.reason;
        } else {
          const PlanResult& sel = ar.plans[static_cast<std::size_t>(ar.selected)];
          st.peer_plan = sel.index;
          pr.status = "timed";
          pr.algo = sel.candidate.engine;
          pr.math = sel.candidate.knobs;
          pr.source = sel.candidate.source;
          pr.numerical_notes = sel.candidate.numerical_notes;
          pr.behavior_notes = sel.candidate.behavior_notes;
          pr.workspace_bytes = sel.candidate.workspace_bytes;
          pr.transform = sel.candidate.transform;
          pr.deterministic = sel.candidate.deterministic;
          pr.check = sel.check;
        }
      } catch (const std::exception& e) {
        pr.status = "error";
        pr.reason = e.what();
        st.peer_problem.reset();
      }
    }
  }
#endif
  s_->phases.time("timing", [&] { time_repeat(st, 1); });
  if (st.solvers.empty()) return;
  double best = -1;  // which solvers the later repeats time again
  for (const SolverRun& r : st.solvers)
    if (!r.timing.empty()) {
      const double m = median_of(r.timing.front().per_call_ms);
      best = best < 0 ? m : std::min(best, m);
    }
  for (SolverRun& r : st.solvers)
    r.retime = !r.timing.empty() &&
               (o.retime_factor <= 0 || median_of(r.timing.front().per_call_ms) <= o.retime_factor * best);
}

void Bench::time_repeat(ProblemState& st, int repeat) {
#ifdef HIPRIM_WITH_GPU
  const ConvProblem& p = st.bp.problem;
  void* stream = s_->stream.handle();
  std::vector<SolverRun*> todo;
  for (SolverRun& r : st.solvers)
    if (r.rec.verdict.status == Status::passed && (repeat == 1 || r.retime)) todo.push_back(&r);
  const bool peer = st.peer_problem && st.peer_plan >= 0;
  if (todo.empty() && !peer) return;
  std::optional<TimingSets> sets;
  try {
    sets.emplace(p, s_->l2, s_->o.seed + static_cast<std::uint64_t>(repeat));
  } catch (const std::exception& e) {
    for (SolverRun* r : todo) r->timing_error = "repeat " + std::to_string(repeat) + ": " + e.what();
    if (peer) st.peer_timing_error = "repeat " + std::to_string(repeat) + ": " + e.what();
    return;
  }
  std::vector<gpu::DeviceBuffer> workspaces;
  workspaces.reserve(todo.size());
  std::vector<std::unique_ptr<GraphTimer>> timers;
  std::vector<std::string*> errors;
  std::vector<std::vector<ReplayTiming>*> results;
  const GraphTimerOptions topt = s_->timer();
  for (SolverRun* r : todo) {
    const ConvSolver& s = *r->solver;
    try {
      workspaces.emplace_back(s.workspace_bytes(p), s.name() + " workspace (timing)");
      const gpu::DeviceBuffer& ws = workspaces.back();
      timers.push_back(std::make_unique<GraphTimer>([&](int i) { s.run(p, sets->tensors(i, ws, stream)); }, sets->count(), topt,
                                                    stream, s.name() + "'s run()"));
      errors.push_back(&r->timing_error);
      results.push_back(&r->timing);
    } catch (const std::exception& e) {
      r->timing_error = "repeat " + std::to_string(repeat) + ": " + e.what();
    }
  }
  if (peer) {
    try {
      const gpu::DeviceBuffer& ws = s_->peer_workspace();
      PeerProblem& pp = *st.peer_problem;
      const int plan = st.peer_plan;
      timers.push_back(std::make_unique<GraphTimer>([&](int i) { pp.run(plan, sets->peer(i, ws, stream)); }, sets->count(), topt,
                                                    stream, st.peer.name + " plan " + std::to_string(plan)));
      errors.push_back(&st.peer_timing_error);
      results.push_back(&st.peer_timing);
    } catch (const std::exception& e) {
      st.peer_timing_error = "repeat " + std::to_string(repeat) + ": " + e.what();
    }
  }
  std::vector<GraphTimer*> raw;
  for (auto& t : timers) raw.push_back(t.get());
  try {
    replay_alternating(raw);
    for (std::size_t k = 0; k < timers.size(); ++k) results[k]->push_back(timers[k]->result());
  } catch (const std::exception& e) {
    for (std::string* err : errors) *err = "repeat " + std::to_string(repeat) + ": " + e.what();
  }
#else
  (void)st;
  (void)repeat;
#endif
}

json Bench::finish(const ProblemState& st) const {
  json cases = json::array();
  for (const SolverRun& r : st.solvers) cases.push_back(timed_case_json(r.rec, st.in, r.timing, r.timing_error));
  mark_best(cases);
  if (!st.peer_enabled) return cases;
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
