// conv.igemm.wgmma's kernels (device-side header; include from the igemm_sm90_*.hip files, which
// are built for sm_90a only). The plan, the GEMM roles of each direction and the gathers are in
// igemm_sm90_plan.hpp; the producers in igemm_sm90_producers.hpp; the shared-memory layouts and
// descriptors in gpu/gemm/sm90/wgmma_layout.hpp.
//
// Launch: grid (m tiles * n tiles, n fastest; 1; the classes' splits, class i from IgemmClass::z0 on);
// BM/64 consumer warpgroups (128 threads each, warpgroup c owns rows 64c..64c+63 of the tile with
// the whole B tile), plus one producer warpgroup in front when WS; dynamic shared memory = stages * (BM + BN) * 128 bytes (+1024 for alignment,
// +256 for the mbarriers of WS). Stage s holds A [BM x KB] then B [BN x KB], KB = 128 bytes of k: 64
// elements of T = fp16/bf16, or 32 of T = float (math=tf32: fwd only, both operands K-major, wgmma
// m64nNk8.tf32; no .se, .p or fused epilogue: those stage 16-bit pieces).
// Sync variant (WS false): every thread produces and consumes. Over the CTA's k-blocks i, with the
// prefetch distance D = stages - 2:
//   cp.async.wait_group(D-1)          this thread's loads of k-block i have landed
//   fence.proxy.async; __syncthreads  every thread's loads visible to the async proxy; every
//                                     warpgroup past wgmma.wait_group(1) of i-1, so the stage of
//                                     k-block i-2 is no longer read
//   cp.async k-block i+D -> stage (i+D) % stages (= the stage of i-2); commit (empty groups too)
//   wgmma.fence; 4 x wgmma m64nBNk16 on stage i % stages; commit; wgmma.wait_group(1)
// Warp-specialised variant (WS true): warpgroup 0 produces, the others consume; per stage s two
// mbarriers: full[s] (128 arrivals: each producer thread's cp.async.mbarrier.arrive.noinc fires when
// its copies have landed) and empty[s] (one arrival per consumer thread once the wgmma group that
// read the stage has completed). The j-th use of stage s (k-block i = s + j*stages) waits:
//   producer: empty[s] completion j-1 (parity (j-1)&1), for j >= 1
//   consumer: full[s] completion j (parity j&1), then fence.proxy.async, wgmma, commit,
//             wait_group(1), arrive empty[(i-1) % stages].
// TMA (with WS): producer thread 0 also arrives on full[s] with expect_tx and issues the TMA of
// fwd's B box (and of the A box when A is dense: 1x1, stride 1, pad 0, or im2col-mode: C % 64 == 0),
// or of bwd-weights' A boxes
// (dy, MN-major: one 64 x 64 box per 64 rows of M into its atom column; and B's when x is dense, or
// x's im2col boxes of 64 pixels per 64 columns when C % 64 == 0);
// full[s] then expects 129 arrivals plus the boxes' bytes (1 arrival when both come by TMA).
// Both variants pin the accumulators around each batch and after the last wait (fence_operands).
// Epilogue (splitk 1): acc (+ bias[n]) rounded to T (RNE) and stored as pairs of adjacent channels
// (NHWC rows), or (.se) staged in shared memory and stored as 16-byte row pieces, or (fwd with
// params.ep.fused) staged in fp32 and run through the fused chain (IgemmEpilogue) per 8-channel piece.
// splits > 1: each split writes its fp32 partial sums to the class's partial[split][m][n];
// igemm_sm90_reduce sums the splits in ascending order (+ bias), rounds and stores to the class's
// output rows: deterministic, no atomics.
// fp32_out (splitk 1: .col2im's dcol GEMM, igemm_sm90_gemm_fp32_out): the tile's fp32 sums (+ bias) go to
// partial[0][m][n] unrounded.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu/activ/activ_math.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/conv/igemm_sm90_fused_epilogue.hpp"
#include "gpu/conv/igemm_sm90_mutant.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/conv/igemm_sm90_producers.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "gpu/gemm/sm90/wgmma_ops.hpp"

namespace hiprim::gpu::sm90 {

// Threads and the CTAs per SM the register budget aims for (launch bounds; accumulators are BN/2
// per consumer thread). Functions of one argument: HIP's __launch_bounds__ macro splits template
// argument lists. key = ws * 1000000 + bm * 1000 + bn.
constexpr int igemm_kernel_threads(int key) { return (key / 1000 % 1000) / 64 * 128 + (key >= 1000000 ? 128 : 0); }
constexpr int igemm_min_blocks(int key) {
  const int bn = key % 1000, threads = igemm_kernel_threads(key);
  if (key >= 1000000) return threads <= 256 && bn <= 128 ? 2 : 1;
  return threads == 128 ? (bn <= 64 ? 4 : 3) : (threads == 256 && bn <= 128 ? 2 : 1);
}
constexpr int igemm_key(int bm, int bn, bool ws) { return (ws ? 1000000 : 0) + bm * 1000 + bn; }

// The fp32 value that leaves the accumulator for output channel n (fusion adds scale/shift,
// residual and activation here).
template <typename T>
__device__ __forceinline__ float igemm_epilogue_value(float acc, const T* bias, int n) {
  return bias != nullptr ? acc + load_f(bias, n) : acc;
}

// The fused chain (IgemmEpilogue) on one fp32 value v of channel n after the bias; res: the
// residual's element (used only with ep.residual).
__device__ __forceinline__ float igemm_fused_value(const IgemmEpilogue& ep, float v, int n, float res) {
  if (ep.bn_a != nullptr) v = (v - ep.bn_mean[n]) * ep.bn_a[n] + ep.bn_shift[n];
  if (ep.residual != nullptr) v = ep.add_alpha * v + ep.add_beta * res;
  if (ep.activ_mode >= 0) v = activ_fwd(ep.activ_mode, v, ActivCoeffs{ep.activ_alpha, ep.activ_beta, ep.activ_gamma});
  return v;
}

// Two adjacent outputs (off even), each rounded to nearest even: one 4-byte store.
template <typename T>
__device__ __forceinline__ void store_pair(T* out, long long off, float v0, float v1) {
#if HIPRIM_PLATFORM_NVIDIA
  if constexpr (std::is_same_v<T, float>) {
    *reinterpret_cast<float2*>(out + off) = make_float2(v0, v1);  // (fp32 out: no rounding)
  } else if constexpr (std::is_same_v<T, __half>) {
    *reinterpret_cast<__half2*>(out + off) = __floats2half2_rn(v0, v1);
  } else {
    *reinterpret_cast<__nv_bfloat162*>(out + off) = __floats2bfloat162_rn(v0, v1);
  }
#else
  store_f(out, off, v0);
  store_f(out, off + 1, v1);
#endif
}

// Second pass of split-K, per class with splits > 1: out[row(m) + n] = round(sum_s partial[s][m][n]
// (+ bias[n]), then the fused chain when ep.fused), row(m) = out_row_offset(rows, m, n_cols) (dense
// rows: m * n_cols; a sub-pixel class: its pixels). A fixed order (deterministic): a block takes
// 256/G output pairs x G split groups; group g sums splits g, g + G, ... in increasing order (the
// loads of 4 issued before their adds), then group 0 adds the groups' sums in order 0..G-1. G = 8
// for 8 or more splits (the small bwd-weights outputs: more loads in flight), else 1 (no
// shared-memory pass).
constexpr int kReduceThreads = 256;
inline int igemm_reduce_groups(int splits) { return splits >= 8 ? 8 : 1; }
template <typename T, int G, IgemmMutant MUT = IgemmMutant::none>
__global__ void __launch_bounds__(kReduceThreads)
    igemm_sm90_reduce(const float* __restrict__ partial, int splits, long long mn, int n_cols, const T* __restrict__ bias,
                      T* __restrict__ out, const IgemmEpilogue ep, const OutRows rows) {
  constexpr int PAIRS = kReduceThreads / G;
  __shared__ float2 group_sum[G > 1 ? G : 1][G > 1 ? PAIRS : 1];
  const int pl = static_cast<int>(threadIdx.x) % PAIRS, grp = static_cast<int>(threadIdx.x) / PAIRS;
  const long long pairs = mn / 2, stride = mn / 2;
  [[maybe_unused]] int rot = 0;  // splitk_order: this launch's first split (a ticket counter never reset)
  if constexpr (MUT == IgemmMutant::splitk_order) {
    __shared__ int rot_s;
#if defined(HIPRIM_IGEMM_MUTANTS)
    if (threadIdx.x == 0) rot_s = static_cast<int>(atomicAdd(&igemm_mutant_counters[1], 1u) / gridDim.x);
#endif
    __syncthreads();
    rot = rot_s;
  }
  for (long long base = static_cast<long long>(blockIdx.x) * PAIRS; base < pairs;
       base += static_cast<long long>(gridDim.x) * PAIRS) {  // uniform over the block
    const long long e = base + pl;
    float2 t = {0.0f, 0.0f};
    if (e < pairs) {
      const float2* const col = reinterpret_cast<const float2*>(partial) + e;
      int k = grp;
      if constexpr (MUT == IgemmMutant::splitk_order) {  // the bug: group grp's splits summed from (rot % n)
        const int n = (splits - grp + G - 1) / G;
        for (int j = 0; j < n; ++j) {
          const float2 v = col[(grp + (j + rot) % n * G) * stride];
          t.x += v.x, t.y += v.y;
        }
        k = splits;
      }
      for (; k + 3 * G < splits; k += 4 * G) {
        float2 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = col[(k + u * G) * stride];
#pragma unroll
        for (int u = 0; u < 4; ++u) t.x += v[u].x, t.y += v[u].y;
      }
      for (; k < splits; k += G) {
        const float2 v = col[k * stride];
        t.x += v.x, t.y += v.y;
      }
    }
    if constexpr (G > 1) {
      group_sum[grp][pl] = t;
      __syncthreads();
      if (grp == 0) {
        t = group_sum[0][pl];
#pragma unroll
        for (int g = 1; g < G; ++g) t.x += group_sum[g][pl].x, t.y += group_sum[g][pl].y;
      }
    }
    if (grp == 0 && e < pairs) {
      const long long m = 2 * e / n_cols;
      const int n = static_cast<int>(2 * e - m * n_cols);
      const long long o = rows.dense ? 2 * e : out_row_offset(rows, static_cast<int>(m), n_cols) + n;
      float v0 = igemm_epilogue_value(t.x, bias, n), v1 = igemm_epilogue_value(t.y, bias, n + 1);
      if (ep.fused) {
        const T* res = static_cast<const T*>(ep.residual);
        v0 = igemm_fused_value(ep, v0, n, res ? load_f(res, o) : 0.0f);
        v1 = igemm_fused_value(ep, v1, n + 1, res ? load_f(res, o + 1) : 0.0f);
      }
      store_pair(out, o, v0, v1);
    }
    if constexpr (G > 1) __syncthreads();
  }
}

#if HIPRIM_SM90A
// One k-block of consumer warpgroup c: 4 x wgmma m64nBNk16 (tf32: m64nBNk8), 32 bytes of k each, on
// the stage at `st`, committed as a group.
template <typename T, int BM, int BN, int TA, int TB, IgemmMutant MUT = IgemmMutant::none>
__device__ __forceinline__ void mma_stage(float (&acc)[BN / 2], std::uint32_t st, int c) {
  constexpr std::uint32_t a_step = TA ? kKStepBytesMN : kKStepBytesK, b_step = TB ? kKStepBytesMN : kKStepBytesK;
  const std::uint32_t a_tile = st + static_cast<std::uint32_t>(c) * (64 * kRowBytes);  // = one MN atom column too
  const std::uint64_t da = TA ? desc_mnmajor(a_tile) : desc_kmajor(a_tile);
  const std::uint64_t db = TB ? desc_mnmajor(st + BM * kRowBytes) : desc_kmajor(st + BM * kRowBytes);
  fence_operands(acc);
  if constexpr (MUT != IgemmMutant::no_fence) wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < kRowBytes / kKStepBytesK; ++ks)
    wgmma_tile<T, BN, TA, TB>(acc, desc_advance(da, ks * a_step), desc_advance(db, ks * b_step));
  wgmma_commit();
}

// Thread t of consumer warpgroup c holds rows m0 + 64c + acc_row(t, v), cols n0 + acc_col(t, v).
template <typename T, int BN>
__device__ __forceinline__ void igemm_epilogue(const IgemmParams& p, const IgemmClass& cl, const float (&acc)[BN / 2],
                                               int c, int t, int m0, int n0, int split, T* out, const T* bias,
                                               float* partial) {
  const int n_cols = p.n_cols;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = m0 + 64 * c + acc_row(t, 2 * half);
    if (row >= cl.m) continue;
    if (cl.splits > 1 || p.fp32_out) {
      float* prow = partial + cl.partial_off + (static_cast<long long>(split) * cl.m + row) * n_cols;
#pragma unroll
      for (int jn = 0; jn < BN / 8; ++jn) {
        const int col = n0 + acc_col(t, 4 * jn);
        if (col < n_cols)
          *reinterpret_cast<float2*>(prow + col) = make_float2(igemm_epilogue_value(acc[4 * jn + 2 * half], cl.splits > 1 ? nullptr : bias, col),
                                                               igemm_epilogue_value(acc[4 * jn + 2 * half + 1], cl.splits > 1 ? nullptr : bias, col + 1));
      }
    } else {
      const long long off = out_row_offset(cl.out, row, n_cols);
#pragma unroll
      for (int jn = 0; jn < BN / 8; ++jn) {
        const int col = n0 + acc_col(t, 4 * jn);
        if (col < n_cols)
          store_pair(out, off + col, igemm_epilogue_value(acc[4 * jn + 2 * half], bias, col),
                     igemm_epilogue_value(acc[4 * jn + 2 * half + 1], bias, col + 1));
      }
    }
  }
}
// The staged epilogue (.se, splitk 1) of consumer warpgroup c (CONSUMERS warpgroups in all): after
// every consumer's last wgmma has completed (named barrier 1), the warpgroup writes its rounded
// 64 x BN tile (+ bias) into its own region of the (no longer read) stage memory, rows BN*2 + 16
// bytes apart, then (named barrier 2 + c) stores 16-byte row pieces: thread t takes piece t % (BN/8)
// of rows t / (BN/8) + i * (128 / (BN/8)), so consecutive threads write consecutive bytes of a row.
template <typename T, int BN, int CONSUMERS>
__device__ __forceinline__ void igemm_staged_epilogue(const IgemmParams& p, const IgemmClass& cl,
                                                      const float (&acc)[BN / 2], int c, int t, int m0, int n0,
                                                      T* out, const T* bias, unsigned char* smem) {
  constexpr int PITCH = BN * 2 + 16, PIECES = BN / 8, ROW_STEP = 128 / PIECES;
  unsigned char* tile = smem + c * 64 * PITCH;
  named_barrier(1, CONSUMERS * 128);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = acc_row(t, 2 * half);
#pragma unroll
    for (int jn = 0; jn < BN / 8; ++jn) {
      const int col = acc_col(t, 4 * jn);
      store_pair(reinterpret_cast<T*>(tile + r * PITCH), col,
                 igemm_epilogue_value(acc[4 * jn + 2 * half], bias, n0 + col < p.n_cols ? n0 + col : 0),
                 igemm_epilogue_value(acc[4 * jn + 2 * half + 1], bias, n0 + col + 1 < p.n_cols ? n0 + col + 1 : 0));
    }
  }
  named_barrier(2 + c, 128);
  const int piece = t % PIECES, col = n0 + 8 * piece;
#pragma unroll
  for (int i = 0; i < 64 / ROW_STEP; ++i) {
    const int r = t / PIECES + i * ROW_STEP, row = m0 + 64 * c + r;
    if (row < cl.m && col < p.n_cols)
      *reinterpret_cast<uint4*>(out + out_row_offset(cl.out, row, p.n_cols) + col) =
          *reinterpret_cast<const uint4*>(tile + r * PITCH + 16 * piece);
  }
}

// The epilogue of one tile: the fused one (fwd with p.ep.fused, splitk 1), else .se's or the direct one.
template <typename T, int BN, int CONSUMERS, IgemmDir DIR>
__device__ __forceinline__ void igemm_tile_epilogue(const IgemmParams& p, const IgemmClass& cl, const float (&acc)[BN / 2],
                                                    int c, int t, int m0, int n0, int split, T* out, const T* bias,
                                                    float* partial, unsigned char* smem) {
  if constexpr (sizeof(T) == 2) {  // (fp32: neither is planned; their pieces are 16-bit)
    if constexpr (DIR == IgemmDir::fwd) {
      if (p.ep.fused && cl.splits == 1) {
        igemm_fused_epilogue<T, BN, CONSUMERS>(p, cl, acc, c, t, m0, n0, out, bias, smem);
        return;
      }
    }
    if (p.staged_epilogue) {
      igemm_staged_epilogue<T, BN, CONSUMERS>(p, cl, acc, c, t, m0, n0, out, bias, smem);
      return;
    }
  }
  igemm_epilogue<T, BN>(p, cl, acc, c, t, m0, n0, split, out, bias, partial);
}
#endif  // HIPRIM_SM90A

// The implicit-GEMM kernel of one direction (see the header). a/b are the A and B source tensors
// (fwd: x, w; bwd-data: dy, w; bwd-weights: dy, x), out the output tensor, partial the split-K
// workspace (splitk > 1) or null.
// PERSIST (.p: warp-specialised, TMA, staged epilogue, split 1, one class): a grid smaller than the
// tiles, CTA b taking tiles b, b + gridDim.x, ... (n fastest); the stage ring runs on across tiles,
// so the producer loads the next tile while the consumers store this one, and the epilogue stages
// in its own region after the stages and barriers (igemm_smem_bytes), not in the stage memory.
template <typename T, int BM, int BN, IgemmDir DIR, bool WS, bool TMA, bool PERSIST = false,
          IgemmMutant MUT = IgemmMutant::none>
__global__ void __launch_bounds__(igemm_kernel_threads(igemm_key(BM, BN, WS)), igemm_min_blocks(igemm_key(BM, BN, WS)))
    igemm_sm90_kernel(const IgemmParams p, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                      const T* __restrict__ bias, float* __restrict__ partial, int stages,
                      const HIPRIM_GRID_CONSTANT TensorMap tmap_b, const HIPRIM_GRID_CONSTANT TensorMap tmap_a) {
  static_assert(!TMA || WS, "TMA feeds the warp-specialised variant only");
  static_assert(!PERSIST || TMA, "the persistent grid is a variant of the TMA kernels");
  static_assert(sizeof(T) == 2 || (DIR == IgemmDir::fwd && !PERSIST), "fp32 (tf32) runs fwd kernels only, without .p");
#if HIPRIM_SM90A
  constexpr int CONSUMERS = BM / 64;
  constexpr int KB = kblock_elems(sizeof(T));  // k elements per k-block (64, or 32 for tf32)
  constexpr int TA = DIR == IgemmDir::bwd_weights ? 1 : 0;  // A MN-major only for bwd-weights
  constexpr int TB = DIR == IgemmDir::fwd ? 0 : 1;          // B K-major only for fwd
  constexpr int STAGE_BYTES = (BM + BN) * kRowBytes;
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t smem0 = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const int tid = static_cast<int>(threadIdx.x), wg = tid / 128, t = tid % 128;
  int zc = 0;  // the class whose z range [z0, z0 + splits) holds blockIdx.z (z0 ascends with the class)
  for (int i = 1; i < p.classes; ++i)
    if (static_cast<int>(blockIdx.z) >= p.cls[i].z0) zc = i;
  const IgemmClass& cl = p.cls[zc];
  const int split = static_cast<int>(blockIdx.z) - cl.z0;
  const int tile = static_cast<int>(blockIdx.x), m_tile = tile / p.n_tiles;
  const int m0 = m_tile * BM, n0 = (tile - m_tile * p.n_tiles) * BN;
  if (m0 >= cl.m) return;  // a class with fewer tiles than the grid (uniform over the CTA)
  const int kb_total = MUT == IgemmMutant::k_tail ? cl.kred / KB : (cl.kred + KB - 1) / KB;  // (k_tail: floor)
  const int kb_begin = split * p.kb_per_split;
  const int nkb = max(0, min(kb_total, kb_begin + p.kb_per_split) - kb_begin);
  auto stage_addr = [&](int s) { return smem0 + static_cast<std::uint32_t>(s * STAGE_BYTES); };

  float acc[BN / 2];
#pragma unroll
  for (int v = 0; v < BN / 2; ++v) acc[v] = 0.0f;

  if constexpr (!WS) {
    StageProducers<T, BM, BN, DIR, CONSUMERS * 128> prod;
    prod.init(p, cl, a, b, m0, n0, tid);
    const int D = stages - 2;
    for (int i = 0; i < D; ++i) {
      if (i < nkb) prod.load(kb_begin + i, stage_addr(i), tid);
      cp_async_commit();
    }
    int stage = 0;
    for (int i = 0; i < nkb; ++i) {
      cp_async_wait(D - 1);
      if constexpr (MUT != IgemmMutant::no_fence) fence_proxy_async();
      __syncthreads();
      if (i + D < nkb) prod.load(kb_begin + i + D, stage_addr((stage + D) % stages), tid);
      cp_async_commit();
      mma_stage<T, BM, BN, TA, TB, MUT>(acc, stage_addr(stage), wg);
      wgmma_wait<1>();
      fence_operands(acc);
      stage = stage + 1 == stages ? 0 : stage + 1;
    }
    wgmma_wait<0>();
    fence_operands(acc);
    cp_async_wait(0);
    igemm_tile_epilogue<T, BN, CONSUMERS, DIR>(p, cl, acc, wg, t, m0, n0, split, out, bias, partial,
                                               smem_raw + (smem0 - smem_addr(smem_raw)));
  } else {
    const std::uint32_t bars = smem0 + static_cast<std::uint32_t>(stages * STAGE_BYTES);
    auto full = [&](int s) { return bars + 8u * static_cast<std::uint32_t>(s); };
    auto empty = [&](int s) { return bars + 8u * static_cast<std::uint32_t>(stages + s); };
    if (tid == 0) {
      for (int s = 0; s < stages; ++s) {
        // cp.async producers' arrivals (none when A comes by TMA too) + the TMA issuer's expect_tx arrival
        const bool all_tma = DIR == IgemmDir::fwd ? p.a_dense || p.a_im2col : DIR == IgemmDir::bwd_data ? p.a_dense : p.b_dense || p.b_im2col;
        mbar_init(full(s), TMA ? (all_tma ? 1 : 129) : 128);
        mbar_init(empty(s), CONSUMERS * 128);
      }
      fence_mbarrier_init();
    }
    __syncthreads();
    MbarWatch<MUT> watch;  // mbar_wait (bounded under a mutant: igemm_sm90_mutant.hpp)
    // PERSIST: this CTA's tiles are blockIdx.x, + gridDim.x, ...; otherwise the one at (m0, n0). The
    // bodies below take one tile; the stage ring (stage, use) runs on from tile to tile.
    const int tiles = p.m_tiles * p.n_tiles;
    auto tile_m0 = [&](int tl) { return tl / p.n_tiles * BM; };
    auto tile_n0 = [&](int tl) { return (tl - tl / p.n_tiles * p.n_tiles) * BN; };
    if (wg == 0) {  // producer warpgroup
      StageProducers<T, BM, BN, DIR, 128> prod;
      int stage = 0, use = 0;
      auto produce_tile = [&](const int m0, const int n0) {
        prod.init(p, cl, a, b, m0, n0, t);
        for (int i = 0; i < nkb; ++i) {
          if constexpr (MUT != IgemmMutant::early_release) {  // (early_release: never waits)
            if (use > 0) watch.wait(empty(stage), MUT == IgemmMutant::parity ? use & 1 : (use - 1) & 1, false);
          }
          if constexpr (TMA && DIR == IgemmDir::fwd) {
            const int k0 = (kb_begin + i) * KB;
            if (t == 0) {  // B = w [K][Kred]: box (64 k, BN rows) at (k0, n0); A = x [M][C]: (64 k, BM rows),
                           // or x's im2col box of BM pixels x 64 channels
              mbar_arrive_expect_tx(full(stage), (BN + (p.a_dense || p.a_im2col ? BM : 0)) * kRowBytes);
              tma_load_2d(stage_addr(stage) + BM * kRowBytes, &tmap_b, k0, n0 + cl.b_row0, full(stage));
              if (p.a_dense) {
                tma_load_2d(stage_addr(stage), &tmap_a, k0, m0, full(stage));
              } else if (p.a_im2col) {
                const Im2colBox q = im2col_box(cl.act, m0, k0);
                tma_load_im2col_4d(stage_addr(stage), &tmap_a, q.c0, q.x, q.y, q.img, static_cast<std::uint16_t>(q.off_x),
                                   static_cast<std::uint16_t>(q.off_y), full(stage));
              }
            }
            if (!p.a_dense && !p.a_im2col) {
              prod.load_a(kb_begin + i, stage_addr(stage), t);
              cp_async_arrive_noinc(full(stage));
            }
          } else if constexpr (TMA && DIR == IgemmDir::bwd_data) {  // 1x1 stride 1 pad 0 (a_dense): A = dy [M][K]
            const int k0 = (kb_begin + i) * KB;                   // (64 k, BM rows) at (k0, m0); B = w [K][C]:
            if (t == 0) {                                              // MN-major boxes (64 c, 64 k) at (n0 + 64j, k0)
              mbar_arrive_expect_tx(full(stage), (BM + BN) * kRowBytes);
              tma_load_2d(stage_addr(stage), &tmap_a, k0, m0, full(stage));
#pragma unroll
              for (int j = 0; j < BN / 64; ++j)
                tma_load_2d(stage_addr(stage) + BM * kRowBytes + j * kMnAtomColBytes, &tmap_b, n0 + 64 * j, k0, full(stage));
            }
          } else if constexpr (TMA) {  // bwd-weights: A = dy [pixels][K], B = x [pixels][C] (MN-major)
            const int k0 = (kb_begin + i) * KB;
            if (t == 0) {  // boxes of (64 channels, 64 pixels) at (m0 + 64j, k0) and (n0 + 64j, k0), or x's
                           // im2col box of pixels k0.. at the tap of column n0 + 64j (columns past the
                           // last take the last tap's box: their outputs are never stored)
              mbar_arrive_expect_tx(full(stage), (BM + (p.b_dense || p.b_im2col ? BN : 0)) * kRowBytes);
#pragma unroll
              for (int j = 0; j < BM / 64; ++j)
                tma_load_2d(stage_addr(stage) + j * kMnAtomColBytes, &tmap_a, m0 + 64 * j, k0, full(stage));
              if (p.b_dense) {
#pragma unroll
                for (int j = 0; j < BN / 64; ++j)
                  tma_load_2d(stage_addr(stage) + BM * kRowBytes + j * kMnAtomColBytes, &tmap_b, n0 + 64 * j, k0, full(stage));
              } else if (p.b_im2col) {
                const ActGather g = act_gather_of(p.pix);
#pragma unroll
                for (int j = 0; j < BN / 64; ++j) {
                  const Im2colBox q = im2col_box(g, k0, min(n0 + 64 * j, p.n_cols - 64));
                  tma_load_im2col_4d(stage_addr(stage) + BM * kRowBytes + j * kMnAtomColBytes, &tmap_b, q.c0, q.x, q.y, q.img,
                                     static_cast<std::uint16_t>(q.off_x), static_cast<std::uint16_t>(q.off_y), full(stage));
                }
              }
            }
            if (!p.b_dense && !p.b_im2col) {
              prod.load_b(kb_begin + i, stage_addr(stage), t);
              cp_async_arrive_noinc(full(stage));
            }
          } else {
            prod.load(kb_begin + i, stage_addr(stage), t);
            cp_async_arrive_noinc(full(stage));
          }
          if (++stage == stages) stage = 0, ++use;
        }
      };
      if constexpr (PERSIST) {
        for (int tl = tile; tl < tiles; tl += static_cast<int>(gridDim.x)) produce_tile(tile_m0(tl), tile_n0(tl));
      } else {
        produce_tile(m0, n0);
      }
      cp_async_wait_all();  // leave no copy in flight behind an exiting thread (they are not in groups)
      if constexpr (MUT != IgemmMutant::none) {  // a mutant's producer tail: the last fill of each stage has
        MbarWatch<MUT> tail;                     // landed before the CTA's shared memory can go (consumers
        const int issued = use * stages + stage;  // that gave up on a wait may have exited already)
        for (int f = issued - 1; f >= 0 && f >= issued - stages; --f) tail.wait(full(f % stages), (f / stages) & 1, true);
      }
    } else {
      const int c = wg - 1;
      int stage = 0, use = 0, prev = 0;
      auto consume_tile = [&]() {
        for (int i = 0; i < nkb; ++i) {
          watch.wait(full(stage), use & 1, true);
          if constexpr (MUT != IgemmMutant::no_fence) fence_proxy_async();
          mma_stage<T, BM, BN, TA, TB, MUT>(acc, stage_addr(stage), c);
          wgmma_wait<1>();
          fence_operands(acc);
          if (i > 0) mbar_arrive(empty(prev));
          prev = stage;
          if (++stage == stages) stage = 0, ++use;
        }
        wgmma_wait<0>();
        fence_operands(acc);
      };
      if constexpr (PERSIST) {
        for (int tl = tile; tl < tiles; tl += static_cast<int>(gridDim.x)) {
          if (tl != tile) {  // the previous tile's epilogue has read acc
#pragma unroll
            for (int v = 0; v < BN / 2; ++v) acc[v] = 0.0f;
          }
          consume_tile();
          mbar_arrive(empty(prev));  // the tile's last stage, for the producer's next tile
          unsigned char* const region = smem_raw + (bars + 256u - smem_addr(smem_raw));  // igemm_smem_bytes(c, fused)
          if constexpr (DIR == IgemmDir::fwd && igemm_fused_persist_tile(BM, BN)) {
            if (p.ep.fused) {
              igemm_fused_epilogue<T, BN, CONSUMERS, kFusedRows<BN> / 2>(p, cl, acc, c, t, tile_m0(tl), tile_n0(tl), out, bias, region);
              continue;
            }
          }
          igemm_staged_epilogue<T, BN, CONSUMERS>(p, cl, acc, c, t, tile_m0(tl), tile_n0(tl), out, bias, region);
        }
      } else {
        consume_tile();
        igemm_tile_epilogue<T, BN, CONSUMERS, DIR>(p, cl, acc, c, t, m0, n0, split, out, bias, partial,
                                                   smem_raw + (smem0 - smem_addr(smem_raw)));
      }
    }
  }
#else
  (void)p, (void)a, (void)b, (void)out, (void)bias, (void)partial, (void)stages, (void)tmap_b, (void)tmap_a;
#if defined(__CUDA_ARCH__)
  __trap();  // never launched: the host refuses every device but sm_90 (sm_90a code only)
#endif
#endif
}

}  // namespace hiprim::gpu::sm90
