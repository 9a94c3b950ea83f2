// conv.igemm.wgmma's producers (device-side header, sm_90a): each thread's share of one stage's
// A or B tile (KMajorSplit / MnMajorSplit in gpu/gemm/sm90/wgmma_layout.hpp), gathered through the
// plan's index functions (igemm_sm90_plan.hpp) and written with 16-byte cp.async into the 128B-
// swizzled slot; zero fill (src-size 0) for padding, missing rows/columns and the K tail.
// E: the element bytes (2: fp16/bf16, k-blocks of 64; 4: fp32 as TF32, k-blocks of 32, K-major
// loaders only). A 16-byte chunk q of a row holds k elements q*16/E..; the tile bytes are the same.
#pragma once
#include <cstdint>
#include <type_traits>

#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "gpu/gemm/sm90/wgmma_ops.hpp"

namespace hiprim::gpu::sm90 {

template <int E>
using ElemBits = std::conditional_t<E == 2, std::uint16_t, std::uint32_t>;  // the bits copied (exact)

#if HIPRIM_SM90A
// fwd / bwd-data A: activation rows gathered through ActGather.
template <int ROWS, int THREADS, int E>
struct LoadActK {
  using R = KMajorSplit<ROWS, THREADS>;
  static constexpr int KB = kblock_elems(E), CE = chunk_elems(E);
  const ElemBits<E>* src;
  ActGather g;
  int kred, col;
  ActRow rows[R::per];
  __device__ void init(const ElemBits<E>* s, const IgemmClass& cl, int m0, int tid) {
    src = s, g = cl.act, kred = cl.kred, col = R::chunk(tid);
#pragma unroll
    for (int i = 0; i < R::per; ++i) rows[i] = act_row(g, m0 + R::row(tid, i), cl.m);
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
    const int kk = kb * KB + col * CE;  // the chunk's CE channels lie in one tap (C % 8 == 0)
    const bool kv = kk < kred;
    const Tap t = kv ? tap_of(kk, g.sc, g.ns) : Tap{};
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const long long off = act_offset(g, rows[i], t, kv);
      cp_async16(tile + kmajor_chunk_offset(R::row(tid, i), col), src + (off >= 0 ? off : 0), off >= 0);
    }
  }
};

// fwd B: dense rows (w[k][r][s][c], row length ld = Kred).
template <int ROWS, int THREADS, int E>
struct LoadDenseK {
  using R = KMajorSplit<ROWS, THREADS>;
  static constexpr int KB = kblock_elems(E), CE = chunk_elems(E);
  const ElemBits<E>* src;
  int ld, kred, col, n_rows, n0;
  __device__ void init(const ElemBits<E>* s, int ld_, int kred_, int n_rows_, int n0_, int tid) {
    src = s, ld = ld_, kred = kred_, n_rows = n_rows_, n0 = n0_, col = R::chunk(tid);
  }
  __device__ void load(int kb, std::uint32_t tile, int tid) const {
    const int kk = kb * KB + col * CE;
#pragma unroll
    for (int i = 0; i < R::per; ++i) {
      const int r = R::row(tid, i), n = n0 + r;
      const bool v = n < n_rows && kk < kred;
      cp_async16(tile + kmajor_chunk_offset(r, col), src + (v ? n * ld + kk : 0), v);  // < 2^31 elements
    }
  }
};

// bwd-data B: w read by (tap, k) rows, c contiguous (MN-major).
template <int ROWS, int THREADS, int E>
struct LoadWeightMn {
  static_assert(E == 2, "MN-major operands are 16-bit only (wgmma .tf32 has no transpose)");
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
template <int ROWS, int THREADS, int E>
struct LoadDenseMn {
  static_assert(E == 2, "MN-major operands are 16-bit only (wgmma .tf32 has no transpose)");
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
      cp_async16(tile + mnmajor_offset(8 * cl_col, krow), src + (v ? kk * ld + m : 0), v);  // < 2^31 elements
    }
  }
};

// bwd-weights B: x gathered by pixel rows for the fixed filter column (r, s, c..c+7) (MN-major).
template <int ROWS, int THREADS, int E>
struct LoadPixelMn {
  static_assert(E == 2, "MN-major operands are 16-bit only (wgmma .tf32 has no transpose)");
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

#if HIPRIM_SM90A
// Both producers of a direction for THREADS threads: A then B of one stage.
template <typename T, int BM, int BN, IgemmDir DIR, int THREADS>
struct StageProducers {
  static constexpr int E = sizeof(T);
  std::conditional_t<DIR == IgemmDir::bwd_weights, LoadDenseMn<BM, THREADS, E>, LoadActK<BM, THREADS, E>> la;
  std::conditional_t<DIR == IgemmDir::fwd, LoadDenseK<BN, THREADS, E>,
                     std::conditional_t<DIR == IgemmDir::bwd_data, LoadWeightMn<BN, THREADS, E>, LoadPixelMn<BN, THREADS, E>>>
      lb;
  __device__ void init(const IgemmParams& p, const IgemmClass& cl, const T* a, const T* b, int m0, int n0, int tid) {
    const auto* a16 = reinterpret_cast<const ElemBits<E>*>(a);  // (16 bits or 32: the element's bits)
    const auto* b16 = reinterpret_cast<const ElemBits<E>*>(b);
    if constexpr (DIR == IgemmDir::bwd_weights) {
      la.init(a16, p.a_ld, cl.kred, cl.m, m0, tid);
      lb.init(b16, p.pix, p.n_cols, n0, tid);
    } else {
      la.init(a16, cl, m0, tid);
      if constexpr (DIR == IgemmDir::fwd)
        lb.init(b16 + cl.b_row0 * p.a_ld, p.a_ld, cl.kred, p.n_cols, n0, tid);
      else
        lb.init(b16, cl, p.n_cols, n0, tid);
    }
  }
  __device__ void load(int kb, std::uint32_t stage, int tid) const {
    la.load(kb, stage, tid);
    lb.load(kb, stage + BM * kRowBytes, tid);
  }
  __device__ void load_a(int kb, std::uint32_t stage, int tid) const { la.load(kb, stage, tid); }
  __device__ void load_b(int kb, std::uint32_t stage, int tid) const { lb.load(kb, stage + BM * kRowBytes, tid); }
};
#endif  // HIPRIM_SM90A

}  // namespace hiprim::gpu::sm90
