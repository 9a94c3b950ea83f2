#include "bench/bench_ops.hpp"

#include <algorithm>
#include <optional>
#include <thread>

#include "bench/bench_ops_select.hpp"
#include "bench/bench_peer.hpp"
#include "bench/bench_primitive.hpp"
#include "bench/fusion_peer.hpp"
#include "core/error.hpp"
#include "verify/op_check.hpp"
#include "verify/op_solvers.hpp"
#include "verify/runner.hpp"
#ifdef HIPRIM_WITH_GPU
#include <chrono>

#include "bench/cudnn_graph.hpp"
#include "bench/event_series.hpp"
#include "gpu/runtime/device.hpp"
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

constexpr const char* kNoOpPeer = "cuDNN is the peer of convolutions and fusion chains only: no cuDNN call is wired for this op";

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
  // Set 0's tensors as bytes in tensors() order: the outputs' and in_out tensors' downloaded, the
  // inputs' left empty (what a judge reads).
  std::vector<std::vector<unsigned char>> results() const {
    std::vector<std::vector<unsigned char>> out(ts_.size());
    for (std::size_t k = 0; k < ts_.size(); ++k) {
      if (ts_[k].role == OpTensor::Role::input) continue;
      out[k].resize(bufs_[0][k].bytes());
      bufs_[0][k].download(out[k].data(), out[k].size());
    }
    return out;
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


// Repeat 1: the problem's inputs (and, with verify full, its reference); the sample with verify
// quick. Later repeats: the inputs alone (the timed buffers are copies of them).
struct OpInputs final : BenchInputs {
  std::unique_ptr<PreparedCase> full;    // the problem's inputs (and, repeat 1 with verify full, its reference)
  std::unique_ptr<PreparedCase> sample;  // verify quick: the problem at kOpSampleBatch, reference computed
};

class OpBenchPart final : public BenchPrimitive {
 public:
  OpBenchPart(BenchContext& cx, const std::vector<std::string>& ops) : cx_(cx) {
    const BenchOptions& o = cx.o;
    std::string matched, wanted;
    for (const auto& op : ops) wanted += (wanted.empty() ? "" : ", ") + op;
    for (const auto& s : match_op_solvers(o.solver_glob)) {
      matched += (matched.empty() ? "" : ", ") + s->name();
      if (s->backend() == Backend::device && std::find(ops.begin(), ops.end(), s->op()) != ops.end()) solvers_.push_back(s);
    }
    if (solvers_.empty())
      throw InputError("--solver '" + o.solver_glob + "' matches no GPU solver of " + wanted +
                       " (bench times device solvers only; matched: " + (matched.empty() ? "none" : matched) + ")");
    // Fusion chains have a peer: cuDNN's fused graph (bench/fusion_peer.hpp), through the graph API.
    wants_fusion_peer_ = o.peer != PeerKind::none && std::find(ops.begin(), ops.end(), std::string(FusionProblem::kOp)) != ops.end();
    if (wants_fusion_peer_ && o.peer == PeerKind::cudnn_legacy) {
      fusion_peer_reason_ = "the legacy cuDNN API has no fused graphs (use --peer cudnn)";
    } else if (wants_fusion_peer_) {
#ifdef HIPRIM_WITH_GPU
      fusion_peer_ = gpu::CudnnGraphPeer::open(o.cudnn_lib, &fusion_peer_reason_);
#else
      fusion_peer_reason_ = "this build has no GPU backend";
#endif
    }
  }
  const OpSolverList& solvers() const override { return solvers_; }
  std::size_t prepare_ahead() const override {
    return static_cast<std::size_t>(std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 2, 1, kOpPrepareAhead));
  }
  bool prepares_every_repeat() const override { return true; }
  bool retimes_by_factor() const override { return false; }  // every passed solver, every repeat

  std::unique_ptr<BenchInputs> prepare(const OpProblemPtr& p, int repeat) const override {
    auto out = std::make_unique<OpInputs>();
    try {
      RunOptions ro;
      ro.seed = cx_.o.seed;
      out->full = std::make_unique<PreparedCase>(p, ro);
      out->full->convert_inputs();  // the inputs' bytes, on the preparing thread
      if (repeat == 1 && cx_.o.verify == VerifyMode::full) (void)op_expected_of(*out->full);
      if (repeat == 1 && cx_.o.verify == VerifyMode::quick) {
        out->sample = std::make_unique<PreparedCase>(op_problem_at_batch(*p, kOpSampleBatch), ro);
        (void)op_expected_of(*out->sample);
      }
    } catch (const std::exception& e) {
      out->error = std::string("preparing the problem: ") + e.what();
    }
    return out;
  }

  CaseRecord base_record(const OpProblem& p, const OpSolver& s) const override {
    CaseRecord rec;
    rec.problem = p.str();
    rec.solver = s.name();
    rec.seed = cx_.o.seed;
    rec.fill = FillTier::bounded;
    rec.tolerance = "per-element bounds of the op's reference";
    rec.repro = repro_command(rec.problem, rec.solver, cx_.o.seed);
    return rec;
  }

  std::unique_ptr<BenchCase> start(const OpProblemPtr& p, BenchInputs& inputs) override;

  PeerResult peer_without_case(const std::string&) const override { return no_peer(); }
  PeerResult no_peer(const OpProblem* p = nullptr) const {
    PeerResult peer;
    peer.name = std::string(peer_kind_name(cx_.o.peer));
    peer.status = "unavailable";
    peer.reason = p && p->op() == FusionProblem::kOp && wants_fusion_peer_ ? fusion_peer_reason_ : kNoOpPeer;
    return peer;
  }
  // Whether p is timed against the fused-graph peer (a fusion problem, the peer asked for and loaded).
  bool fusion_peer_for(const OpProblem& p) const {
#ifdef HIPRIM_WITH_GPU
    return p.op() == FusionProblem::kOp && fusion_peer_ != nullptr;
#else
    (void)p;
    return false;
#endif
  }

  json peer_json() const override {
    if (cx_.o.peer == PeerKind::none) return nullptr;
    if (!wants_fusion_peer_) return unavailable_peer_json(cx_.o.peer, kNoOpPeer);
#ifdef HIPRIM_WITH_GPU
    if (fusion_peer_) {
      json j = graph_peer_json(*fusion_peer_,
                               "graph (backend) API, fusion problems only: the fused graph conv -> [scale] -> [add bias] -> "
                               "[add residual] -> [activation], intermediates fp32 (bench/fusion_peer.hpp says which chains map onto it)",
                               "the op check's per-element bounds of the fusion reference (rounding fused); accumulation factor 2 "
                               "for fp16/bf16 data (tensor cores), 1 for fp32",
                               cx_.o.peer_max_plans);
      j["other_ops"] = kNoOpPeer;
      return j;
    }
#endif
    return unavailable_peer_json(cx_.o.peer, fusion_peer_reason_);
  }

  void add_settings(json& j) const override {
    j["bytes"] = "OpProblem::bytes(): every input read once, every output written once, in_out tensors read and written";
    j["fill"] = "each op's own fill (verify/op_fill.hpp; --fill applies to conv only), for verification and timing";
    j["timing_fill"] = "separate copies of the op's own fill";
    j["repeats_rule"] = "repeat 1 verifies and times; later repeats re-time every passed solver on fresh buffers (and, for "
                        "fusion problems, the fused-graph peer's selected plan; retime_factor applies to convolutions only)";
    j["op_verify"] = "full: the op runner on the whole problem at the timed size; quick (not for claims): the op runner at "
                     "batch sample_batch, and at full size every output element written (none left holding the all-ones "
                     "poison); none: not checked";
    if (cx_.o.verify == VerifyMode::quick) j["sample_batch"] = kOpSampleBatch;
  }

  BenchContext& cx() const { return cx_; }
#ifdef HIPRIM_WITH_GPU
  const std::shared_ptr<gpu::CudnnGraphPeer>& fusion_peer() const { return fusion_peer_; }
#endif

 private:
  BenchContext& cx_;
  OpSolverList solvers_;
  bool wants_fusion_peer_ = false;  // --peer cudnn and fusion among the ops
  std::string fusion_peer_reason_;  // why the fused-graph peer is not there
#ifdef HIPRIM_WITH_GPU
  std::shared_ptr<gpu::CudnnGraphPeer> fusion_peer_;
#endif
};

#ifndef HIPRIM_WITH_GPU
std::unique_ptr<BenchCase> OpBenchPart::start(const OpProblemPtr&, BenchInputs&) {
  throw RuntimeError("hiprim bench needs a GPU: this build has no GPU backend");
}
#else
class OpCase final : public BenchCase {
 public:
  OpCase(const OpBenchPart& b, OpProblemPtr p, OpInputs& prep) : b_(b), p_(std::move(p)), prep_(&prep) {
    if (b.cx().o.verify == VerifyMode::quick) quick_sets_.emplace(*prep.full, b.cx().l2);
  }

  void verify(const OpSolver& s, CaseRecord& rec) override {
    const OpProblem& p = *p_;
    const BenchOptions& o = b_.cx().o;
    RunOptions ro;
    ro.seed = o.seed;
    if (o.verify == VerifyMode::full) {
      rec = run_case(*prep_->full, s, ro);
      return;
    }
    const CaseRecord small = run_case(*prep_->sample, s, ro);
    rec.verdict = small.verdict;
    rec.tolerance = small.tolerance;
    rec.deterministic = small.deterministic;
    std::string written = "not run (the small problem failed)";
    if (small.verdict.status == Status::passed) {
      gpu::DeviceBuffer ws(s.workspace_bytes(p), s.name() + " workspace");
      quick_sets_->reset_for_check();
      s.run(p, quick_sets_->buffers(0), ws.data(), ws.bytes(), b_.cx().stream.handle());
      b_.cx().stream.synchronize();
      std::string bad;
      for (const auto& u : quick_sets_->unwritten()) bad += (bad.empty() ? "" : "; ") + u;
      written = bad.empty() ? "every output element written" : "unwritten elements (still all-ones poison): " + bad;
      if (!bad.empty()) rec.verdict.status = Status::failed;
    }
    rec.verdict.reason = "quick check, not for claims (op runner at " + small.problem + "; at full size " + written +
                         "): " + small.verdict.reason;
    rec.problem = p.str();
    rec.repro = repro_command(rec.problem, s.name(), o.seed);
  }

  void verified() override {
    if (b_.fusion_peer_for(*p_)) fusion_peer_plans();
    quick_sets_.reset();
    prep_ = nullptr;  // repeat 1's inputs: gone after it
  }

  PeerResult peer() const override { return peer_tried_ ? pr_ : b_.no_peer(p_.get()); }

  int make_sets(int, const BenchInputs* inputs) override {
    const auto* in = dynamic_cast<const OpInputs*>(inputs);
    if (!in || !in->full) throw RuntimeError(inputs ? inputs->error : "no inputs prepared");
    sets_.emplace(*in->full, b_.cx().l2);
    return sets_->count();
  }

  std::function<void(int)> timed_run(const OpSolver& s, const gpu::DeviceBuffer& ws) override {
    void* stream = b_.cx().stream.handle();
    return [this, &s, &ws, stream](int i) { s.run(*p_, sets_->buffers(i), ws.data(), ws.bytes(), stream); };
  }

  bool times_peer() const override { return graph_ && plan_ >= 0; }
  std::function<void(int)> timed_peer(std::string* what) override {
    *what = pr_.name + " plan " + std::to_string(plan_);
    void* stream = b_.cx().stream.handle();
    return [this, stream](int i) { graph_->run(plan_, graph_buffers(sets_->buffers(i), stream)); };
  }

  void drop_sets() override { sets_.reset(); }

 private:
  // The fused-graph peer (fusion problems): its plans checked against the reference by the op check
  // and timed on their own sets; the fastest that passed is timed beside the solvers.
  void fusion_peer_plans();
  // One set's buffers (tensors() order) in the graph's roles.
  gpu::CudnnGraphBuffers graph_buffers(const std::vector<void*>& ptrs, void* stream) const {
    auto at = [&](int k) { return k < 0 ? nullptr : ptrs[static_cast<std::size_t>(k)]; };
    return gpu::CudnnGraphBuffers{at(ix_x_), at(ix_w_), at(ix_y_), at(ix_bias_), at(ix_z_), peer_ws_.data(), peer_ws_.bytes(), stream};
  }

  const OpBenchPart& b_;
  OpProblemPtr p_;
  OpInputs* prep_;
  bool peer_tried_ = false;  // pr_ holds the fused-graph peer's result
  PeerResult pr_;
  std::unique_ptr<gpu::CudnnGraphConv> graph_;
  int plan_ = -1;  // the selected plan
  gpu::DeviceBuffer peer_ws_;
  int ix_x_ = -1, ix_w_ = -1, ix_y_ = -1, ix_bias_ = -1, ix_z_ = -1;  // tensors() indices of the graph's roles
  std::optional<OpDeviceSets> quick_sets_;  // verify quick: set 0 for the every-element-written check
  std::optional<OpDeviceSets> sets_;        // one repeat's timing
};

void OpCase::fusion_peer_plans() {
  peer_tried_ = true;
  PeerResult& pr = pr_;
  pr.name = "cudnn";
  const BenchOptions& o = b_.cx().o;
  try {  // verified() runs outside the bench's per-case guard: nothing may escape
    const FusionProblem& fp = *op_problem_cast<FusionProblem>(*p_);
    const ConvProblem conv = fp.conv();
    gpu::CudnnGraphEpilogue ep;
    Applicability a = fusion_peer_epilogue(fp, &ep);
    if (a) a = gpu::cudnn_graph_supports(conv, ep);
    if (!a) {
      pr.status = "unsupported";
      pr.reason = a.reason;
      return;
    }
    const auto ts = p_->tensors();
    for (std::size_t k = 0; k < ts.size(); ++k) {
      int* ix = ts[k].name == "x" ? &ix_x_ : ts[k].name == "w" ? &ix_w_ : ts[k].name == "y" ? &ix_y_ : ts[k].name == "bias" ? &ix_bias_
                : ts[k].name == "residual" ? &ix_z_ : nullptr;
      if (ix) *ix = static_cast<int>(k);
    }
    PhaseSeconds& phases = b_.cx().phases;
    void* stream = b_.cx().stream.handle();
    const auto t0 = std::chrono::steady_clock::now();
    gpu::CudnnGraphOptions go;
    go.max_plans = o.peer_max_plans;
    go.max_workspace_bytes = kPeerWorkspaceBytes;
    graph_ = phases.time("peer_plans", [&] { return std::make_unique<gpu::CudnnGraphConv>(b_.fusion_peer(), conv, ep, go); });
    pr.setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<PeerCandidate> cands = graph_candidates(*graph_);
    if (cands.empty()) {  // cuDNN has no engine for this graph: say what its heuristics said
      std::string said;
      for (const std::string& d : graph_->diagnostics()) said += (said.empty() ? "" : "; ") + d;
      pr.status = "unsupported";
      pr.reason = "cuDNN's heuristics gave no engine config for the fused graph (" + said + ")";
      graph_.reset();
      return;
    }
    std::size_t ws = 256;
    for (const auto& c : cands)
      if (c.usable) ws = std::max(ws, c.workspace_bytes);
    peer_ws_ = gpu::DeviceBuffer(ws, "fusion peer workspace");
    // fp16/bf16 data runs on tensor cores, whose adders may truncate: factor 2 (verify/compare.cpp).
    pr.algorithm_factor = fp.dtype == DType::fp32 ? 1.0 : 2.0;
    // The plans are checked with --verify full only (the reference at the timed size); quick and none
    // time them unchecked and say so (the report's check is then null).
    pr.tolerance = o.verify == VerifyMode::full ? "per-element bounds of the fusion reference (rounding fused), accumulation factor " +
                                                      std::string(pr.algorithm_factor == 1.0 ? "1" : "2")
                                                : "not checked (the fused-graph peer is checked with --verify full only)";
    OpDeviceSets sets(*prep_->full, b_.cx().l2);
    auto check = [&](int i) {
      sets.reset_for_check();
      graph_->run(i, graph_buffers(sets.buffers(0), stream));
      b_.cx().stream.synchronize();
      return judge_op_bytes(*prep_->full, pr.algorithm_factor, sets.results());
    };
    auto time_ms = [&](int i) {
      const ReplayTiming t = time_graph([&](int k) { graph_->run(i, graph_buffers(sets.buffers(k), stream)); }, sets.count(),
                                        peer_autotune_timer(o), stream, pr.name + " plan " + std::to_string(i));
      return median_of(t.per_call_ms);
    };
    const AutotuneRules rules{o.verify == VerifyMode::full, o.peer_transforms};
    const AutotuneResult ar = phases.time("peer_autotune", [&] { return autotune(cands, rules, check, time_ms); });
    plan_ = take_autotune(ar, rules, &pr);
  } catch (const std::exception& e) {
    pr.status = "error";
    pr.reason = e.what();
    graph_.reset();
    plan_ = -1;
  }
}

std::unique_ptr<BenchCase> OpBenchPart::start(const OpProblemPtr& p, BenchInputs& inputs) {
  return std::make_unique<OpCase>(*this, p, static_cast<OpInputs&>(inputs));
}
#endif

}  // namespace

std::unique_ptr<BenchPrimitive> make_op_bench(BenchContext& cx, const std::vector<std::string>& ops) {
  return std::make_unique<OpBenchPart>(cx, ops);
}

}  // namespace hiprim::verify
