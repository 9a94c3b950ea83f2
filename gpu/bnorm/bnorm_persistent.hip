// bnorm.spatial.persistent: spatial batch normalization, fwd-train and bwd in ONE cooperative
// launch each (the statistics between the passes meet at grid-wide barriers), fwd-infer in one
// streaming launch; fp32/fp16/bf16 data, fp32 parameters; all layouts, 2D/3D.
// Math (fp32), the two-pass model of reference/bnorm.cpp's bounds:
//   fwd-train: mean = (sum x)/M; var = (sum (x - mean)^2)/M; inv = 1/sqrt(var + eps);
//              y = (x - mean) * (scale * inv) + bias; running stats with the momentum
//   fwd-infer: y = (x - mean) * (scale * (1/sqrt(var + eps))) + bias
//   bwd:       dbias = sum dy, dscale = sum dy * xhat, xhat = (x - mean) * inv;
//              dx = c (M dy - dbias - xhat dscale), c = scale * inv / M
// Work split: gpu/bnorm/bnorm_walk.hpp (items = row slice x channel tile; fixed visit order).
// Why one launch: training must finish the statistics before it normalizes, so x is needed twice
// (three times with the two-pass variance). Each block keeps the packs it reads in pass 1 in
// shared memory (its visit k in slot k, up to K per thread; x and dy both in bwd), so the later
// passes re-read only the packs beyond K, from L2 when they fit there (they are the last ones
// read, and the final pass takes them first, before its stores evict them). Grid: every block
// resident (one 512-thread block per SM on NVIDIA with up to the opt-in shared memory), so the
// on-chip copy holds SMs x ~220 KiB (H200: ~29 MB): x is read from DRAM once and y written once
// when x fits; above that the overflow costs extra reads (the measured floor is reported).
// Pass 1 fills the cache with async copies (gpu/common/async_copy.hpp: on NVIDIA every cached pack
// of a thread in flight at once, no registers) while it reads the overflow from memory. The layout
// is a template parameter (CL): one walk per kernel, and each visit is first + i * step
// (bn_visits / bn_offset), so the passes are short loops over [0, n).
// Statistics: pass 1 writes one partial per (slice, channel) (bn_column_sum's fixed tree);
// after the barrier every block sums the partials of its channels over the slices in a fixed
// tree, so every block derives bitwise the same statistics; the block holding slice 0 writes the
// saved/running statistics (train) or dscale/dbias (bwd). No atomics: bitwise reproducible for a
// given grid (the grid depends on the device's SM count).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/bnorm_problem.hpp"
#include "core/error.hpp"
#include "gpu/bnorm/bnorm_walk.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/common/async_copy.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"

namespace hiprim::gpu {
namespace {

// Threads per block: 512 (up to 128 registers each at one block per SM) by default: with 1024 (64
// registers) the 8-lane train and bwd kernels spill (reports/cpu/ops_ptxas.txt) and the H200 sweep
// (s3, 2026-12-01) timed 512 faster on every fwd-train and bwd case but one (fp32 NCHW bwd, 1% slower);
// the speed sweep still times 1024. The
// emulation runs every thread of the grid at once: 128 there.
constexpr int kDefaultBlock = 512;
constexpr int real_block(int block) {
#if HIPRIM_PLATFORM_EMU
  (void)block;
  return 128;
#else
  return block;
#endif
}
constexpr long long kGridCap = 1024;  // workspace_for() sizes the partials for at most this many blocks
// Channels-first fwd-train / bwd with more channels than this many per resident block are refused:
// a block takes its channels one after another, each with its passes' barriers (the H200 sweep:
// c256 14x14, 2 per block, ties bnorm.spatial.multiblock; c2048 7x7, 16 per block, 3.7x slower).
constexpr long long kMaxChannelsPerBlock = 4;

// Loads in flight per thread and tensor: 4 (2 in bwd, two tensors) 16-byte packs; 8 scalars.
template <int V>
inline constexpr int kUnroll = V == 1 ? 8 : 4;

struct Bufs {
  const void *x, *dy;
  void* out;                                // y or dx
  const float *scale, *bias, *mean, *var;   // bias: fwd; mean/var: infer inputs, bwd saved mean / inv
  float *running_mean, *running_var;        // train
  float *saved_mean, *saved_inv;            // train outputs
  float *dscale, *dbias;                    // bwd outputs
  float *part_a, *part_b, *ws_mean;         // workspace: partials [slices][C] (bwd: Float2 in part_a), mean [C]
};

// Shared memory: scratch (bn_column_sum, broadcasts), then the pack cache [tensor][slot k][thread].
template <typename A, int V>
constexpr std::size_t scratch_bytes(int block, int tx) {
  return ((static_cast<std::size_t>(block) / 2 + tx + V) * V * sizeof(A) + 15) / 16 * 16;
}

// Block-wide sums of the thread's lane values, written as partials[slice * C + c].
template <bool CL, int V, typename A>
__device__ void write_partials(const BnGeom& g, const BnVisits& v, A (&acc)[V], A* scratch, A* part) {
  const long long base = v.slice * g.C;
  if constexpr (CL) {
    bn_column_sum<V>(g, acc, scratch);
    if (static_cast<int>(threadIdx.x) < g.tx && v.c0 < g.C)
#pragma unroll
      for (int j = 0; j < V; ++j) part[base + v.c0 + j] = acc[j];
  } else {
    A t[1] = {acc[0]};
#pragma unroll
    for (int j = 1; j < V; ++j) t[0] = t[0] + acc[j];
    bn_column_sum<1>(g, t, scratch);
    if (threadIdx.x == 0) part[base + v.c0] = t[0];
  }
}

// Totals over the slices of the item's channels, to every thread for its lanes (fixed order).
template <bool CL, int V, typename A>
__device__ void combine(const BnGeom& g, const BnVisits& v, const A* part, A* scratch, A (&tot)[V]) {
  const int t = threadIdx.x, row = t / g.tx, col = t % g.tx;
  if constexpr (CL) {
#pragma unroll
    for (int j = 0; j < V; ++j) tot[j] = A{};
    if (v.c0 < g.C)
      for (long long s = row; s < g.slices; s += g.ty)
#pragma unroll
        for (int j = 0; j < V; ++j) tot[j] = tot[j] + part[s * g.C + v.c0 + j];
    bn_column_sum<V>(g, tot, scratch);
    if (row == 0)
#pragma unroll
      for (int j = 0; j < V; ++j) scratch[col * V + j] = tot[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < V; ++j) tot[j] = scratch[col * V + j];
  } else {
    A s1[1] = {A{}};
    for (long long s = t; s < g.slices; s += g.block) s1[0] = s1[0] + part[s * g.C + v.c0];
    bn_column_sum<1>(g, s1, scratch);
    if (t == 0) scratch[0] = s1[0];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < V; ++j) tot[j] = scratch[0];
  }
  __syncthreads();  // scratch is free again
}

// Whether this thread writes the per-channel outputs of the item's lane j (slice 0, row 0).
template <bool CL>
__device__ __forceinline__ bool channel_writer(const BnGeom& g, const BnVisits& v, int j) {
  if (v.slice != 0 || v.c0 >= g.C) return false;
  if constexpr (CL) return static_cast<int>(threadIdx.x) < g.tx;
  else return threadIdx.x == 0 && j == 0;
}

// The block's pack cache: slot k of tensor t for this thread ([tensor][k][thread]: a thread's
// slots are a block apart, so a warp's accesses are consecutive).
template <typename T, int V>
struct Cache {
  Pack<T, V>* slots;
  int K, block;
  __device__ __forceinline__ Pack<T, V>& at(int tensor, int k) const {
    return slots[(static_cast<long long>(tensor) * K + k) * block + threadIdx.x];
  }
};

// Cached visits of an item whose first visit is the thread's visit kb: [0, nc).
__device__ __forceinline__ int cached_visits(const BnVisits& v, int kb, int K) { return std::clamp(K - kb, 0, v.n); }

// Pass 1's fill: every cached visit of the block's items, as async copies (many packs in flight,
// no registers); the kernel waits (async_copy_wait) before it reads them.
template <bool CL, typename T, int V, int NT>
__device__ __forceinline__ void fill_cache(const BnGeom& g, const Cache<T, V>& cache, const T* const (&p)[NT]) {
  int kb = 0;
  for (long long item = blockIdx.x; item < g.items; item += gridDim.x) {
    const BnVisits v = bn_visits<CL>(g, item);
    const int nc = cached_visits(v, kb, cache.K);
    for (int i = 0; i < nc; ++i) {
      const long long o = bn_offset<CL>(g, v, i);
#pragma unroll
      for (int t = 0; t < NT; ++t) async_copy(&cache.at(t, kb + i), reinterpret_cast<const Pack<T, V>*>(p[t] + o));
    }
    kb += v.n;
  }
}

// f(o, pk) for the visits [i0, i1) of an item read from memory (the overflow), U visits of NT tensors in flight.
template <bool CL, int U, typename T, int V, int NT, typename F>
__device__ __forceinline__ void stream_visits(const BnGeom& g, const BnVisits& v, int i0, const T* const (&p)[NT], F&& f) {
  int i = i0;
  for (; i + U <= v.n; i += U) {
    long long o[U];
    Pack<T, V> pk[U][NT];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      o[u] = bn_offset<CL>(g, v, i + u);
#pragma unroll
      for (int t = 0; t < NT; ++t) pk[u][t] = load_raw<T, V>(p[t], o[u]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) f(o[u], pk[u]);
  }
  for (; i < v.n; ++i) {
    const long long o = bn_offset<CL>(g, v, i);
    Pack<T, V> pk[NT];
#pragma unroll
    for (int t = 0; t < NT; ++t) pk[t] = load_raw<T, V>(p[t], o);
    f(o, pk);
  }
}

// f(o, pk) for the cached visits [0, nc) of an item (slots kb ..), from shared memory.
template <bool CL, typename T, int V, int NT, typename F>
__device__ __forceinline__ void cached_pass(const BnGeom& g, const BnVisits& v, const Cache<T, V>& cache, int kb, int nc, F&& f) {
#pragma unroll 2
  for (int i = 0; i < nc; ++i) {
    Pack<T, V> pk[NT];
#pragma unroll
    for (int t = 0; t < NT; ++t) pk[t] = cache.at(t, kb + i);
    f(bn_offset<CL>(g, v, i), pk);
  }
}

// A pass over the block's items: per item, start(v) (per-item setup), the overflow visits from
// memory, then the cached ones, then finish(v). Pass 1 reads the overflow while the cache fills.
template <bool CL, int U, typename T, int V, int NT, typename Start, typename Visit, typename Finish>
__device__ __forceinline__ void block_pass(const BnGeom& g, const Cache<T, V>& cache, const T* const (&p)[NT], Start&& start,
                                           Visit&& visit, Finish&& finish) {
  int kb = 0;
  for (long long item = blockIdx.x; item < g.items; item += gridDim.x) {
    const BnVisits v = bn_visits<CL>(g, item);
    const int nc = cached_visits(v, kb, cache.K);
    start(v);
    stream_visits<CL, U, T, V, NT>(g, v, nc, p, visit);
    async_copy_wait();
    cached_pass<CL, T, V, NT>(g, v, cache, kb, nc, visit);
    finish(v);
    kb += v.n;
  }
}

template <typename T, int V, int B, bool CL>
__global__ void __launch_bounds__(B) bnorm_train_persistent(BnGeom g, Bufs b, int K) {
  constexpr int U = kUnroll<V>;
  HIPRIM_DYNAMIC_SMEM(smem);
  float* scratch = reinterpret_cast<float*>(smem);
  const Cache<T, V> cache{reinterpret_cast<Pack<T, V>*>(smem + scratch_bytes<float, V>(g.block, g.tx)), K, g.block};
  const T* const x[1] = {static_cast<const T*>(b.x)};
  float acc[V], mean[V], a[V], c[V];
  auto zero = [&](const BnVisits&) {
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = 0.0f;
  };
  // Pass 1: sum x (the cache fills meanwhile).
  fill_cache<CL, T, V, 1>(g, cache, x);
  block_pass<CL, U, T, V, 1>(
      g, cache, x, zero,
      [&](long long, const Pack<T, V>(&pk)[1]) {
        float f[V];
        unpack(pk[0], f);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[j] += f[j];
      },
      [&](const BnVisits& v) { write_partials<CL, V>(g, v, acc, scratch, b.part_a); });
  grid_sync();
  // Pass 2: mean, then sum (x - mean)^2.
  block_pass<CL, U, T, V, 1>(
      g, cache, x,
      [&](const BnVisits& v) {
        zero(v);
        combine<CL, V>(g, v, b.part_a, scratch, mean);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          mean[j] = mean[j] / g.m_f;
          if (channel_writer<CL>(g, v, j)) b.ws_mean[lane_channel<CL>(v.c0, j)] = mean[j];
        }
      },
      [&](long long, const Pack<T, V>(&pk)[1]) {
        float f[V];
        unpack(pk[0], f);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float d = f[j] - mean[j];
          acc[j] += d * d;
        }
      },
      [&](const BnVisits& v) { write_partials<CL, V>(g, v, acc, scratch, b.part_b); });
  grid_sync();
  // Pass 3: var, inv, statistics out; y = (x - mean) * (scale * inv) + bias (the overflow first,
  // while it may still be in L2).
  block_pass<CL, U, T, V, 1>(
      g, cache, x,
      [&](const BnVisits& v) {
        float var[V];
        combine<CL, V>(g, v, b.part_b, scratch, var);
        const bool live = v.c0 < g.C;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const long long ch = live ? lane_channel<CL>(v.c0, j) : 0;
          mean[j] = b.ws_mean[ch];
          const float vv = var[j] / g.m_f, inv = 1.0f / sqrtf(vv + g.eps);
          a[j] = b.scale[ch] * inv;
          c[j] = b.bias[ch];
          if (channel_writer<CL>(g, v, j))
            bn_store_train_stats(b.saved_mean, b.saved_inv, b.running_mean, b.running_var, ch, mean[j], inv, vv, g.momentum, g.unbias);
        }
      },
      [&](long long o, const Pack<T, V>(&pk)[1]) {
        float f[V];
        unpack(pk[0], f);
#pragma unroll
        for (int j = 0; j < V; ++j) f[j] = (f[j] - mean[j]) * a[j] + c[j];
        store_raw<T, V>(static_cast<T*>(b.out), o, pack_of<T, V>(f));
      },
      [](const BnVisits&) {});
}

template <typename T, int V, int B, bool CL>
__global__ void __launch_bounds__(B) bnorm_bwd_persistent(BnGeom g, Bufs b, int K) {
  constexpr int U = kUnroll<V> / 2;
  HIPRIM_DYNAMIC_SMEM(smem);
  Float2Sum* scratch = reinterpret_cast<Float2Sum*>(smem);
  const Cache<T, V> cache{reinterpret_cast<Pack<T, V>*>(smem + scratch_bytes<Float2Sum, V>(g.block, g.tx)), K, g.block};
  const T* const xdy[2] = {static_cast<const T*>(b.x), static_cast<const T*>(b.dy)};
  float m[V], inv[V], cf[V];
  Float2Sum acc[V], tot[V];
  auto lanes = [&](const BnVisits& v) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long ch = v.c0 < g.C ? lane_channel<CL>(v.c0, j) : 0;
      m[j] = b.mean[ch];
      inv[j] = b.var[ch];
    }
  };
  // Pass 1: sum dy and sum dy * xhat (the cache fills meanwhile).
  fill_cache<CL, T, V, 2>(g, cache, xdy);
  block_pass<CL, U, T, V, 2>(
      g, cache, xdy,
      [&](const BnVisits& v) {
        lanes(v);
#pragma unroll
        for (int j = 0; j < V; ++j) acc[j] = Float2Sum{};
      },
      [&](long long, const Pack<T, V>(&pk)[2]) {
        float fx[V], fd[V];
        unpack(pk[0], fx);
        unpack(pk[1], fd);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          acc[j].a += fd[j];
          acc[j].b += fd[j] * ((fx[j] - m[j]) * inv[j]);
        }
      },
      [&](const BnVisits& v) { write_partials<CL, V>(g, v, acc, scratch, reinterpret_cast<Float2Sum*>(b.part_a)); });
  grid_sync();
  // Pass 2: dbias, dscale; dx = c (M dy - dbias - xhat dscale) (the overflow first).
  block_pass<CL, U, T, V, 2>(
      g, cache, xdy,
      [&](const BnVisits& v) {
        lanes(v);
        combine<CL, V>(g, v, reinterpret_cast<const Float2Sum*>(b.part_a), scratch, tot);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const long long ch = v.c0 < g.C ? lane_channel<CL>(v.c0, j) : 0;
          cf[j] = b.scale[ch] * inv[j] / g.m_f;
          if (channel_writer<CL>(g, v, j)) {
            b.dbias[ch] = tot[j].a;
            b.dscale[ch] = tot[j].b;
          }
        }
      },
      [&](long long o, const Pack<T, V>(&pk)[2]) {
        float fx[V], fd[V];
        unpack(pk[0], fx);
        unpack(pk[1], fd);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float xhat = (fx[j] - m[j]) * inv[j];
          fx[j] = cf[j] * (g.m_f * fd[j] - tot[j].a - xhat * tot[j].b);
        }
        store_raw<T, V>(static_cast<T*>(b.out), o, pack_of<T, V>(fx));
      },
      [](const BnVisits&) {});
}

// fwd-infer: one streaming pass, no barrier, no cache.
template <typename T, int V, int B>
__global__ void __launch_bounds__(B) bnorm_infer_stream(BnGeom g, Bufs b) {
  constexpr int U = kUnroll<V>;
  const T* x = static_cast<const T*>(b.x);
  int k = 0;
  for (long long item = blockIdx.x; item < g.items; item += gridDim.x) {
    const long long c0 = bn_item_channel(g, item);
    float m[V], a[V], c[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long ch = c0 >= g.C ? 0 : g.channels_last ? c0 + j : c0;
      m[j] = b.mean[ch];
      a[j] = b.scale[ch] * (1.0f / sqrtf(b.var[ch] + g.eps));
      c[j] = b.bias[ch];
    }
    bn_walk<U>(g, item, k, [&](const long long (&o)[U], int N, int) {
      Pack<T, V> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (u < N) v[u] = load_raw<T, V>(x, o[u]);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (u >= N) continue;
        float f[V];
        unpack(v[u], f);
#pragma unroll
        for (int j = 0; j < V; ++j) f[j] = (f[j] - m[j]) * a[j] + c[j];
        store_raw<T, V>(static_cast<T*>(b.out), o[u], pack_of<T, V>(f));
      }
    });
  }
}

// ---- host side ----

BnGeom geom_for(const BnormProblem& p, int V, int block, long long grid) {
  const long long N = p.shape.n, C = p.shape.c, S = p.shape.elements() / (N * C);
  BnGeom g = bn_geom(N, C, S, p.shape.channels_last, V, block, grid);
  const long long M = p.group_size();
  g.m_f = static_cast<float>(M);
  g.unbias = M > 1 ? static_cast<float>(static_cast<double>(M) / static_cast<double>(M - 1)) : 1.0f;
  g.eps = static_cast<float>(p.epsilon);
  g.momentum = p.momentum ? static_cast<float>(*p.momentum) : 0.0f;
  return g;
}

class BnormPersistent final : public TypedOpSolver<BnormProblem> {
 public:
  explicit BnormPersistent(int block) : block_(block) {}
  std::string name() const override { return "bnorm.spatial.persistent"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "spatial only; fwd-train and bwd in one cooperative launch (grid-wide barriers between the passes, each block's "
           "packs kept in shared memory so x is read from DRAM once when it fits on chip), two-pass fp32 statistics in a "
           "fixed order; fwd-infer one streaming pass; 16/8-byte packs; fp32/fp16/bf16, all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const BnormProblem& p) const override {
    if (p.mode != BnormMode::spatial)
      return Applicability::no("per-activation mode: each group holds only N values (bnorm.thread_group and bnorm.block_group serve it)");
    if (!p.fp32_parameters()) return Applicability::no("scale=/stats= not fp32: the kernels read and write fp32 parameters and statistics");
    const long long per_channel = p.group_size();
    if (!p.shape.channels_last && per_channel >= kFastDivLimit)
      return Applicability::no("channels first with N*D*H*W = " + std::to_string(per_channel) +
                               " >= 2^31 values per channel (the 32-bit pack decode); bnorm.spatial.multiblock serves it");
    if (p.dir != BnormDir::fwd_infer && !p.shape.channels_last) {
      const long long resident = resident_blocks(p.shape.dtype);
      if (resident > 0 && p.shape.c > kMaxChannelsPerBlock * resident)
        return Applicability::no("channels first with C = " + std::to_string(p.shape.c) + " > " + std::to_string(kMaxChannelsPerBlock) +
                                 " x " + std::to_string(resident) +
                                 " resident blocks: each block would run its channels' passes and barriers one channel after "
                                 "another (H200, c2048 7x7: 177 us where bnorm.spatial.multiblock takes 48); "
                                 "bnorm.spatial.multiblock serves it");
    }
    return Applicability::yes();
  }
  // The blocks the train kernel keeps resident at full shared memory (the launch's grid cap); 0
  // without a device (listings, the fuzzer's domain probe on a machine without a GPU).
  long long resident_blocks(DType dt) const {
    long long r = 0;
    try {
      dispatch_dtype(dt, [&]<typename T>() {
        auto at = [&]<int B>() {
          r = static_cast<long long>(resident_per_mp(&bnorm_train_persistent<T, 1, B, false>, B, max_dynamic_smem())) * multiprocessors();
        };
        if (block_ == 1024) at.template operator()<real_block(1024)>();
        else at.template operator()<real_block(kDefaultBlock)>();
      });
    } catch (const std::exception&) {
      return 0;
    }
    return std::min(r, kGridCap);
  }
  std::size_t workspace_for(const BnormProblem& p) const override {
    if (p.mode != BnormMode::spatial) return 0;
    long long parts = 0;
    const long long C = p.shape.c, S = p.shape.elements() / (p.shape.n * C), along = p.shape.channels_last ? C : S;
    for (int V : {1, 2, 4, 8})
      if (along % V == 0) parts = std::max(parts, geom_for(p, V, real_block(block_), kGridCap).slices);
    return 2 * static_cast<std::size_t>(parts * p.shape.c) * sizeof(Float2Sum) + static_cast<std::size_t>(p.shape.c) * sizeof(float);
  }
  void run_typed(const BnormProblem& p, const std::vector<void*>& buf, void* ws, void* stream) const override {
    const auto s = static_cast<hipStream_t>(stream);
    auto f = [&](int i) { return static_cast<float*>(buf[static_cast<std::size_t>(i)]); };
    Bufs b{};
    b.x = buf[0];
    switch (p.dir) {
      case BnormDir::fwd_train:  // x, scale, bias, running_mean, running_var, y, saved_mean, saved_inv_std
        b.scale = f(1), b.bias = f(2), b.running_mean = f(3), b.running_var = f(4), b.out = buf[5], b.saved_mean = f(6),
        b.saved_inv = f(7);
        break;
      case BnormDir::fwd_infer:  // x, scale, bias, est_mean, est_var, y
        b.scale = f(1), b.bias = f(2), b.mean = f(3), b.var = f(4), b.out = buf[5];
        break;
      case BnormDir::bwd:  // x, dy, scale, saved_mean, saved_inv_std, dx, dscale, dbias
        b.dy = buf[1], b.scale = f(2), b.mean = f(3), b.var = f(4), b.out = buf[5], b.dscale = f(6), b.dbias = f(7);
        break;
    }
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      auto lanes = [&]<int B>() {
        switch (pick_lanes<T>(p, {b.x, b.dy, b.out})) {
          case kVec<T>: return run_lanes<T, kVec<T>, B>(p, b, ws, s);
          case kVec<T> / 2: return run_lanes<T, kVec<T> / 2, B>(p, b, ws, s);
          default: return run_lanes<T, 1, B>(p, b, ws, s);
        }
      };
      if (block_ == 1024) lanes.template operator()<real_block(1024)>();
      else lanes.template operator()<real_block(kDefaultBlock)>();
    });
  }

 private:
  template <typename T, int V, int kBlock>
  void run_lanes(const BnormProblem& p, Bufs b, void* ws, hipStream_t s) const {
    auto ctx = [&] { return "running " + name() + " on " + to_string(p); };
    const long long packs = p.shape.elements() / V;
    if (p.dir == BnormDir::fwd_infer) {
      const auto kernel = &bnorm_infer_stream<T, V, kBlock>;
      const long long grid = std::min<long long>(stream_grid(kernel, kBlock, bn_ceil_div(packs, kUnroll<V>)), kGridCap);
      const BnGeom g = geom_for(p, V, kBlock, grid);
      hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0, s, g, b);
      check_launch_lazy("bnorm_infer_stream", ctx);
      return;
    }
    const bool bwd = p.dir == BnormDir::bwd, cl = p.shape.channels_last;
    using Kernel = void (*)(BnGeom, Bufs, int);
    const Kernel kernel = bwd ? (cl ? &bnorm_bwd_persistent<T, V, kBlock, true> : &bnorm_bwd_persistent<T, V, kBlock, false>)
                              : (cl ? &bnorm_train_persistent<T, V, kBlock, true> : &bnorm_train_persistent<T, V, kBlock, false>);
    const int tensors = bwd ? 2 : 1;
    const std::size_t pack = sizeof(Pack<T, V>), smem_max = max_dynamic_smem();
    // Grid: the resident blocks at full shared memory (fewer for small problems: >= 4 visits per thread).
    // Two blocks per SM with half the shared memory each (c072673) measured 12-82% slower on every
    // persistent line in s28's same-run A/B (reports/h200/s28-2026-12-07), so one full block it is.
    const long long resident = static_cast<long long>(resident_per_mp(kernel, kBlock, smem_max)) * multiprocessors();
    if (resident < 1) throw RuntimeError(name() + ": the kernel cannot be resident with " + std::to_string(smem_max) + " bytes of shared memory");
    const long long grid = std::clamp<long long>(bn_ceil_div(packs, 4LL * kBlock), 1, std::min(resident, kGridCap));
    BnGeom g = geom_for(p, V, kBlock, grid);
    const std::size_t scratch = bwd ? scratch_bytes<Float2Sum, V>(kBlock, g.tx) : scratch_bytes<float, V>(kBlock, g.tx);
    const long long visits = bn_max_visits(g, grid);
    const long long fit = static_cast<long long>((smem_max - scratch) / (pack * tensors * kBlock));
    const int K = static_cast<int>(std::min(visits, fit));
    const std::size_t smem = scratch + static_cast<std::size_t>(K) * pack * tensors * kBlock;
    b.part_a = static_cast<float*>(ws);
    const long long parts = g.slices * g.C;
    b.part_b = reinterpret_cast<float*>(static_cast<Float2Sum*>(ws) + parts);
    b.ws_mean = reinterpret_cast<float*>(static_cast<Float2Sum*>(ws) + 2 * parts);
    (void)resident_per_mp(kernel, kBlock, smem);  // raises the kernel's shared memory limit (smem may exceed 48 KiB)
    launch_cooperative(kernel, dim3(static_cast<unsigned>(grid)), dim3(kBlock), smem, s, g, b, K);
    check_launch_lazy(bwd ? "bnorm_bwd_persistent" : "bnorm_train_persistent", ctx);
  }
  int block_;
};

}  // namespace

std::shared_ptr<const OpSolver> bnorm_persistent_solver(int block) { return std::make_shared<BnormPersistent>(block); }

}  // namespace hiprim::gpu
