// The shared-memory tiled GEMM kernel (device code; include from .hip files only).
//
//   C[b][m][n] = sum_{k = 0, 1, ..., K-1} A[b][m][k] * B[b][k][n]      (fp32 accumulation)
//
// A and B are element type T (float, __half, hiprim_bf16_t) read through load_f, anywhere in memory
// as described by a MatrixMap (gemm_index.hpp). C is never written by the kernel itself: each
// in-range (slot, m, n) is handed once to the epilogue functor, ep(slot, m, n, acc), which stores it
// (layout, bias, rounding are its business; see gemm_epilogue.hpp). slot = b, or b*splits + s for
// the K slice s of a split-K launch.
//
// Launch shape: grid (ceil(N/BN), ceil(M/BM), batch*splits), cut into launches of at most 65535 in y
// and z (GemmGridPlan); Tile::threads threads per block (256 for the default 64x64x16 tile with 4x4
// register blocks). Per K step of BK the block stages A[BM x BK] and
// B[BK x BN] as floats in shared memory (elements past M, N or K are staged as 0), then each thread
// accumulates its TM x TN block: rows (i/4)*(BM*4/TM) + tm*4 + i%4 for i < TM (TM/4 runs of 4, read as
// float4; spacing the runs keeps a quarter-warp's float4 reads on distinct banks), columns likewise.
// The thread's (tm, tn) walks m fastest when the epilogue stores m contiguously (m_fast, from
// epilogue_m_contiguous: a warp's stores then cover whole sectors), else n fastest. The next step's
// global loads are issued into registers before the current step's arithmetic. Determinism: every C element is one thread's sum over k in ascending
// order with the same float operations every run; no atomics. Split-K (launch_gemm_split_k) runs
// the same kernel once per K slice into fp32 partial sums and adds the slices in a fixed order.
// Nothing depends on the warp (wavefront) size.
#pragma once
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/gemm/gemm_epilogue.hpp"
#include "gpu/gemm/gemm_index.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {

template <typename T>
struct GemmOperand {
  const T* ptr = nullptr;
  MatrixMap map;           // rows/cols are (m, k) for A, (k, n) for B
  bool k_fastest = false;  // staging order (performance only): see stage_k_fastest
};

template <typename T, typename Tile, typename Epilogue>
__global__ void __launch_bounds__(Tile::threads)
    gemm_tiled_kernel(GemmOperand<T> a, GemmOperand<T> b, int M, int N, int K, int m_tile0, int batch0, int k_splits,
                      int k_chunk, bool m_fast, Epilogue ep) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, TM = Tile::TM, TN = Tile::TN;
  constexpr int AL = Tile::a_loads, BL = Tile::b_loads, NT = Tile::threads;
  // [k][m] and [k][n]; +4 keeps rows 16-byte aligned for the float4 reads below.
  __shared__ __align__(16) float a_tile[BK][BM + 4];
  __shared__ __align__(16) float b_tile[BK][BN + 4];

  const int tid = static_cast<int>(threadIdx.x);
  // z enumerates (batch, K slice) pairs; without split-K there is one slice, [0, K).
  const int slot = batch0 + static_cast<int>(blockIdx.z);
  const int batch = slot / k_splits;
  const int k_lo = (slot - batch * k_splits) * k_chunk;
  const int k_hi = K - k_lo < k_chunk ? K : k_lo + k_chunk;
  const int m0 = (m_tile0 + static_cast<int>(blockIdx.y)) * BM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;

  // Staging coordinates of this thread's elements: (a_m, a_k) in the A tile, (b_k, b_n) in the B tile.
  int a_m[AL], a_k[AL], b_k[BL], b_n[BL];
  long long a_base[AL], b_base[BL];  // batch + row (A) / batch + column (B) offsets
  bool a_in[AL], b_in[BL];           // row < M (A) / column < N (B)
  const long long a_batch = a.map.batch(batch), b_batch = b.map.batch(batch);
#pragma unroll
  for (int r = 0; r < AL; ++r) {
    const int l = tid + r * NT;
    a_k[r] = a.k_fastest ? l % BK : l / BM;
    a_m[r] = a.k_fastest ? l / BK : l % BM;
    a_in[r] = m0 + a_m[r] < M;
    a_base[r] = a_in[r] ? a_batch + a.map.rows(m0 + a_m[r]) : 0;
  }
#pragma unroll
  for (int r = 0; r < BL; ++r) {
    const int l = tid + r * NT;
    b_k[r] = b.k_fastest ? l % BK : l / BN;
    b_n[r] = b.k_fastest ? l / BK : l % BN;
    b_in[r] = n0 + b_n[r] < N;
    b_base[r] = b_in[r] ? b_batch + b.map.cols(n0 + b_n[r]) : 0;
  }

  float a_stage[AL], b_stage[BL];
  auto load_step = [&](int k0) {
#pragma unroll
    for (int r = 0; r < AL; ++r) {
      const int k = k0 + a_k[r];
      a_stage[r] = (a_in[r] && k < k_hi) ? load_f(a.ptr, a_base[r] + a.map.cols(k)) : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < BL; ++r) {
      const int k = k0 + b_k[r];
      b_stage[r] = (b_in[r] && k < k_hi) ? load_f(b.ptr, b_base[r] + b.map.rows(k)) : 0.0f;
    }
  };

  constexpr int threads_m = BM / TM, m_run = BM * 4 / TM, n_run = BN * 4 / TN;  // spacing of the 4-runs
  const int tx = m_fast ? tid / threads_m : tid % Tile::threads_n;  // n position of the register block
  const int ty = m_fast ? tid % threads_m : tid / Tile::threads_n;  // m position
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  load_step(k_lo);
  for (int k0 = k_lo; k0 < k_hi; k0 += BK) {
#pragma unroll
    for (int r = 0; r < AL; ++r) a_tile[a_k[r]][a_m[r]] = a_stage[r];
#pragma unroll
    for (int r = 0; r < BL; ++r) b_tile[b_k[r]][b_n[r]] = b_stage[r];
    __syncthreads();
    if (k0 + BK < k_hi) load_step(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float af[TM], bf[TN];
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&a_tile[kk][(i / 4) * m_run + ty * 4]);
        af[i] = v.x, af[i + 1] = v.y, af[i + 2] = v.z, af[i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&b_tile[kk][(j / 4) * n_run + tx * 4]);
        bf[j] = v.x, bf[j + 1] = v.y, bf[j + 2] = v.z, bf[j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + (i / 4) * m_run + ty * 4 + i % 4;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + (j / 4) * n_run + tx * 4 + j % 4;
      if (m < M && n < N) ep(slot, m, n, acc[i][j]);
    }
  }
}

// Throws InputError unless every size of s is in [0, kGemmMaxSize] (the kernel indexes with int and
// adds up to one tile to an index).
inline void check_gemm_shape(const GemmShape& s, const std::string& context) {
  auto check = [&](std::int64_t v, const char* what) {
    if (v < 0 || v > kGemmMaxSize)
      throw InputError("GEMM " + std::string(what) + " = " + std::to_string(v) + " is outside [0, " +
                       std::to_string(kGemmMaxSize) + "] while " + context);
  };
  check(s.m, "M");
  check(s.n, "N");
  check(s.k, "K");
  check(s.batch, "batch");
}

// Launches the kernel of a tile type: gemm_tiled_kernel for GemmTile (here), gemm_mma_kernel for
// GemmMmaTile (gemm_mma.hpp). Both take the same arguments and the same epilogue contract.
template <typename Tile>
struct GemmKernel;

// Whether an epilogue stores consecutive m at consecutive addresses (the kernel then walks m fastest
// over its threads). StoreEpilogue: its out map's rows have stride 1; any other epilogue: no.
template <typename Epilogue>
bool epilogue_m_contiguous(const Epilogue&) {
  return false;
}
template <typename TOut, typename TBias>
bool epilogue_m_contiguous(const StoreEpilogue<TOut, TBias>& ep) {
  return ep.out_map.rows.inner_stride == 1 && ep.out_map.rows.inner_extent == 0;
}

template <int BM, int BN, int BK, int TM, int TN>
struct GemmKernel<GemmTile<BM, BN, BK, TM, TN>> {
  template <typename T, typename Epilogue>
  static void launch(dim3 grid, hipStream_t stream, const GemmOperand<T>& a, const GemmOperand<T>& b, int M, int N,
                     int K, int m_tile0, int batch0, int k_splits, int k_chunk, const Epilogue& ep,
                     const std::string& context) {
    using Tile = GemmTile<BM, BN, BK, TM, TN>;
    const bool m_fast = epilogue_m_contiguous(ep);
    hipLaunchKernelGGL((gemm_tiled_kernel<T, Tile, Epilogue>), grid, dim3(Tile::threads), 0, stream, a, b, M, N, K,
                       m_tile0, batch0, k_splits, k_chunk, m_fast, ep);
    HIPRIM_CHECK_LAUNCH("gemm_tiled_kernel", context);
  }
};

namespace detail {

// One launch (per grid slice) of the tile's kernel over batch * splits slots.
template <typename T, typename Tile, typename Epilogue>
void launch_gemm_slots(const GemmShape& s, std::int64_t splits, const T* a, const MatrixMap& a_map, const T* b,
                       const MatrixMap& b_map, const Epilogue& ep, hipStream_t stream, const std::string& context) {
  check_gemm_shape(s, context);
  check_gemm_shape(GemmShape{s.m, s.n, s.k, s.batch * splits}, context + " (batch x K splits)");
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;
  const int k_chunk = static_cast<int>(splits > 1 ? split_k_chunk(s.k, splits, Tile::BK) : s.k);
  const GemmOperand<T> ga{a, a_map, stage_k_fastest(a_map.cols, a_map.rows)};
  const GemmOperand<T> gb{b, b_map, stage_k_fastest(b_map.rows, b_map.cols)};
  const std::int64_t slots = s.batch * splits;
  const GemmGridPlan g = plan_gemm_grid(GemmShape{s.m, s.n, s.k, slots}, Tile::BM, Tile::BN);
  for (std::int64_t bs = 0; bs < g.batch_slices; ++bs) {
    const std::int64_t b0 = bs * g.batch_per_slice;
    const std::int64_t nb = std::min(g.batch_per_slice, slots - b0);
    for (std::int64_t ms = 0; ms < g.m_slices; ++ms) {
      const std::int64_t t0 = ms * g.m_tiles_per_slice;
      const std::int64_t nt = std::min(g.m_tiles_per_slice, g.m_tiles - t0);
      const dim3 grid(static_cast<unsigned>(g.n_tiles), static_cast<unsigned>(nt), static_cast<unsigned>(nb));
      GemmKernel<Tile>::template launch<T>(grid, stream, ga, gb, static_cast<int>(s.m), static_cast<int>(s.n),
                                           static_cast<int>(s.k), static_cast<int>(t0), static_cast<int>(b0),
                                           static_cast<int>(splits), k_chunk, ep, context);
    }
  }
}

}  // namespace detail

// Pass 2 of split-K: C[b][m][n] = sum_{s ascending} partial[b][s][m][n], handed to ep(b, m, n, .).
// Grid-stride loop over batch*M*N in (b, m, n) order, 256 threads per block.
template <typename Epilogue>
__global__ void __launch_bounds__(256)
    gemm_split_k_reduce_kernel(const float* __restrict__ partial, int M, int N, long long total, int splits,
                               Epilogue ep) {
  const long long mn = 1LL * M * N;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    const long long b = e / mn, r = e - b * mn;
    const float* p = partial + b * splits * mn + r;
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += p[s * mn];
    ep(static_cast<int>(b), static_cast<int>(r / N), static_cast<int>(r % N), acc);
  }
}

// Enqueues C = A x B (per batch) on `stream`; C goes through `ep`. Throws InputError on a bad shape
// and RuntimeError when a launch fails. `context` says what the GEMM computes (for messages).
template <typename T, typename Tile = GemmTileDefault, typename Epilogue>
void launch_gemm(const GemmShape& s, const T* a, const MatrixMap& a_map, const T* b, const MatrixMap& b_map,
                 const Epilogue& ep, hipStream_t stream, const std::string& context) {
  detail::launch_gemm_slots<T, Tile>(s, 1, a, a_map, b, b_map, ep, stream, context);
}

// Same result through deterministic split-K (gemm_index.hpp) with `splits` slices of K; `partial`
// holds split_k_workspace_bytes(s, splits) bytes. splits == 1 is launch_gemm (partial unused).
template <typename T, typename Tile = GemmTileDefault, typename Epilogue>
void launch_gemm_split_k(const GemmShape& s, std::int64_t splits, float* partial, const T* a, const MatrixMap& a_map,
                         const T* b, const MatrixMap& b_map, const Epilogue& ep, hipStream_t stream,
                         const std::string& context) {
  if (splits <= 1) return launch_gemm<T, Tile>(s, a, a_map, b, b_map, ep, stream, context);
  if (splits > kSplitKMaxSplits)
    throw InputError("GEMM K splits = " + std::to_string(splits) + " exceeds " + std::to_string(kSplitKMaxSplits) +
                     " while " + context);
  StoreEpilogue<float> to_partial;  // slot (b, s) = b*splits + s -> partial[slot][m][n]
  to_partial.out = partial;
  to_partial.out_map = MatrixMap{DimMap::plain(s.n), DimMap::plain(1), DimMap::plain(s.m * s.n)};
  detail::launch_gemm_slots<T, Tile>(s, splits, a, a_map, b, b_map, to_partial, stream, context);
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;
  const long long total = s.batch * s.m * s.n;
  const unsigned blocks = static_cast<unsigned>(std::min<long long>((total + 255) / 256, 65536));
  hipLaunchKernelGGL((gemm_split_k_reduce_kernel<Epilogue>), dim3(blocks), dim3(256), 0, stream, partial,
                     static_cast<int>(s.m), static_cast<int>(s.n), total, static_cast<int>(splits), ep);
  HIPRIM_CHECK_LAUNCH("gemm_split_k_reduce_kernel", context);
}

}  // namespace hiprim::gpu
