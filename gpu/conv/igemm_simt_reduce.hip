// The reduction of a split simt_conv_kernel launch (igemm_simt_kernel.hpp): conv.igemm.simt's K
// slices and the batched GEMM's (simt_batched_gemm.hpp) slices of the tile sum.
#include <string>

#include "gpu/conv/igemm_simt_launch.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

// out[map.offset(e / n, e % n)] = sum_{s ascending} partial[s][e] (+ the bias of the row (NCHW) or
// column), e over [0, mn); grid-stride.
__global__ void __launch_bounds__(256) simt_conv_reduce_kernel(const float* __restrict__ partial, long long mn, int n,
                                                                int splits, const float* __restrict__ bias,
                                                                float* __restrict__ out, SimtOutMap map) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < mn; e += step) {
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += partial[s * mn + e];
    const long long m = e / n, col = e - m * n;
    out[map.offset(m, static_cast<int>(col), n)] = bias ? acc + bias[map.cols_pq ? m : col] : acc;
  }
}

}  // namespace

void launch_simt_conv_reduce(const float* partial, long long mn, int n, int splits, const float* bias, float* out,
                             const SimtOutMap& map, hipStream_t stream, const std::string& context) {
  hipLaunchKernelGGL(simt_conv_reduce_kernel, dim3(grid_stride_blocks(mn, 256, 2048)), dim3(256), 0, stream, partial, mn, n,
                     splits, bias, out, map);
  HIPRIM_CHECK_LAUNCH("simt_conv_reduce_kernel", context);
}

}  // namespace hiprim::gpu
