#include "bench/cudnn_mapping.hpp"

#include <climits>
#include <cstdlib>
#include <string>

namespace hiprim::gpu {

namespace {
bool fits_int(std::int64_t v) { return v >= 0 && v <= INT_MAX; }
}  // namespace

// ---- Mapping ----

Applicability cudnn_conv_desc(const ConvProblem& p, CudnnConvDesc* out) {
  if (!p.valid()) return Applicability::no("invalid problem: " + p.validate().front());
  if (p.bias) return Applicability::no("cuDNN peer: a bias is not mapped (the legacy convolution calls add none)");
  CudnnConvDesc d;
  d.swapped = p.mode == ConvMode::trans;
  if (d.swapped)
    for (std::size_t i = 0; i < p.out_pad.size(); ++i)
      if (p.out_pad[i] >= p.stride[i])
        return Applicability::no("cuDNN peer: output padding " + std::to_string(p.out_pad[i]) + " >= stride " +
                                 std::to_string(p.stride[i]) + " is not expressible as a convolution's input size");
  d.data_type = p.dtype == DType::fp32 ? kCudnnDataFloat : p.dtype == DType::fp16 ? kCudnnDataHalf : kCudnnDataBfloat16;
  d.compute_type = kCudnnDataFloat;
  d.math_type = p.dtype == DType::fp32 ? kCudnnFmaMath : kCudnnTensorOpMath;
  d.format = p.channels_last ? kCudnnTensorNhwc : kCudnnTensorNchw;
  d.groups = static_cast<int>(p.groups);
  switch (p.dir) {
    case ConvDir::fwd: d.call = d.swapped ? CudnnCall::backward_data : CudnnCall::forward; break;
    case ConvDir::bwd_data: d.call = d.swapped ? CudnnCall::forward : CudnnCall::backward_data; break;
    case ConvDir::bwd_weights: d.call = CudnnCall::backward_filter; break;
  }
  // Logical dims are already cuDNN's order; the swap only exchanges which tensor is x and which y.
  const Dims ours_x = p.x_desc().dims, ours_y = p.y_desc().dims, ours_w = p.w_desc().dims;
  const Dims& cx = d.swapped ? ours_y : ours_x;
  const Dims& cy = d.swapped ? ours_x : ours_y;
  auto to_int = [](const Dims& v, std::vector<int>& o) {
    for (auto e : v) {
      if (!fits_int(e)) return false;
      o.push_back(static_cast<int>(e));
    }
    return true;
  };
  if (!to_int(cx, d.x_dims) || !to_int(cy, d.y_dims) || !to_int(ours_w, d.w_dims) || !to_int(p.pad, d.pad) ||
      !to_int(p.stride, d.stride) || !to_int(p.dilation, d.dilation) || !fits_int(p.groups))
    return Applicability::no("cuDNN peer: a size does not fit cuDNN's int");
  *out = std::move(d);
  return Applicability::yes();
}

std::string cudnn_algo_name(CudnnCall call, int algo) {
  static const char* fwd[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                              "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char* bwd_data[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char* bwd_filter[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  auto pick = [&](const char* const* names, int n) {
    return algo >= 0 && algo < n ? std::string(names[algo]) : "ALGO(" + std::to_string(algo) + ")";
  };
  switch (call) {
    case CudnnCall::forward: return pick(fwd, 8);
    case CudnnCall::backward_data: return pick(bwd_data, 6);
    case CudnnCall::backward_filter: return pick(bwd_filter, 7);
  }
  return "ALGO(" + std::to_string(algo) + ")";
}

bool cudnn_algo_is_transform(CudnnCall call, int algo) {
  const std::string n = cudnn_algo_name(call, algo);
  return n.find("FFT") != std::string::npos || n.find("WINOGRAD") != std::string::npos;
}

std::string cudnn_math_name(int m) {
  switch (m) {
    case kCudnnDefaultMath: return "DEFAULT_MATH";
    case kCudnnTensorOpMath: return "TENSOR_OP_MATH";
    case kCudnnTensorOpMathAllowConversion: return "TENSOR_OP_MATH_ALLOW_CONVERSION";
    case kCudnnFmaMath: return "FMA_MATH";
  }
  return "MATH(" + std::to_string(m) + ")";
}

bool cudnn_math_allowed(DType dtype, int m) {
  if (m == kCudnnTensorOpMathAllowConversion) return false;  // may round fp32 data to 16 bits
  return dtype != DType::fp32 || m != kCudnnTensorOpMath;    // fp32: no TF32 tensor cores
}

std::vector<std::string> cudnn_candidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {explicit_path};
  std::vector<std::string> c;
  if (const char* env = std::getenv("HIPRIM_CUDNN_LIB"); env && *env) c.emplace_back(env);
  c.emplace_back("libcudnn.so.9");
  return c;
}

}  // namespace hiprim::gpu
