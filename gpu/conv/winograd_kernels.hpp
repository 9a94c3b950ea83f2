// The transforms of conv.winograd.f<m>x3 (gpu/conv/winograd.hip, non-fused) and conv.winograd.fused.f<m>x3
// (gpu/conv/winograd_fused.hip), F(m x m, 3 x 3), a = m + 2, every step in fp32, each product of the
// transforms one sum per entry with the inner index ascending (reference/winograd.hpp's fp32 evaluation):
//   U[xi][g][k][c] = (G w G^T)[xi]    filter transform, a x a per (k, c), xi = i*a + j
//   V              = B^T d B          input transform of the a x a tile d at (th*m - pad_h, tw*m - pad_w)
//   y tile         = A^T M A          output transform, m x m, clipped at the image edge
// A tile p = (n, th, tw) covers outputs [th*m, th*m + m) x [tw*m, tw*m + m). The geometry is the
// problem's fwd equivalent (core/winograd_transforms.hpp): bwd-data reads dy with the filter flipped and
// its channels swapped, pad' = 2 - pad.
#pragma once
#include <string>
#include <vector>

#include "core/winograd_transforms.hpp"
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)
#include "gpu/common/numeric.hpp"
#include "gpu/conv/conv_geom.hpp"

namespace hiprim::gpu::wino {

constexpr int kBlock = 256;
constexpr long long kMaxTiles = 0x7fffffffLL - 1024;  // the batched GEMM's int rows
constexpr int kMaxA = 8;                               // F(6x6, 3x3)

// The transforms in fp32, row-major: at [m][a], g [a][3], bt [a][a].
struct WinoMats {
  float at[kMaxA * kMaxA], g[kMaxA * 3], bt[kMaxA * kMaxA];
};

struct WinoGeom {
  ConvGeom g;             // of the fwd equivalent: In = x (dy for bwd-data), Out = y (dx)
  int tiles_h, tiles_w;   // tiles per image
  long long tiles;        // P = N * tiles_h * tiles_w
  int cg, kg;             // channels per group of In and Out
  bool flip;              // bwd-data: w' [g*kg + k][c][r][s] = w[g*cg + c][k][2-r][2-s] (w's own strides: w_str)
  long long w_str[5];     // the problem's w strides [co, ci, t, r, s]
  bool chan_fast;         // NHWC: V [..][p][c] and M [..][p][k], channels fastest; NCHW: [..][c][p], [..][k][p]
  // Offset of V (ch = cg) or M / D (ch = kg) entry (b = xi*G + g, channel j, tile p).
  __host__ __device__ long long wsp(long long b, int ch, long long j, long long p) const {
    return chan_fast ? (b * tiles + p) * ch + j : (b * ch + j) * tiles + p;
  }
};

// Why a conv.winograd solver of tile m (non-fused or fused) refuses p, whatever its own limits: an invalid
// problem, what the transforms do not take (core/winograd_transforms.hpp), math=tf32; "" when it may take it.
inline std::string winograd_solver_refusal(const ConvProblem& p, int m) {
  if (auto errors = p.validate(); !errors.empty()) return "invalid problem: " + errors.front();
  const WinogradTransforms t = winograd_f3(m);
  if (std::string why = p.dir == ConvDir::bwd_weights ? winograd_wgrad_refusal(p, t) : winograd_refusal(p, t); !why.empty()) return why;
  if (p.math != ConvMath::exact) return "math=tf32: this solver has no TF32 path (exact fp32 only)";
  return "";
}

inline WinoMats mats_of(const WinogradTransforms& t) {
  WinoMats m{};
  auto put = [](const std::vector<Rational>& src, float* dst) {
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = static_cast<float>(src[i].num) / static_cast<float>(src[i].den);
  };
  put(t.at, m.at);
  put(t.g, m.g);
  put(t.bt, m.bt);
  return m;
}

// p's geometry as its fwd equivalent (winograd_fwd_equivalent), with p's own filter strides.
inline WinoGeom wino_geom(const ConvProblem& p, int m) {
  WinoGeom w{};
  w.g = conv_geom(winograd_fwd_equivalent(p));  // (bwd-weights: p itself, In = x, Out = dy, W = dw)
  w.flip = p.dir == ConvDir::bwd_data;
  const ConvGeom own = conv_geom(p);
  for (int i = 0; i < 5; ++i) w.w_str[i] = own.w_str[i];
  w.tiles_h = (w.g.out_sz[1] + m - 1) / m;
  w.tiles_w = (w.g.out_sz[2] + m - 1) / m;
  w.tiles = 1LL * w.g.batch * w.tiles_h * w.tiles_w;
  w.cg = w.g.in_per_group();
  w.kg = w.g.out_per_group();
  w.chan_fast = p.channels_last || p.dir == ConvDir::bwd_weights;  // (the bwd-weights GEMM reads channels-fastest)
  return w;
}

// out(i, j, sum_{l ascending} lhs(i, l) * rhs(l, j)) for R0 <= i < R1, j < C, l < I: one fp32 sum per entry
// from 0, the order of every transform product here (reference/winograd.hpp's fp32 evaluation).
template <int R0, int R1, int I, int C, typename Lhs, typename Rhs, typename Out>
__device__ __forceinline__ void mat_product_rows(Lhs lhs, Rhs rhs, Out out) {
#pragma unroll
  for (int i = R0; i < R1; ++i)
#pragma unroll
    for (int j = 0; j < C; ++j) {
      float acc = 0.0f;
#pragma unroll
      for (int l = 0; l < I; ++l) acc = acc + lhs(i, l) * rhs(l, j);
      out(i, j, acc);
    }
}
template <int R, int I, int C, typename Lhs, typename Rhs, typename Out>
__device__ __forceinline__ void mat_product(Lhs lhs, Rhs rhs, Out out) {
  mat_product_rows<0, R, I, C>(lhs, rhs, out);
}

// Thread i's filter entry (c fastest, then k, then g) of kc = G kg cg: the filter and wgrad-output kernels' walk.
__device__ __forceinline__ void filter_entry_of(const WinoGeom& wg, long long i, int& cc, int& kk, int& grp) {
  cc = static_cast<int>(i % wg.cg);
  kk = static_cast<int>(i / wg.cg % wg.kg);
  grp = static_cast<int>(i / wg.cg / wg.kg);
}

// U = G f G^T for every (g, k, c) into u [a^2][G][kg][cg]: thread i -> c fastest, then k, then g. W: the
// workspace's operand type (float, or bf16 for the tensor-core GEMMs: each value rounded to nearest even once).
template <typename T, int M, typename W = float>
__global__ void wino_filter(WinoGeom wg, WinoMats mt, const T* __restrict__ w, W* __restrict__ u) {
  constexpr int A = M + 2;
  const long long total = 1LL * wg.g.groups * wg.kg * wg.cg;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int cc, kk, grp;
    filter_entry_of(wg, i, cc, kk, grp);
    float f[3][3], t[A][3];
#pragma unroll
    for (int r = 0; r < 3; ++r)
#pragma unroll
      for (int s = 0; s < 3; ++s) {
        const long long at = wg.flip ? (1LL * grp * wg.cg + cc) * wg.w_str[0] + 1LL * kk * wg.w_str[1] + (2 - r) * wg.w_str[3] + (2 - s) * wg.w_str[4]
                                     : wg.g.w_offset(grp * wg.kg + kk, cc, 0, r, s);
        f[r][s] = load_f(w, at);
      }
    mat_product<A, 3, 3>([&](int r, int l) { return mt.g[r * 3 + l]; }, [&](int l, int c) { return f[l][c]; },
                         [&](int r, int c, float v) { t[r][c] = v; });
    const long long stride = 1LL * wg.g.groups * wg.kg * wg.cg;  // between xi
    W* out = u + (1LL * grp * wg.kg + kk) * wg.cg + cc;
    mat_product<A, 3, A>([&](int r, int l) { return t[r][l]; }, [&](int l, int c) { return mt.g[c * 3 + l]; },
                         [&](int r, int c, float v) { store_f(out, (r * A + c) * stride, v); });
  }
}

// The tile of index p: image n, tile row th, tile column tw.
__device__ __forceinline__ void tile_of(const WinoGeom& wg, long long p, int& n, int& th, int& tw) {
  const long long per_image = 1LL * wg.tiles_h * wg.tiles_w;
  n = static_cast<int>(p / per_image);
  const int r = static_cast<int>(p - n * per_image);
  th = r / wg.tiles_w;
  tw = r - th * wg.tiles_w;
}

// Thread i's (channel ch < C of G groups, tile p < P): ch fastest when wg.chan_fast, else p fastest.
__device__ __forceinline__ void chan_tile_of(const WinoGeom& wg, long long i, long long C, int& ch, long long& p) {
  if (wg.chan_fast) {
    p = i / C;
    ch = static_cast<int>(i - p * C);
  } else {
    const long long c = i / wg.tiles;
    p = i - c * wg.tiles;
    ch = static_cast<int>(c);
  }
}

// put(xi, V[xi]) for V = B^T d B of In's channel `ch` (of all groups) at tile p: d the a x a inputs from
// (th*m - pad_h, tw*m - pad_w), zeros outside the image; t = B^T d by rows (l ascending), then t B. Rows
// [R0, R1) of V only (row r of V needs row r of t alone: a part of the rows costs its share of both products).
// d is read a row at a time, each row's terms added to every t entry (the same sums in the same order as
// mat_product_rows): a row of d and the rows of t are live, not all of d.
template <typename T, int M, int R0 = 0, int R1 = M + 2, typename Put>
__device__ __forceinline__ void input_transform(const WinoGeom& wg, const WinoMats& mt, const T* __restrict__ x, long long p, int ch,
                                                Put put) {
  constexpr int A = M + 2;
  int n, th, tw;
  tile_of(wg, p, n, th, tw);
  const int h0 = th * M - wg.g.pad[1], w0 = tw * M - wg.g.pad[2];
  const long long base = wg.g.in_offset(n, ch, 0, 0, 0);
  float t[A][A];
#pragma unroll
  for (int r = R0; r < R1; ++r)
#pragma unroll
    for (int c = 0; c < A; ++c) t[r][c] = 0.0f;
#pragma unroll
  for (int l = 0; l < A; ++l) {
    const int h = h0 + l;
    const bool row_inside = h >= 0 && h < wg.g.in_sz[1];
    float d[A];
#pragma unroll
    for (int s = 0; s < A; ++s) {
      const int ww = w0 + s;
      d[s] = row_inside && ww >= 0 && ww < wg.g.in_sz[2] ? load_f(x, base + h * wg.g.in_str[3] + ww * wg.g.in_str[4]) : 0.0f;
    }
#pragma unroll
    for (int r = R0; r < R1; ++r)
#pragma unroll
      for (int c = 0; c < A; ++c) t[r][c] = t[r][c] + mt.bt[r * A + l] * d[c];
  }
  mat_product_rows<R0, R1, A, A>([&](int r, int l) { return t[r][l]; }, [&](int l, int c) { return mt.bt[c * A + l]; },
                                 [&](int r, int c, float v) { put(r * A + c, v); });
}

// The m x m outputs of Out's channel `ch` (of all groups) at tile p, A^T M A with get(xi) = M[xi]:
// t = A^T M by rows (l ascending), then t A; outputs past the image's edge are not stored.
template <typename T, int M, typename Get>
__device__ __forceinline__ void output_transform(const WinoGeom& wg, const WinoMats& mt, long long p, int ch, Get get, T* __restrict__ y) {
  constexpr int A = M + 2;
  float t[M][A];
  mat_product<M, A, A>([&](int r, int l) { return mt.at[r * A + l]; }, [&](int l, int c) { return get(l * A + c); },
                       [&](int r, int c, float v) { t[r][c] = v; });
  int n, th, tw;
  tile_of(wg, p, n, th, tw);
  const long long base = wg.g.out_offset(n, ch, 0, 0, 0);
  mat_product<M, A, M>([&](int r, int l) { return t[r][l]; }, [&](int l, int c) { return mt.at[c * A + l]; }, [&](int r, int c, float v) {
    const int oh = th * M + r, ow = tw * M + c;
    if (oh < wg.g.out_sz[1] && ow < wg.g.out_sz[2]) store_f(y, base + oh * wg.g.out_str[3] + ow * wg.g.out_str[4], v);
  });
}

// The tile after (n, th, tw) in index order (tile_of(p + 1) without its divisions).
__device__ __forceinline__ void next_tile(const WinoGeom& wg, int& n, int& th, int& tw) {
  if (++tw == wg.tiles_w) {
    tw = 0;
    if (++th == wg.tiles_h) {
      th = 0;
      ++n;
    }
  }
}

// bwd-weights: e, the m x m tile of Out's (dy's) channel `ch` at tile (n, th, tw) (zeros past P x Q).
template <typename T, int M>
__device__ __forceinline__ void dy_tile_at(const WinoGeom& wg, const T* __restrict__ dy, int n, int th, int tw, int ch, float (&e)[M][M]) {
  const long long base = wg.g.out_offset(n, ch, 0, 0, 0);
  if ((th + 1) * M <= wg.g.out_sz[1] && (tw + 1) * M <= wg.g.out_sz[2]) {  // inside P x Q: no edge tests
    const T* q = dy + base + 1LL * th * M * wg.g.out_str[3] + 1LL * tw * M * wg.g.out_str[4];
#pragma unroll
    for (int r = 0; r < M; ++r)
#pragma unroll
      for (int s = 0; s < M; ++s) e[r][s] = load_f(q, r * wg.g.out_str[3] + s * wg.g.out_str[4]);
    return;
  }
#pragma unroll
  for (int r = 0; r < M; ++r)
#pragma unroll
    for (int s = 0; s < M; ++s) {
      const int oh = th * M + r, ow = tw * M + s;
      e[r][s] = oh < wg.g.out_sz[1] && ow < wg.g.out_sz[2] ? load_f(dy, base + oh * wg.g.out_str[3] + ow * wg.g.out_str[4]) : 0.0f;
    }
}
template <typename T, int M>
__device__ __forceinline__ void dy_tile(const WinoGeom& wg, const T* __restrict__ dy, long long p, int ch, float (&e)[M][M]) {
  int n, th, tw;
  tile_of(wg, p, n, th, tw);
  dy_tile_at<T, M>(wg, dy, n, th, tw, ch, e);
}

// put(xi, D[xi]) for rows [R0, R1) of D = A e A^T: t = A e by rows (l ascending), then t A^T (row r of D needs
// row r of t alone).
template <int M, int R0 = 0, int R1 = M + 2, typename Put>
__device__ __forceinline__ void dy_tile_transform(const WinoMats& mt, const float (&e)[M][M], Put put) {
  constexpr int A = M + 2;
  float t[A][M];
  mat_product_rows<R0, R1, M, M>([&](int r, int l) { return mt.at[l * A + r]; }, [&](int l, int c) { return e[l][c]; },
                                 [&](int r, int c, float v) { t[r][c] = v; });
  mat_product_rows<R0, R1, M, A>([&](int r, int l) { return t[r][l]; }, [&](int l, int c) { return mt.at[l * A + c]; },
                                 [&](int r, int c, float v) { put(r * A + c, v); });
}

// bwd-weights: put(xi, D[xi]) for D = A e A^T of dy's channel `ch` at tile p.
template <typename T, int M, typename Put>
__device__ __forceinline__ void dy_transform(const WinoGeom& wg, const WinoMats& mt, const T* __restrict__ dy, long long p, int ch,
                                             Put put) {
  float e[M][M];
  dy_tile<T, M>(wg, dy, p, ch, e);
  dy_tile_transform<M>(mt, e, put);
}

// bwd-weights: dw[g*kg + k][c] = G^T M G per (g, k, c), M[xi][g] = the GEMM's [kg][cg]: thread i -> c
// fastest, then k, then g. t = G^T M by rows (j ascending over a), then t G.
template <typename T, int M>
__global__ void wino_wgrad_output(WinoGeom wg, WinoMats mt, const float* __restrict__ mw, T* __restrict__ dw) {
  constexpr int A = M + 2;
  const long long total = 1LL * wg.g.groups * wg.kg * wg.cg;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int cc, kk, grp;
    filter_entry_of(wg, i, cc, kk, grp);
    const long long stride = 1LL * wg.g.groups * wg.kg * wg.cg;  // between xi
    const float* in = mw + (1LL * grp * wg.kg + kk) * wg.cg + cc;
    float t[3][A];
    mat_product<3, A, A>([&](int r, int l) { return mt.g[l * 3 + r]; }, [&](int l, int c) { return in[(l * A + c) * stride]; },
                         [&](int r, int c, float v) { t[r][c] = v; });
    mat_product<3, A, 3>([&](int r, int l) { return t[r][l]; }, [&](int l, int c) { return mt.g[l * 3 + c]; },
                         [&](int r, int c, float v) { store_f(dw, wg.g.w_offset(grp * wg.kg + kk, cc, 0, r, c), v); });
  }
}

}  // namespace hiprim::gpu::wino
