// conv.igemm.wgmma's kernels (device-side header; include from the igemm_sm90_*.hip files, which
// are built for sm_90a only). The plan, the GEMM roles of each direction and the gathers are in
// igemm_sm90_plan.hpp; the shared-memory layouts and descriptors in gpu/gemm/sm90/wgmma_layout.hpp.
//
// Launch: grid (m tiles, n tiles, classes * splitk), BM/64 consumer warpgroups (128 threads each),
// dynamic shared memory = stages * (BM + BN) * 128 bytes (+1024 for alignment). Every thread is
// producer and consumer (no warp specialisation yet): stage s holds A [BM x 64] then B [BN x 64].
// Main loop over the CTA's k-blocks i (prefetch distance D = stages - 2):
//   cp.async.wait_group(D-1)          this thread's loads of k-block i have landed
//   fence.proxy.async; __syncthreads  every thread's loads visible to the async proxy; every
//                                     warpgroup past wgmma.wait_group(1) of i-1, so the stage of
//                                     k-block i-2 is no longer read
//   cp.async k-block i+D -> stage (i+D) % stages (= the stage of i-2); commit (empty groups too)
//   wgmma.fence; 4 x wgmma m64nBNk16 on stage i % stages; commit; wgmma.wait_group(1)
//   (the accumulators are pinned around each batch and after the last wait: fence_operands)
// so one wgmma group stays in flight while the next stage's barrier and loads are issued.
// Epilogue (splitk 1): acc (+ bias[n]) rounded to T (RNE) and stored as pairs of adjacent channels
// (NHWC rows); hook for fused scale/shift, residual and activation: igemm_epilogue_value().
// splitk > 1: each split writes its fp32 partial sums to partial[split][m][n]; igemm_sm90_reduce sums
// the splits in ascending order (+ bias), rounds and stores: deterministic, no atomics.
#pragma once
#include <cstdint>
#include <type_traits>

#include "gpu/common/numeric.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "gpu/gemm/sm90/wgmma_ops.hpp"

namespace hiprim::gpu::sm90 {

// CTAs per SM the register budget aims for (launch bounds): accumulators are BN/2 per thread.
// (Functions of one argument: HIP's __launch_bounds__ macro splits template argument lists.)
constexpr int igemm_kernel_threads(int bm) { return bm / 64 * 128; }
constexpr int igemm_min_blocks(int bm_bn /* bm * 1000 + bn */) {
  const int bm = bm_bn / 1000, bn = bm_bn % 1000, threads = igemm_kernel_threads(bm);
  return threads == 128 ? (bn <= 64 ? 4 : 3) : (threads == 256 && bn <= 128 ? 2 : 1);
}
template <int BM, int BN>
struct IgemmShape {
  static constexpr int threads = igemm_kernel_threads(BM);
  static constexpr int a_bytes = BM * kRowBytes, b_bytes = BN * kRowBytes, stage_bytes = a_bytes + b_bytes;
  static constexpr int min_blocks = igemm_min_blocks(BM * 1000 + BN);
};

// The fp32 value that leaves the accumulator for output channel n (fusion adds scale/shift,
// residual and activation here).
template <typename T>
__device__ __forceinline__ float igemm_epilogue_value(float acc, const T* bias, int n) {
  return bias != nullptr ? acc + load_f(bias, n) : acc;
}

// Two adjacent outputs (off even), each rounded to nearest even: one 4-byte store.
template <typename T>
__device__ __forceinline__ void store_pair(T* out, long long off, float v0, float v1) {
#if HIPRIM_PLATFORM_NVIDIA
  if constexpr (std::is_same_v<T, __half>) {
    *reinterpret_cast<__half2*>(out + off) = __floats2half2_rn(v0, v1);
  } else {
    *reinterpret_cast<__nv_bfloat162*>(out + off) = __floats2bfloat162_rn(v0, v1);
  }
#else
  store_f(out, off, v0);
  store_f(out, off + 1, v1);
#endif
}

// Second pass of split-K (dense output rows): out[e] = round(sum_s partial[s][e] (+ bias[e % n_cols])).
template <typename T>
__global__ void __launch_bounds__(256) igemm_sm90_reduce(const float* __restrict__ partial, int splits, long long mn,
                                                         int n_cols, const T* __restrict__ bias, T* __restrict__ out) {
  const long long pairs = mn / 2, step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < pairs; e += step) {
    float2 s = reinterpret_cast<const float2*>(partial)[e];
    for (int k = 1; k < splits; ++k) {
      const float2 v = reinterpret_cast<const float2*>(partial + k * mn)[e];
      s.x += v.x;
      s.y += v.y;
    }
    const int n = static_cast<int>((2 * e) % n_cols);
    store_pair(out, 2 * e, igemm_epilogue_value(s.x, bias, n), igemm_epilogue_value(s.y, bias, n + 1));
  }
}

#if HIPRIM_SM90A
// ---- producers: each thread's share of one stage's tile (KMajorSplit / MnMajorSplit in
// wgmma_layout.hpp), written with 16-byte cp.async ----
// fwd / bwd-data A: activation rows gathered through ActGather.
template <int ROWS, int THREADS>
struct LoadActK {
  using R = KMajorSplit<ROWS, THREADS>;
  const std::uint16_t* src;
  ActGather g;
  int kred, col;
  ActRow rows[R::per];
  __device__ void init(const std::uint16_t* s, const IgemmClass& cl, int m0, int tid) {
    src = s, g = cl.act, kred = cl.kred, col = R::chunk(tid);
#pragma unroll
    for (int i = 0; i < R::per; ++i) rows[i] = act_row(g, m0 + R::row(tid, i), cl.m);
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
    const int kk = kb * kTileK + col * 8;
    const bool kv = kk < kred;
    const Tap t = kv ? tap_of(kk, g.sc, g.ns) : Tap{};
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const long long off = act_offset(g, rows[i], t, kv);
      cp_async16(tile + kmajor_offset(R::row(tid, i), col * 8), src + (off >= 0 ? off : 0), off >= 0);
    }
  }
};

// fwd B: dense rows (w[k][r][s][c], row length ld = Kred).
template <int ROWS, int THREADS>
struct LoadDenseK {
  using R = KMajorSplit<ROWS, THREADS>;
  const std::uint16_t* src;
  int ld, kred, col, n_rows, n0;
  __device__ void init(const std::uint16_t* s, int ld_, int kred_, int n_rows_, int n0_, int tid) {
    src = s, ld = ld_, kred = kred_, n_rows = n_rows_, n0 = n0_, col = R::chunk(tid);
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
    const int kk = kb * kTileK + col * 8;
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const int r = R::row(tid, i), n = n0 + r;
      const bool v = n < n_rows && kk < kred;
      cp_async16(tile + kmajor_offset(r, col * 8), src + (v ? static_cast<long long>(n) * ld + kk : 0), v);
    }
  }
};

// bwd-data B: w read by (tap, k) rows, c contiguous (MN-major).
template <int ROWS, int THREADS>
struct LoadWeightMn {
  using R = MnMajorSplit<ROWS, THREADS>;
  const std::uint16_t* src;
  WeightTaps wt;
  int kred, c0, cl_col;
  bool col_valid;
  __device__ void init(const std::uint16_t* s, const IgemmClass& cl, int n_cols, int n0, int tid) {
    src = s, wt = cl.wt, kred = cl.kred, cl_col = R::chunk(tid);
    c0 = n0 + 8 * cl_col;
    col_valid = c0 < n_cols;
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const int krow = R::krow(tid, i), kk = kb * kTileK + krow;
      const bool v = col_valid && kk < kred;
      cp_async16(tile + mnmajor_offset(8 * cl_col, krow), src + (v ? weight_offset(wt, kk, c0) : 0), v);
    }
  }
};

// bwd-weights A: dy[pixel][k] (MN-major, row length ld = K).
template <int ROWS, int THREADS>
struct LoadDenseMn {
  using R = MnMajorSplit<ROWS, THREADS>;
  const std::uint16_t* src;
  int ld, kred, m, cl_col;
  bool col_valid;
  __device__ void init(const std::uint16_t* s, int ld_, int kred_, int mn_total, int m0, int tid) {
    src = s, ld = ld_, kred = kred_, cl_col = R::chunk(tid);
    m = m0 + 8 * cl_col;
    col_valid = m < mn_total;
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const int krow = R::krow(tid, i), kk = kb * kTileK + krow;
      const bool v = col_valid && kk < kred;
      cp_async16(tile + mnmajor_offset(8 * cl_col, krow), src + (v ? static_cast<long long>(kk) * ld + m : 0), v);
    }
  }
};

// bwd-weights B: x gathered by pixel rows for the fixed filter column (r, s, c..c+7) (MN-major).
template <int ROWS, int THREADS>
struct LoadPixelMn {
  using R = MnMajorSplit<ROWS, THREADS>;
  const std::uint16_t* src;
  PixelGather g;
  FilterCol fc;
  int cl_col;
  __device__ void init(const std::uint16_t* s, const PixelGather& g_, int n_cols, int n0, int tid) {
    src = s, g = g_, cl_col = R::chunk(tid);
    fc = filter_col(g, n0 + 8 * cl_col, n_cols);
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const int krow = R::krow(tid, i);
      const long long off = pixel_offset(g, fc, kb * kTileK + krow);
      cp_async16(tile + mnmajor_offset(8 * cl_col, krow), src + (off >= 0 ? off : 0), off >= 0);
    }
  }
};
#endif  // HIPRIM_SM90A

// The implicit-GEMM kernel of one direction (see the header). a/b are the A and B source tensors
// (fwd: x, w; bwd-data: dy, w; bwd-weights: dy, x), out the output tensor, partial the split-K
// workspace (splitk > 1) or null.
template <typename T, int BM, int BN, IgemmDir DIR>
__global__ void __launch_bounds__(igemm_kernel_threads(BM), igemm_min_blocks(BM * 1000 + BN))
    igemm_sm90_kernel(const IgemmParams p, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                      const T* __restrict__ bias, float* __restrict__ partial, int stages) {
#if HIPRIM_SM90A
  using S = IgemmShape<BM, BN>;
  constexpr int THREADS = S::threads;
  constexpr int TA = DIR == IgemmDir::bwd_weights ? 1 : 0;  // A MN-major only for bwd-weights
  constexpr int TB = DIR == IgemmDir::fwd ? 0 : 1;          // B K-major only for fwd
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t smem0 = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const int tid = static_cast<int>(threadIdx.x), wg = tid / 128, t = tid % 128;
  const int zc = static_cast<int>(blockIdx.z) / p.splitk, split = static_cast<int>(blockIdx.z) - zc * p.splitk;
  const IgemmClass& cl = p.cls[zc];
  const int m_rows = cl.m, kred = cl.kred;
  const int m0 = static_cast<int>(blockIdx.x) * BM, n0 = static_cast<int>(blockIdx.y) * BN;
  if (m0 >= m_rows) return;  // a class with fewer tiles than the grid (uniform over the CTA)
  const int kb_total = (kred + kTileK - 1) / kTileK;
  const int kb_begin = split * p.kb_per_split;
  const int nkb = max(0, min(kb_total, kb_begin + p.kb_per_split) - kb_begin);
  const auto* a16 = reinterpret_cast<const std::uint16_t*>(a);
  const auto* b16 = reinterpret_cast<const std::uint16_t*>(b);

  // Producers of this thread.
  std::conditional_t<DIR == IgemmDir::bwd_weights, LoadDenseMn<BM, THREADS>, LoadActK<BM, THREADS>> la;
  std::conditional_t<DIR == IgemmDir::fwd, LoadDenseK<BN, THREADS>,
                     std::conditional_t<DIR == IgemmDir::bwd_data, LoadWeightMn<BN, THREADS>, LoadPixelMn<BN, THREADS>>>
      lb;
  if constexpr (DIR == IgemmDir::bwd_weights) {
    la.init(a16, p.a_ld, kred, m_rows, m0, tid);
    lb.init(b16, p.pix, p.n_cols, n0, tid);
  } else {
    la.init(a16, cl, m0, tid);
    if constexpr (DIR == IgemmDir::fwd)
      lb.init(b16, p.a_ld, kred, p.n_cols, n0, tid);
    else
      lb.init(b16, cl, p.n_cols, n0, tid);
  }
  auto load_stage = [&](int i, int stage) {
    const std::uint32_t st = smem0 + static_cast<std::uint32_t>(stage * S::stage_bytes);
    la.load(kb_begin + i, st, tid);
    lb.load(kb_begin + i, st + S::a_bytes, tid);
  };

  float acc[BN / 2];
#pragma unroll
  for (int v = 0; v < BN / 2; ++v) acc[v] = 0.0f;

  const int D = stages - 2;
  for (int i = 0; i < D; ++i) {
    if (i < nkb) load_stage(i, i);
    cp_async_commit();
  }
  constexpr std::uint32_t a_step = TA ? kKStepBytesMN : kKStepBytesK, b_step = TB ? kKStepBytesMN : kKStepBytesK;
  int stage = 0;
  for (int i = 0; i < nkb; ++i) {
    cp_async_wait(D - 1);
    fence_proxy_async();
    __syncthreads();
    if (i + D < nkb) load_stage(i + D, (stage + D) % stages);
    cp_async_commit();
    const std::uint32_t st = smem0 + static_cast<std::uint32_t>(stage * S::stage_bytes);
    const std::uint32_t a_tile = st + static_cast<std::uint32_t>(wg) * (64 * kRowBytes);  // = one MN atom column too
    const std::uint64_t da = TA ? desc_mnmajor(a_tile) : desc_kmajor(a_tile);
    const std::uint64_t db = TB ? desc_mnmajor(st + S::a_bytes) : desc_kmajor(st + S::a_bytes);
    fence_operands(acc);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kTileK / 16; ++ks)
      wgmma_tile<T, BN, TA, TB>(acc, desc_advance(da, ks * a_step), desc_advance(db, ks * b_step));
    wgmma_commit();
    wgmma_wait<1>();
    fence_operands(acc);
    stage = stage + 1 == stages ? 0 : stage + 1;
  }
  wgmma_wait<0>();
  fence_operands(acc);
  cp_async_wait(0);

  // Epilogue: thread t of warpgroup wg holds rows m0 + 64*wg + acc_row(t, v), cols n0 + acc_col(t, v).
  const int n_cols = p.n_cols;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = m0 + 64 * wg + acc_row(t, 2 * half);
    if (row >= m_rows) continue;
    if (p.splitk > 1) {
      float* prow = partial + (static_cast<long long>(split) * m_rows + row) * n_cols;
#pragma unroll
      for (int jn = 0; jn < BN / 8; ++jn) {
        const int col = n0 + acc_col(t, 4 * jn);
        if (col < n_cols)
          *reinterpret_cast<float2*>(prow + col) = make_float2(acc[4 * jn + 2 * half], acc[4 * jn + 2 * half + 1]);
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
#else
  (void)p, (void)a, (void)b, (void)out, (void)bias, (void)partial, (void)stages;
#if defined(__CUDA_ARCH__)
  __trap();  // never launched: the host refuses every device but sm_90 (sm_90a code only)
#endif
#endif
}

}  // namespace hiprim::gpu::sm90
