#include "bench/bench.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <map>

#include "core/error.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_timing.hpp"
#include "verify/runner.hpp"
#include "verify/solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/gemm/gemm.hpp"
#include "bench/cudnn_peer.hpp"
#include "gpu/runtime/device.hpp"
#include "bench/event_series.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

// ---- Host-side helpers ----

double conv_min_bytes(const ConvProblem& p) {
  auto bytes = [&](const TensorDesc& d) { return static_cast<double>(d.elements()) * static_cast<double>(dtype_size(d.dtype)); };
  double b = bytes(p.x_desc()) + bytes(p.w_desc()) + bytes(p.y_desc());
  if (p.bias) b += bytes(p.bias_desc());
  return b;
}

TimingStats summarize_runs(std::vector<double> runs_ms) {
  if (runs_ms.empty()) throw InputError("summarize_runs: no runs to summarize");
  std::sort(runs_ms.begin(), runs_ms.end());
  const std::size_t n = runs_ms.size();
  TimingStats t;
  t.runs = static_cast<int>(n);
  t.median_ms = n % 2 ? runs_ms[n / 2] : 0.5 * (runs_ms[n / 2 - 1] + runs_ms[n / 2]);
  t.min_ms = runs_ms.front();
  t.max_ms = runs_ms.back();
  return t;
}

json timing_json(const TimingStats& t) {
  return json{{"median_ms", number_json(t.median_ms)}, {"min_ms", number_json(t.min_ms)}, {"max_ms", number_json(t.max_ms)},
              {"runs", t.runs}, {"warmup", t.warmup}, {"sets", t.sets}};
}

int rotation_sets(std::size_t set_bytes, std::size_t l2_bytes) {
  if (set_bytes == 0) return 1;
  const std::size_t want = (3 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::clamp<std::size_t>(want, 1, kMaxRotationSets));
}

int reps_within_budget(int reps, double est_ms, double budget_ms) {
  if (est_ms <= 0 || est_ms * reps <= budget_ms) return reps;
  const double fit = std::floor(budget_ms / est_ms);
  return std::max(kMinReps, static_cast<int>(std::min<double>(fit, reps)));
}

#ifdef HIPRIM_WITH_GPU
namespace {

constexpr std::size_t kCudnnWorkspaceBytes = std::size_t{1} << 30;  // for find and runs
constexpr std::int64_t kGemmCeilingSize = 8192;                     // M = N = K

std::size_t bytes_of(const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); }

// Fills a device buffer with real values in [-1, 1) of dtype (a 2^20-element block of the bounded
// fill, repeated by doubling device copies): never zeros, which can run faster than real data.
void fill_device(gpu::DeviceBuffer& buf, DType t, std::uint64_t tag) {
  const std::size_t es = dtype_size(t), total = buf.bytes() / es;
  const std::size_t block = std::min<std::size_t>(total, std::size_t{1} << 20);
  std::vector<unsigned char> host(block * es);
  for (std::size_t i = 0; i < block; ++i) store_element(t, host.data() + i * es, fill_value(FillTier::bounded, t, 7, tag, i, 0));
  buf.upload(host.data(), host.size());
  for (std::size_t done = block; done < total; done *= 2) {
    auto* base = static_cast<unsigned char*>(buf.data());
    gpu::copy_device_to_device_async(base + done * es, base, std::min(done, total - done) * es, nullptr);
  }
  gpu::synchronize("filling a benchmark buffer");
}

// Rotating copies of one problem's buffers; set 0 gets the prepared inputs, the others copies of them.
class DeviceSets {
 public:
  DeviceSets(const PreparedCase& c, std::size_t l2) : p_(c.problem()) {
    const std::size_t xb = bytes_of(p_.x_desc()), wb = bytes_of(p_.w_desc()), yb = bytes_of(p_.y_desc());
    const std::size_t bb = p_.bias ? bytes_of(p_.bias_desc()) : 0;
    count_ = rotation_sets(xb + wb + yb + bb, l2);
    for (int i = 0; i < count_; ++i) {
      const std::string n = " (set " + std::to_string(i) + ")";
      x_.emplace_back(xb, "x" + n);
      w_.emplace_back(wb, "w" + n);
      y_.emplace_back(yb, "y" + n);
      bias_.emplace_back(bb, "bias" + n);
    }
    auto load = [&](std::vector<gpu::DeviceBuffer>& v, const HostTensor& h) {
      auto bytes = h.to_bytes();
      v[0].upload(bytes.data(), bytes.size());
      for (int i = 1; i < count_; ++i) gpu::copy_device_to_device_async(v[i].data(), v[0].data(), bytes.size(), nullptr);
    };
    if (p_.dir != ConvDir::bwd_data) load(x_, c.x());
    if (p_.dir != ConvDir::bwd_weights) load(w_, c.w());
    if (p_.dir != ConvDir::fwd) load(y_, c.y());
    if (p_.bias) load(bias_, c.bias());
    gpu::synchronize("copying the benchmark input sets");
  }
  int count() const { return count_; }
  ConvTensors tensors(int i, const gpu::DeviceBuffer& ws, void* stream) const {
    return ConvTensors{x_[i].data(), w_[i].data(), y_[i].data(), p_.bias ? bias_[i].data() : nullptr, ws.data(), ws.bytes(), stream};
  }
  gpu::CudnnBuffers cudnn(int i, const gpu::DeviceBuffer& ws, void* stream) const {
    return gpu::CudnnBuffers{x_[i].data(), w_[i].data(), y_[i].data(), ws.data(), ws.bytes(), stream};
  }
  gpu::DeviceBuffer& output(int i) { return p_.dir == ConvDir::fwd ? y_[i] : p_.dir == ConvDir::bwd_data ? x_[i] : w_[i]; }
  HostTensor download_output(int i) {
    HostTensor h(output_desc(p_));
    std::vector<unsigned char> bytes(output(i).bytes());
    output(i).download(bytes.data(), bytes.size());
    h.from_bytes(bytes.data());
    return h;
  }

 private:
  ConvProblem p_;
  int count_ = 1;
  std::vector<gpu::DeviceBuffer> x_, w_, y_, bias_;
};

}  // namespace
#endif

// ---- Bench ----

struct Bench::State {
  BenchOptions o;
  ConvSolverList solvers;
  double copy_gbps = 0;
  json copy = nullptr;
  json gemm = json::object();
  std::map<DType, double> gemm_tflops;
#ifdef HIPRIM_WITH_GPU
  gpu::Stream stream;
  std::size_t l2 = 0;
  std::shared_ptr<gpu::CudnnPeer> cudnn;
  std::string cudnn_reason;
  gpu::DeviceBuffer cudnn_ws;
  const gpu::DeviceBuffer& workspace() {
    if (!cudnn_ws.data()) cudnn_ws = gpu::DeviceBuffer(kCudnnWorkspaceBytes, "cuDNN workspace");
    return cudnn_ws;
  }
#endif
};

void check_bench_ready(const BenchOptions& o) {
  if (o.warmup < 0) throw InputError("--warmup " + std::to_string(o.warmup) + ": must be >= 0");
  if (o.reps < 1) throw InputError("--reps " + std::to_string(o.reps) + ": must be >= 1");
  if (!(o.budget_ms > 0)) throw InputError("--budget-ms: must be > 0");
#ifndef HIPRIM_WITH_GPU
  throw RuntimeError("hiprim bench needs a GPU: this build has no GPU backend (configure with -DHIPRIM_GPU=cuda)");
#else
  std::string why;
  if (!gpu::device_available(&why)) throw RuntimeError("hiprim bench needs a GPU: " + why);
#endif
}

Bench::Bench(const BenchOptions& o) {
  check_bench_ready(o);
#ifdef HIPRIM_WITH_GPU
  s_ = std::make_unique<State>();
  s_->o = o;
  std::string names;
  for (auto& s : select_conv_solvers(o.solver_glob)) {
    if (s->backend() == Backend::device) s_->solvers.push_back(s);
    names += (names.empty() ? "" : ", ") + s->name();
  }
  if (s_->solvers.empty())
    throw InputError("--solver '" + o.solver_glob + "' matches no GPU solver (bench times device solvers only; matched: " + names + ")");
  s_->l2 = gpu::l2_cache_bytes();
  if (o.peer_cudnn) s_->cudnn = gpu::CudnnPeer::open(o.cudnn_lib, &s_->cudnn_reason);
#endif
}

Bench::~Bench() = default;

json bench_settings_json(const BenchOptions& o) {
  return json{{"warmup", o.warmup}, {"reps", o.reps}, {"min_reps", kMinReps}, {"budget_ms", o.budget_ms},
              {"verify", verify_mode_name(o.verify)}, {"fill", fill_tier_name(o.fill)}, {"seed", o.seed},
              {"solver_glob", o.solver_glob}, {"peer", o.peer_cudnn ? "cudnn" : "none"},
              {"timing", "device events between back-to-back runs on one stream; max(warmup, 2) untimed runs "
                         "(the last a primer), then reps timed runs, median/min/max; fewer timed runs (>= min_reps) "
                         "when reps runs would exceed budget_ms"},
              {"rotation", "inputs and output rotate over sets = ceil(3 x L2 / bytes of one set) copies (<= 64)"},
              {"bytes", "least traffic: every input read once, the output written once"}};
}

json Bench::settings_json() const {
  const BenchOptions& o = s_->o;
  json j = bench_settings_json(o);
  if (o.verify == VerifyMode::sampled) j["sample_channels"] = kSampleChannels;
#ifdef HIPRIM_WITH_GPU
  j["l2_bytes"] = s_->l2;
#endif
  return j;
}

json Bench::peer_json() const {
  if (!s_->o.peer_cudnn) return nullptr;
  json j{{"name", "cudnn"},
         {"math", "compute type FLOAT (fp32 accumulation); fp32 data: FMA_MATH, no TF32 (NVIDIA_TF32_OVERRIDE=0 is "
                  "set before loading); fp16/bf16 data: TENSOR_OP_MATH"},
         {"selection", "cudnnFind*AlgorithmEx on the bench's buffers, fastest result with an allowed math type"},
         {"check", "same comparator as hiprim's solvers; algorithm_factor 2 for fp16/bf16 data (tensor cores, whose adders "
                   "may truncate, verify/compare.cpp), 1 for fp32; FFT/Winograd results: worst ratio reported, bound not applied"}};
#ifdef HIPRIM_WITH_GPU
  j["available"] = s_->cudnn != nullptr;
  j["library"] = s_->cudnn ? s_->cudnn->path() : "";
  j["version"] = s_->cudnn ? s_->cudnn->version() : 0;
  j["reason"] = s_->cudnn ? "" : s_->cudnn_reason;
#endif
  return j;
}

json Bench::ceilings_json() const { return json{{"copy", s_->copy}, {"gemm", s_->gemm}}; }

void Bench::measure_ceilings(const std::vector<DType>& dtypes) {
  if (!s_->o.ceilings) return;
#ifdef HIPRIM_WITH_GPU
  void* st = s_->stream.handle();
  if (s_->copy.is_null()) s_->copy = measure_copy_ceiling(st, &s_->copy_gbps);
  const std::int64_t n = kGemmCeilingSize;
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  for (DType dt : dtypes) {
    const std::string name(dtype_name(dt));
    if (s_->gemm.contains(name)) continue;
    json g{{"shape", "M=N=K=" + std::to_string(n)}};
    double best = 0;
    try {  // hiprim's own GEMM, row-major A, B, C
      const std::size_t bytes = static_cast<std::size_t>(n * n) * dtype_size(dt);
      gpu::DeviceBuffer a(bytes, "gemm ceiling A"), b(bytes, "gemm ceiling B"), c(bytes, "gemm ceiling C");
      fill_device(a, dt, 1);
      fill_device(b, dt, 2);
      gpu::GemmCall call;
      call.shape = gpu::GemmShape{n, n, n, 1};
      call.ab_dtype = call.c_dtype = dt;
      call.a = a.data();
      call.b = b.data();
      call.c = c.data();
      call.a_map = call.b_map = call.c_map = gpu::MatrixMap{gpu::DimMap::plain(n), gpu::DimMap::plain(1), gpu::DimMap::plain(0)};
      call.stream = st;
      auto t = time_on_device([&](int) { gpu::gemm(call); }, 1, kCeilingWarmup, kCeilingReps, kCeilingBudgetMs, st);
      const double r = flops / (t.median_ms * 1e-3) * 1e-12;
      g["hiprim_gemm_tflops"] = r;
      g["hiprim_gemm_timing"] = timing_json(t);
      best = r;
      g["source"] = "hiprim gemm()";
    } catch (const std::exception& e) {
      g["hiprim_gemm_tflops"] = nullptr;
      g["hiprim_gemm_reason"] = e.what();
    }
    g["cudnn_tflops"] = nullptr;
    if (s_->cudnn) {
      try {  // cuDNN's 1x1 convolution: y[p][k] = sum_c x[p][c] w[k][c], a GEMM of the same size
        ConvProblem p = parse_conv_problem("conv fwd " + name + " nhwc n1 c" + std::to_string(n) + " k" + std::to_string(n) +
                                           " in64x" + std::to_string(n / 64) + " f1x1");
        gpu::DeviceBuffer x(bytes_of(p.x_desc()), "cuDNN gemm x"), w(bytes_of(p.w_desc()), "cuDNN gemm w"),
            y(bytes_of(p.y_desc()), "cuDNN gemm y");
        fill_device(x, dt, 3);
        fill_device(w, dt, 4);
        gpu::CudnnConv conv(s_->cudnn, p);
        const gpu::DeviceBuffer& ws = s_->workspace();
        gpu::CudnnBuffers buf{x.data(), w.data(), y.data(), ws.data(), ws.bytes(), st};
        const auto& ch = conv.find(buf);
        auto t = time_on_device([&](int) { conv.run(buf); }, 1, kCeilingWarmup, kCeilingReps, kCeilingBudgetMs, st);
        const double r = p.flops() / (t.median_ms * 1e-3) * 1e-12;
        g["cudnn_tflops"] = r;
        g["cudnn_problem"] = to_string(p);
        g["cudnn_algo"] = ch.algo_name + "/" + ch.math_name;
        g["cudnn_timing"] = timing_json(t);
        if (r > best) {
          best = r;
          g["source"] = "cuDNN 1x1 convolution";
        }
      } catch (const std::exception& e) {
        g["cudnn_reason"] = e.what();
      }
    }
    g["tflops"] = best > 0 ? json(best) : json(nullptr);
    if (best > 0) s_->gemm_tflops[dt] = best;
    s_->gemm[name] = std::move(g);
  }
#else
  (void)dtypes;
#endif
}

#ifdef HIPRIM_WITH_GPU
namespace {

CaseRecord base_record(const PreparedCase& c, const ConvSolver& s) {
  CaseRecord rec;
  rec.problem = to_string(c.problem());
  rec.solver = s.name();
  rec.seed = c.seed();
  rec.fill = c.fill();
  rec.tolerance = c.tolerance().describe();
  rec.repro = repro_command(c, s.name());
  return rec;
}

}  // namespace
#endif

// Host-side preparation of one problem: seeded inputs, and the reference the verify mode needs
// (full: the whole problem's; sampled: the slice's). Reads only the options: safe on a second thread.
struct Bench::Prepared {
  std::unique_ptr<PreparedCase> pc;
  std::unique_ptr<SampleOracle> oracle;  // the sampled check's reference, once for every output
  std::string error;                     // non-empty: preparing failed
};

Bench::Prepared Bench::prepare(const ConvProblem& p) const {
  Prepared out;
  try {
    RunOptions ro;
    ro.seed = s_->o.seed;
    ro.fill = s_->o.fill;
    out.pc = std::make_unique<PreparedCase>(p, ro);
    if (s_->o.verify == VerifyMode::sampled) out.oracle = std::make_unique<SampleOracle>(*out.pc);
    if (s_->o.verify == VerifyMode::full) (void)out.pc->expected(false);  // cached for run_case and the peer
  } catch (const std::exception& e) {
    out.error = std::string("preparing the problem: ") + e.what();
  }
  return out;
}

json Bench::run(const BenchProblem& bp) {
  Prepared prep = prepare(bp.problem);
  return run_prepared(bp, prep);
}

void Bench::run_all(const std::vector<BenchProblem>& problems, const std::function<void(const json&)>& on_problem,
                    const std::function<bool()>& stop) {
  std::future<Prepared> next;
  if (!problems.empty()) next = std::async(std::launch::async, [&] { return prepare(problems[0].problem); });
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Prepared prep = next.get();
    if (stop && stop()) return;
    if (i + 1 < problems.size()) next = std::async(std::launch::async, [&, i] { return prepare(problems[i + 1].problem); });
    on_problem(run_prepared(problems[i], prep));
  }
}

json Bench::run_prepared(const BenchProblem& bp, Prepared& prep) {
  json cases = json::array();
#ifdef HIPRIM_WITH_GPU
  const BenchOptions& o = s_->o;
  const ConvProblem& p = bp.problem;
  RunOptions ro;
  ro.seed = o.seed;
  ro.fill = o.fill;
  PerfCaseInput in;
  in.verify = o.verify;
  in.count = bp.count;
  in.flops = p.flops();
  in.bytes = conv_min_bytes(p);
  in.gemm_ceiling_tflops = s_->gemm_tflops.count(p.dtype) ? s_->gemm_tflops[p.dtype] : 0;
  in.copy_ceiling_gbps = s_->copy_gbps;
  std::optional<DeviceSets> device_sets;
  try {  // device buffers; a failure here, or in preparing, becomes an error case per solver
    if (!prep.error.empty()) throw RuntimeError(prep.error);
    device_sets.emplace(*prep.pc, s_->l2);
  } catch (const std::exception& e) {
    for (const auto& solver : s_->solvers) {
      CaseRecord rec;
      rec.problem = to_string(p);
      rec.solver = solver->name();
      rec.seed = o.seed;
      rec.fill = o.fill;
      rec.repro = repro_command(rec.problem, rec.solver, o.seed) + " --fill " + std::string(fill_tier_name(o.fill));
      rec.verdict = Verdict{Status::error, e.what(), {}};
      cases.push_back(perf_case_json(rec, in));
    }
    return cases;
  }
  const PreparedCase& pc = *prep.pc;
  const SampleOracle* oracle = prep.oracle.get();
  DeviceSets& sets = *device_sets;
  void* st = s_->stream.handle();

  for (const auto& solver : s_->solvers) {
    const ConvSolver& s = *solver;
    CaseRecord rec = base_record(pc, s);
    std::optional<TimingStats> timing;
    try {
      if (auto a = s.applicable(p); !a) {
        rec.verdict = Verdict{Status::unsupported, a.reason, {}};
      } else {
        gpu::DeviceBuffer ws(s.workspace_bytes(p), s.name() + " workspace");
        if (o.verify == VerifyMode::full) {
          rec = run_case(pc, s, ro);
        } else if (o.verify == VerifyMode::sampled) {
          sets.output(0).fill_bytes(0xFF);  // NaN in every dtype: an unwritten element shows
          s.run(p, sets.tensors(0, ws, st));
          s_->stream.synchronize();
          rec.verdict = oracle->check(sets.download_output(0), s.accumulation_error_factor());
        } else {
          rec.verdict = Verdict{Status::passed, "not verified (--verify none): ran without a runtime error", {}};
        }
        if (rec.verdict.status == Status::passed)
          timing = time_on_device([&](int i) { s.run(p, sets.tensors(i, ws, st)); }, sets.count(), o.warmup, o.reps,
                                  o.budget_ms, st);
      }
    } catch (const std::exception& e) {
      rec.verdict = Verdict{Status::error, e.what(), {}};
      timing.reset();
    }
    cases.push_back(perf_case_json(rec, {in.verify, in.count, in.flops, in.bytes, timing, in.gemm_ceiling_tflops,
                                         in.copy_ceiling_gbps}));
  }
  mark_best(cases);

  if (!o.peer_cudnn) return cases;
  PeerResult peer;
  gpu::CudnnConvDesc desc;
  if (!s_->cudnn) {
    peer.status = "unavailable";
    peer.reason = s_->cudnn_reason;
  } else if (auto a = gpu::cudnn_conv_desc(p, &desc); !a) {
    peer.status = "unsupported";
    peer.reason = a.reason;
  } else {
    try {
      gpu::CudnnConv conv(s_->cudnn, p);
      const gpu::DeviceBuffer& ws = s_->workspace();
      const gpu::CudnnChoice& ch = conv.find(sets.cudnn(0, ws, st));
      peer.algo = ch.algo_name;
      peer.math = ch.math_name;
      peer.workspace_bytes = ch.workspace_bytes;
      peer.transform = ch.transform;
      peer.deterministic = ch.deterministic;
      peer.find_ms = ch.find_ms;
      // fp16/bf16 data runs on tensor cores whatever the math type says, and their adders may
      // truncate: factor 2 (verify/compare.cpp); fp32 FMA kernels (no TF32): 1.
      peer.algorithm_factor = p.dtype != DType::fp32 || ch.math_type == gpu::kCudnnTensorOpMath ? 2.0 : 1.0;
      if (o.verify != VerifyMode::none) {
        sets.output(0).fill_bytes(0xFF);
        conv.run(sets.cudnn(0, ws, st));
        s_->stream.synchronize();
        peer.check = check_output(pc, sets.download_output(0), o.verify, peer.algorithm_factor, oracle);
        if (peer.transform && peer.check->status == Status::failed)
          peer.check->reason = "transform algorithm (the direct-sum bound does not apply; worst ratio for information): " +
                               peer.check->reason;
      }
      peer.timing = time_on_device([&](int i) { conv.run(sets.cudnn(i, ws, st)); }, sets.count(), o.warmup, o.reps,
                                   o.budget_ms, st);
      peer.status = "timed";
    } catch (const std::exception& e) {
      peer.status = "error";
      peer.reason = e.what();
    }
  }
  attach_peer(cases, peer_result_json(peer, in.flops, in.bytes));
#else
  (void)bp;
  (void)prep;
#endif
  return cases;
}

}  // namespace hiprim::verify
