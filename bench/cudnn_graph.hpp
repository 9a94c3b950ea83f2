// cuDNN's graph (backend) API as the bench's peer: the path PyTorch takes (cudnn_graph.h /
// cudnn_backend.h semantics, loaded at run time from libcudnn.so.9 with dlopen; the build neither
// includes cuDNN's headers nor links it).
//
// One CudnnGraphConv is one problem: an operation graph (convolution forward, backward data or
// backward filter; optionally followed by pointwise bias / residual add / activation nodes for fwd),
// the engine configs cuDNN's heuristics return (mode A, then the fallback list, duplicates removed),
// each finalized into an execution plan. Plans that fail to finalize are kept in the list with the
// reason, so a report can say what was tried. The bench times every usable plan on its own buffers
// (graph replay, bench/bench_timing.hpp), checks each output with the comparator and selects the
// fastest that passes: what torch.backends.cudnn.benchmark does, with verification added.
//
// Numerics asked of cuDNN: compute type FLOAT (fp32 accumulation) for every dtype; for fp32 data
// only engines without the TENSOR_CORE / DOWN_CONVERT_INPUTS numerical notes (no TF32) unless
// allow_tf32; engines with REDUCED_PRECISION_REDUCTION are left out. Cross-correlation (what the
// reference computes). Roles as in cudnn_peer.hpp: buffers are in OUR roles (ConvProblem's x, w, y,
// packed strides of its descs); transposed problems are mapped onto the convolution that computes them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"

namespace hiprim::gpu {

// A loaded cuDNN with one handle, for the graph API. The library stays loaded for the process.
class CudnnGraphPeer {
 public:
  // Tries explicit_path alone when non-empty, else $HIPRIM_CUDNN_LIB, then "libcudnn.so.9".
  // Returns null and sets *why when cuDNN cannot be used (each candidate and what failed); never throws.
  static std::shared_ptr<CudnnGraphPeer> open(const std::string& explicit_path, std::string* why);
  ~CudnnGraphPeer();
  CudnnGraphPeer(const CudnnGraphPeer&) = delete;
  CudnnGraphPeer& operator=(const CudnnGraphPeer&) = delete;

  const std::string& path() const { return path_; }
  long version() const { return version_; }  // cudnnGetVersion(), e.g. 91900
  void* handle() const { return handle_; }
  struct Api;  // the resolved entry points (cudnn_graph.cpp)
  const Api& api() const { return *api_; }

 private:
  CudnnGraphPeer() = default;
  std::string path_;
  long version_ = 0;
  std::unique_ptr<Api> api_;
  void* handle_ = nullptr;
};

// Pointwise ops after a forward convolution (the fused graphs; the fusion work's peer):
//   y = act( alpha1 * conv(x, w) + bias[k] + alpha2 * z )   with z a tensor of y's shape.
enum class CudnnActivation { none, relu, tanh, sigmoid, elu, gelu, swish };
struct CudnnGraphEpilogue {
  bool bias = false;  // bias [1, K, 1, 1] in the problem's dtype
  bool add = false;   // residual z, y's desc
  double alpha1 = 1.0, alpha2 = 1.0;
  CudnnActivation activation = CudnnActivation::none;
  bool any() const { return bias || add || activation != CudnnActivation::none; }
};

// Device buffers in OUR roles.
struct CudnnGraphBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  const void* bias = nullptr;  // epilogue.bias
  const void* z = nullptr;     // epilogue.add
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  // hipStream_t / cudaStream_t
};

// One execution plan: which engine and knobs, as cuDNN names them.
struct CudnnPlanInfo {
  std::int64_t engine_id = -1;
  std::string engine_name;  // cuDNN 9's engine name when the backend reports one, else "engine<id>"
  std::string knobs;        // "TILE=..,SPLIT_K=.." (knob type names and values), empty when none
  std::string source;       // "heuristics_a" or "fallback"
  std::vector<std::string> numerical_notes;  // e.g. "TENSOR_CORE", "FFT", "WINOGRAD", "NONDETERMINISTIC"
  std::vector<std::string> behavior_notes;   // e.g. "RUNTIME_COMPILATION"
  std::size_t workspace_bytes = 0;
  bool usable = false;  // finalized and allowed by the numerics rule above
  std::string reason;   // why not usable
  bool transform = false;  // FFT or Winograd: the direct-sum error bound does not apply
  bool deterministic = true;
};

struct CudnnGraphOptions {
  bool allow_tf32 = false;
  int max_plans = 24;  // usable plans kept, in heuristic order (autotuning time is device time)
};

class CudnnGraphConv {
 public:
  // InputError when the graph API cannot express p (with the reason: e.g. a transposed problem with
  // output padding, sizes beyond int64 strides); RuntimeError naming the backend call that failed
  // (descriptor, attribute and status string) when building the operation graph fails.
  CudnnGraphConv(std::shared_ptr<const CudnnGraphPeer> peer, const ConvProblem& p, const CudnnGraphEpilogue& ep = {},
                 const CudnnGraphOptions& o = {});
  ~CudnnGraphConv();
  CudnnGraphConv(const CudnnGraphConv&) = delete;
  CudnnGraphConv& operator=(const CudnnGraphConv&) = delete;

  const std::vector<CudnnPlanInfo>& plans() const { return plans_; }
  // Runs plan i once (cudnnBackendExecute with a variant pack of b's pointers; asynchronous on
  // b.stream; no host synchronisation, no allocation: capturable into a CUDA graph). InputError when
  // plan i is not usable or b.workspace_bytes is below its workspace.
  void run(int i, const CudnnGraphBuffers& b) const;
  const ConvProblem& problem() const { return problem_; }
  const CudnnGraphEpilogue& epilogue() const { return epilogue_; }

 private:
  struct Impl;
  std::shared_ptr<const CudnnGraphPeer> peer_;
  ConvProblem problem_;
  CudnnGraphEpilogue epilogue_;
  std::vector<CudnnPlanInfo> plans_;
  std::unique_ptr<Impl> impl_;
};

// Whether the graph API peer can express p at all (same rule the constructor applies), with the reason.
Applicability cudnn_graph_supports(const ConvProblem& p, const CudnnGraphEpilogue& ep = {});

}  // namespace hiprim::gpu
