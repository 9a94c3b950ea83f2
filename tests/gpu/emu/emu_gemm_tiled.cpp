// The SIMT tiled GEMM (gpu/gemm/gemm_tile.hpp) compiled for the host emulation
// (tests/gpu/emu/gpu/runtime/hip_compat.hpp): fp32 operands through the default tile, both thread
// orientations.
#include "gpu/gemm/gemm_tile.hpp"

#include "tests/gpu/emu/emu_gemm_tiled.hpp"

namespace hiprim::gpu {  // hiprim::gpu_emu in this build (-Dgpu=gpu_emu)
namespace {
DimMap dim_of(const EmuDimMap& d) { return DimMap{d.inner_stride, d.outer_stride, d.inner_extent}; }
MatrixMap map_of(const EmuMatrixMap& m) { return MatrixMap{dim_of(m.rows), dim_of(m.cols), dim_of(m.batch)}; }
}  // namespace

void emu_gemm_simt_f32(const EmuGemmShape& s, std::int64_t splits, const float* a, const EmuMatrixMap& a_map,
                       const float* b, const EmuMatrixMap& b_map, float* out, const EmuMatrixMap& out_map, float* partial) {
  StoreEpilogue<float> ep;
  ep.out = out;
  ep.out_map = map_of(out_map);
  launch_gemm_split_k<float, GemmTileDefault>(GemmShape{s.m, s.n, s.k, s.batch}, splits, partial, a, map_of(a_map), b,
                                              map_of(b_map), ep, nullptr, "the emulated GEMM test");
}

}  // namespace hiprim::gpu
