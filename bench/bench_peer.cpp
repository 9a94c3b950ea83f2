// The two cuDNN peers behind ConvPeer (bench/bench_peer.hpp). GPU builds only.
#include "bench/bench_peer.hpp"

#include <chrono>

#include "bench/cudnn_graph.hpp"
#include "bench/cudnn_peer.hpp"
#include "core/error.hpp"

namespace hiprim::verify {

using nlohmann::json;

std::vector<PeerCandidate> graph_candidates(const gpu::CudnnGraphConv& g) {
  std::vector<PeerCandidate> out;
  for (const gpu::CudnnPlanInfo& plan : g.plans()) {
    PeerCandidate c;
    c.engine = plan.engine_name.empty() ? "engine" + std::to_string(plan.engine_id) : plan.engine_name;
    c.knobs = plan.knobs;
    c.source = plan.source;
    c.numerical_notes = plan.numerical_notes;
    c.behavior_notes = plan.behavior_notes;
    c.workspace_bytes = plan.workspace_bytes;
    c.usable = plan.usable;
    c.reason = plan.reason;
    c.transform = plan.transform;
    c.deterministic = plan.deterministic;
    out.push_back(std::move(c));
  }
  return out;
}

json graph_peer_json(const gpu::CudnnGraphPeer& peer, const std::string& api, const std::string& check, int max_plans) {
  return json{{"name", "cudnn"},
              {"api", api},
              {"available", true},
              {"library", peer.path()},
              {"version", peer.version()},
              {"reason", ""},
              {"math", "compute type FLOAT (fp32 accumulation); fp32 data: no engine with the TENSOR_CORE or "
                       "DOWN_CONVERT_INPUTS notes (no TF32) unless the problem says math=tf32 (then judged with TF32 inputs); "
                       "no REDUCED_PRECISION_REDUCTION engines"},
              {"selection", "autotuned: every usable plan (at most max_plans, heuristic order) verified and timed by graph "
                            "replay, the fastest that passed"},
              {"max_plans", max_plans},
              {"check", check}};
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---- The graph (backend) API: one candidate per execution plan ----

class GraphProblem final : public PeerProblem {
 public:
  GraphProblem(std::shared_ptr<const gpu::CudnnGraphPeer> peer, const ConvProblem& p, int max_plans) {
    const auto t0 = std::chrono::steady_clock::now();
    gpu::CudnnGraphEpilogue ep;
    ep.bias = p.bias;
    gpu::CudnnGraphOptions go;
    go.max_plans = max_plans;
    go.allow_tf32 = p.math == ConvMath::tf32;  // the problem opts in: TENSOR_CORE / DOWN_CONVERT_INPUTS engines allowed
    conv_ = std::make_unique<gpu::CudnnGraphConv>(std::move(peer), p, ep, go);
    candidates_ = graph_candidates(*conv_);
    setup_ms_ = ms_since(t0);
  }
  const std::vector<PeerCandidate>& candidates() const override { return candidates_; }
  void run(int i, const PeerBuffers& b) const override {
    conv_->run(i, gpu::CudnnGraphBuffers{b.x, b.w, b.y, b.bias, nullptr, b.workspace, b.workspace_bytes, b.stream});
  }
  double setup_ms() const override { return setup_ms_; }

 private:
  std::unique_ptr<gpu::CudnnGraphConv> conv_;
  std::vector<PeerCandidate> candidates_;
  double setup_ms_ = 0;
};

class GraphPeer final : public ConvPeer {
 public:
  GraphPeer(std::shared_ptr<gpu::CudnnGraphPeer> p, int max_plans) : peer_(std::move(p)), max_plans_(max_plans) {}
  PeerKind kind() const override { return PeerKind::cudnn; }
  json describe() const override {
    return graph_peer_json(*peer_,
                           "graph (backend) API: operation graph per direction, engine configs from heuristics mode A then "
                           "fallback, one execution plan each (bench/cudnn_graph.hpp)",
                           "same comparator as hiprim's solvers; algorithm_factor 2 for fp16/bf16 data (tensor cores, whose "
                           "adders may truncate, verify/compare.cpp), 1 for fp32; FFT/Winograd plans: reported, bound not applicable",
                           max_plans_);
  }
  Applicability supports(const ConvProblem& p) const override {
    gpu::CudnnGraphEpilogue ep;
    ep.bias = p.bias;
    return gpu::cudnn_graph_supports(p, ep);
  }
  std::unique_ptr<PeerProblem> prepare(const ConvProblem& p, const PeerBuffers&) const override {
    return std::make_unique<GraphProblem>(peer_, p, max_plans_);
  }

 private:
  std::shared_ptr<gpu::CudnnGraphPeer> peer_;
  int max_plans_;
};

// ---- The legacy API: find's choice is the only candidate ----

class LegacyProblem final : public PeerProblem {
 public:
  LegacyProblem(std::shared_ptr<const gpu::CudnnPeer> peer, const ConvProblem& p, const PeerBuffers& scratch)
      : conv_(std::move(peer), p) {
    const auto t0 = std::chrono::steady_clock::now();
    const gpu::CudnnChoice& ch =
        conv_.find(gpu::CudnnBuffers{scratch.x, scratch.w, scratch.y, scratch.workspace, scratch.workspace_bytes, scratch.stream});
    setup_ms_ = ms_since(t0);
    PeerCandidate c;
    c.engine = ch.algo_name;
    c.knobs = ch.math_name;
    c.source = "cudnnFind*AlgorithmEx (fastest of " + std::to_string(ch.candidates) + " results by cuDNN's own timing)";
    if (ch.transform) c.numerical_notes.push_back(c.engine.find("FFT") != std::string::npos ? "FFT" : "WINOGRAD");
    if (!ch.deterministic) c.numerical_notes.push_back("NONDETERMINISTIC");
    c.workspace_bytes = ch.workspace_bytes;
    c.usable = true;
    c.transform = ch.transform;
    c.deterministic = ch.deterministic;
    candidates_.push_back(std::move(c));
  }
  const std::vector<PeerCandidate>& candidates() const override { return candidates_; }
  void run(int i, const PeerBuffers& b) const override {
    if (i != 0) throw InputError("legacy cuDNN peer: candidate " + std::to_string(i) + " does not exist (find chose one)");
    conv_.run(gpu::CudnnBuffers{b.x, b.w, b.y, b.workspace, b.workspace_bytes, b.stream});
  }
  double setup_ms() const override { return setup_ms_; }

 private:
  gpu::CudnnConv conv_;
  std::vector<PeerCandidate> candidates_;
  double setup_ms_ = 0;
};

class LegacyPeer final : public ConvPeer {
 public:
  explicit LegacyPeer(std::shared_ptr<gpu::CudnnPeer> p) : peer_(std::move(p)) {}
  PeerKind kind() const override { return PeerKind::cudnn_legacy; }
  json describe() const override {
    return json{{"name", "cudnn-legacy"},
                {"api", "legacy calls (cudnnFind*AlgorithmEx, cudnnConvolutionForward/BackwardData/BackwardFilter)"},
                {"available", true},
                {"library", peer_->path()},
                {"version", peer_->version()},
                {"reason", ""},
                {"math", "compute type FLOAT (fp32 accumulation); fp32 data: FMA_MATH, no TF32 (NVIDIA_TF32_OVERRIDE=0 is "
                         "set before loading); fp16/bf16 data: TENSOR_OP_MATH"},
                {"selection", "cudnnFind*AlgorithmEx on the bench's buffers, fastest result with an allowed math type"},
                {"check", "same comparator as hiprim's solvers; algorithm_factor 2 for fp16/bf16 data, 1 for fp32; "
                          "FFT/Winograd results: reported, bound not applicable"}};
  }
  Applicability supports(const ConvProblem& p) const override {
    gpu::CudnnConvDesc d;
    return gpu::cudnn_conv_desc(p, &d);
  }
  std::unique_ptr<PeerProblem> prepare(const ConvProblem& p, const PeerBuffers& scratch) const override {
    return std::make_unique<LegacyProblem>(peer_, p, scratch);
  }

 private:
  std::shared_ptr<gpu::CudnnPeer> peer_;
};

}  // namespace

std::unique_ptr<ConvPeer> open_conv_peer(PeerKind k, const std::string& lib, std::string* why, int max_plans) {
  switch (k) {
    case PeerKind::none:
      if (why) *why = "--peer none";
      return nullptr;
    case PeerKind::cudnn: {
      auto p = gpu::CudnnGraphPeer::open(lib, why);
      return p ? std::make_unique<GraphPeer>(std::move(p), max_plans) : nullptr;
    }
    case PeerKind::cudnn_legacy: {
      auto p = gpu::CudnnPeer::open(lib, why);
      return p ? std::make_unique<LegacyPeer>(std::move(p)) : nullptr;
    }
  }
  if (why) *why = "unknown peer kind";
  return nullptr;
}

}  // namespace hiprim::verify
