// The conv bench's GEMM ceilings (bench/bench.hpp; the copy ceiling is every bench's): per dtype the best
// GEMM rate at M = N = K = 8192 among hiprim's gemm() and the peer's 1x1 convolution of that size,
// both timed by graph replay (the peer's keys are named cudnn_*: both peers are cuDNN, and version 1
// readers know those names). The ceiling is what this device can be made to do, not what hiprim
// does today; its runs are not verified (a ceiling is not a claim: an 8192^3 reference in double
// would cost minutes of CPU).
#include <algorithm>

#include "bench/bench_conv.hpp"
#include "core/error.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/bench_sets.hpp"
#include "gpu/gemm/gemm.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

namespace {
constexpr std::int64_t kGemmCeilingSize = 8192;  // M = N = K
constexpr int kCeilingPeerPlans = 8;              // the peer's first usable plans (heuristic order) timed
}  // namespace

void ConvBench::measure_ceilings(const std::vector<DType>& dtypes) {
#ifdef HIPRIM_WITH_GPU
  void* st = cx.stream.handle();
  const std::int64_t n = kGemmCeilingSize;
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  GraphTimerOptions topt;  // few, long runs
  topt.graph = GraphTimingOptions{3, 3, 3, kCeilingBudgetMs};
  topt.warmup = 1;
  for (DType dt : dtypes) {
    const std::string name(dtype_name(dt));
    if (gemm_.contains(name)) continue;
    json g{{"shape", "M=N=K=" + std::to_string(n)}, {"method", "graph replay (bench/bench_timing.hpp); outputs not verified"}};
    double best = 0;
    try {  // hiprim's own GEMM, row-major A, B, C: its best engine (SIMT; mma for fp16/bf16 where it runs)
      const std::size_t bytes = static_cast<std::size_t>(n * n) * dtype_size(dt);
      gpu::DeviceBuffer a(bytes, "gemm ceiling A"), b(bytes, "gemm ceiling B"), c(bytes, "gemm ceiling C");
      fill_device_bounded(a, dt, 1, 1);
      fill_device_bounded(b, dt, 1, 2);
      gpu::GemmCall call;
      call.shape = gpu::GemmShape{n, n, n, 1};
      call.ab_dtype = call.c_dtype = dt;
      call.a = a.data();
      call.b = b.data();
      call.c = c.data();
      call.a_map = call.b_map = call.c_map = gpu::MatrixMap{gpu::DimMap::plain(n), gpu::DimMap::plain(1), gpu::DimMap::plain(0)};
      call.stream = st;
      std::vector<gpu::GemmEngine> engines{gpu::GemmEngine::simt};
      if (dt != DType::fp32 && gpu::gemm_mma_unavailable().empty()) engines.push_back(gpu::GemmEngine::mma);
      json per_engine = json::object();
      for (gpu::GemmEngine e : engines) {
        call.engine = e;
        const std::string en = e == gpu::GemmEngine::mma ? "mma" : "simt";
        const TimingStats t = combine_repeats({time_graph([&](int) { gpu::gemm(call); }, 1, topt, st, "hiprim gemm() " + en)});
        const double r = flops / (t.median_ms * 1e-3) * 1e-12;
        per_engine[en] = json{{"tflops", r}, {"timing", timing_json(t)}};
        if (r > best) {
          best = r;
          g["hiprim_gemm_tflops"] = r;
          g["hiprim_gemm_engine"] = en;
          g["hiprim_gemm_timing"] = timing_json(t);
          g["source"] = "hiprim gemm() " + en;
        }
      }
      g["hiprim_gemm_engines"] = std::move(per_engine);
    } catch (const std::exception& e) {
      if (best <= 0) g["hiprim_gemm_tflops"] = nullptr;
      g["hiprim_gemm_reason"] = e.what();
    }
    g["cudnn_tflops"] = nullptr;
    if (peer) {
      try {  // the peer's 1x1 convolution: y[p][k] = sum_c x[p][c] w[k][c], a GEMM of the same size
        const ConvProblem p = parse_conv_problem("conv fwd " + name + " nhwc n1 c" + std::to_string(n) + " k" +
                                                 std::to_string(n) + " in64x" + std::to_string(n / 64) + " f1x1");
        g["cudnn_problem"] = to_string(p);
        const TimingSets sets(p, 0, 1);  // one set: each run moves far more than the L2
        const gpu::DeviceBuffer& ws = peer_workspace();
        auto pp = peer->prepare(p, sets.peer(0, ws, st));
        double best_peer = 0;
        int timed = 0;
        json plans = json::array();
        const auto& cands = pp->candidates();
        for (std::size_t i = 0; i < cands.size() && timed < kCeilingPeerPlans; ++i) {
          if (!cands[i].usable || cands[i].transform) continue;
          ++timed;
          const int plan = static_cast<int>(i);
          try {
            const TimingStats t = combine_repeats(
                {time_graph([&](int) { pp->run(plan, sets.peer(0, ws, st)); }, 1, topt, st, "peer plan " + std::to_string(i))});
            const double r = p.flops() / (t.median_ms * 1e-3) * 1e-12;
            plans.push_back(json{{"engine", cands[i].engine}, {"knobs", cands[i].knobs}, {"tflops", r}});
            if (r > best_peer) {
              best_peer = r;
              g["cudnn_algo"] = cands[i].engine + (cands[i].knobs.empty() ? "" : " " + cands[i].knobs);
              g["cudnn_timing"] = timing_json(t);
            }
          } catch (const std::exception& e) {
            plans.push_back(json{{"engine", cands[i].engine}, {"knobs", cands[i].knobs}, {"error", e.what()}});
          }
        }
        g["cudnn_plans"] = std::move(plans);
        g["cudnn_plans_of"] = cands.size();
        if (best_peer > 0) g["cudnn_tflops"] = best_peer;
        if (best_peer > best) {
          best = best_peer;
          g["source"] = std::string(peer_kind_name(cx.o.peer)) + " 1x1 convolution";
        }
      } catch (const std::exception& e) {
        g["cudnn_reason"] = e.what();
      }
    } else if (cx.o.peer != PeerKind::none) {
      g["cudnn_reason"] = peer_reason;
    }
    g["tflops"] = best > 0 ? json(best) : json(nullptr);
    if (best > 0) gemm_tflops_[dt] = best;
    gemm_[name] = std::move(g);
  }
#else
  (void)dtypes;
#endif
}

}  // namespace hiprim::verify
