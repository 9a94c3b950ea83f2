// Index layer of the tiled GEMM, callable on the host (tests, launch planning) and on the device.
//
// The GEMM is C[b][m][n] = sum_k A[b][m][k] * B[b][k][n] for every batch b. No operand is copied
// into a fixed layout: each is a pointer plus one DimMap per index (row, column, batch), and the
// element of (b, i, j) lives at  ptr + batch(b) + rows(i) + cols(j)  (offsets in elements).
//
// DimMap: a plain stride (offset = i * stride), or a two-level split of the index,
//   i = q * inner_extent + r  ->  offset = q * outer_stride + r * inner_stride,
// which covers views such as "column j = (image, pixel)" of an NCHW tensor (inner = pixels,
// outer = images) without a copy.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

namespace hiprim::gpu {

struct DimMap {
  std::int64_t inner_stride = 0;
  std::int64_t outer_stride = 0;
  std::int32_t inner_extent = 0;  // 0: no split (plain stride inner_stride)

  static constexpr DimMap plain(std::int64_t stride) { return DimMap{stride, 0, 0}; }
  static constexpr DimMap split(std::int32_t inner_extent, std::int64_t inner_stride, std::int64_t outer_stride) {
    return DimMap{inner_stride, outer_stride, inner_extent};
  }
  // Offset of index i >= 0. The branch is uniform over a launch (the map is a kernel argument).
  HIPRIM_HOST_DEVICE std::int64_t operator()(std::int32_t i) const {
    if (inner_extent == 0) return static_cast<std::int64_t>(i) * inner_stride;
    const std::uint32_t q = static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(inner_extent);
    const std::uint32_t r = static_cast<std::uint32_t>(i) - q * static_cast<std::uint32_t>(inner_extent);
    return static_cast<std::int64_t>(q) * outer_stride + static_cast<std::int64_t>(r) * inner_stride;
  }
};

// Where element (b, i, j) of a matrix lives, relative to its pointer.
struct MatrixMap {
  DimMap rows, cols, batch;
  HIPRIM_HOST_DEVICE std::int64_t operator()(std::int32_t b, std::int32_t i, std::int32_t j) const {
    return batch(b) + rows(i) + cols(j);
  }
};

// Largest M, N, K or batch a launch takes: int indices plus one tile stay below 2^31.
inline constexpr std::int64_t kGemmMaxSize = 0x7fffffffLL - 1024;

// Problem sizes; each must be in [0, kGemmMaxSize]. k == 0 gives C = 0 (plus the epilogue's additions).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
};

// Tile shape of the shared-memory kernel: a block computes a BM x BN tile of C, stepping through K
// by BK; each thread owns a TM x TN register block. Threads = (BM/TM) * (BN/TN).
template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct GemmTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int threads_n = BN / TN;  // threads along n
  static constexpr int threads = (BM / TM) * (BN / TN);
  static constexpr int a_loads = BM * BK / threads;  // A elements each thread stages per K step
  static constexpr int b_loads = BK * BN / threads;
  static_assert(BM % TM == 0 && BN % TN == 0, "register block must divide the tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "register blocks are read from shared memory 4 floats at a time");
  static_assert((BM * BK) % threads == 0 && (BK * BN) % threads == 0, "tile loads must split evenly over threads");
};
using GemmTileDefault = GemmTile<64, 64, 16, 4, 4>;  // 256 threads, 16 accumulators each
// 256 threads, 64 accumulators each: half the shared-memory reads per FMA of the default (the
// register blocking of fast SIMT SGEMMs), for operands with >= 128 rows (conv.winograd's "gemm128").
using GemmTileWide = GemmTile<128, 128, 8, 8, 8>;
// Whether a tile of an operand is staged with consecutive threads walking k (else the other index):
// walk the index of the smaller stride so neighbouring threads read neighbouring addresses.
inline bool stage_k_fastest(const DimMap& k_map, const DimMap& other_map) {
  auto mag = [](std::int64_t v) { return v < 0 ? -v : v; };
  return mag(k_map.inner_stride) <= mag(other_map.inner_stride);
}

// How a launch covers a problem: the grid is (n tiles, m tiles in a slice, batches in a slice);
// m and batch are cut into slices so gridDim.y and gridDim.z stay within 65535.
struct GemmGridPlan {
  std::int64_t n_tiles = 0, m_tiles = 0;
  std::int64_t m_tiles_per_slice = 0, batch_per_slice = 0;
  std::int64_t m_slices = 0, batch_slices = 0;
};
inline constexpr std::int64_t kMaxGridYZ = 65535;

inline GemmGridPlan plan_gemm_grid(const GemmShape& s, int bm, int bn) {
  GemmGridPlan g;
  g.n_tiles = (s.n + bn - 1) / bn;
  g.m_tiles = (s.m + bm - 1) / bm;
  g.m_tiles_per_slice = g.m_tiles < kMaxGridYZ ? g.m_tiles : kMaxGridYZ;
  g.batch_per_slice = s.batch < kMaxGridYZ ? s.batch : kMaxGridYZ;
  g.m_slices = g.m_tiles_per_slice ? (g.m_tiles + g.m_tiles_per_slice - 1) / g.m_tiles_per_slice : 0;
  g.batch_slices = g.batch_per_slice ? (s.batch + g.batch_per_slice - 1) / g.batch_per_slice : 0;
  return g;
}

// Deterministic split-K, for GEMMs with too few output tiles to fill the GPU (e.g. a weight
// gradient: small M x N, K = images * pixels). Pass 1 computes, for each slice s of K (slices of
// k_chunk, a multiple of BK), partial[b][s][m][n] = sum over the slice; pass 2 sums the slices in
// ascending s and hands the total to the epilogue. The association differs from the unsplit sum,
// but it is the same every run. The split count depends only on the shape (not on the device), so
// workspace sizes are a function of the problem.
inline constexpr std::int64_t kSplitKTargetBlocks = 512;  // blocks a split launch aims for
inline constexpr std::int64_t kSplitKMinSlice = 256;      // fewest k per slice
inline constexpr std::int64_t kSplitKMaxSplits = 64;

inline std::int64_t plan_split_k(const GemmShape& s, int bm, int bn) {
  const std::int64_t blocks = s.batch * ((s.m + bm - 1) / bm) * ((s.n + bn - 1) / bn);
  if (blocks == 0 || blocks >= kSplitKTargetBlocks) return 1;
  std::int64_t splits = (kSplitKTargetBlocks + blocks - 1) / blocks;
  splits = splits < s.k / kSplitKMinSlice ? splits : s.k / kSplitKMinSlice;
  splits = splits < kSplitKMaxSplits ? splits : kSplitKMaxSplits;
  return splits > 1 ? splits : 1;
}
// k per slice: ceil(K / splits) rounded up to a multiple of bk (>= bk); slices past K are empty.
inline std::int64_t split_k_chunk(std::int64_t k, std::int64_t splits, int bk) {
  const std::int64_t per = (k + splits - 1) / splits;
  return per <= bk ? bk : (per + bk - 1) / bk * bk;
}
// Bytes of the fp32 partial sums of a split launch (0 when splits == 1: nothing is staged).
inline std::size_t split_k_workspace_bytes(const GemmShape& s, std::int64_t splits) {
  return splits > 1 ? static_cast<std::size_t>(splits * s.batch * s.m * s.n) * sizeof(float) : 0;
}

}  // namespace hiprim::gpu
