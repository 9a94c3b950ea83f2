// The three convolution GEMMs of the table in gemm_conv_maps.hpp, enqueued on a stream (device-side
// header; shared by conv.gemm.1x1 and conv.gemm.im2col). `col` is B's q x j matrix (the im2col
// buffer, or In itself for a 1x1 filter) and `col_map` says where its elements live; every other
// operand is the problem's own packed tensor, with pointers already at the chunk's first image.
// Tile picks the GEMM kernel (GemmKernel in gemm_tile.hpp): the SIMT tile, or GemmMmaTile
// (gemm_mma.hpp, fp16/bf16 only) for the .mma solvers.
#pragma once
#include <string>

#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/gemm_conv_maps.hpp"
#include "gpu/gemm/gemm_epilogue.hpp"
#include "gpu/gemm/gemm_tile.hpp"

namespace hiprim::gpu {

// Sizes of the conv GEMMs for a chunk of `images`: rows q = CIg*F, columns j = images*P.
struct ConvGemmSizes {
  std::int64_t q = 0, j = 0;
};
inline ConvGemmSizes conv_gemm_sizes(const ConvGeom& g, std::int64_t images) {
  return {static_cast<std::int64_t>(g.in_per_group()) * g.taps(), images * g.out_spatial()};
}

// out_from_in: Out[co][j] = round( sum_q W[co][q] * col[q][j] (+ bias[g*COg + co]) ), per group.
template <typename T, typename Tile = GemmTileDefault>
void gemm_out_from_in(const ConvGeom& g, std::int64_t images, const T* w, const T* col, const MatrixMap& col_map,
                      T* out, const T* bias, hipStream_t stream, const std::string& context) {
  const ConvGemmSizes sz = conv_gemm_sizes(g, images);
  StoreEpilogue<T> ep;
  ep.out = out;
  ep.out_map = out_channel_by_pixel(g);
  if (bias != nullptr) {
    const BiasMap bm = bias_per_channel(g.out_per_group());
    ep.bias = bias;
    ep.bias_rows = bm.rows;
    ep.bias_batch = bm.batch;
  }
  launch_gemm<T, Tile>(GemmShape{g.out_per_group(), sz.j, sz.q, g.groups}, w, w_out_by_q(g), col, col_map, ep, stream,
                 context);
}

// in_from_out: C[q][j] = sum_co W[co][q] * Out[co][j], per group, stored by `ep` (fp32 colgrad for
// im2col, In itself for a 1x1 filter).
template <typename T, typename Tile = GemmTileDefault, typename Epilogue>
void gemm_in_from_out(const ConvGeom& g, std::int64_t images, const T* w, const T* out, const Epilogue& ep,
                      hipStream_t stream, const std::string& context) {
  const ConvGemmSizes sz = conv_gemm_sizes(g, images);
  launch_gemm<T, Tile>(GemmShape{sz.q, sz.j, g.out_per_group(), g.groups}, w, transposed(w_out_by_q(g)), out,
                 out_channel_by_pixel(g), ep, stream, context);
}

// w_from_in_out: C[co][q] = sum_j Out[co][j] * col[q][j], per group, stored by `ep` (W, or fp32
// partial sums when the images come in several chunks). With k_splits > 1 (w_from_in_out_splits)
// the sum over j runs as deterministic split-K through `split_partial`
// (split_k_workspace_bytes(w_from_in_out_shape(g, images), k_splits) bytes).
template <typename T, typename Tile = GemmTileDefault, typename Epilogue>
void gemm_w_from_in_out(const ConvGeom& g, std::int64_t images, const T* out, const T* col, const MatrixMap& col_map,
                        const Epilogue& ep, std::int64_t k_splits, float* split_partial, hipStream_t stream,
                        const std::string& context) {
  launch_gemm_split_k<T, Tile>(w_from_in_out_shape(g, images), k_splits, split_partial, out, out_channel_by_pixel(g), col,
                         transposed(col_map), ep, stream, context);
}

}  // namespace hiprim::gpu
