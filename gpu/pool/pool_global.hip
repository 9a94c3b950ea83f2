// pool.global: forward pooling whose window is the whole input (win == in, pad 0: one output per
// (n, c), e.g. ResNet-50's 7x7 average before the fc), as a reduction of each (n, c)'s S = D*H*W
// values by a block team instead of one thread walking all S taps (pool.direct: S serial loads, and
// only N*C/V threads). Math and tie rules: core/pool_problem.hpp (max: the first maximum in scan
// order, a NaN beats numbers, the first NaN wins, idx = s; avg_incl / avg_excl: fp32 sum / S).
// Layout of a block (kBlock threads = tx x ty):
//   channels last:  tx threads over channel packs (V channels, 16-byte loads when C % V == 0 and
//                   aligned), thread t = row * tx + col; row r sums s = r, r + ty, ... of its pack
//                   (a warp reads whole row segments of [N][S][C]).
//   channels first: tx planes (n, c) per block, ty lanes per plane, t = col * ty + row (a warp
//                   reads consecutive s of one plane of [N][C][S]).
// Then a fixed tree over the ty rows in shared memory (max keeps (value, s) by the tie rule, so
// the result is the sequential scan's), row 0 stores. Deterministic, no atomics.
// Channels first with small planes (32 planes of S | 1 fp32 fit kChunkSmem): the chunk path instead.
// The M = N*C planes are consecutive ([M][S]), so P planes are P*S contiguous values: a block of
// kChunkMax threads copies them into shared memory as fp32 (coalesced; 16-byte packs when x is
// aligned: P is a multiple of 32, so every chunk starts 16-byte aligned), plane q at q*Sp with
// Sp = S | 1 (odd: the reads of one s by 32 threads hit distinct banks; odd S is staged in its own
// order by 16-byte stores, even S element by element), then thread q < P scans
// plane q sequentially as pool.direct does (sum from s = 0 in fp32, first maximum, idx = s): the
// same bits as pool.direct.
#include <algorithm>
#include <memory>
#include <string>

#include "core/pool_problem.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/pool/pool_geom.hpp"
#include "gpu/pool/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kChunkMax = 256;         // threads of a chunk block, and its most planes
constexpr int kChunkSmem = 48 * 1024;  // its staging bytes at most (no opt-in needed)
constexpr int kChunkBatch = 4;         // packs a thread has in flight before storing them

struct GlobalGeom {
  long long N, C, S;
  int tx, ty;
  long long tiles;  // blocks per image: channel-pack tiles (channels last) or plane tiles
  bool is_max;
  float div;        // S (avg_incl and avg_excl agree: every tap is inside)
};

// Whether (v, k) replaces the kept (bv, bk) (bk < 0: nothing kept): the scan's rule for partial
// results in any order: a NaN beats numbers, then the larger value, then (ties, two NaNs) the smaller s.
__device__ __forceinline__ bool replaces(float v, int k, float bv, int bk) {
  if (k < 0) return false;
  if (bk < 0) return true;
  const bool vn = v != v, bn = bv != bv;
  if (vn != bn) return vn;
  if (!vn && v != bv) return v > bv;
  return k < bk;
}

template <typename T, int V, bool CL>
__global__ void __launch_bounds__(kBlock) pool_global_fwd(GlobalGeom g, const T* __restrict__ x, T* __restrict__ y,
                                                           float* __restrict__ idx) {
  __shared__ float s_val[kBlock * V];
  __shared__ int s_idx[kBlock * V];
  const int t = threadIdx.x;
  const int row = CL ? t / g.tx : t % g.ty, col = CL ? t % g.tx : t / g.ty;
  const int partner = CL ? g.tx : 1;  // thread distance of the row below
  for (long long b = blockIdx.x; b < g.N * g.tiles; b += gridDim.x) {
    const long long n = b / g.tiles, tile = b % g.tiles;
    const long long c0 = (tile * g.tx + col) * (CL ? V : 1);  // first channel of the thread
    const bool live = c0 < g.C;
    float acc[V], best[V];
    int best_s[V];
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = 0.0f, best[j] = 0.0f, best_s[j] = -1;
    if (live) {
#pragma unroll 4
      for (long long s = row; s < g.S; s += g.ty) {
        float v[V];
        load_pack<T, V>(x, CL ? (n * g.S + s) * g.C + c0 : (n * g.C + c0) * g.S + s, v);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          acc[j] += v[j];
          if (replaces(v[j], static_cast<int>(s), best[j], best_s[j])) best[j] = v[j], best_s[j] = static_cast<int>(s);
        }
      }
    }
    int p2 = 1;
    while (p2 < g.ty) p2 <<= 1;
    for (int step = p2 / 2; step >= 1; step /= 2) {
#pragma unroll
      for (int j = 0; j < V; ++j) s_val[t * V + j] = g.is_max ? best[j] : acc[j], s_idx[t * V + j] = best_s[j];
      __syncthreads();
      if (row < step && row + step < g.ty) {
        const int o = (t + step * partner) * V;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          if (!g.is_max) acc[j] += s_val[o + j];
          else if (replaces(s_val[o + j], s_idx[o + j], best[j], best_s[j])) best[j] = s_val[o + j], best_s[j] = s_idx[o + j];
        }
      }
      __syncthreads();
    }
    if (row == 0 && live) {
      const long long yo = n * g.C + c0;  // y and idx: [N, C, 1...] in either layout
      if (g.is_max) {
        float k[V];
#pragma unroll
        for (int j = 0; j < V; ++j) k[j] = static_cast<float>(best_s[j]);
        store_pack<T, V>(y, yo, best);
        store_pack<float, V>(idx, yo, k);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) acc[j] = acc[j] / g.div;
        store_pack<T, V>(y, yo, acc);
      }
    }
  }
}

struct ChunkGeom {
  long long M;   // planes N*C
  int S, Sp;     // plane length and its shared-memory stride S | 1
  int P;         // planes per chunk, a multiple of 32, <= kChunkMax (the block's threads)
  FastDiv S_div;
  bool is_max;
};

// Stages values v of chunk elements e .. e+V-1 (element e: plane q = e / S, s = e % S) at
// s_x[q * Sp + s] = s_x[e + q * (Sp - S)]. Odd S (Pad false): Sp = S, the chunk's own order, in
// 16-byte stores where V allows (a warp's scalar stores V floats apart would hit few banks).
template <int V, bool Pad>
__device__ __forceinline__ void stage(float* s_x, const ChunkGeom& g, int e, const float (&v)[V]) {
  if constexpr (!Pad && V % 4 == 0) {
#pragma unroll
    for (int j = 0; j < V; j += 4) *reinterpret_cast<float4*>(s_x + e + j) = float4{v[j], v[j + 1], v[j + 2], v[j + 3]};
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) s_x[e + j + (Pad ? static_cast<int>(g.S_div.div(e + j)) * (g.Sp - g.S) : 0)] = v[j];
  }
}

// Chunk path (channels first, small S): block-stride over chunks of P planes; see the top.
template <typename T, int V, bool Pad>
__global__ void __launch_bounds__(kChunkMax) pool_global_chunk(ChunkGeom g, const T* __restrict__ x, T* __restrict__ y,
                                                               float* __restrict__ idx) {
  HIPRIM_DYNAMIC_SMEM(smem);
  float* s_x = reinterpret_cast<float*>(smem);
  const int t = threadIdx.x;
  for (long long p0 = static_cast<long long>(blockIdx.x) * g.P; p0 < g.M; p0 += static_cast<long long>(gridDim.x) * g.P) {
    const T* xc = x + p0 * g.S;
    const int planes = static_cast<int>(min(static_cast<long long>(g.P), g.M - p0));
    const int len = planes * g.S, packs = len / V;
    for (int i0 = t; i0 < packs; i0 += kChunkMax * kChunkBatch) {
      Pack<T, V> pk[kChunkBatch] = {};
#pragma unroll
      for (int k = 0; k < kChunkBatch; ++k)
        if (i0 + k * kChunkMax < packs) pk[k] = load_raw<T, V>(xc, static_cast<long long>(i0 + k * kChunkMax) * V);
#pragma unroll
      for (int k = 0; k < kChunkBatch; ++k) {
        if (i0 + k * kChunkMax >= packs) continue;
        float v[V];
        unpack(pk[k], v);
        stage<V, Pad>(s_x, g, (i0 + k * kChunkMax) * V, v);
      }
    }
    for (int e = packs * V + t; e < len; e += kChunkMax) {  // the tail that fills no pack
      const float v[1] = {load_f(xc, e)};
      stage<1, Pad>(s_x, g, e, v);
    }
    __syncthreads();
    if (t < planes) {
      const float* r = s_x + t * g.Sp;
      float best = r[0], acc = r[0];
      int best_s = 0;
#pragma unroll 8
      for (int s = 1; s < g.S; ++s) {
        const float v = r[s];
        if (beats(v, best)) best = v, best_s = s;
        acc += v;
      }
      const long long o = p0 + t;  // y and idx: [N, C, 1...]
      if (g.is_max) {
        store_f(y, o, best);
        idx[o] = static_cast<float>(best_s);
      } else {
        store_f(y, o, acc / static_cast<float>(g.S));
      }
    }
    __syncthreads();  // s_x is restaged by the next chunk
  }
}

class PoolGlobal final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.global"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "fwd with the window equal to the input (global pooling): each (n, c) reduced by a block team (channels last: "
           "16-byte packs across the block, rows split; channels first: planes of under 384 values staged in shared memory by "
           "chunks and scanned one per thread, longer ones by lanes along the plane), fixed tree; max, avg_incl, "
           "avg_excl; 2D/3D; fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const PoolProblem& p) const override {
    if (p.dir != PoolDir::fwd) return Applicability::no("bwd: each input position lies in one window (pool.direct's gather is one load)");
    for (std::size_t d = 0; d < p.window.size(); ++d)
      if (p.window[d] != p.shape.in[d] || p.pad[d] != 0)
        return Applicability::no("the window is not the whole input with pad 0 (dim " + std::to_string(d) + ": win " +
                                 std::to_string(p.window[d]) + ", in " + std::to_string(p.shape.in[d]) + ", pad " +
                                 std::to_string(p.pad[d]) + ")");
    if (p.window_elements() >= (1LL << 24)) return Applicability::no("window of 2^24 positions or more (idx is fp32)");
    return Applicability::yes();
  }
  void run_typed(const PoolProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      constexpr int V = kVec<T>;
      bool packed = p.shape.channels_last && p.shape.c % V == 0;
      for (void* ptr : b) packed = packed && aligned_for_pack<float, V>(ptr);  // idx (fp32) needs the most
      const auto st = static_cast<hipStream_t>(stream);
      const int chunk = p.shape.channels_last ? 0 : chunk_planes(p);
      const bool pad = p.window_elements() % 2 == 0, vec = aligned_for_pack<T, V>(b[0]);
      if (chunk > 0 && vec) pad ? launch_chunk<T, V, true>(p, b, chunk, st) : launch_chunk<T, V, false>(p, b, chunk, st);
      else if (chunk > 0) pad ? launch_chunk<T, 1, true>(p, b, chunk, st) : launch_chunk<T, 1, false>(p, b, chunk, st);
      else if (packed) launch<T, V, true>(p, b, st);
      else if (p.shape.channels_last) launch<T, 1, true>(p, b, st);
      else launch<T, 1, false>(p, b, st);
    });
  }

 private:
  // Planes per chunk for channels first: P = a multiple of 32 with P * (S | 1) fp32 in kChunkSmem,
  // at most kChunkMax, and near M / (4 multiprocessors) so the grid has several blocks per
  // multiprocessor (small P for small M); 0 (the team path) when not even 32 planes fit.
  static int chunk_planes(const PoolProblem& p) {
    const long long sp = p.window_elements() | 1, m = p.shape.n * p.shape.c;
    const long long most = std::min<long long>(kChunkMax, kChunkSmem / (sp * 4) / 32 * 32);
    if (most < 32) return 0;
    const long long want = (m + 4LL * multiprocessors() - 1) / (4LL * multiprocessors());
    return static_cast<int>(std::clamp<long long>((want + 31) / 32 * 32, 32, most));
  }

  template <typename T, int V, bool Pad>
  void launch_chunk(const PoolProblem& p, const std::vector<void*>& b, int planes, hipStream_t stream) const {
    ChunkGeom g{};
    g.M = p.shape.n * p.shape.c;
    g.S = static_cast<int>(p.window_elements());
    g.Sp = g.S | 1;
    g.P = planes;
    g.S_div = FastDiv(static_cast<std::uint32_t>(g.S));
    g.is_max = p.mode == PoolMode::max;
    const std::size_t smem = static_cast<std::size_t>(g.P) * g.Sp * sizeof(float);
    auto ctx = [&] { return "running " + name() + " on " + to_string(p); };
    const auto kernel = &pool_global_chunk<T, V, Pad>;
    const unsigned grid = stream_grid(kernel, kChunkMax, (g.M + g.P - 1) / g.P * kChunkMax, smem);
    hipLaunchKernelGGL(kernel, dim3(grid), dim3(kChunkMax), smem, stream, g, static_cast<const T*>(b[0]), static_cast<T*>(b[1]),
                       g.is_max ? static_cast<float*>(b[2]) : nullptr);
    check_launch_lazy("pool_global_chunk", ctx);
  }

  template <typename T, int V, bool CL>
  void launch(const PoolProblem& p, const std::vector<void*>& b, hipStream_t stream) const {
    GlobalGeom g{};
    g.N = p.shape.n, g.C = p.shape.c, g.S = p.window_elements();
    g.is_max = p.mode == PoolMode::max;
    g.div = static_cast<float>(g.S);
    // Rows (ty) at least 16 where the reduced extent has them, so a block has loads in flight.
    int along = 1;  // the contiguous extent a warp spreads over: channel packs (CL) or S (CF)
    const long long extent = CL ? g.C / V : g.S;
    while (along < 32 && along < extent) along *= 2;
    if (CL) {
      g.tx = std::min(along, 16);
      g.ty = kBlock / g.tx;
      g.tiles = (g.C / V + g.tx - 1) / g.tx;
    } else {
      g.ty = along;
      g.tx = kBlock / g.ty;
      g.tiles = (g.C + g.tx - 1) / g.tx;
    }
    auto ctx = [&] { return "running " + name() + " on " + to_string(p); };
    const auto kernel = &pool_global_fwd<T, V, CL>;
    const unsigned grid = stream_grid(kernel, kBlock, g.N * g.tiles * kBlock);
    hipLaunchKernelGGL(kernel, dim3(grid), dim3(kBlock), 0, stream, g, static_cast<const T*>(b[0]), static_cast<T*>(b[1]),
                       g.is_max ? static_cast<float*>(b[2]) : nullptr);
    check_launch_lazy("pool_global_fwd", ctx);
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_pool_global() { return std::make_shared<PoolGlobal>(); }

}  // namespace hiprim::gpu
