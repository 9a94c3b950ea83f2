#include "bench/cudnn_peer.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace hiprim::gpu {

// ---- The few cuDNN 9.19 declarations used (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h) ----
// Handles and descriptors are opaque pointers; enums are passed as int (their C ABI on x86-64).
namespace cudnn_abi {

using Status = int;  // cudnnStatus_t; CUDNN_STATUS_SUCCESS = 0
constexpr Status kSuccess = 0;

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct AlgoPerf {
  int algo;
  Status status;
  float time;  // ms
  std::size_t memory;
  int determinism;  // CUDNN_DETERMINISTIC = 1
  int math_type;
  int reserved[3];
};
static_assert(offsetof(AlgoPerf, memory) == 16 && sizeof(AlgoPerf) == 48, "cudnnConvolution*AlgoPerf_t layout");

// The largest algorithm counts (CUDNN_CONVOLUTION_FWD_ALGO_COUNT 8, BWD_DATA 6, BWD_FILTER 7).
constexpr int kMaxAlgos = 8;

}  // namespace cudnn_abi

using cudnn_abi::AlgoPerf;
using cudnn_abi::kMaxAlgos;
using cudnn_abi::kSuccess;
using cudnn_abi::Status;

struct CudnnSymbols {
  const char* (*GetErrorString)(Status);
  std::size_t (*GetVersion)();
  Status (*Create)(void**);
  Status (*Destroy)(void*);
  Status (*SetStream)(void*, void*);
  Status (*CreateTensorDescriptor)(void**);
  Status (*SetTensorNdDescriptorEx)(void*, int format, int dtype, int nb_dims, const int* dims);
  Status (*DestroyTensorDescriptor)(void*);
  Status (*CreateFilterDescriptor)(void**);
  Status (*SetFilterNdDescriptor)(void*, int dtype, int format, int nb_dims, const int* dims);
  Status (*DestroyFilterDescriptor)(void*);
  Status (*CreateConvolutionDescriptor)(void**);
  Status (*SetConvolutionNdDescriptor)(void*, int length, const int* pad, const int* stride, const int* dilation,
                                       int mode, int compute_type);
  Status (*SetConvolutionGroupCount)(void*, int);
  Status (*SetConvolutionMathType)(void*, int);
  Status (*DestroyConvolutionDescriptor)(void*);
  // (handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requested, *returned, perf, ws, ws_bytes)
  Status (*FindForwardEx)(void*, void*, const void*, void*, const void*, void*, void*, void*, int, int*, AlgoPerf*,
                          void*, std::size_t);
  // (handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requested, *returned, perf, ws, ws_bytes)
  Status (*FindBackwardDataEx)(void*, void*, const void*, void*, const void*, void*, void*, void*, int, int*,
                               AlgoPerf*, void*, std::size_t);
  // (handle, xDesc, x, dyDesc, dy, convDesc, dwDesc, dw, requested, *returned, perf, ws, ws_bytes)
  Status (*FindBackwardFilterEx)(void*, void*, const void*, void*, const void*, void*, void*, void*, int, int*,
                                 AlgoPerf*, void*, std::size_t);
  // (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, ws, ws_bytes, beta, yDesc, y)
  Status (*Forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, std::size_t,
                    const void*, void*, void*);
  // (handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, ws, ws_bytes, beta, dxDesc, dx)
  Status (*BackwardData)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, std::size_t,
                         const void*, void*, void*);
  // (handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, ws, ws_bytes, beta, dwDesc, dw)
  Status (*BackwardFilter)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, std::size_t,
                           const void*, void*, void*);
};

namespace {

// Resolves every entry point; returns the first missing name, or "" when all resolved.
std::string resolve(void* lib, CudnnSymbols& s) {
  auto get = [&](auto& fn, const char* name) -> bool {
    void* p = dlsym(lib, name);
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    return p != nullptr;
  };
  struct Entry {
    bool ok;
    const char* name;
  };
  const Entry entries[] = {
      {get(s.GetErrorString, "cudnnGetErrorString"), "cudnnGetErrorString"},
      {get(s.GetVersion, "cudnnGetVersion"), "cudnnGetVersion"},
      {get(s.Create, "cudnnCreate"), "cudnnCreate"},
      {get(s.Destroy, "cudnnDestroy"), "cudnnDestroy"},
      {get(s.SetStream, "cudnnSetStream"), "cudnnSetStream"},
      {get(s.CreateTensorDescriptor, "cudnnCreateTensorDescriptor"), "cudnnCreateTensorDescriptor"},
      {get(s.SetTensorNdDescriptorEx, "cudnnSetTensorNdDescriptorEx"), "cudnnSetTensorNdDescriptorEx"},
      {get(s.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor"), "cudnnDestroyTensorDescriptor"},
      {get(s.CreateFilterDescriptor, "cudnnCreateFilterDescriptor"), "cudnnCreateFilterDescriptor"},
      {get(s.SetFilterNdDescriptor, "cudnnSetFilterNdDescriptor"), "cudnnSetFilterNdDescriptor"},
      {get(s.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor"), "cudnnDestroyFilterDescriptor"},
      {get(s.CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor"), "cudnnCreateConvolutionDescriptor"},
      {get(s.SetConvolutionNdDescriptor, "cudnnSetConvolutionNdDescriptor"), "cudnnSetConvolutionNdDescriptor"},
      {get(s.SetConvolutionGroupCount, "cudnnSetConvolutionGroupCount"), "cudnnSetConvolutionGroupCount"},
      {get(s.SetConvolutionMathType, "cudnnSetConvolutionMathType"), "cudnnSetConvolutionMathType"},
      {get(s.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor"), "cudnnDestroyConvolutionDescriptor"},
      {get(s.FindForwardEx, "cudnnFindConvolutionForwardAlgorithmEx"), "cudnnFindConvolutionForwardAlgorithmEx"},
      {get(s.FindBackwardDataEx, "cudnnFindConvolutionBackwardDataAlgorithmEx"), "cudnnFindConvolutionBackwardDataAlgorithmEx"},
      {get(s.FindBackwardFilterEx, "cudnnFindConvolutionBackwardFilterAlgorithmEx"),
       "cudnnFindConvolutionBackwardFilterAlgorithmEx"},
      {get(s.Forward, "cudnnConvolutionForward"), "cudnnConvolutionForward"},
      {get(s.BackwardData, "cudnnConvolutionBackwardData"), "cudnnConvolutionBackwardData"},
      {get(s.BackwardFilter, "cudnnConvolutionBackwardFilter"), "cudnnConvolutionBackwardFilter"},
  };
  for (const Entry& e : entries)
    if (!e.ok) return e.name;
  return "";
}

// Throws RuntimeError "<call> failed while <context>: <cuDNN's message> (status N)".
void check(const CudnnSymbols& api, Status st, const char* call, const std::string& context) {
  if (st == kSuccess) return;
  throw RuntimeError(std::string(call) + " failed while " + context + ": " + api.GetErrorString(st) + " (status " +
                     std::to_string(st) + ")");
}


}  // namespace

// ---- Loading ----

std::shared_ptr<CudnnPeer> CudnnPeer::open(const std::string& explicit_path, std::string* why) {
  // cuDNN reads this when it loads: no TF32 in any fp32 path of this process (the harness's rule).
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  std::string reasons;
  for (const std::string& path : cudnn_candidates(explicit_path)) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      reasons += (reasons.empty() ? "" : "; ") + path + ": " + (e ? e : "dlopen failed");
      continue;
    }
    auto api = std::make_unique<CudnnSymbols>();
    if (std::string missing = resolve(lib, *api); !missing.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + path + ": symbol " + missing + " not found";
      continue;  // the library stays mapped; dlclose of a half-used cuDNN is not worth the risk
    }
    void* handle = nullptr;
    if (Status st = api->Create(&handle); st != kSuccess) {
      reasons += (reasons.empty() ? "" : "; ") + path + ": cudnnCreate failed: " + api->GetErrorString(st) +
                 " (status " + std::to_string(st) + ")";
      continue;
    }
    std::shared_ptr<CudnnPeer> peer(new CudnnPeer());
    peer->path_ = path;
    peer->version_ = static_cast<long>(api->GetVersion());
    peer->api_ = std::move(api);
    peer->handle_ = handle;
    return peer;
  }
  if (why) *why = "cuDNN unavailable: " + reasons;
  return nullptr;
}

CudnnPeer::~CudnnPeer() {
  if (handle_ && api_) (void)api_->Destroy(handle_);
}

// ---- One problem ----

CudnnConv::CudnnConv(std::shared_ptr<const CudnnPeer> peer, const ConvProblem& p) : peer_(std::move(peer)), problem_(p) {
  if (auto a = cudnn_conv_desc(p, &desc_); !a) throw InputError(a.reason + " (problem " + to_string(p) + ")");
  const CudnnSymbols& api = peer_->api();
  const std::string ctx = "describing " + to_string(p) + " to cuDNN";
  check(api, api.CreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor", ctx);
  check(api, api.CreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor", ctx);
  check(api, api.CreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor", ctx);
  check(api, api.CreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor", ctx);
  const CudnnConvDesc& d = desc_;
  check(api, api.SetTensorNdDescriptorEx(x_desc_, d.format, d.data_type, static_cast<int>(d.x_dims.size()), d.x_dims.data()),
        "cudnnSetTensorNdDescriptorEx(x)", ctx);
  check(api, api.SetTensorNdDescriptorEx(y_desc_, d.format, d.data_type, static_cast<int>(d.y_dims.size()), d.y_dims.data()),
        "cudnnSetTensorNdDescriptorEx(y)", ctx);
  check(api, api.SetFilterNdDescriptor(w_desc_, d.data_type, d.format, static_cast<int>(d.w_dims.size()), d.w_dims.data()),
        "cudnnSetFilterNdDescriptor", ctx);
  check(api, api.SetConvolutionNdDescriptor(conv_desc_, static_cast<int>(d.pad.size()), d.pad.data(), d.stride.data(),
                                            d.dilation.data(), kCudnnCrossCorrelation, d.compute_type),
        "cudnnSetConvolutionNdDescriptor", ctx);
  check(api, api.SetConvolutionGroupCount(conv_desc_, d.groups), "cudnnSetConvolutionGroupCount", ctx);
  check(api, api.SetConvolutionMathType(conv_desc_, d.math_type), "cudnnSetConvolutionMathType", ctx);
}

CudnnConv::~CudnnConv() {
  const CudnnSymbols& api = peer_->api();
  if (conv_desc_) (void)api.DestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_) (void)api.DestroyFilterDescriptor(w_desc_);
  if (y_desc_) (void)api.DestroyTensorDescriptor(y_desc_);
  if (x_desc_) (void)api.DestroyTensorDescriptor(x_desc_);
}

const CudnnChoice& CudnnConv::find(const CudnnBuffers& b) {
  const CudnnSymbols& api = peer_->api();
  const std::string ctx = "finding cuDNN's algorithm for " + to_string(problem_);
  check(api, api.SetStream(peer_->handle(), b.stream), "cudnnSetStream", ctx);
  check(api, api.SetConvolutionMathType(conv_desc_, desc_.math_type), "cudnnSetConvolutionMathType", ctx);
  void* cx = desc_.swapped ? b.y : b.x;  // cuDNN's x and y (see CudnnConvDesc)
  void* cy = desc_.swapped ? b.x : b.y;
  AlgoPerf perf[kMaxAlgos] = {};
  int returned = 0;
  void* h = peer_->handle();
  switch (desc_.call) {
    case CudnnCall::forward:
      check(api, api.FindForwardEx(h, x_desc_, cx, w_desc_, b.w, conv_desc_, y_desc_, cy, kMaxAlgos, &returned, perf,
                                   b.workspace, b.workspace_bytes),
            "cudnnFindConvolutionForwardAlgorithmEx", ctx);
      break;
    case CudnnCall::backward_data:
      check(api, api.FindBackwardDataEx(h, w_desc_, b.w, y_desc_, cy, conv_desc_, x_desc_, cx, kMaxAlgos, &returned,
                                        perf, b.workspace, b.workspace_bytes),
            "cudnnFindConvolutionBackwardDataAlgorithmEx", ctx);
      break;
    case CudnnCall::backward_filter:
      check(api, api.FindBackwardFilterEx(h, x_desc_, cx, y_desc_, cy, conv_desc_, w_desc_, b.w, kMaxAlgos, &returned,
                                          perf, b.workspace, b.workspace_bytes),
            "cudnnFindConvolutionBackwardFilterAlgorithmEx", ctx);
      break;
  }
  // Results come sorted by time, fastest first.
  std::string refused;
  for (int i = 0; i < returned && i < kMaxAlgos; ++i) {
    const AlgoPerf& r = perf[i];
    if (r.status != kSuccess || r.memory > b.workspace_bytes) continue;
    if (!cudnn_math_allowed(problem_.dtype, r.math_type)) {
      refused.append(" ").append(cudnn_algo_name(desc_.call, r.algo)).append("/").append(cudnn_math_name(r.math_type));
      continue;
    }
    choice_ = CudnnChoice{r.algo,
                          cudnn_algo_name(desc_.call, r.algo),
                          cudnn_math_name(r.math_type),
                          r.math_type,
                          r.memory,
                          r.time,
                          cudnn_algo_is_transform(desc_.call, r.algo),
                          r.determinism == 1,
                          returned};
    check(api, api.SetConvolutionMathType(conv_desc_, r.math_type), "cudnnSetConvolutionMathType", ctx);
    return choice_;
  }
  throw RuntimeError("cuDNN's find returned no usable algorithm for " + to_string(problem_) + " (" +
                     std::to_string(returned) + " results" + (refused.empty() ? "" : "; refused math:" + refused) + ")");
}

void CudnnConv::run(const CudnnBuffers& b) const {
  if (choice_.algo < 0) throw RuntimeError("CudnnConv::run before find() for " + to_string(problem_));
  const CudnnSymbols& api = peer_->api();
  const std::string ctx = "running cuDNN " + choice_.algo_name + " on " + to_string(problem_);
  check(api, api.SetStream(peer_->handle(), b.stream), "cudnnSetStream", ctx);
  const float alpha = 1.0f, beta = 0.0f;  // float scalars for float, half and bfloat16 data
  void* cx = desc_.swapped ? b.y : b.x;
  void* cy = desc_.swapped ? b.x : b.y;
  void* h = peer_->handle();
  switch (desc_.call) {
    case CudnnCall::forward:
      check(api, api.Forward(h, &alpha, x_desc_, cx, w_desc_, b.w, conv_desc_, choice_.algo, b.workspace,
                             b.workspace_bytes, &beta, y_desc_, cy),
            "cudnnConvolutionForward", ctx);
      break;
    case CudnnCall::backward_data:
      check(api, api.BackwardData(h, &alpha, w_desc_, b.w, y_desc_, cy, conv_desc_, choice_.algo, b.workspace,
                                  b.workspace_bytes, &beta, x_desc_, cx),
            "cudnnConvolutionBackwardData", ctx);
      break;
    case CudnnCall::backward_filter:
      check(api, api.BackwardFilter(h, &alpha, x_desc_, cx, y_desc_, cy, conv_desc_, choice_.algo, b.workspace,
                                    b.workspace_bytes, &beta, w_desc_, b.w),
            "cudnnConvolutionBackwardFilter", ctx);
      break;
  }
}

}  // namespace hiprim::gpu
