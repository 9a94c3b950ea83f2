// Index layer of the tensor-core GEMM (gemm_mma.hpp), callable on the host so tests can emulate a
// block without a GPU (tests/gpu/test_mma_fragment.cpp). No device code here.
//
// The instruction: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, one warp of 32
// lanes computes D[16x8] = A[16x16] * B[16x8] + C[16x8] (fp32 C/D). With
//   groupID = lane >> 2,  tig = lane % 4  (threadID_in_group)
// the PTX ISA (Matrix Fragments for mma.m16n8k16 with floating point type) places
//   A: 8 elements a0..a7 per lane (4 .b32 registers, two 16-bit elements each, low half first):
//        row = groupID (+8 for a2, a3, a6, a7),  col = tig*2 + (i & 1) (+8 for i >= 4)
//   B: 4 elements b0..b3 per lane (2 registers):  row (k) = tig*2 + (i & 1) (+8 for i >= 2),  col (n) = groupID
//   C, D: 4 fp32 per lane:                         row = groupID (+8 for i >= 2),  col = tig*2 + (i & 1)
// Each register holds two elements adjacent in k (A: same row, columns c, c+1; B: same column, rows
// r, r+1), so with both operands staged k-contiguous in shared memory ([row][k] for A, [n][k] for B)
// a register is one aligned 32-bit load.
//
// Block tile (GemmMmaTile): 128 x 128 outputs per block, K stepped by 32; 8 warps in a 2 (m) x 4 (n)
// grid, each owning a 64 x 32 warp tile = 4 x 4 mma tiles of 16 x 8 (64 fp32 accumulators per lane).
// Shared memory per operand and buffer: [rows][LDS] 16-bit elements, LDS = 32 + 8: the padding makes
// the eight row starts of a fragment load fall on distinct bank quadruples (row stride 20 words:
// 20*g mod 32 = 0, 20, 8, 28, 16, 4, 24, 12), so fragment loads are conflict-free.
// Staging moves 16-byte vectors of 8 elements, either along k (vector = 8 consecutive k of one row)
// or along the row index (8 consecutive rows at one k), whichever has the smaller global stride.
#pragma once
#include <cstdint>

#include "core/host_device.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

struct GemmMmaTile {
  static constexpr int BM = 128, BN = 128, BK = 32;
  static constexpr int WM = 64, WN = 32;  // warp tile
  static constexpr int warps_m = BM / WM, warps_n = BN / WN;
  static constexpr int lanes = 32;  // mma.sync is an instruction of a 32-lane NVIDIA warp
  static constexpr int threads = lanes * warps_m * warps_n;
  static constexpr int MI = WM / 16, NI = WN / 8;  // mma tiles per warp tile
  static constexpr int LDS = BK + 8;               // shared-memory row stride, elements
  static constexpr int VEC = 8;                    // 16-bit elements per 16-byte staging vector
  static constexpr int a_vecs = BM * BK / VEC / threads;  // vectors each thread stages per K step
  static constexpr int b_vecs = BN * BK / VEC / threads;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0 && BK % 16 == 0, "tile shape");
  static_assert(a_vecs * VEC * threads == BM * BK && b_vecs * VEC * threads == BN * BK, "staging splits evenly");
  static_assert(LDS % 8 == 0, "16-byte aligned shared rows");
};

// ---- fragment maps (lane in [0, 32); element index as in the PTX tables) ----
HIPRIM_HOST_DEVICE inline int mma_a_row(int lane, int i) { return (lane >> 2) + (((i >> 1) & 1) ? 8 : 0); }
HIPRIM_HOST_DEVICE inline int mma_a_col(int lane, int i) { return (lane % 4) * 2 + (i & 1) + (i >= 4 ? 8 : 0); }
HIPRIM_HOST_DEVICE inline int mma_b_row(int lane, int i) { return (lane % 4) * 2 + (i & 1) + (i >= 2 ? 8 : 0); }
HIPRIM_HOST_DEVICE inline int mma_b_col(int lane, int /*i*/) { return lane >> 2; }
HIPRIM_HOST_DEVICE inline int mma_c_row(int lane, int i) { return (lane >> 2) + (i >= 2 ? 8 : 0); }
HIPRIM_HOST_DEVICE inline int mma_c_col(int lane, int i) { return (lane % 4) * 2 + (i & 1); }

// ---- shared-memory tiles ----
// Element (r, k) of an operand tile ([row][k], rows = BM for A, BN for B).
HIPRIM_HOST_DEVICE inline int mma_smem_offset(int r, int k) { return r * GemmMmaTile::LDS + k; }

// Where a warp's 64 x 32 tile starts inside the block tile.
struct MmaWarpOrigin {
  int m0, n0;
};
HIPRIM_HOST_DEVICE inline MmaWarpOrigin mma_warp_origin(int warp) {
  return {(warp / GemmMmaTile::warps_n) * GemmMmaTile::WM, (warp % GemmMmaTile::warps_n) * GemmMmaTile::WN};
}

// Shared-memory offset of register j (elements 2j, 2j+1) of the A fragment of mma tile row mi at
// k step kk (0 or 16), for a warp whose tile starts at row wm0.
HIPRIM_HOST_DEVICE inline int mma_a_frag_offset(int wm0, int mi, int kk, int lane, int j) {
  return mma_smem_offset(wm0 + mi * 16 + mma_a_row(lane, 2 * j), kk + mma_a_col(lane, 2 * j));
}
// Same for register j (elements 2j, 2j+1) of the B fragment of mma tile column ni (B staged [n][k]).
HIPRIM_HOST_DEVICE inline int mma_b_frag_offset(int wn0, int ni, int kk, int lane, int j) {
  return mma_smem_offset(wn0 + ni * 8 + mma_b_col(lane, 2 * j), kk + mma_b_row(lane, 2 * j));
}

// ---- staging: global -> registers -> shared memory ----
// Vector l of a rows x BK operand tile: its first element (r, k); element e of the vector is
// (r, k + e) when staged along k, (r + e, k) otherwise. Consecutive l walk the vector's direction
// first (4 vectors cover a row's 32 k; or rows/8 vectors cover one k), so neighbouring threads read
// neighbouring addresses.
struct MmaStageCoord {
  int r, k;
};
HIPRIM_HOST_DEVICE inline MmaStageCoord mma_stage_coord(int l, int rows, bool along_k) {
  constexpr int V = GemmMmaTile::VEC, per_row = GemmMmaTile::BK / V;
  if (along_k) return {l / per_row, (l % per_row) * V};
  return {(l % (rows / V)) * V, l / (rows / V)};
}

// Element e (0..7) of the vector that starts at c.
HIPRIM_HOST_DEVICE inline MmaStageCoord mma_stage_element(MmaStageCoord c, bool along_k, int e) {
  return along_k ? MmaStageCoord{c.r, c.k + e} : MmaStageCoord{c.r + e, c.k};
}

// A vector staged along the rows is written to shared memory one element (row) at a time; were
// every thread to write its element e at the same step, the 16 threads of a warp at one k (rows 8q
// + e, q = 0..15; 8 rows are 160 words, 0 mod 32 banks) would hit one bank. The thread with
// q' = q % 8 writes element (e + q') % 8 at step e instead (2-way at most), from its vector's 8
// halves (4 words, low half first) rotated so that half e of the result is half (e + q') % 8.
HIPRIM_HOST_DEVICE inline void mma_rotate_halves(std::uint32_t (&w)[4], int q) {
  std::uint32_t t[4];
  if (q & 1) {
    for (int i = 0; i < 4; ++i) t[i] = (w[i] >> 16) | (w[(i + 1) & 3] << 16);
    for (int i = 0; i < 4; ++i) w[i] = t[i];
  }
  if (q & 2) {
    for (int i = 0; i < 4; ++i) t[i] = w[(i + 1) & 3];
    for (int i = 0; i < 4; ++i) w[i] = t[i];
  }
  if (q & 4) {
    for (int i = 0; i < 4; ++i) t[i] = w[(i + 2) & 3];
    for (int i = 0; i < 4; ++i) w[i] = t[i];
  }
}

// The batch and K range [k_lo, k_hi) of launch slot `slot` (slot = batch*k_splits + K slice; each
// slice is k_chunk long, the last one cut at K, slices past K empty: k_lo >= k_hi).
struct GemmSlotRange {
  int batch, k_lo, k_hi;
};
HIPRIM_HOST_DEVICE inline GemmSlotRange gemm_slot_range(int slot, int k_splits, int k_chunk, int K) {
  const int batch = slot / k_splits;
  const int k_lo = (slot - batch * k_splits) * k_chunk;
  return {batch, k_lo, K - k_lo < k_chunk ? K : k_lo + k_chunk};
}

// How one operand is staged (decided on the host from its map; uniform over a launch).
struct MmaStagePlan {
  bool along_k = true;   // vectors run along k (else along the row index)
  bool vector = false;   // whole in-range vectors are read as one 16-byte load
};

// Whether every offset a DimMap gives is a multiple of v (v = 8 elements = 16 bytes).
inline bool dim_map_multiple_of(const DimMap& d, std::int64_t v) {
  if (d.inner_extent == 0) return d.inner_stride % v == 0;
  return d.inner_stride % v == 0 && d.outer_stride % v == 0;
}
// Whether 8 consecutive indices starting at a multiple of 8 are 8 consecutive elements that start
// at an offset multiple of 8: unit stride in runs of a multiple of 8, and each run starting at a
// multiple of 8 (its outer stride), else the 16-byte load of a later run is misaligned (the
// implicit GEMM's filter-row runs of S*C over x_pad rows Wp*C apart: C = 4, S = 4, Wp = 7 gave
// runs of 16 at offsets 28 apart, a misaligned-address fault found by the H200 fuzz campaign).
inline bool dim_map_unit_runs_of(const DimMap& d, std::int64_t v) {
  if (d.inner_stride != 1) return false;
  return d.inner_extent == 0 || (d.inner_extent % v == 0 && d.outer_stride % v == 0);
}
// Plan for an operand whose element (b, r, k) lives at ptr + batch(b) + r_map(r) + k_map(k).
// `ptr_aligned`: the pointer is 16-byte aligned. Vectors walk the index of the smaller stride; the
// fast path needs that index to run in unit-stride runs of 8 and every other offset to be a
// multiple of 8 elements, so each vector is one aligned 16-byte load.
inline MmaStagePlan plan_mma_staging(const DimMap& r_map, const DimMap& k_map, const DimMap& batch_map,
                                     bool ptr_aligned) {
  constexpr std::int64_t V = GemmMmaTile::VEC;
  MmaStagePlan p;
  p.along_k = stage_k_fastest(k_map, r_map);
  const DimMap& fast = p.along_k ? k_map : r_map;
  const DimMap& other = p.along_k ? r_map : k_map;
  p.vector = ptr_aligned && dim_map_unit_runs_of(fast, V) && dim_map_multiple_of(other, V) &&
             dim_map_multiple_of(batch_map, V);
  return p;
}

}  // namespace hiprim::gpu
