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
// kSmemBudget. Deterministic.
#include <string>

#include "core/lrn_problem.hpp"
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
  int wt, half;        // positions per tile, (n - 1) / 2
  long long tiles;     // channels first: N * ceil(S / wt); channels last: ceil(N*S / wt)
  float alpha_over_n, beta, k, coef;
};

// Element (c, w) of tile `tile`: its offset, or -1 past the tensor's end.
__device__ __forceinline__ long long tile_offset(const TileGeom& g, long long tile, long long c, int w) {
  if (g.channels_last) {
    const long long p = tile * g.wt + w;
    return p < g.N * g.S ? p * g.C + c : -1;
  }
  const long long per_n = (g.S + g.wt - 1) / g.wt, n = tile / per_n, s = (tile % per_n) * g.wt + w;
  return s < g.S ? (n * g.C + c) * g.S + s : -1;
}

// Element e of the tile in load order: w fastest (channels first) or c fastest (channels last).
__device__ __forceinline__ void tile_element(const TileGeom& g, long long e, long long& c, int& w) {
  if (g.channels_last) {
    c = e % g.C;
    w = static_cast<int>(e / g.C);
  } else {
    c = e / g.wt;
    w = static_cast<int>(e % g.wt);
  }
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
  const long long elems = g.C * g.wt;
  for (long long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
    for (long long e = threadIdx.x; e < elems; e += blockDim.x) {
      long long c;
      int w;
      tile_element(g, e, c, w);
      const long long o = tile_offset(g, tile, c, w);
      sx[c * stride + w] = o < 0 ? 0.0f : load_f(x, o);
      if (Bwd) sdy[c * stride + w] = o < 0 ? 0.0f : load_f(dy, o);
    }
    __syncthreads();
    if (!Bwd) {
      for (long long e = threadIdx.x; e < elems; e += blockDim.x) {
        long long c;
        int w;
        tile_element(g, e, c, w);
        const long long o = tile_offset(g, tile, c, w);
        if (o < 0) continue;
        const float s = g.k + g.alpha_over_n * window_sum_sq(g, sx, c, w, stride);
        store_f(out, o, sx[c * stride + w] * powf(s, -g.beta));
      }
    } else {
      for (long long e = threadIdx.x; e < elems; e += blockDim.x) {
        long long c;
        int w;
        tile_element(g, e, c, w);
        const long long i = c * stride + w;
        const float s = g.k + g.alpha_over_n * window_sum_sq(g, sx, c, w, stride);
        ss[i] = s;
        sq[i] = sdy[i] * sx[i] * powf(s, -g.beta - 1.0f);
      }
      __syncthreads();
      for (long long e = threadIdx.x; e < elems; e += blockDim.x) {
        long long c;
        int w;
        tile_element(g, e, c, w);
        const long long o = tile_offset(g, tile, c, w);
        if (o < 0) continue;
        const long long lo = c - g.half < 0 ? 0 : c - g.half, hi = c + g.half >= g.C ? g.C - 1 : c + g.half;
        float sum = 0.0f;
        for (long long j = lo; j <= hi; ++j) sum += sq[j * stride + w];
        const long long i = c * stride + w;
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
    g.tiles = g.channels_last ? (g.N * g.S + g.wt - 1) / g.wt : g.N * ((g.S + g.wt - 1) / g.wt);
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
