// conv.direct.grouped's bwd-weights for every problem it takes (config "gather"): dg_wgrad_partial,
// dg_wgrad_sum and their plan, as described at the top of gpu/conv/direct_grouped.hip. Included by
// that file only (a device header: its kernels are the file's own).
#pragma once
#include <algorithm>

#include "core/conv_problem.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/conv/depthwise_rows.hpp"  // pow2_dividing

namespace hiprim::gpu {
namespace {

constexpr int kWThreads = 256;         // every bwd-weights block
constexpr int kWTaps = 9;              // bwd-weights: taps per thread
constexpr int kWMaxCombos = 32;        // bwd-weights: combos per block (fewer when the problem has fewer)
constexpr int kMinChunkPixels = 64;    // bwd-weights: fewest pixels per chunk
constexpr long long kWTargetBlocks = 528;  // bwd-weights: blocks the chunking aims for (4 per SM of an H200)
constexpr long long kPartialFloats = 1LL << 21;  // bwd-weights: workspace target (8 MiB of partials)

struct WgradGeom {
  int H, W, C, Cg, K, Kg, R, S, sh, sw, ph, pw, dh, dw;
  int npix;                 // N * P * Q
  FastDiv div_q, div_p;
  int kv, combos, combo_tiles, tap_chunks;  // combos: kv channel vectors x cin channels cc
  int cpb, lanes;                           // a block: cpb combos x lanes pixel lanes (cpb * lanes = kWThreads)
  int chunks, chunk_pixels, w_elems;
};

template <typename T, int V, bool kDw>
__global__ void __launch_bounds__(kWThreads)
    dg_wgrad_partial(WgradGeom g, const T* __restrict__ x, const T* __restrict__ dy, float* __restrict__ part) {
  __shared__ int tap_r[kWTaps], tap_s[kWTaps];  // ih = p*sh + tap_r, iw = q*sw + tap_s
  __shared__ float red[kWThreads * V];          // [lane][combo][j] partial sums of one tap
  const int RS = g.R * g.S;
  int b = static_cast<int>(blockIdx.x);
  const int ct = b % g.combo_tiles;
  b /= g.combo_tiles;
  const int tap0 = (b % g.tap_chunks) * kWTaps, chunk = b / g.tap_chunks;
  const int ntaps = min(kWTaps, RS - tap0);
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < kWTaps) {
    const int tap = min(tap0 + tid, RS - 1);
    tap_r[tid] = (tap / g.S) * g.dh - g.ph;
    tap_s[tid] = (tap % g.S) * g.dw - g.pw;
  }
  __syncthreads();
  const int combo = ct * g.cpb + tid % g.cpb, pl = tid / g.cpb;
  const bool active = combo < g.combos;
  const int k0 = (combo % g.kv) * V, cc = kDw ? 0 : combo / g.kv;
  const int xc = kDw ? k0 : (k0 / g.Kg) * g.Cg + cc;  // the x channel(s) read: V | Kg, one group
  float acc[kWTaps][V] = {};
  const int p_lo = chunk * g.chunk_pixels, p_hi = min(g.npix, p_lo + g.chunk_pixels);
  for (int pix = p_lo + pl; active && pix < p_hi; pix += g.lanes) {
    std::uint32_t npq, q, n, pp;
    g.div_q.divmod(static_cast<std::uint32_t>(pix), npq, q);
    g.div_p.divmod(npq, n, pp);
    float dv[V];
    load_pack<T, V>(dy, pix * g.K + k0, dv);
    const int ih0 = static_cast<int>(pp) * g.sh, iw0 = static_cast<int>(q) * g.sw, img = static_cast<int>(n) * g.H;
#pragma unroll
    for (int t = 0; t < kWTaps; ++t) {
      const int ih = ih0 + tap_r[t], iw = iw0 + tap_s[t];
      if (t >= ntaps || static_cast<unsigned>(ih) >= static_cast<unsigned>(g.H) ||
          static_cast<unsigned>(iw) >= static_cast<unsigned>(g.W))
        continue;
      const int off = ((img + ih) * g.W + iw) * g.C + xc;
      if constexpr (kDw) {
        float xv[V];
        load_pack<T, V>(x, off, xv);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[t][j] += dv[j] * xv[j];
      } else {
        const float xs = load_f(x, off);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[t][j] += dv[j] * xs;
      }
    }
  }
  // Per tap: thread e < cpb*V adds the lanes' sums of (combo e / V, lane j = e % V) in lane order
  // and writes the chunk's partial.
  const int e_combo = ct * g.cpb + tid / V, e_j = tid % V;
  const int e_k = (e_combo % g.kv) * V + e_j, e_cc = kDw ? 0 : e_combo / g.kv;
  const bool e_active = tid < g.cpb * V && e_combo < g.combos;
#pragma unroll
  for (int t = 0; t < kWTaps; ++t) {  // a constant trip count (fully unrolled: acc stays in registers)
    if (t >= ntaps) continue;  // block-uniform
#pragma unroll
    for (int j = 0; j < V; ++j) red[tid * V + j] = acc[t][j];  // red[lane][combo][j]
    __syncthreads();
    if (e_active) {
      float sum = red[tid];
#pragma unroll
      for (int l = 1; l < g.lanes; ++l) sum += red[l * g.cpb * V + tid];
      part[chunk * g.w_elems + (e_k * RS + tap0 + t) * g.Cg + e_cc] = sum;
    }
    __syncthreads();  // red is rewritten by the next tap
  }
}

// dw[e] = sum over chunks, in chunk order, of part[chunk][e]; one rounding to T.
template <typename T>
__global__ void __launch_bounds__(kWThreads)
    dg_wgrad_sum(int w_elems, int chunks, const float* __restrict__ part, T* __restrict__ dw) {
  for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < w_elems;
       e += static_cast<int>(gridDim.x * blockDim.x)) {
    float s = part[e];
    for (int c = 1; c < chunks; ++c) s += part[c * w_elems + e];
    store_f(dw, e, s);
  }
}

// V for bwd-weights: K channels per pack (depthwise: also x's), dividing Kg when grouped.
int wgrad_width(const ConvProblem& p, int kvec) {
  const long long cg = p.c / p.groups, kg = p.k / p.groups;
  return cg == 1 && kg == 1 ? pow2_dividing(p.k, kvec) : pow2_dividing(kg, kvec);
}

// Geometry, chunking and grid of bwd-weights with V = v; lanes, chunks and chunk_pixels do not depend on v.
WgradGeom wgrad_geom(const ConvProblem& p, int v) {
  const Dims o = p.out();
  WgradGeom g{};
  g.H = static_cast<int>(p.in[0]), g.W = static_cast<int>(p.in[1]);
  g.C = static_cast<int>(p.c), g.K = static_cast<int>(p.k);
  g.Cg = static_cast<int>(p.c / p.groups), g.Kg = static_cast<int>(p.k / p.groups);
  g.R = static_cast<int>(p.filter[0]), g.S = static_cast<int>(p.filter[1]);
  g.sh = static_cast<int>(p.stride[0]), g.sw = static_cast<int>(p.stride[1]);
  g.ph = static_cast<int>(p.pad[0]), g.pw = static_cast<int>(p.pad[1]);
  g.dh = static_cast<int>(p.dilation[0]), g.dw = static_cast<int>(p.dilation[1]);
  g.npix = static_cast<int>(p.n * o[0] * o[1]);
  g.div_q = FastDiv(static_cast<std::uint32_t>(o[1]));
  g.div_p = FastDiv(static_cast<std::uint32_t>(o[0]));
  const bool dw = g.Cg == 1 && g.Kg == 1;
  g.kv = g.K / v;
  g.combos = g.kv * (dw ? 1 : g.Cg);
  // The lane split and the chunking come from the dtype's widest pack vp, not from v (which falls to
  // 1 for misaligned pointers): the workspace and every sum's order depend on the problem only.
  const int vp = wgrad_width(p, 16 / static_cast<int>(dtype_size(p.dtype)));
  const long long combos_p = (g.K / vp) * (dw ? 1LL : g.Cg);
  g.cpb = 1;
  while (g.cpb < kWMaxCombos && g.cpb < combos_p) g.cpb *= 2;
  g.lanes = kWThreads / g.cpb;
  g.combo_tiles = (g.combos + g.cpb - 1) / g.cpb;
  g.tap_chunks = (g.R * g.S + kWTaps - 1) / kWTaps;
  g.w_elems = g.K * g.R * g.S * g.Cg;
  // Chunks: about kWTargetBlocks blocks at vp, at least kMinChunkPixels pixels each, the partials
  // within kPartialFloats.
  const long long tiles_p = (combos_p + g.cpb - 1) / g.cpb;
  const long long by_blocks = (kWTargetBlocks + tiles_p * g.tap_chunks - 1) / (tiles_p * g.tap_chunks);
  const long long by_pixels = std::max<long long>(1, g.npix / kMinChunkPixels);
  const long long by_space = std::max<long long>(1, kPartialFloats / g.w_elems);
  const long long want = std::max<long long>(1, std::min({by_blocks, by_pixels, by_space}));
  g.chunk_pixels = static_cast<int>((1LL * g.npix + want - 1) / want);
  g.chunks = (g.npix + g.chunk_pixels - 1) / g.chunk_pixels;
  return g;
}

std::size_t wgrad_workspace(const ConvProblem& p) {
  const WgradGeom g = wgrad_geom(p, 1);
  return static_cast<std::size_t>(g.chunks) * g.w_elems * sizeof(float);
}

template <typename T>
using WgradKernel = void (*)(WgradGeom, const T*, const T*, float*);

template <typename T>
WgradKernel<T> wgrad_kernel(int v, bool dw) {
#define HIPRIM_DG_PICK(V, DW) \
  if (v == V && dw == DW) return &dg_wgrad_partial<T, V, DW>
  HIPRIM_DG_PICK(2, true);
  HIPRIM_DG_PICK(4, true);
  HIPRIM_DG_PICK(2, false);
  HIPRIM_DG_PICK(4, false);
  if constexpr (kVec<T> >= 8) {
    HIPRIM_DG_PICK(8, true);
    HIPRIM_DG_PICK(8, false);
  }
#undef HIPRIM_DG_PICK
  return &dg_wgrad_partial<T, 1, false>;  // V = 1: depthwise and grouped read alike
}

}  // namespace
}  // namespace hiprim::gpu
