// The conv part of the bench (bench/bench_conv.hpp): verification in the exact tier against a
// reference shared by a problem's dtype x layout variants, the peer's plans checked and
// autotuned, timing on bounded reals (TimingSets).
#include "bench/bench_conv.hpp"

#include <cstdio>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "reference/error_model.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/bench_sets.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

namespace {

const ConvProblem& conv_of(const OpProblem& p) {
  const ConvProblem* c = op_problem_cast<ConvProblem>(p);
  if (!c) throw InputError("the conv bench got a " + p.op() + " problem: " + p.str());
  return *c;
}

FillTier verify_tier(const BenchOptions& o, const ConvProblem& p) {
  return o.fill.value_or(exact_fill_range(p) > 0 ? FillTier::exact : FillTier::bounded);
}

bool shares_reference(const BenchOptions& o, const ConvProblem& p) {
  return o.verify == VerifyMode::full && verify_tier(o, p) == FillTier::exact && exact_fill_range(p) > 0;
}

// Host-side preparation (a background thread; reads only the options and the cache).
struct ConvInputs final : BenchInputs {
  RunOptions ro;                            // the runner's options, hooks included
  std::unique_ptr<PreparedCase> pc;         // the verification's inputs (and reference)
  std::shared_ptr<const ExactJudge> judge;  // full verification in the exact tier
  std::unique_ptr<SampleOracle> oracle;     // quick verification
};

}  // namespace

ConvBench::ConvBench(BenchContext& c) : cx(c), cache(c.o.seed) {
  const BenchOptions& o = cx.o;
  std::string names;
  std::set<std::string> device;
  for (auto& s : select_conv_solvers(o.solver_glob)) {
    if (s->backend() == Backend::device) device.insert(s->name());
    names += (names.empty() ? "" : ", ") + s->name();
  }
  for (const auto& s : all_solvers())  // the same solvers, through ConvOpSolver, in the same order
    if (s->op() == ConvProblem::kOp && device.count(s->name())) solvers_.push_back(s);
  if (solvers_.empty())
    throw InputError("--solver '" + o.solver_glob + "' matches no GPU solver (bench times device solvers only; matched: " + names + ")");
  if (o.peer != PeerKind::none) peer = open_conv_peer(o.peer, o.cudnn_lib, &peer_reason, o.peer_max_plans);
}

std::unique_ptr<BenchPrimitive> make_conv_bench(BenchContext& cx) { return std::make_unique<ConvBench>(cx); }

void ConvBench::add_settings(json& j) const {
  if (cx.o.verify == VerifyMode::quick) j["sample_channels"] = kSampleChannels;
  const ReferenceCache::Stats c = cache.stats();
  j["references"] = json{{"computed", c.computed}, {"shared_hits", c.hits}, {"compute_s", c.compute_s},
                         {"rule", "exact tier: one reference per problem with dtype fp32 and channels first, shared by its "
                                  "dtype x layout variants (bench/reference_cache.hpp)"}};
}

json ConvBench::peer_json() const {
  if (cx.o.peer == PeerKind::none) return nullptr;
  return peer ? peer->describe() : unavailable_peer_json(cx.o.peer, peer_reason);
}

void ConvBench::expect(const std::vector<SuiteProblem>& suite) {
  for (const auto& sp : suite)
    if (shares_reference(cx.o, conv_of(*sp.problem))) cache.expect(conv_of(*sp.problem));
}

std::unique_ptr<BenchInputs> ConvBench::prepare(const OpProblemPtr& problem, int) const {
  auto out = std::make_unique<ConvInputs>();
  try {
    const BenchOptions& o = cx.o;
    const ConvProblem& p = conv_of(*problem);
    out->ro.seed = o.seed;
    out->ro.fill = verify_tier(o, p);
    if (shares_reference(o, p)) {
      std::shared_ptr<const ref::ConvOutput> ref;
      try {
        ref = cache.get(p);
      } catch (...) {
        cache.release(p);
        throw;
      }
      cache.release(p);
      out->judge = std::make_shared<const ExactJudge>(ref, output_desc(p));
      out->ro.hooks.oracle = [ref](const PreparedCase&) { return *ref; };
      out->ro.hooks.judge_bytes = [judge = out->judge](const std::vector<unsigned char>& got, const Tolerance& tol) {
        return judge->judge_bytes(got, tol);
      };
    }
    out->pc = std::make_unique<PreparedCase>(p, out->ro);
    if (o.verify == VerifyMode::full) (void)conv_expected(*out->pc, false);  // here, not on the device thread
    out->pc->convert_inputs();                                               // likewise the inputs' bytes
    if (o.verify == VerifyMode::quick) out->oracle = std::make_unique<SampleOracle>(*out->pc);
  } catch (const std::exception& e) {
    out->error = std::string("preparing the problem: ") + e.what();
  }
  return out;
}

CaseRecord ConvBench::base_record(const OpProblem& op, const OpSolver& s) const {
  const ConvProblem& p = conv_of(op);
  const FillTier tier = verify_tier(cx.o, p);
  CaseRecord rec;
  rec.problem = to_string(p);
  rec.solver = s.name();
  rec.seed = cx.o.seed;
  rec.fill = tier;
  rec.tolerance = bench_tolerance_string(tolerance_for(p, tier, s.accumulation_error_factor()));
  rec.repro = repro_command(rec.problem, rec.solver, cx.o.seed) + " --fill " + std::string(fill_tier_name(tier));
  return rec;
}

void ConvBench::describe(const OpProblem& op, PerfCaseInput& in) const {
  const ConvProblem& p = conv_of(op);
  in.gemm_ceiling_tflops = gemm_tflops_.count(p.dtype) ? gemm_tflops_.at(p.dtype) : 0;
  in.fill_range = verify_tier(cx.o, p) == FillTier::exact ? exact_fill_range(p) : 0;
  in.reduction_length = p.reduction_length();
}

PeerResult ConvBench::peer_without_case(const std::string& why) const {
  PeerResult pr;
  pr.name = std::string(peer_kind_name(cx.o.peer));
  pr.status = "error";
  pr.reason = why;
  return pr;
}

#ifndef HIPRIM_WITH_GPU
std::unique_ptr<BenchCase> ConvBench::start(const OpProblemPtr&, BenchInputs&) {
  throw RuntimeError("hiprim bench needs a GPU: this build has no GPU backend");
}
#else

namespace {

const ConvSolver& conv_solver_of(const OpSolver& s) {
  const auto* c = dynamic_cast<const ConvOpSolver*>(&s);
  if (!c) throw InputError("the conv bench got solver " + s.name() + " of " + s.op());
  return c->conv_solver();
}

class ConvCase final : public BenchCase {
 public:
  ConvCase(ConvBench& b, const ConvProblem& p, ConvInputs& prep) : b_(b), p_(p), prep_(&prep) {
    pr_.name = std::string(peer_kind_name(b.cx.o.peer));
    if (b.cx.o.verify == VerifyMode::quick || (b.cx.o.peer != PeerKind::none && b.peer)) vb_.emplace(*prep.pc);
  }

  void verify(const OpSolver& os, CaseRecord& rec) override {
    const ConvSolver& s = conv_solver_of(os);
    const ConvErrorModel model = s.error_model(p_);
    const bool winograd = model.winograd_m > 0, fft = model.fft_tile > 0, tf32 = model.input_unit > 0;
    if (b_.cx.o.verify == VerifyMode::full) {
      const std::string tol = rec.tolerance;
      rec = run_case(*prep_->pc, s, prep_->ro);
      // The same rule, naming the factor that applies; a solver declaring Winograd, FFT or TF32 inputs keeps
      // the runner's description of its derived bound (the runner's conv check judged it by that bound).
      if (!winograd && !fft && !tf32) rec.tolerance = tol;
      return;
    }
    if (tf32) {  // the quick check's sampled oracle has the direct model only
      rec.verdict.status = Status::error;
      rec.verdict.reason = s.name() + " declares TF32 inputs (math=tf32): the quick check (direct model) cannot judge it; "
                           "--verify full judges it by its derived bound";
      return;
    }
    if (winograd || fft) {  // the quick check's sampled oracle has the direct model only
      rec.verdict.status = Status::error;
      rec.verdict.reason = s.name() + (fft ? " declares FFT tiles" : " declares Winograd F(m x m, 3 x 3)") +
                           ": the quick check (direct model) cannot judge it; --verify full judges it by its derived bound";
      return;
    }
    gpu::DeviceBuffer ws(s.workspace_bytes(p_), s.name() + " workspace");
    vb_->poison_output();
    s.run(p_, vb_->tensors(ws, b_.cx.stream.handle()));
    b_.cx.stream.synchronize();
    rec.verdict = prep_->oracle->check(vb_->download_output(), s.accumulation_error_factor());
  }

  void verified() override {
    if (b_.cx.o.peer != PeerKind::none) peer_plans();
    vb_.reset();
    prep_ = nullptr;  // repeat 1's inputs: gone after it
  }

  PeerResult peer() const override { return pr_; }

  int make_sets(int repeat, const BenchInputs*) override {
    sets_.emplace(p_, b_.cx.l2, b_.cx.o.seed + static_cast<std::uint64_t>(repeat));
    return sets_->count();
  }

  std::function<void(int)> timed_run(const OpSolver& os, const gpu::DeviceBuffer& ws) override {
    const ConvSolver& s = conv_solver_of(os);
    void* stream = b_.cx.stream.handle();
    return [this, &s, &ws, stream](int i) { s.run(p_, sets_->tensors(i, ws, stream)); };
  }

  bool times_peer() const override { return peer_problem_ && peer_plan_ >= 0; }

  std::function<void(int)> timed_peer(std::string* what) override {
    const gpu::DeviceBuffer& ws = b_.peer_workspace();
    void* stream = b_.cx.stream.handle();
    *what = pr_.name + " plan " + std::to_string(peer_plan_);
    return [this, &ws, stream, plan = peer_plan_](int i) { peer_problem_->run(plan, sets_->peer(i, ws, stream)); };
  }

  void drop_sets() override { sets_.reset(); }

 private:
  // The peer: its candidates, each checked against the same reference and timed; the fastest passed.
  void peer_plans();

  ConvBench& b_;
  ConvProblem p_;
  ConvInputs* prep_;
  std::optional<VerifyBuffers> vb_;
  PeerResult pr_;
  std::unique_ptr<PeerProblem> peer_problem_;
  int peer_plan_ = -1;  // the selected candidate
  std::optional<TimingSets> sets_;
};

void ConvCase::peer_plans() {
  const BenchOptions& o = b_.cx.o;
  const ConvProblem& p = p_;
  const FillTier tier = verify_tier(o, p);
  PhaseSeconds& phases = b_.cx.phases;
  void* stream = b_.cx.stream.handle();
  PeerResult& pr = pr_;
  if (!b_.peer) {
    pr.status = "unavailable";
    pr.reason = b_.peer_reason;
  } else if (auto a = b_.peer->supports(p); !a) {
    pr.status = "unsupported";
    pr.reason = a.reason;
  } else {
    try {
      const gpu::DeviceBuffer& ws = b_.peer_workspace();
      peer_problem_ = phases.time("peer_plans", [&] { return b_.peer->prepare(p, vb_->peer(ws, stream)); });
      pr.setup_ms = peer_problem_->setup_ms();
      // fp16/bf16 data runs on tensor cores, whose adders may truncate: factor 2 (verify/compare.cpp).
      pr.algorithm_factor = p.dtype == DType::fp32 ? 1.0 : 2.0;
      // math=tf32: the peer may feed TF32 to the tensor cores (inputs truncated, reference/error_model.hpp).
      auto peer_tolerance = [&](FillTier t) {
        Tolerance tl = tolerance_for(p, t, pr.algorithm_factor);
        if (p.math == ConvMath::tf32) tl.input_unit = ref::kUnitTf32Truncated;
        return tl;
      };
      const Tolerance tol = peer_tolerance(tier);
      pr.tolerance = bench_tolerance_string(tol);
      const TimingSets sets(p, b_.cx.l2, o.seed);
      PeerProblem& pp = *peer_problem_;
      // A candidate that misses the exact tier is judged again in the bounded tier (its error
      // bound factor x gamma(L) x sum|terms| per element): cuDNN's Winograd/FFT-like engines are
      // not exact on integer data, yet within the accuracy its users (PyTorch) accept. hiprim's
      // own solvers are held to the exact tier; the peer's pass in the bounded tier says so.
      std::optional<ref::ConvOutput> with_abs_sum;  // the reference with sum|terms|, made on first need
      auto bounded_retry = [&](Verdict exact, const HostTensor& got) {
        if (exact.status != Status::failed || tier != FillTier::exact || o.verify != VerifyMode::full) return exact;
        if (!with_abs_sum) {
          const ref::ConvInputs in = conv_inputs(*prep_->pc);
          with_abs_sum = phases.time("peer_bounded_reference", [&] { return ref::conv(p, in, /*with_abs_sum=*/true); });
        }
        Verdict bv = compare(got, with_abs_sum->value, with_abs_sum->abs_sum, with_abs_sum->desc,
                             peer_tolerance(FillTier::bounded));
        if (bv.status != Status::passed) return exact;
        char err[64];
        std::snprintf(err, sizeof err, "%.3g", bv.metrics.max_abs_error);
        bv.reason = "not exact (" + exact.reason + "); within the bounded tier: " + bv.reason + " (max |error| " + err +
                    "): a peer plan of inexact arithmetic (e.g. Winograd, FFT), as cuDNN's users accept";
        ++pr.bounded_passes;
        return bv;
      };
      auto check = [&](int i) {
        vb_->poison_output();
        pp.run(i, vb_->peer(ws, stream));
        b_.cx.stream.synchronize();
        if (prep_->judge && o.verify == VerifyMode::full) {
          const std::vector<unsigned char> bytes = vb_->download_output_bytes();
          Verdict v = prep_->judge->judge_bytes(bytes, tol);
          if (v.status != Status::failed) return v;
          HostTensor got(output_desc(p));
          got.from_bytes(bytes.data());
          return bounded_retry(std::move(v), got);
        }
        const HostTensor got = vb_->download_output();
        if (o.verify == VerifyMode::quick) return prep_->oracle->check(got, pr.algorithm_factor);
        const ref::ConvOutput& e = conv_expected(*prep_->pc, false);
        return compare(got, e.value, e.abs_sum, e.desc, tol);
      };
      auto time_ms = [&](int i) {
        const ReplayTiming t = time_graph([&](int k) { pp.run(i, sets.peer(k, ws, stream)); }, sets.count(),
                                          b_.autotune_timer(), stream, pr.name + " plan " + std::to_string(i));
        return median_of(t.per_call_ms);
      };
      const AutotuneRules rules{o.verify != VerifyMode::none, o.peer_transforms};
      const AutotuneResult ar = phases.time("peer_autotune", [&] { return autotune(pp.candidates(), rules, check, time_ms); });
      peer_plan_ = take_autotune(ar, rules, &pr);
    } catch (const std::exception& e) {
      pr.status = "error";
      pr.reason = e.what();
      peer_problem_.reset();
    }
  }
}

}  // namespace

std::unique_ptr<BenchCase> ConvBench::start(const OpProblemPtr& p, BenchInputs& inputs) {
  return std::make_unique<ConvCase>(*this, conv_of(*p), static_cast<ConvInputs&>(inputs));
}
#endif

}  // namespace hiprim::verify
