// Host-side launchers of simt_conv_kernel (igemm_simt_kernel.hpp; include from .hip files only): the
// dispatch from a SimtConvConfig's tile and the operands' vector widths to a kernel instance, used by
// conv.igemm.simt and the batched GEMM (simt_batched_gemm.hpp). grid_z: the K slices of a split launch,
// or the batch count of a batched one.
#pragma once
#include <cstdint>
#include <string>

#include "gpu/conv/igemm_simt_kernel.hpp"
#include "gpu/conv/igemm_simt_plan.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {

template <SimtConvDir D, int BM, int BN, int VWA, int VWB>
void launch_simt_tile(const SimtConvArgs& a, int grid_z, hipStream_t stream, const std::string& context) {
  using Tile = SimtTile<BM, BN>;
  const dim3 grid(static_cast<unsigned>((a.n + BN - 1) / BN), static_cast<unsigned>((a.m + BM - 1) / BM),
                  static_cast<unsigned>(grid_z));
  hipLaunchKernelGGL((simt_conv_kernel<D, Tile, VWA, VWB>), grid, dim3(Tile::threads), 0, stream, a);
  HIPRIM_CHECK_LAUNCH("simt_conv_kernel", context);
}

template <SimtConvDir D, int VWA, int VWB>
void launch_simt_config(const SimtConvArgs& a, const SimtConvConfig& c, int grid_z, hipStream_t stream,
                        const std::string& context) {
  if (c.bm == 128 && c.bn == 128) return launch_simt_tile<D, 128, 128, VWA, VWB>(a, grid_z, stream, context);
  if (c.bm == 128 && c.bn == 64) return launch_simt_tile<D, 128, 64, VWA, VWB>(a, grid_z, stream, context);
  if (c.bm == 64 && c.bn == 128) return launch_simt_tile<D, 64, 128, VWA, VWB>(a, grid_z, stream, context);
  return launch_simt_tile<D, 64, 64, VWA, VWB>(a, grid_z, stream, context);
}

// Vector widths: both 4 or both 1 for the NHWC modes; NCHW also (4, 1) (A = W in vectors, B gathered).
template <SimtConvDir D>
void launch_simt_widths(const SimtConvArgs& a, const SimtConvConfig& c, int grid_z, bool vec_a, bool vec_b,
                        hipStream_t stream, const std::string& context) {
  if (vec_a && vec_b) return launch_simt_config<D, 4, 4>(a, c, grid_z, stream, context);
  if constexpr (D == SimtConvDir::nchw_fwd || D == SimtConvDir::nchw_bwd_data)
    if (vec_a) return launch_simt_config<D, 4, 1>(a, c, grid_z, stream, context);
  return launch_simt_config<D, 1, 1>(a, c, grid_z, stream, context);
}

// out[map.offset(e / n, e % n)] = sum_{s ascending} partial[s * mn + e] (+ bias), e < mn: the
// reduction of a split launch's slices (igemm_simt.hip), fp32, acc = 0 then one addition per slice.
void launch_simt_conv_reduce(const float* partial, long long mn, int n, int splits, const float* bias, float* out,
                             const SimtOutMap& map, hipStream_t stream, const std::string& context);

inline bool simt_aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace hiprim::gpu
