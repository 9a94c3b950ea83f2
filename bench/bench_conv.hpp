// The conv part of the bench (bench/bench_primitive.hpp), shared by bench_conv.cpp (verification,
// the peer, timing sets) and bench_ceilings.cpp (the GEMM ceiling). Internal to bench/.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_peer.hpp"
#include "bench/bench_primitive.hpp"
#include "bench/reference_cache.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

inline constexpr int kConvPrepareAhead = 3;  // problems whose references and fills are made ahead

class ConvBench final : public BenchPrimitive {
 public:
  explicit ConvBench(BenchContext& cx);
  const OpSolverList& solvers() const override { return solvers_; }
  std::size_t prepare_ahead() const override { return kConvPrepareAhead; }
  bool prepares_every_repeat() const override { return false; }  // timing fills its own bounded reals
  bool retimes_by_factor() const override { return true; }
  void expect(const std::vector<SuiteProblem>& suite) override;
  std::unique_ptr<BenchInputs> prepare(const OpProblemPtr& p, int repeat) const override;
  CaseRecord base_record(const OpProblem& p, const OpSolver& s) const override;
  void describe(const OpProblem& p, PerfCaseInput& in) const override;
  std::unique_ptr<BenchCase> start(const OpProblemPtr& p, BenchInputs& inputs) override;
  PeerResult peer_without_case(const std::string& why) const override;
  void measure_ceilings(const std::vector<DType>& dtypes) override;  // bench_ceilings.cpp
  nlohmann::json gemm_ceilings_json() const override { return gemm_; }
  nlohmann::json peer_json() const override;
  void add_settings(nlohmann::json& settings) const override;

  BenchContext& cx;
  std::unique_ptr<ConvPeer> peer;
  std::string peer_reason;
  mutable ReferenceCache cache;
#ifdef HIPRIM_WITH_GPU
  const gpu::DeviceBuffer& peer_workspace() {
    if (!peer_ws_.data()) peer_ws_ = gpu::DeviceBuffer(kPeerWorkspaceBytes, "peer workspace");
    return peer_ws_;
  }
  GraphTimerOptions autotune_timer() const { return peer_autotune_timer(cx.o); }
#endif

 private:
  OpSolverList solvers_;
  nlohmann::json gemm_ = nlohmann::json::object();
  std::map<DType, double> gemm_tflops_;
#ifdef HIPRIM_WITH_GPU
  gpu::DeviceBuffer peer_ws_;
#endif
};

}  // namespace hiprim::verify
