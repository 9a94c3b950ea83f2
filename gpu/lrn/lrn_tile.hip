// lrn.across.tile: cross-channel LRN, forward and backward, fp32/fp16/bf16, both channel orders,
// 2D/3D (math: core/lrn_problem.hpp; fp32, the expressions of lrn.direct):
//   fwd: s_i = k + (alpha/n) sum_{j in W(i)} x_j^2,  y_i = x_i s_i^-beta
//   bwd: q_j = dy_j x_j s_j^(-beta-1),  dx_i = dy_i s_i^-beta - (2 alpha beta / n) x_i sum_{j in W(i)} q_j
// W(i): channels c-(n-1)/2 .. c+(n-1)/2 at i's position, clipped; every window sum in increasing c.
// Tile: all C channels x Wt consecutive positions (channels first: positions s of one sample,
// element n*C*S + c*S + s; channels last: rows p = n*S + s of C values, element p*C + c), loaded
// coalesced into shared memory (row stride Wt + 1: no bank conflicts either way); the windows
// then read shared memory only, so x (and dy) are read from memory once and the output written
// once, the minimum (lrn.direct re-reads each x n times and in bwd moves a workspace of 8 bytes
// per element twice). bwd: s and q of the whole tile first, then dx, one launch.
// One block per tile, grid-stride over tiles; Wt the largest power of two <= 32 whose tile fits
// kSmemBudget. A tile's place is decoded once (tile_span); its elements by shifts (channels first)
// or FastDiv (channels last), not 64-bit divisions per element. Deterministic.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/lrn_problem.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/lrn/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr std::size_t kSmemBudget = 48 * 1024;  // no opt-in needed

struct TileGeom {
  long long N, C, S;
  bool channels_last;
  int wt, wt_log2, half;  // positions per tile (a power of two), its log2, (n - 1) / 2
  long long tiles;        // channels first: N * ceil(S / wt); channels last: ceil(N*S / wt)
  long long per_n;        // channels first: tiles per sample, ceil(S / wt)
  FastDiv c_div;          // channels last: division by C (tile elements < 2^31)
  float alpha_over_n, beta, k, coef;
};

// Where a tile lies: element (c, w) is at base + c * c_step + w * w_step while w < valid.
struct TileSpan {
  long long base, c_step, w_step;
  int valid;
};

// Computed once per tile (the only 64-bit divisions of the kernel).
__device__ __forceinline__ TileSpan tile_span(const TileGeom& g, long long tile) {
  TileSpan t;
  if (g.channels_last) {
    const long long p0 = tile * g.wt;  // rows p = n*S + s of C values
    t.base = p0 * g.C, t.c_step = 1, t.w_step = g.C;
    t.valid = static_cast<int>(std::min<long long>(g.wt, g.N * g.S - p0));
  } else {
    const long long n = tile / g.per_n, s0 = (tile % g.per_n) * g.wt;  // positions s of one sample
    t.base = n * g.C * g.S + s0, t.c_step = g.S, t.w_step = 1;
    t.valid = static_cast<int>(std::min<long long>(g.wt, g.S - s0));
  }
  return t;
}

// Element e of the tile in load order: w fastest (channels first) or c fastest (channels last).
__device__ __forceinline__ void tile_element(const TileGeom& g, int e, int& c, int& w) {
  if (g.channels_last) {
    std::uint32_t q, r;
    g.c_div.divmod(static_cast<std::uint32_t>(e), q, r);
    c = static_cast<int>(r), w = static_cast<int>(q);
  } else {
    c = e >> g.wt_log2, w = e & (g.wt - 1);
  }
}

// The element's offset, or -1 past the tensor's end.
__device__ __forceinline__ long long tile_offset(const TileSpan& t, int c, int w) {
  return w < t.valid ? t.base + c * t.c_step + w * t.w_step : -1;
}

__device__ __forceinline__ float window_sum_sq(const TileGeom& g, const float* sx, long long c, int w, int stride) {
  const long long lo = c - g.half < 0 ? 0 : c - g.half, hi = c + g.half >= g.C ? g.C - 1 : c + g.half;
  float sq = 0.0f;
  for (long long j = lo; j <= hi; ++j) {
    const float v = sx[j * stride + w];
    sq += v * v;
  }
  return sq;
}

template <typename T, bool Bwd>
__global__ void lrn_across_tiles(TileGeom g, const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ out) {
  HIPRIM_DYNAMIC_SMEM(smem);
  const int stride = g.wt + 1;
  float* sx = reinterpret_cast<float*>(smem);
  float* sdy = sx + g.C * stride;  // bwd only: dy, s, q
  float* ss = sdy + g.C * stride;
  float* sq = ss + g.C * stride;
  const int elems = static_cast<int>(g.C) * g.wt;
  for (long long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
    const TileSpan span = tile_span(g, tile);
    for (int e = threadIdx.x; e < elems; e += blockDim.x) {
      int c, w;
      tile_element(g, e, c, w);
      const long long o = tile_offset(span, c, w);
      sx[c * stride + w] = o < 0 ? 0.0f : load_f(x, o);
      if (Bwd) sdy[c * stride + w] = o < 0 ? 0.0f : load_f(dy, o);
    }
    __syncthreads();
    if (!Bwd) {
      for (int e = threadIdx.x; e < elems; e += blockDim.x) {
        int c, w;
        tile_element(g, e, c, w);
        const long long o = tile_offset(span, c, w);
        if (o < 0) continue;
        const float s = g.k + g.alpha_over_n * window_sum_sq(g, sx, c, w, stride);
        store_f(out, o, sx[c * stride + w] * powf(s, -g.beta));
      }
    } else {
      for (int e = threadIdx.x; e < elems; e += blockDim.x) {
        int c, w;
        tile_element(g, e, c, w);
        const long long i = static_cast<long long>(c) * stride + w;
        const float s = g.k + g.alpha_over_n * window_sum_sq(g, sx, c, w, stride);
        ss[i] = s;
        sq[i] = sdy[i] * sx[i] * powf(s, -g.beta - 1.0f);
      }
      __syncthreads();
      for (int e = threadIdx.x; e < elems; e += blockDim.x) {
        int c, w;
        tile_element(g, e, c, w);
        const long long o = tile_offset(span, c, w);
        if (o < 0) continue;
        const long long lo = c - g.half < 0 ? 0 : c - g.half, hi = c + g.half >= g.C ? g.C - 1 : c + g.half;
        float sum = 0.0f;
        for (long long j = lo; j <= hi; ++j) sum += sq[j * stride + w];
        const long long i = static_cast<long long>(c) * stride + w;
        store_f(out, o, sdy[i] * powf(ss[i], -g.beta) - g.coef * sx[i] * sum);
      }
    }
    __syncthreads();  // the tile's shared memory is reused by the next tile
  }
}

int arrays(const LrnProblem& p) { return p.dir == LrnDir::bwd ? 4 : 1; }

// Positions per tile: the largest power of two <= 32 whose tile fits the budget (0: none fits).
int tile_width(const LrnProblem& p) {
  for (int wt = 32; wt >= 1; wt /= 2)
    if (static_cast<std::size_t>(p.shape.c) * (wt + 1) * sizeof(float) * arrays(p) <= kSmemBudget) return wt;
  return 0;
}

class LrnAcrossTile final : public TypedOpSolver<LrnProblem> {
 public:
  std::string name() const override { return "lrn.across.tile"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "across channels: tiles of C channels x up to 32 positions in shared memory, x and dy read once, bwd in one launch "
           "(no workspace); fwd/bwd; 2D/3D; fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const LrnProblem& p) const override {
    if (p.mode != LrnMode::across) return Applicability::no("within-channel windows are spatial (lrn.direct serves them)");
    if (tile_width(p) == 0)
      return Applicability::no("C = " + std::to_string(p.shape.c) + " channels x " + std::to_string(arrays(p)) +
                               " fp32 arrays exceed the tile's " + std::to_string(kSmemBudget) + " bytes of shared memory");
    return Applicability::yes();
  }
  void run_typed(const LrnProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    TileGeom g{};
    g.N = p.shape.n, g.C = p.shape.c, g.S = p.shape.elements() / (g.N * g.C);
    g.channels_last = p.shape.channels_last;
    g.wt = tile_width(p);
    g.half = static_cast<int>((p.size - 1) / 2);
    while ((1 << g.wt_log2) < g.wt) ++g.wt_log2;
    g.per_n = (g.S + g.wt - 1) / g.wt;
    g.tiles = g.channels_last ? (g.N * g.S + g.wt - 1) / g.wt : g.N * g.per_n;
    g.c_div = FastDiv(static_cast<std::uint32_t>(g.C));
    const float alpha = static_cast<float>(p.alpha), n = static_cast<float>(p.area());
    g.beta = static_cast<float>(p.beta);
    g.k = static_cast<float>(p.k);
    g.alpha_over_n = alpha / n;
    g.coef = 2.0f * alpha * g.beta / n;
    const std::size_t smem = static_cast<std::size_t>(g.C) * (g.wt + 1) * sizeof(float) * arrays(p);
    const auto s = static_cast<hipStream_t>(stream);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      const bool bwd = p.dir == LrnDir::bwd;
      const auto kernel = bwd ? &lrn_across_tiles<T, true> : &lrn_across_tiles<T, false>;
      const unsigned grid = static_cast<unsigned>(std::min<long long>(stream_grid(kernel, kBlock, g.tiles * kBlock, smem), g.tiles));
      hipLaunchKernelGGL(kernel, dim3(grid), dim3(kBlock), smem, s, g, static_cast<const T*>(b[0]),
                         bwd ? static_cast<const T*>(b[1]) : nullptr, static_cast<T*>(b[bwd ? 2 : 1]));
      check_launch_lazy("lrn_across_tiles", [&] { return "running lrn.across.tile on " + to_string(p); });
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_lrn_across_tile() { return std::make_shared<LrnAcrossTile>(); }

}  // namespace hiprim::gpu
