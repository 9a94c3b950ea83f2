#include "bench/bench_ops.hpp"

#include <algorithm>
#include <deque>
#include <future>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_timing.hpp"
#include "verify/op_runner.hpp"
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
  OpDeviceSets(const PreparedOpCase& c, std::size_t l2) : ts_(c.tensors()) {
    std::size_t set_bytes = 0;
    for (const OpTensor& t : ts_) set_bytes += storage_bytes(t.desc);
    count_ = rotation_sets(set_bytes, l2);
    bufs_.resize(static_cast<std::size_t>(count_));
    for (int i = 0; i < count_; ++i)
      for (const OpTensor& t : ts_) bufs_[i].emplace_back(storage_bytes(t.desc), t.name + " (set " + std::to_string(i) + ")");
    initial_.resize(ts_.size());
    for (std::size_t k = 0; k < ts_.size(); ++k) {
      if (ts_[k].role == OpTensor::Role::output) continue;
      initial_[k] = c.data()[k].to_bytes();
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
#ifdef HIPRIM_WITH_GPU
  gpu::Stream stream;
  std::size_t l2 = 0;
#endif
};

struct OpBench::Prepared {
  std::unique_ptr<PreparedOpCase> full;    // the problem's inputs (and, verify full, its reference)
  std::unique_ptr<PreparedOpCase> sample;  // verify sampled: the problem at kOpSampleBatch, reference computed
  std::string error;                       // non-empty: preparing failed
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
}

OpBench::~OpBench() = default;

json OpBench::settings_json() const {
  json j = bench_settings_json(s_->o);
  j["bytes"] = "OpProblem::bytes(): every input read once, every output written once, in_out tensors read and written";
  j["fill"] = "each op's own fill (verify/op_fill.hpp; --fill applies to conv only)";
  j["op_verify"] = "full: the op runner on the whole problem; sampled: the op runner at batch sample_batch, and at full size "
                   "every output element written (none left holding the all-ones poison); none: not checked";
  if (s_->o.verify == VerifyMode::sampled) j["sample_batch"] = kOpSampleBatch;
#ifdef HIPRIM_WITH_GPU
  j["l2_bytes"] = s_->l2;
#endif
  return j;
}

json OpBench::peer_json() const {
  if (!s_->o.peer_cudnn) return nullptr;
  return json{{"name", "cudnn"}, {"available", false}, {"library", ""}, {"version", 0}, {"reason", kNoOpPeer}};
}

json OpBench::ceilings_json() const { return json{{"copy", s_->copy}, {"gemm", json::object()}}; }

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
    out.full = std::make_unique<PreparedOpCase>(p, ro);
    if (s_->o.verify == VerifyMode::full) (void)out.full->expected();
    if (s_->o.verify == VerifyMode::sampled) {
      out.sample = std::make_unique<PreparedOpCase>(op_problem_at_batch(*p, kOpSampleBatch), ro);
      (void)out.sample->expected();
    }
  } catch (const std::exception& e) {
    out.error = std::string("preparing the problem: ") + e.what();
  }
  return out;
}

json OpBench::run(const OpBenchProblem& bp) {
  Prepared prep = prepare(bp.problem);
  return run_prepared(bp, prep);
}

void OpBench::run_all(const std::vector<OpBenchProblem>& problems, const std::function<void(const json&)>& on_problem,
                      const std::function<bool()>& stop) {
  std::deque<std::future<Prepared>> ahead;
  std::size_t next = 0;
  const std::size_t depth = static_cast<std::size_t>(
      std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 2, 1, kOpPrepareAhead));
  auto refill = [&] {
    for (; next < problems.size() && ahead.size() < depth; ++next)
      ahead.push_back(std::async(std::launch::async, [this, p = problems[next].problem] { return prepare(p); }));
  };
  refill();
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Prepared prep = ahead.front().get();
    ahead.pop_front();
    if (stop && stop()) return;  // the futures still in flight finish in their destructors
    refill();
    on_problem(run_prepared(problems[i], prep));
  }
}

json OpBench::run_prepared(const OpBenchProblem& bp, Prepared& prep) {
  json cases = json::array();
  const BenchOptions& o = s_->o;
  const OpProblem& p = *bp.problem;
  PerfCaseInput in;
  in.verify = o.verify;
  in.count = bp.count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.copy_ceiling_gbps = s_->copy_gbps;
  auto base_record = [&](const std::string& solver) {
    CaseRecord rec;
    rec.problem = p.str();
    rec.solver = solver;
    rec.seed = o.seed;
    rec.fill = FillTier::bounded;
    rec.tolerance = "per-element bounds of the op's reference";
    rec.repro = repro_command(rec.problem, solver, o.seed);
    return rec;
  };
  auto add_case = [&](const CaseRecord& rec, const std::optional<TimingStats>& t) {
    PerfCaseInput c = in;
    c.timing = t;
    cases.push_back(perf_case_json(rec, c));
  };
#ifdef HIPRIM_WITH_GPU
  std::optional<OpDeviceSets> sets;
  try {  // device buffers; a failure here, or in preparing, becomes an error case per solver
    if (!prep.error.empty()) throw RuntimeError(prep.error);
    sets.emplace(*prep.full, s_->l2);
  } catch (const std::exception& e) {
    for (const auto& solver : s_->solvers)
      if (solver->op() == p.op()) {
        CaseRecord rec = base_record(solver->name());
        rec.verdict = Verdict{Status::error, e.what(), {}};
        add_case(rec, std::nullopt);
      }
    sets.reset();
  }
  void* st = s_->stream.handle();
  RunOptions ro;
  ro.seed = o.seed;
  for (const auto& solver : s_->solvers) {
    if (!sets || solver->op() != p.op()) continue;
    const OpSolver& s = *solver;
    CaseRecord rec = base_record(s.name());
    std::optional<TimingStats> timing;
    try {
      if (auto a = s.applicable(p); !a) {
        rec.verdict = Verdict{Status::unsupported, a.reason, {}};
      } else {
        gpu::DeviceBuffer ws(s.workspace_bytes(p), s.name() + " workspace");
        auto run_on = [&](int set) { s.run(p, sets->buffers(set), ws.data(), ws.bytes(), st); };
        if (o.verify == VerifyMode::full) {
          rec = run_op_case(*prep.full, s, ro);
        } else if (o.verify == VerifyMode::sampled) {
          const CaseRecord small = run_op_case(*prep.sample, s, ro);
          rec.verdict = small.verdict;
          rec.tolerance = small.tolerance;
          rec.deterministic = small.deterministic;
          std::string written = "not run (the sample failed)";
          if (small.verdict.status == Status::passed) {
            sets->reset_for_check();
            run_on(0);
            s_->stream.synchronize();
            std::string bad;
            for (const auto& u : sets->unwritten()) bad += (bad.empty() ? "" : "; ") + u;
            written = bad.empty() ? "every output element written" : "unwritten elements (still all-ones poison): " + bad;
            if (!bad.empty()) rec.verdict.status = Status::failed;
          }
          rec.verdict.reason = "sampled (op runner at " + small.problem + "; at full size " + written + "): " + small.verdict.reason;
        } else {
          rec.verdict = Verdict{Status::passed, "not verified (--verify none): ran without a runtime error", {}};
        }
        rec.problem = p.str();
        rec.repro = repro_command(rec.problem, s.name(), o.seed);
        if (rec.verdict.status == Status::passed)
          timing = time_on_device(run_on, sets->count(), o.warmup, o.reps, o.budget_ms, st);
      }
    } catch (const std::exception& e) {
      rec.verdict = Verdict{Status::error, e.what(), {}};
      timing.reset();
    }
    add_case(rec, timing);
  }
  mark_best(cases);
  if (o.peer_cudnn) {
    PeerResult peer;
    peer.status = "unavailable";
    peer.reason = kNoOpPeer;
    attach_peer(cases, peer_result_json(peer, in.flops, in.bytes));
  }
#else
  (void)prep;
  (void)base_record;
  (void)add_case;
#endif
  return cases;
}

}  // namespace hiprim::verify
