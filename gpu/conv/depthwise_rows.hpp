// conv.direct.grouped's row kernel (configs rows.q2 / rows.q4) for depthwise 3x3 convolution, NHWC,
// G = C = K: fwd at stride 1 or 2 along W (any stride along H; dilation 1 along W, any along H) and
// stride-1 bwd-data. Device header: included by gpu/conv/direct_grouped.hip only.
//
// Layout: In [N][in_h][in_w][C], Out [N][out_h][out_w][C], w [C][3][3] (KRSC with C/G = 1).
//   fwd:      y[n,p,q,c]  = sum_{r,s} x[n, p*sh - ph + r*dh, q*SW - pw + s, c] * w[c,r,s]  (+ bias[c])
//   bwd-data: dx[n,h,v,c] = sum_{r,s} dy[n, h + ph - r*dh, v + pw - s, c] * w[c,r,s]       (stride 1)
// A thread owns V consecutive channels (one Pack<T, V>, 16 bytes where C allows) of QT consecutive
// Out columns q0 .. q0+QT-1 and walks PT Out rows. For each Out row and filter row r it reads the
// In row's window of NW packs once into registers and every output of the strip takes its taps
// from there:
//   fwd:      In cols q0*SW - pw + j, j < NW = (QT-1)*SW + 3; output qi, tap s reads j = qi*SW + s
//   bwd-data: In cols q0 + pw - 2 + j, j < NW = QT + 2;       output qi, tap s reads j = qi + 2 - s
// so a pack is loaded NW/(QT*SW) times per filter row instead of 3 (dg_gather). The 9 x V taps of the
// block's channels are staged in shared memory (fp32) and read from there per filter tap (taps held
// in registers cost 72 of them: 177 per thread, 12.5% occupancy on the H200, s16). A tap outside In
// (padding) is skipped, never multiplied. Each output's sum runs over r, then s, from 0, the bias
// added last: the order of dg_gather, so both give the same fp32 bits.
// Block: cvb channel vectors x (kDwThreads / cvb) strip lanes; strip u = (n * row_chunks + rc) *
// strips + qs (qs fastest, so a warp's loads of one window column cover neighbouring strips).
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::gpu {

inline constexpr int kDwThreads = 256;
inline constexpr int kDwMaxCvb = 8;                     // channel vectors per block
inline constexpr long long kDwTargetThreads = 135168;   // 132 SMs x 1024: rows per thread grow beyond it

// Channel vectors per block: the widest power of two <= cap (and <= vectors) with the fewest idle
// vectors in the last slice (c144 fp16: 18 vectors, slices of 2 rather than 8); fits(c) may veto a
// width (shared-memory budget). Shared with dg_gather's plan.
template <typename Fits>
int channel_vectors_per_block(int vectors, int cap, Fits fits) {
  auto idle = [&](int c) { return (vectors + c - 1) / c * c - vectors; };
  int cvb = 1;
  for (int c = 2; c <= std::min(cap, vectors) && fits(c); c *= 2)
    if (idle(c) <= idle(cvb)) cvb = c;
  return cvb;
}

struct DwRowsGeom {
  int in_h, in_w, out_h, out_w, c;  // In [N][in_h][in_w][c], Out [N][out_h][out_w][c]
  int sh, ph, pw, dh;               // H stride (fwd), pads, H dilation
  int strips, row_chunks, rows;     // per image: strips of QT columns; row chunks of `rows` Out rows
  int units;                        // N * row_chunks * strips
  int cvb, lanes, slices;           // block: cvb vectors x lanes strips; slices = ceil(vectors / cvb)
};

// The plan of p's rows kernel with V channels per thread and QT columns per strip.
inline DwRowsGeom dw_rows_geom(long long n, int in_h, int in_w, int out_h, int out_w, int c, int sh, int ph, int pw,
                               int dh, int v, int qt) {
  DwRowsGeom g{};
  g.in_h = in_h, g.in_w = in_w, g.out_h = out_h, g.out_w = out_w, g.c = c;
  g.sh = sh, g.ph = ph, g.pw = pw, g.dh = dh;
  const int vectors = c / v;
  g.cvb = channel_vectors_per_block(vectors, kDwMaxCvb, [](int) { return true; });
  g.lanes = kDwThreads / g.cvb;
  g.slices = (vectors + g.cvb - 1) / g.cvb;
  g.strips = (out_w + qt - 1) / qt;
  // Rows per thread: 1 while the grid stays under kDwTargetThreads, more (amortizing the taps'
  // staging) beyond it; the result does not depend on it (every output's sum is the same).
  const long long at_one = 1LL * g.slices * g.cvb * n * out_h * g.strips;
  g.rows = static_cast<int>(std::clamp<long long>(at_one / kDwTargetThreads, 1, out_h));
  g.row_chunks = (out_h + g.rows - 1) / g.rows;
  g.units = static_cast<int>(n * g.row_chunks * g.strips);
  return g;
}

inline unsigned dw_rows_blocks(const DwRowsGeom& g) {
  return static_cast<unsigned>(1LL * g.slices * ((g.units + g.lanes - 1) / g.lanes));
}

template <typename T, int V, int QT, int SW, bool kBwd>
__global__ void __launch_bounds__(kDwThreads, 2)
    dw_rows(DwRowsGeom g, const T* __restrict__ in, const T* __restrict__ w, const T* __restrict__ bias,
            T* __restrict__ out) {
  static_assert(!kBwd || SW == 1, "bwd-data rows: stride 1 only");
  constexpr int NW = kBwd ? QT + 2 : (QT - 1) * SW + 3;
  __shared__ float ws[9][kDwMaxCvb * 8];  // [tap][channel of the block]
  const int kb = g.cvb * V;
  const int slice = static_cast<int>(blockIdx.x) % g.slices, ublk = static_cast<int>(blockIdx.x) / g.slices;
  const int c_blk = slice * kb;
  for (int e = static_cast<int>(threadIdx.x); e < 9 * kb; e += kDwThreads) {
    const int j = e % kb, tap = e / kb, ch = c_blk + j;
    ws[tap][j] = ch < g.c ? load_f(w, 1LL * ch * 9 + tap) : 0.0f;
  }
  __syncthreads();
  const int cv = static_cast<int>(threadIdx.x) % g.cvb, lane = static_cast<int>(threadIdx.x) / g.cvb;
  const int c0 = c_blk + cv * V, u = ublk * g.lanes + lane;
  if (c0 >= g.c || u >= g.units) return;
  float bv[V] = {};
  if (bias)
#pragma unroll
    for (int j = 0; j < V; ++j) bv[j] = load_f(bias, c0 + j);
  const int qs = u % g.strips, rest = u / g.strips;
  const int rc = rest % g.row_chunks, n = rest / g.row_chunks;
  const int q0 = qs * QT;
  const int col0 = kBwd ? q0 + g.pw - 2 : q0 * SW - g.pw;  // the window's first In column
  bool col_ok[NW];
#pragma unroll
  for (int j = 0; j < NW; ++j) col_ok[j] = static_cast<unsigned>(col0 + j) < static_cast<unsigned>(g.in_w);
  const int p_lo = rc * g.rows, p_hi = min(g.out_h, p_lo + g.rows);
  for (int p = p_lo; p < p_hi; ++p) {
    float acc[QT][V] = {};
#pragma unroll 1  // one filter row's window live at a time (registers: 2 blocks per SM)
    for (int r = 0; r < 3; ++r) {
      const int h = kBwd ? p + g.ph - r * g.dh : p * g.sh - g.ph + r * g.dh;
      if (static_cast<unsigned>(h) >= static_cast<unsigned>(g.in_h)) continue;
      const long long row = (1LL * n * g.in_h + h) * g.in_w;
      Pack<T, V> win[NW] = {};  // read only where col_ok
#pragma unroll
      for (int j = 0; j < NW; ++j)
        if (col_ok[j]) win[j] = load_raw<T, V>(in, (row + col0 + j) * g.c + c0);
#pragma unroll
      for (int s = 0; s < 3; ++s) {
        float wv[V];  // tap (r, s) of the thread's channels, read from shared memory per use
#pragma unroll
        for (int e = 0; e < V; ++e) wv[e] = ws[r * 3 + s][cv * V + e];
#pragma unroll
        for (int qi = 0; qi < QT; ++qi) {
          const int j = kBwd ? qi + 2 - s : qi * SW + s;
          if (!col_ok[j]) continue;
          float xv[V];
          unpack(win[j], xv);
#pragma unroll
          for (int e = 0; e < V; ++e) acc[qi][e] += xv[e] * wv[e];
        }
      }
    }
    const long long orow = (1LL * n * g.out_h + p) * g.out_w;
#pragma unroll
    for (int qi = 0; qi < QT; ++qi) {
      if (q0 + qi >= g.out_w) break;
      if (bias)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[qi][e] += bv[e];
      store_pack<T, V>(out, (orow + q0 + qi) * g.c + c0, acc[qi]);
    }
  }
}

// bwd-weights (deterministic, two passes, no atomics), In = x, Out = dy, the fwd geometry:
//   dw[c,r,s] = sum_{n,p,q} dy[n,p,q,c] * x[n, p*sh - ph + r*dh, q*SW - pw + s, c]
// Pass 1 (dw_rows_wgrad): a thread of the fwd plan (V channels, a strip, its rows) sums its pixels
// in (p, qi) order into acc[tap][V] from the same x windows; the block adds its lanes in lane order
// (shared memory, one tap at a time) and writes part[ublk][c*9 + tap] for its unit block ublk.
// Pass 2 (dg_wgrad_sum of direct_grouped.hip) adds the unit blocks in order and rounds once. The
// plan (V, cvb, rows) comes from the dtype's widest pack, never from the pointers' alignment:
// kScalar loads the same V lanes one element at a time, so every sum's order is the problem's.
// The V elements at p[i..i+V) as a pack (kept packed in registers: 16 bytes, not V floats).
template <typename T, int V, bool kScalar>
__device__ __forceinline__ Pack<T, V> load_lanes(const T* p, long long i) {
  if constexpr (kScalar) {
    Pack<T, V> pk;
#pragma unroll
    for (int e = 0; e < V; ++e) pk.v[e] = p[i + e];
    return pk;
  } else {
    return load_raw<T, V>(p, i);
  }
}

template <typename T, int V, int QT, int SW, bool kScalar>
__global__ void __launch_bounds__(kDwThreads, 2)
    dw_rows_wgrad(DwRowsGeom g, const T* __restrict__ x, const T* __restrict__ dy, float* __restrict__ part) {
  constexpr int NW = (QT - 1) * SW + 3;
  __shared__ float red[kDwThreads * V];  // [lane][cv][e] of one tap
  const int tid = static_cast<int>(threadIdx.x), kb = g.cvb * V;
  const int slice = static_cast<int>(blockIdx.x) % g.slices, ublk = static_cast<int>(blockIdx.x) / g.slices;
  const int cv = tid % g.cvb, lane = tid / g.cvb;
  const int c0 = slice * kb + cv * V, u = ublk * g.lanes + lane;
  float acc[9][V] = {};
  if (c0 < g.c && u < g.units) {
    const int qs = u % g.strips, rest = u / g.strips;
    const int rc = rest % g.row_chunks, n = rest / g.row_chunks;
    const int q0 = qs * QT, col0 = q0 * SW - g.pw;
    bool col_ok[NW];
#pragma unroll
    for (int j = 0; j < NW; ++j) col_ok[j] = static_cast<unsigned>(col0 + j) < static_cast<unsigned>(g.in_w);
    const int p_lo = rc * g.rows, p_hi = min(g.out_h, p_lo + g.rows);
    for (int p = p_lo; p < p_hi; ++p) {
      Pack<T, V> dv[QT] = {};  // read only where q0 + qi < out_w
      const long long orow = (1LL * n * g.out_h + p) * g.out_w;
#pragma unroll
      for (int qi = 0; qi < QT; ++qi)
        if (q0 + qi < g.out_w) dv[qi] = load_lanes<T, V, kScalar>(dy, (orow + q0 + qi) * g.c + c0);
#pragma unroll
      for (int r = 0; r < 3; ++r) {
        const int h = p * g.sh - g.ph + r * g.dh;
        if (static_cast<unsigned>(h) >= static_cast<unsigned>(g.in_h)) continue;
        const long long row = (1LL * n * g.in_h + h) * g.in_w;
        Pack<T, V> xw[NW] = {};  // read only where col_ok
#pragma unroll
        for (int j = 0; j < NW; ++j)
          if (col_ok[j]) xw[j] = load_lanes<T, V, kScalar>(x, (row + col0 + j) * g.c + c0);
#pragma unroll
        for (int qi = 0; qi < QT; ++qi) {
          if (q0 + qi >= g.out_w) continue;
          float d[V];
          unpack(dv[qi], d);
#pragma unroll
          for (int s = 0; s < 3; ++s) {
            if (!col_ok[qi * SW + s]) continue;
            float xv[V];
            unpack(xw[qi * SW + s], xv);
#pragma unroll
            for (int e = 0; e < V; ++e) acc[r * 3 + s][e] += d[e] * xv[e];
          }
        }
      }
    }
  }
  const long long celems = 9LL * g.c;
#pragma unroll
  for (int tap = 0; tap < 9; ++tap) {
#pragma unroll
    for (int e = 0; e < V; ++e) red[tid * V + e] = acc[tap][e];
    __syncthreads();
    // Thread tid < kb: channel slice*kb + tid, the lanes in order (red[(l*cvb + cv')*V + e'] = red[l*kb + tid]).
    if (tid < kb && slice * kb + tid < g.c) {
      float sum = red[tid];
      for (int l = 1; l < g.lanes; ++l) sum += red[l * kb + tid];
      part[ublk * celems + (slice * kb + tid) * 9LL + tap] = sum;
    }
    __syncthreads();  // red is rewritten by the next tap
  }
}

// ---- host side: which problems, which kernel, which plan ----

// The widest power of two <= cap dividing n (channels per pack).
inline int pow2_dividing(long long n, int cap) {
  int v = 1;
  while (v * 2 <= cap && n % (v * 2) == 0) v *= 2;
  return v;
}

// "" when the rows kernels take p (the solver's own preconditions hold), else why not.
inline std::string rows_refusal(const ConvProblem& p) {
  if (p.c != p.groups || p.k != p.groups) return "not depthwise with multiplier 1 (G = C = K)";
  if (p.filter[0] != 3 || p.filter[1] != 3) return "the filter is not 3x3";
  if (p.dilation[1] != 1) return "the dilation along W is not 1";
  if (p.dir != ConvDir::bwd_data && p.stride[1] > 2) return "the stride along W is above 2";
  if (p.dir == ConvDir::bwd_data && (p.stride[0] != 1 || p.stride[1] != 1)) return "bwd-data is strided";
  return "";
}
// The rows configs of p once rows_refusal passed (bwd-weights: strips of 4 only).
inline std::vector<std::string> rows_configs(const ConvProblem& p) {
  if (p.dir == ConvDir::bwd_weights) return {"rows.q4"};
  return {"rows.q2", "rows.q4"};
}

inline int rows_qt(const std::string& config) { return config == "rows.q2" ? 2 : 4; }

template <typename T>
using RowsKernel = void (*)(DwRowsGeom, const T*, const T*, const T*, T*);

template <typename T, bool kBwd, int V>
RowsKernel<T> rows_kernel_v(int qt, int sw) {
  if constexpr (kBwd) {
    return qt == 2 ? &dw_rows<T, V, 2, 1, true> : &dw_rows<T, V, 4, 1, true>;
  } else {
    if (sw == 1) return qt == 2 ? &dw_rows<T, V, 2, 1, false> : &dw_rows<T, V, 4, 1, false>;
    return qt == 2 ? &dw_rows<T, V, 2, 2, false> : &dw_rows<T, V, 4, 2, false>;
  }
}
template <typename T, bool kBwd>
RowsKernel<T> rows_kernel(int v, int qt, int sw) {
  if constexpr (kVec<T> >= 8)
    if (v == 8) return rows_kernel_v<T, kBwd, 8>(qt, sw);
  if (v == 4) return rows_kernel_v<T, kBwd, 4>(qt, sw);
  if (v == 2) return rows_kernel_v<T, kBwd, 2>(qt, sw);
  return rows_kernel_v<T, kBwd, 1>(qt, sw);
}

// The rows plan of p (fwd: In = x, Out = y; bwd-data: In = dy, Out = dx) with v channels per thread.
inline DwRowsGeom rows_geom(const ConvProblem& p, int v, int qt) {
  const Dims o = p.out();
  const int H = static_cast<int>(p.in[0]), W = static_cast<int>(p.in[1]);
  const int P = static_cast<int>(o[0]), Q = static_cast<int>(o[1]), C = static_cast<int>(p.c);
  const int ph = static_cast<int>(p.pad[0]), pw = static_cast<int>(p.pad[1]), dh = static_cast<int>(p.dilation[0]);
  return p.dir == ConvDir::bwd_data ? dw_rows_geom(p.n, P, Q, H, W, C, 1, ph, pw, dh, v, qt)
                                    : dw_rows_geom(p.n, H, W, P, Q, C, static_cast<int>(p.stride[0]), ph, pw, dh, v, qt);
}

// bwd-weights: the plan at the dtype's widest pack (the pointers' alignment only picks kScalar), its
// unit blocks, and the fp32 partials of pass 1 (part[unit block][C * 9]).
// Lanes per thread: the widest pack up to 4 channels (acc holds 9 x V fp32 sums: V = 8 spilled).
inline int rows_wgrad_lanes(const ConvProblem& p) {
  return pow2_dividing(p.c, std::min(4, 16 / static_cast<int>(dtype_size(p.dtype))));
}
inline DwRowsGeom rows_wgrad_geom(const ConvProblem& p) { return rows_geom(p, rows_wgrad_lanes(p), 4); }
inline int rows_wgrad_unit_blocks(const DwRowsGeom& g) { return (g.units + g.lanes - 1) / g.lanes; }
inline std::size_t rows_wgrad_workspace(const ConvProblem& p) {
  return static_cast<std::size_t>(rows_wgrad_unit_blocks(rows_wgrad_geom(p))) * 9 * static_cast<std::size_t>(p.c) * sizeof(float);
}

template <typename T>
using RowsWgradKernel = void (*)(DwRowsGeom, const T*, const T*, float*);

template <typename T, int V>
RowsWgradKernel<T> rows_wgrad_kernel_v(int sw, bool scalar) {
  if constexpr (V > 1)
    if (scalar) return sw == 1 ? &dw_rows_wgrad<T, V, 4, 1, true> : &dw_rows_wgrad<T, V, 4, 2, true>;
  return sw == 1 ? &dw_rows_wgrad<T, V, 4, 1, false> : &dw_rows_wgrad<T, V, 4, 2, false>;
}
template <typename T>
RowsWgradKernel<T> rows_wgrad_kernel(int v, int sw, bool scalar) {
  if (v == 4) return rows_wgrad_kernel_v<T, 4>(sw, scalar);  // rows_wgrad_lanes: at most 4
  if (v == 2) return rows_wgrad_kernel_v<T, 2>(sw, scalar);
  return rows_wgrad_kernel_v<T, 1>(sw, false);
}

}  // namespace hiprim::gpu
