// Strided, batched transpose of 16-bit elements (bit copies: exact), one kernel for the layout
// changes of the conv solvers (NCHW <-> NHWC copies, the bwd-data filter permutes). For each batch
// b < batch, row i < rows and output row j < cols_out:
//   dst[map.dst(b) + j*dj + i] = (j < cols && map.src(b) >= 0) ? src[map.src(b) + i*si + j] : 0
// i.e. a rows x cols source matrix (row stride si, columns contiguous) becomes a cols_out x rows
// matrix (row stride dj, rows contiguous), with zero rows for cols <= j < cols_out and an all-zero
// matrix where map.src(b) < 0. A Map gives the batch's two element offsets (src(b), dst(b), device
// and host callable) and whether every one of them is a multiple of 8 (aligned8(batch), host).
// Kernel: one 64 x 64 tile of (i, j) per 256-thread block through shared memory (rows of 66
// halfwords: the column reads below hit distinct banks, two-way at most); each side moves 16-byte
// pieces (8 elements) where its contiguous extent, strides and offsets are multiples of 8, else one
// element per thread and access (so any shape runs; the 16-byte side keeps its width).
// transpose32: the same contract (Transpose16 shape, Map) for 32-bit elements (fp32 NCHW copies):
// one 32 x 32 tile per 256-thread block (rows of 33 words: conflict-free column reads), 4-byte
// accesses, each warp's row of 32 elements one 128-byte line on either side.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

struct Transpose16 {
  long long rows = 0, cols = 0, cols_out = 0;  // source rows x cols; cols_out >= cols output rows
  long long si = 0, dj = 0;                    // source row stride, output row stride (elements)
};

// Offsets src0 + b*src_step and dst0 + b*dst_step.
struct AffineBatches {
  long long src0 = 0, src_step = 0, dst0 = 0, dst_step = 0;
  __host__ __device__ long long src(long long b) const { return src0 + b * src_step; }
  __host__ __device__ long long dst(long long b) const { return dst0 + b * dst_step; }
  bool src_aligned8(long long) const { return src0 % 8 == 0 && src_step % 8 == 0; }
  bool dst_aligned8(long long) const { return dst0 % 8 == 0 && dst_step % 8 == 0; }
};

// The tiles of one batch of a transpose with square tiles of `tile`; InputError when one batch's
// tiles exceed a launch (2^31 - 1 blocks).
constexpr long long kTransposeMaxBlocks = 0x7fffffffLL;
struct TransposeGrid {
  long long tiles_i = 0, tiles_j = 0;
};
inline TransposeGrid transpose_grid(const Transpose16& t, int tile, const std::string& ctx) {
  const TransposeGrid g{(t.rows + tile - 1) / tile, (t.cols_out + tile - 1) / tile};
  if (g.tiles_i * g.tiles_j > kTransposeMaxBlocks)
    throw InputError(ctx + ": a " + std::to_string(t.rows) + " x " + std::to_string(t.cols_out) + " transpose is too large");
  return g;
}
// Calls launch(b0, grid) for consecutive chunks of the batch, each grid per_b blocks per batch and
// at most kTransposeMaxBlocks in all.
template <class Launch>
void for_batch_chunks(long long batch, long long per_b, Launch launch) {
  const long long chunk = kTransposeMaxBlocks / per_b;
  for (long long b0 = 0; b0 < batch; b0 += chunk) launch(b0, dim3(static_cast<unsigned>(std::min(batch - b0, chunk) * per_b)));
}

namespace {  // internal linkage: each kernel source that includes this gets its own instances

constexpr int kT16Tile = 64, kT16Threads = 256, kT16Pitch = kT16Tile + 2;  // pitch in halfwords

template <int VL, int VS, class Map>
__global__ void __launch_bounds__(kT16Threads)
    transpose16_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst, const Transpose16 t,
                       const Map map, long long b0, long long tiles_i, long long tiles_j) {
  __shared__ std::uint32_t tile_words[kT16Tile * kT16Pitch / 2];
  std::uint16_t* const tile = reinterpret_cast<std::uint16_t*>(tile_words);  // tile[i * pitch + j]
  const long long per_b = tiles_i * tiles_j, blk = blockIdx.x;
  const long long b = b0 + blk / per_b, rem = blk - (blk / per_b) * per_b;
  const long long i0 = rem / tiles_j * kT16Tile, j0 = (rem - rem / tiles_j * tiles_j) * kT16Tile;
  const long long sb = map.src(b), db = map.dst(b);
  const int tid = static_cast<int>(threadIdx.x);
  if (VL == 8) {  // 64 rows x 8 pieces; cols % 8 == 0, so a piece is wholly in or out
    for (int r = 0; r < 2; ++r) {
      const int i = tid / 8 + 32 * r, j = 8 * (tid % 8);
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (sb >= 0 && i0 + i < t.rows && j0 + j < t.cols)
        v = *reinterpret_cast<const uint4*>(src + sb + (i0 + i) * t.si + j0 + j);
      std::uint32_t* const w = tile_words + (i * kT16Pitch + j) / 2;
      w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    }
  } else {
    for (int r = 0; r < kT16Tile / 4; ++r) {
      const int i = tid / 64 + 4 * r, j = tid % 64;
      tile[i * kT16Pitch + j] =
          sb >= 0 && i0 + i < t.rows && j0 + j < t.cols ? src[sb + (i0 + i) * t.si + j0 + j] : std::uint16_t{0};
    }
  }
  __syncthreads();
  if (VS == 8) {  // 64 output rows x 8 pieces of 8 consecutive i; rows % 8 == 0
    for (int r = 0; r < 2; ++r) {
      const int j = tid / 8 + 32 * r, i = 8 * (tid % 8);
      if (j0 + j >= t.cols_out || i0 + i >= t.rows) continue;
      std::uint32_t w[4];
      for (int u = 0; u < 4; ++u)
        w[u] = static_cast<std::uint32_t>(tile[(i + 2 * u) * kT16Pitch + j]) |
               (static_cast<std::uint32_t>(tile[(i + 2 * u + 1) * kT16Pitch + j]) << 16);
      *reinterpret_cast<uint4*>(dst + db + (j0 + j) * t.dj + i0 + i) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  } else {
    for (int r = 0; r < kT16Tile / 4; ++r) {
      const int j = tid / 64 + 4 * r, i = tid % 64;
      if (j0 + j < t.cols_out && i0 + i < t.rows) dst[db + (j0 + j) * t.dj + i0 + i] = tile[i * kT16Pitch + j];
    }
  }
}

// The piece widths a launch takes: 8 where that side's contiguous extent, stride, offsets and base
// pointer allow 16-byte accesses, else 1.
struct Transpose16Widths {
  int load = 1, store = 1;
};
template <class Map>
Transpose16Widths transpose16_widths(const void* src, const void* dst, const Transpose16& t, const Map& map,
                                     long long batch) {
  const auto a16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  Transpose16Widths w;
  if (a16(src) && t.cols % 8 == 0 && t.si % 8 == 0 && map.src_aligned8(batch)) w.load = 8;
  if (a16(dst) && t.rows % 8 == 0 && t.dj % 8 == 0 && map.dst_aligned8(batch)) w.store = 8;
  return w;
}

template <class Map>
void transpose16(const void* src, void* dst, const Transpose16& t, long long batch, const Map& map, hipStream_t s,
                 const std::string& ctx) {
  if (batch <= 0 || t.rows <= 0 || t.cols_out <= 0) return;
  const TransposeGrid tg = transpose_grid(t, kT16Tile, ctx);
  const long long tiles_i = tg.tiles_i, tiles_j = tg.tiles_j;
  const Transpose16Widths w = transpose16_widths(src, dst, t, map, batch);
  const auto* in = static_cast<const std::uint16_t*>(src);
  auto* out = static_cast<std::uint16_t*>(dst);
  for_batch_chunks(batch, tiles_i * tiles_j, [&](long long b0, dim3 grid) {
    const dim3 block(kT16Threads);
    if (w.load == 8 && w.store == 8)
      hipLaunchKernelGGL((transpose16_kernel<8, 8, Map>), grid, block, 0, s, in, out, t, map, b0, tiles_i, tiles_j);
    else if (w.load == 8)
      hipLaunchKernelGGL((transpose16_kernel<8, 1, Map>), grid, block, 0, s, in, out, t, map, b0, tiles_i, tiles_j);
    else if (w.store == 8)
      hipLaunchKernelGGL((transpose16_kernel<1, 8, Map>), grid, block, 0, s, in, out, t, map, b0, tiles_i, tiles_j);
    else
      hipLaunchKernelGGL((transpose16_kernel<1, 1, Map>), grid, block, 0, s, in, out, t, map, b0, tiles_i, tiles_j);
    HIPRIM_CHECK_LAUNCH("transpose16_kernel", ctx);
  });
}

constexpr int kT32Tile = 32, kT32Threads = 256, kT32Pitch = kT32Tile + 1;  // pitch in words

template <class Map>
__global__ void __launch_bounds__(kT32Threads)
    transpose32_kernel(const std::uint32_t* __restrict__ src, std::uint32_t* __restrict__ dst, const Transpose16 t,
                       const Map map, long long b0, long long tiles_i, long long tiles_j) {
  __shared__ std::uint32_t tile[kT32Tile * kT32Pitch];  // tile[i * pitch + j]
  const long long per_b = tiles_i * tiles_j, blk = blockIdx.x;
  const long long b = b0 + blk / per_b, rem = blk - (blk / per_b) * per_b;
  const long long i0 = rem / tiles_j * kT32Tile, j0 = (rem - rem / tiles_j * tiles_j) * kT32Tile;
  const long long sb = map.src(b), db = map.dst(b);
  const int tx = static_cast<int>(threadIdx.x) % kT32Tile, ty = static_cast<int>(threadIdx.x) / kT32Tile;
  for (int i = ty; i < kT32Tile; i += kT32Threads / kT32Tile)
    tile[i * kT32Pitch + tx] =
        sb >= 0 && i0 + i < t.rows && j0 + tx < t.cols ? src[sb + (i0 + i) * t.si + j0 + tx] : 0u;
  __syncthreads();
  for (int j = ty; j < kT32Tile; j += kT32Threads / kT32Tile)
    if (j0 + j < t.cols_out && i0 + tx < t.rows) dst[db + (j0 + j) * t.dj + i0 + tx] = tile[tx * kT32Pitch + j];
}

template <class Map>
void transpose32(const void* src, void* dst, const Transpose16& t, long long batch, const Map& map, hipStream_t s,
                 const std::string& ctx) {
  if (batch <= 0 || t.rows <= 0 || t.cols_out <= 0) return;
  const TransposeGrid tg = transpose_grid(t, kT32Tile, ctx);
  const long long tiles_i = tg.tiles_i, tiles_j = tg.tiles_j;
  const auto* in = static_cast<const std::uint32_t*>(src);
  auto* out = static_cast<std::uint32_t*>(dst);
  for_batch_chunks(batch, tiles_i * tiles_j, [&](long long b0, dim3 grid) {
    hipLaunchKernelGGL((transpose32_kernel<Map>), grid, dim3(kT32Threads), 0, s, in, out, t, map, b0, tiles_i, tiles_j);
    HIPRIM_CHECK_LAUNCH("transpose32_kernel", ctx);
  });
}

// transpose32 for 4-byte elements, else transpose16 (2-byte): the bit copy of elem_bytes-byte elements.
template <class Map>
void transpose_elems(std::size_t elem_bytes, const void* src, void* dst, const Transpose16& t, long long batch, const Map& map,
                     hipStream_t s, const std::string& ctx) {
  if (elem_bytes == 4)
    transpose32(src, dst, t, batch, map, s, ctx);
  else
    transpose16(src, dst, t, batch, map, s, ctx);
}

}  // namespace
}  // namespace hiprim::gpu
