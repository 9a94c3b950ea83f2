#include "bench/bench_ops.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_clocks.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_timing.hpp"
#include "verify/op_check.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#include "bench/event_series.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

std::int64_t count_poisoned(const std::vector<unsigned char>& bytes, std::size_t elem_size) {
  if (elem_size == 0) throw InputError("count_poisoned: element size 0");
  std::int64_t n = 0;
  for (std::size_t i = 0; i + elem_size <= bytes.size(); i += elem_size)
    n += std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(i), bytes.begin() + static_cast<std::ptrdiff_t>(i + elem_size),
                     [](unsigned char b) { return b == 0xFF; });
  return n;
}

namespace {

constexpr const char* kNoOpPeer = "cuDNN is the peer of convolutions only: no cuDNN call is wired for this op";

#ifdef HIPRIM_WITH_GPU
std::size_t storage_bytes(const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); }

// Rotating copies of one op problem's buffers (one per OpProblem::tensors() entry); set 0 gets the
// prepared inputs and in_out values, the other sets copies of them.
class OpDeviceSets {
 public:
  OpDeviceSets(const PreparedCase& c, std::size_t l2) : ts_(c.tensors()) {
    std::size_t set_bytes = 0;
    for (const OpTensor& t : ts_) set_bytes += storage_bytes(t.desc);
    count_ = rotation_sets(set_bytes, l2);
    bufs_.resize(static_cast<std::size_t>(count_));
    for (int i = 0; i < count_; ++i)
      for (const OpTensor& t : ts_) bufs_[i].emplace_back(storage_bytes(t.desc), t.name + " (set " + std::to_string(i) + ")");
    initial_.resize(ts_.size());
    for (std::size_t k = 0; k < ts_.size(); ++k) {
      if (ts_[k].role == OpTensor::Role::output) continue;
      initial_[k] = c.bytes(k);
      bufs_[0][k].upload(initial_[k].data(), initial_[k].size());
      for (int i = 1; i < count_; ++i)
        gpu::copy_device_to_device_async(bufs_[i][k].data(), bufs_[0][k].data(), initial_[k].size(), nullptr);
      if (ts_[k].role == OpTensor::Role::input) initial_[k].clear();  // only in_out values are needed again
    }
    gpu::synchronize("copying the op benchmark input sets");
    for (const auto& set : bufs_) {
      ptrs_.emplace_back();
      for (const auto& b : set) ptrs_.back().push_back(b.data());
    }
  }
  int count() const { return count_; }
  // The pointers of set i, in tensors() order (built once: the timed loop only launches).
  const std::vector<void*>& buffers(int i) const { return ptrs_[static_cast<std::size_t>(i)]; }
  // Set 0 before the sampled check: in_out tensors back to their initial values, outputs all 0xFF.
  void reset_for_check() {
    for (std::size_t k = 0; k < ts_.size(); ++k) {
      if (ts_[k].role == OpTensor::Role::in_out) bufs_[0][k].upload(initial_[k].data(), initial_[k].size());
      if (ts_[k].role == OpTensor::Role::output) bufs_[0][k].fill_bytes(0xFF);
    }
  }
  // After it: "<tensor>: <count> of <elements>" for each output of set 0 that still holds poison.
  std::vector<std::string> unwritten() const {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < ts_.size(); ++k) {
      if (ts_[k].role != OpTensor::Role::output) continue;
      std::vector<unsigned char> bytes(bufs_[0][k].bytes());
      bufs_[0][k].download(bytes.data(), bytes.size());
      if (const auto n = count_poisoned(bytes, dtype_size(ts_[k].desc.dtype)); n > 0)
        out.push_back(ts_[k].name + ": " + std::to_string(n) + " of " + std::to_string(ts_[k].desc.elements()));
    }
    return out;
  }

 private:
  std::vector<OpTensor> ts_;
  int count_ = 1;
  std::vector<std::vector<gpu::DeviceBuffer>> bufs_;
  std::vector<std::vector<void*>> ptrs_;
  std::vector<std::vector<unsigned char>> initial_;
};
#endif

}  // namespace

struct OpBench::State {
  BenchOptions o;
  OpSolverList solvers;
  double copy_gbps = 0;
  json copy = nullptr;
  std::unique_ptr<ClockLog> clocks;
  int repeats_run = 0;
  std::vector<double> repeat_seconds;
  PhaseSeconds phases;  // where the wall time went
#ifdef HIPRIM_WITH_GPU
  gpu::Stream stream;
  std::size_t l2 = 0;
#endif
};

struct OpBench::Prepared {
  std::unique_ptr<PreparedCase> full;    // the problem's inputs (and, repeat 1 with verify full, its reference)
  std::unique_ptr<PreparedCase> sample;  // verify quick: the problem at kOpSampleBatch, reference computed
  std::string error;                       // non-empty: preparing failed
};

struct OpSolverRun {
  const OpSolver* solver = nullptr;
  CaseRecord rec;
  std::vector<ReplayTiming> timing;
  std::string timing_error;
};

struct OpBench::ProblemState {
  SuiteProblem bp;
  PerfCaseInput in;
  std::vector<OpSolverRun> solvers;
};

OpBench::OpBench(const BenchOptions& o, const std::vector<std::string>& ops) {
  check_bench_ready(o);
  s_ = std::make_unique<State>();
  s_->o = o;
  std::string matched, wanted;
  for (const auto& op : ops) wanted += (wanted.empty() ? "" : ", ") + op;
  for (const auto& s : match_op_solvers(o.solver_glob)) {
    matched += (matched.empty() ? "" : ", ") + s->name();
    if (s->backend() == Backend::device && std::find(ops.begin(), ops.end(), s->op()) != ops.end()) s_->solvers.push_back(s);
  }
  if (s_->solvers.empty())
    throw InputError("--solver '" + o.solver_glob + "' matches no GPU solver of " + wanted +
                     " (bench times device solvers only; matched: " + (matched.empty() ? "none" : matched) + ")");
#ifdef HIPRIM_WITH_GPU
  s_->l2 = gpu::l2_cache_bytes();
#endif
  s_->clocks = std::make_unique<ClockLog>();
  s_->clocks->sample(0, -1);
}

OpBench::~OpBench() = default;

json OpBench::settings_json() const {
  json j = bench_settings_json(s_->o);
  j["bytes"] = "OpProblem::bytes(): every input read once, every output written once, in_out tensors read and written";
  j["fill"] = "each op's own fill (verify/op_fill.hpp; --fill applies to conv only), for verification and timing";
  j["timing_fill"] = "separate copies of the op's own fill";
  j["op_verify"] = "full: the op runner on the whole problem at the timed size; quick (not for claims): the op runner at "
                   "batch sample_batch, and at full size every output element written (none left holding the all-ones "
                   "poison); none: not checked";
  if (s_->o.verify == VerifyMode::quick) j["sample_batch"] = kOpSampleBatch;
  j["repeats_run"] = s_->repeats_run;
  j["repeat_seconds"] = s_->repeat_seconds;
  j["phase_seconds"] = s_->phases.json();
#ifdef HIPRIM_WITH_GPU
  j["l2_bytes"] = s_->l2;
#endif
  return j;
}

json OpBench::peer_json() const {
  if (s_->o.peer == PeerKind::none) return nullptr;
  return unavailable_peer_json(s_->o.peer, kNoOpPeer);
}

json OpBench::ceilings_json() const { return json{{"copy", s_->copy}, {"gemm", json::object()}}; }
json OpBench::clocks_json() const { return s_->clocks->report_json(); }

void OpBench::measure_ceilings(const std::vector<DType>&) {
#ifdef HIPRIM_WITH_GPU
  if (s_->o.ceilings && s_->copy.is_null()) s_->copy = measure_copy_ceiling(s_->stream.handle(), &s_->copy_gbps);
#endif
}

OpBench::Prepared OpBench::prepare(const OpProblemPtr& p) const {
  Prepared out;
  try {
    RunOptions ro;
    ro.seed = s_->o.seed;
    out.full = std::make_unique<PreparedCase>(p, ro);
    out.full->convert_inputs();  // the inputs' bytes, on the preparing thread
    if (s_->o.verify == VerifyMode::full) (void)op_expected_of(*out.full);
    if (s_->o.verify == VerifyMode::quick) {
      out.sample = std::make_unique<PreparedCase>(op_problem_at_batch(*p, kOpSampleBatch), ro);
      (void)op_expected_of(*out.sample);
    }
  } catch (const std::exception& e) {
    out.error = std::string("preparing the problem: ") + e.what();
  }
  return out;
}

json OpBench::run(const SuiteProblem& bp) { return run_all({bp}); }

json OpBench::run_all(const std::vector<SuiteProblem>& problems, const std::function<void(const std::string&)>& progress,
                      const std::function<bool()>& stop) {
  std::vector<std::unique_ptr<ProblemState>> states;
  const std::size_t depth = static_cast<std::size_t>(
      std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 2, 1, kOpPrepareAhead));
  bool stopped = false;
  s_->repeats_run = 0;
  s_->repeat_seconds.clear();
  s_->phases.clear();
  // Repeat 1 prepares every problem (inputs and references); later repeats refill the inputs only
  // (the timed buffers are copies of them), also ahead.
  for (int rep = 1; rep <= s_->o.repeats && !stopped; ++rep) {
    const auto t_rep = std::chrono::steady_clock::now();
    const std::size_t n = rep == 1 ? problems.size() : states.size();
    std::deque<std::future<Prepared>> ahead;
    std::size_t next = 0;
    auto refill = [&] {
      for (; next < n && ahead.size() < depth; ++next)
        ahead.push_back(std::async(std::launch::async, [this, rep, p = problems[next].problem] {
          if (rep == 1) return prepare(p);
          Prepared out;
          try {
            RunOptions ro;
            ro.seed = s_->o.seed;
            out.full = std::make_unique<PreparedCase>(p, ro);
            out.full->convert_inputs();  // the inputs' bytes, on the preparing thread
          } catch (const std::exception& e) {
            out.error = std::string("preparing the problem: ") + e.what();
          }
          return out;
        }));
    };
    refill();
    for (std::size_t i = 0; i < n; ++i) {
      Prepared prep = s_->phases.time("prepare_wait", [&] { return ahead.front().get(); });
      ahead.pop_front();
      if (stop && stop()) {
        stopped = true;
        break;  // the futures still in flight finish in their destructors
      }
      refill();
      if (rep == 1) {
        auto st = std::make_unique<ProblemState>();
        st->bp = problems[i];
        run_first(*st, prep);
        states.push_back(std::move(st));
      } else {
        s_->phases.time("timing", [&] { time_repeat(*states[i], rep, prep); });
      }
      s_->clocks->sample(rep, static_cast<int>(i));
      if (progress) progress(rep == 1 ? bench_problem_line(finish(*states[i])) : bench_repeat_line(finish(*states[i]), rep));
    }
    s_->repeat_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t_rep).count());
    if (!stopped) s_->repeats_run = rep;
  }
  json cases = json::array();
  for (const auto& st : states)
    for (auto& c : finish(*st)) cases.push_back(std::move(c));
  return cases;
}

void OpBench::run_first(ProblemState& st, Prepared& prep) {
  const BenchOptions& o = s_->o;
  const OpProblem& p = *st.bp.problem;
  PerfCaseInput& in = st.in;
  in.verify = o.verify;
  in.count = st.bp.count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.copy_ceiling_gbps = s_->copy_gbps;
  for (const auto& solver : s_->solvers) {
    if (solver->op() != p.op()) continue;
    OpSolverRun r;
    r.solver = solver.get();
    r.rec.problem = p.str();
    r.rec.solver = solver->name();
    r.rec.seed = o.seed;
    r.rec.fill = FillTier::bounded;
    r.rec.tolerance = "per-element bounds of the op's reference";
    r.rec.repro = repro_command(r.rec.problem, r.rec.solver, o.seed);
    st.solvers.push_back(std::move(r));
  }
#ifdef HIPRIM_WITH_GPU
  std::optional<OpDeviceSets> sets;
  try {
    if (!prep.error.empty()) throw RuntimeError(prep.error);
    if (o.verify == VerifyMode::quick) sets.emplace(*prep.full, s_->l2);
  } catch (const std::exception& e) {
    for (OpSolverRun& r : st.solvers) r.rec.verdict = Verdict{Status::error, e.what(), {}};
    return;
  }
  void* stream = s_->stream.handle();
  RunOptions ro;
  ro.seed = o.seed;
  for (OpSolverRun& r : st.solvers) s_->phases.time("verify", [&] {
    const OpSolver& s = *r.solver;
    try {
      if (auto a = s.applicable(p); !a) {
        r.rec.verdict = Verdict{Status::unsupported, a.reason, {}};
      } else if (o.verify == VerifyMode::full) {
        r.rec = run_case(*prep.full, s, ro);
      } else if (o.verify == VerifyMode::quick) {
        const CaseRecord small = run_case(*prep.sample, s, ro);
        r.rec.verdict = small.verdict;
        r.rec.tolerance = small.tolerance;
        r.rec.deterministic = small.deterministic;
        std::string written = "not run (the small problem failed)";
        if (small.verdict.status == Status::passed) {
          gpu::DeviceBuffer ws(s.workspace_bytes(p), s.name() + " workspace");
          sets->reset_for_check();
          s.run(p, sets->buffers(0), ws.data(), ws.bytes(), stream);
          s_->stream.synchronize();
          std::string bad;
          for (const auto& u : sets->unwritten()) bad += (bad.empty() ? "" : "; ") + u;
          written = bad.empty() ? "every output element written" : "unwritten elements (still all-ones poison): " + bad;
          if (!bad.empty()) r.rec.verdict.status = Status::failed;
        }
        r.rec.verdict.reason = "quick check, not for claims (op runner at " + small.problem + "; at full size " + written +
                               "): " + small.verdict.reason;
        r.rec.problem = p.str();
        r.rec.repro = repro_command(r.rec.problem, s.name(), o.seed);
      } else {
        r.rec.verdict = Verdict{Status::passed, "not verified (--verify none): ran without a runtime error", {}};
      }
    } catch (const std::exception& e) {
      r.rec.verdict = Verdict{Status::error, e.what(), {}};
    }
  });
  sets.reset();
  s_->phases.time("timing", [&] { time_repeat(st, 1, prep); });
#else
  (void)prep;
#endif
}

void OpBench::time_repeat(ProblemState& st, int repeat, const Prepared& inputs) {
#ifdef HIPRIM_WITH_GPU
  const OpProblem& p = *st.bp.problem;
  void* stream = s_->stream.handle();
  std::vector<OpSolverRun*> todo;
  for (OpSolverRun& r : st.solvers)
    if (r.rec.verdict.status == Status::passed) todo.push_back(&r);
  if (todo.empty()) return;
  const std::string rep = "repeat " + std::to_string(repeat) + ": ";
  std::optional<OpDeviceSets> sets;
  try {
    if (!inputs.full) throw RuntimeError(inputs.error);
    sets.emplace(*inputs.full, s_->l2);
  } catch (const std::exception& e) {
    for (OpSolverRun* r : todo) r->timing_error = rep + e.what();
    return;
  }
  GraphTimerOptions topt;
  topt.graph = GraphTimingOptions{s_->o.reps, s_->o.replays, s_->o.host_calls, s_->o.budget_ms};
  topt.warmup = s_->o.warmup;
  std::vector<gpu::DeviceBuffer> workspaces;
  workspaces.reserve(todo.size());
  std::vector<std::unique_ptr<GraphTimer>> timers;
  std::vector<OpSolverRun*> timed;
  for (OpSolverRun* r : todo) {
    const OpSolver& s = *r->solver;
    try {
      workspaces.emplace_back(s.workspace_bytes(p), s.name() + " workspace (timing)");
      const gpu::DeviceBuffer& ws = workspaces.back();
      timers.push_back(std::make_unique<GraphTimer>(
          [&](int i) { s.run(p, sets->buffers(i), ws.data(), ws.bytes(), stream); }, sets->count(), topt, stream,
          s.name() + "'s run()"));
      timed.push_back(r);
    } catch (const std::exception& e) {
      r->timing_error = rep + e.what();
    }
  }
  std::vector<GraphTimer*> raw;
  for (auto& t : timers) raw.push_back(t.get());
  try {
    replay_alternating(raw);
    for (std::size_t k = 0; k < timers.size(); ++k) timed[k]->timing.push_back(timers[k]->result());
  } catch (const std::exception& e) {
    for (OpSolverRun* r : timed) r->timing_error = rep + e.what();
  }
#else
  (void)st;
  (void)repeat;
  (void)inputs;
#endif
}

json OpBench::finish(const ProblemState& st) const {
  json cases = json::array();
  for (const OpSolverRun& r : st.solvers) cases.push_back(timed_case_json(r.rec, st.in, r.timing, r.timing_error));
  mark_best(cases);
  if (s_->o.peer != PeerKind::none) {
    PeerResult peer;
    peer.name = std::string(peer_kind_name(s_->o.peer));
    peer.status = "unavailable";
    peer.reason = kNoOpPeer;
    attach_peer(cases, peer_result_json(peer, st.in.flops, st.in.bytes));
  }
  return cases;
}

}  // namespace hiprim::verify
