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
// allow_tf32; engines with REDUCED_PRECISION_REDUCTION are left out, and so are DOWN_CONVERT_INPUTS
// engines for fp16/bf16 data (PyTorch's filter does the same). Cross-correlation (what the
// reference computes). Roles as in cudnn_peer.hpp: buffers are in OUR roles (ConvProblem's x, w, y,
// packed strides of its descs); transposed problems are mapped onto the convolution that computes them.
//
// The graph itself is plain data first (cudnn_graph_spec: every tensor's uid, dims, strides and role,
// the convolution's geometry, the pointwise chain), tested on the host; CudnnGraphConv translates
// that spec into backend descriptors (bench/cudnn_graph.cpp) over the dlopen layer
// (bench/cudnn_graph_api.{hpp,cpp}).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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
  // The library alone, without a handle (no device needed): enough for cudnn_graph_validate, refused
  // by CudnnGraphConv. Same search and refusals as open() but for cudnnCreate.
  static std::shared_ptr<CudnnGraphPeer> open_library(const std::string& explicit_path, std::string* why);
  ~CudnnGraphPeer();
  CudnnGraphPeer(const CudnnGraphPeer&) = delete;
  CudnnGraphPeer& operator=(const CudnnGraphPeer&) = delete;

  const std::string& path() const { return path_; }
  long version() const { return version_; }  // cudnnGetVersion(), e.g. 91900
  void* handle() const { return handle_; }  // null when opened by open_library
  struct Api;  // the resolved entry points (cudnn_graph.cpp)
  const Api& api() const { return *api_; }

 private:
  CudnnGraphPeer() = default;
  static std::shared_ptr<CudnnGraphPeer> load(const std::string& explicit_path, bool with_handle, std::string* why);
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

// ---- The graph as data ----
// Unique ids of the graph's tensors (the variant pack binds the non-virtual ones to buffers).
inline constexpr std::int64_t kCudnnUidX = 1, kCudnnUidW = 2, kCudnnUidY = 3, kCudnnUidBias = 4, kCudnnUidZ = 5,
                              kCudnnUidAlpha1 = 6, kCudnnUidVirtualBase = 100;
inline constexpr std::int64_t kCudnnByteAlignment = 16;  // every device pointer run() accepts

// Which of OUR buffers a graph tensor is (virtual: an fp32 intermediate no buffer holds; alpha1: the
// host scalar of the scale node, passed by value).
enum class CudnnGraphRole { x, w, y, bias, z, alpha1, intermediate };
std::string_view cudnn_graph_role_name(CudnnGraphRole r);  // "x", "w", "y", "bias", "z", "alpha1", "virtual"

struct CudnnGraphTensor {
  std::int64_t uid = 0;
  CudnnGraphRole role = CudnnGraphRole::x;
  int data_type = 0;   // cudnnDataType_t: FLOAT 0, HALF 2, BFLOAT16 9
  Dims dims, strides;  // cuDNN's dim order [N, C, (D,) H, W] / [K, C/G, (T,) R, S]; our layout's strides
  bool is_virtual = false;
  bool by_value = false;
};

// The backend operation the convolution node is (after the role swap of transposed problems).
enum class CudnnConvOp { forward, backward_data, backward_filter };
std::string_view cudnn_conv_op_name(CudnnConvOp op);  // "FORWARD", "BACKWARD_DATA", "BACKWARD_FILTER"

// One pointwise node: out = op(in, alpha2 * b) (b = -1: unary).
struct CudnnPointwiseNode {
  std::string name;  // "scale", "add_bias", "add_z", "relu", ...
  int mode = 0;      // cudnnPointwiseMode_t
  std::int64_t in = -1, b = -1, out = -1;  // uids
  double alpha2 = 1.0;
};

struct CudnnGraphSpec {
  CudnnConvOp op = CudnnConvOp::forward;
  bool swapped = false;  // transposed: cuDNN's x is our y, its y our x, the filter keeps its dims
  int compute_type = 0;  // cudnnDataType_t FLOAT: fp32 accumulation
  Dims pre_pad, post_pad, stride, dilation;  // per spatial dim
  // The convolution's tensors in cuDNN's roles y = conv(x, w) (whichever of them the op computes);
  // conv_y is an fp32 virtual tensor when pointwise nodes follow.
  std::int64_t conv_x = 0, conv_w = 0, conv_y = 0;
  std::vector<CudnnGraphTensor> tensors;       // every tensor once, non-virtual ones first
  std::vector<CudnnPointwiseNode> pointwise;   // in order: scale, add_bias, add_z, activation
  const CudnnGraphTensor& tensor(std::int64_t uid) const;  // InputError for an unknown uid
};

// The graph for p (with p.bias folded into the epilogue's bias). no(reason) when the graph API
// cannot express it: the same rules as cudnn_graph_supports.
//   fwd:  x -> X, w -> W, y -> Y;  bwd-data: y -> DY, w -> W, x -> DX;  bwd-weights: x -> X, y -> DY, w -> DW
//   trans: the same with our x and y exchanged, and fwd <-> bwd-data.
// Epilogue (fwd only): t0 = conv (fp32 virtual), t1 = t0 * alpha1 (when alpha1 != 1, a by-value
// scalar), t2 = t1 + bias[1, K, 1, 1], t3 = t2 + alpha2 * z, y = act(t3); every intermediate fp32,
// the last node writes y in the problem's dtype.
Applicability cudnn_graph_spec(const ConvProblem& p, const CudnnGraphEpilogue& ep, CudnnGraphSpec* out);

// Names of cuDNN 9.19's enum values, for plan listings ("TENSOR_CORE", "RUNTIME_COMPILATION",
// "TILE_SIZE"); "NOTE(<n>)" / "KNOB(<n>)" for values this build does not know.
std::string cudnn_numerical_note_name(int note);
std::string cudnn_behavior_note_name(int note);
std::string cudnn_knob_type_name(int knob);

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
  std::string engine_name;  // "engine<id>": the backend API names engines by global index only
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
  std::size_t max_workspace_bytes = 0;  // plans needing more are unusable; 0: no limit
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
  // plan i is not usable, b.workspace_bytes is below its workspace, a buffer the graph binds is null
  // or a device pointer is not kCudnnByteAlignment-aligned. Variant packs are cached per pointer set
  // (the first call with a new set builds one on the host; 256 sets are kept). Not thread-safe.
  // Run each plan once eagerly before capturing it (cuDNN loads its kernels on first use).
  void run(int i, const CudnnGraphBuffers& b) const;
  const ConvProblem& problem() const { return problem_; }
  const CudnnGraphEpilogue& epilogue() const { return epilogue_; }  // as built: p.bias folded into bias
  // The graph as built (epilogue with p.bias folded in).
  const CudnnGraphSpec& spec() const;
  // What the heuristics said beyond the plans, one line each: configs per mode, a mode that failed
  // (with cuDNN's status), duplicates dropped, plans not tried after max_plans.
  const std::vector<std::string>& diagnostics() const;
  // "engine<id> [KNOB=v,..] ws=<bytes>" of plan i: the line a report or a failing test prints.
  std::string plan_label(int i) const;

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

// cuDNN's own check of the graph for p without a device: builds and finalizes every tensor, the
// convolution and each operation node (cuDNN validates their shapes then), but not the operation
// graph, which needs a handle. no(the first refusal: call, attribute, cuDNN's message) or
// no(the static rule) when cudnn_graph_supports refuses.
Applicability cudnn_graph_validate(const CudnnGraphPeer& lib, const ConvProblem& p, const CudnnGraphEpilogue& ep = {});

}  // namespace hiprim::gpu
