// cuDNN as a peer of the bench: loaded at run time with dlopen (the build neither includes cudnn.h nor
// links cuDNN), used through its legacy convolution API (cuDNN 9 keeps it in libcudnn_cnn; the
// prototypes and enum values are declared in cudnn_peer.cpp from the cuDNN 9.19 headers).
//
// Numerics asked of cuDNN: compute type CUDNN_DATA_FLOAT (fp32 accumulation) for every dtype; fp32
// data with CUDNN_FMA_MATH (plain fp32 FMA kernels, no TF32; the process also sets
// NVIDIA_TF32_OVERRIDE=0 before loading cuDNN), fp16/bf16 data with CUDNN_TENSOR_OP_MATH.
// Cross-correlation, which is what the reference computes.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bench/cudnn_mapping.hpp"
#include "core/conv_solver.hpp"

namespace hiprim::gpu {

struct CudnnSymbols;  // the resolved entry points (cudnn_peer.cpp)

// A loaded cuDNN with one handle. The library stays loaded for the life of the process.
class CudnnPeer {
 public:
  // Loads the first candidate that opens and resolves every entry point, and creates a handle.
  // Returns null and sets *why (each candidate and what failed) when cuDNN cannot be used; never throws.
  static std::shared_ptr<CudnnPeer> open(const std::string& explicit_path, std::string* why);
  ~CudnnPeer();
  CudnnPeer(const CudnnPeer&) = delete;
  CudnnPeer& operator=(const CudnnPeer&) = delete;

  const std::string& path() const { return path_; }
  long version() const { return version_; }  // cudnnGetVersion(), e.g. 91900
  const CudnnSymbols& api() const { return *api_; }
  void* handle() const { return handle_; }

 private:
  CudnnPeer() = default;
  std::string path_;
  long version_ = 0;
  std::unique_ptr<CudnnSymbols> api_;
  void* handle_ = nullptr;
};

// Device buffers in OUR roles (ConvProblem's x, w, y with its packed strides).
struct CudnnBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  // hipStream_t
};

// What cuDNN's find chose.
struct CudnnChoice {
  int algo = -1;
  std::string algo_name, math_name;
  int math_type = 0;
  std::size_t workspace_bytes = 0;
  double find_ms = 0;  // cuDNN's own time of the algorithm during find
  bool transform = false;
  bool deterministic = false;
  int candidates = 0;  // results find returned
};

// One problem on cuDNN: its descriptors and the algorithm its find mode chose.
class CudnnConv {
 public:
  // InputError when cudnn_conv_desc refuses p; RuntimeError when a descriptor call fails.
  CudnnConv(std::shared_ptr<const CudnnPeer> peer, const ConvProblem& p);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // cudnnFind*AlgorithmEx on b (overwrites the output role; synchronous): keeps the fastest result
  // that succeeded with an allowed math type and fits b.workspace_bytes. RuntimeError when none did.
  const CudnnChoice& find(const CudnnBuffers& b);
  // One run of the chosen algorithm (output = conv, beta 0), asynchronous on b.stream.
  void run(const CudnnBuffers& b) const;
  const CudnnChoice& choice() const { return choice_; }
  const CudnnConvDesc& desc() const { return desc_; }

 private:
  std::shared_ptr<const CudnnPeer> peer_;
  ConvProblem problem_;
  CudnnConvDesc desc_;
  void* x_desc_ = nullptr;
  void* y_desc_ = nullptr;
  void* w_desc_ = nullptr;
  void* conv_desc_ = nullptr;
  CudnnChoice choice_;
};

}  // namespace hiprim::gpu
