// The cuDNN legacy peer's pure part: how a ConvProblem maps onto cuDNN's legacy convolution
// descriptors, the names of its algorithms and math types, and which library paths the loader tries.
// Host-only (no cuDNN, no CUDA): built and tested in every configuration, CPU-only ones included.
// The runtime part (dlopen, handle, find, run) is bench/cudnn_peer.hpp.
#pragma once
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"

namespace hiprim::gpu {

// cuDNN 9.19 enum values (cudnn_graph.h: cudnnDataType_t, cudnnMathType_t, cudnnTensorFormat_t,
// cudnnConvolutionMode_t).
inline constexpr int kCudnnDataFloat = 0, kCudnnDataHalf = 2, kCudnnDataBfloat16 = 9;
inline constexpr int kCudnnDefaultMath = 0, kCudnnTensorOpMath = 1, kCudnnTensorOpMathAllowConversion = 2,
                     kCudnnFmaMath = 3;
inline constexpr int kCudnnTensorNchw = 0, kCudnnTensorNhwc = 1;
inline constexpr int kCudnnCrossCorrelation = 1;

// The cuDNN call that computes a direction (after the role swap of transposed problems).
enum class CudnnCall { forward, backward_data, backward_filter };

// A problem as cuDNN's descriptors. cuDNN's x, w, y are the tensors of ITS convolution
// y = conv(x, w): for mode conv those are ours; a transposed problem is the convolution that maps our
// y back to our x, so cuDNN's x is our y, cuDNN's y is our x (swapped), and the filter [C, K/G, f] is
// that convolution's [K', C'/G, f]. Then fwd -> backward_data, bwd-data -> forward, bwd-weights ->
// backward_filter (the same sum of terms x*w*y).
struct CudnnConvDesc {
  CudnnCall call = CudnnCall::forward;
  int data_type = kCudnnDataFloat;
  int compute_type = kCudnnDataFloat;
  int math_type = kCudnnFmaMath;
  int format = kCudnnTensorNchw;  // of x, y and the filter (NHWC filter = [K, (T,) R, S, C/G] in memory)
  std::vector<int> x_dims, w_dims, y_dims;  // cuDNN order [N, C, (D,) H, W] and [K, C/G, (T,) R, S]
  std::vector<int> pad, stride, dilation;
  int groups = 1;
  bool swapped = false;
};

// The mapping; no(reason) when the legacy API cannot express p: a bias (its calls add none), a
// transposed problem whose output padding reaches the stride, a size beyond int.
Applicability cudnn_conv_desc(const ConvProblem& p, CudnnConvDesc* out);

std::string cudnn_algo_name(CudnnCall call, int algo);  // "IMPLICIT_PRECOMP_GEMM", "ALGO_1", ...
// FFT and Winograd algorithms transform the data; their rounding error is not the direct sum's.
bool cudnn_algo_is_transform(CudnnCall call, int algo);
std::string cudnn_math_name(int math_type);  // "DEFAULT_MATH", "TENSOR_OP_MATH", "FMA_MATH", ...
// Whether a find result's math type may be used for this dtype (fp32: no tensor-op math).
bool cudnn_math_allowed(DType dtype, int math_type);

// Library paths tried in order: explicit_path alone when non-empty; else $HIPRIM_CUDNN_LIB when set,
// then the plain soname "libcudnn.so.9" (the dynamic loader's search path).
std::vector<std::string> cudnn_candidates(const std::string& explicit_path);

}  // namespace hiprim::gpu
