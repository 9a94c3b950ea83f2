// The emulated SIMT GEMM's entry point (tests/gpu/emu/emu_gemm_tiled.cpp). Plain types only: that
// file's hiprim::gpu is hiprim::gpu_emu, so gemm_index.hpp's types differ between the two sides.
#pragma once
#include <cstdint>

namespace hiprim::gpu_emu {

struct EmuDimMap {  // gpu::DimMap
  std::int64_t inner_stride = 0, outer_stride = 0;
  std::int32_t inner_extent = 0;
};
struct EmuMatrixMap {  // gpu::MatrixMap
  EmuDimMap rows, cols, batch;
};
struct EmuGemmShape {  // gpu::GemmShape
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
};
// C = A x B per batch through launch_gemm_split_k<float, GemmTileDefault> with a StoreEpilogue<float>
// into out (out_map); partial holds split_k_workspace_bytes(s, splits) bytes when splits > 1.
void emu_gemm_simt_f32(const EmuGemmShape& s, std::int64_t splits, const float* a, const EmuMatrixMap& a_map,
                       const float* b, const EmuMatrixMap& b_map, float* out, const EmuMatrixMap& out_map, float* partial);

}  // namespace hiprim::gpu_emu
