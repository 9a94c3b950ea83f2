// bnorm.spatial.tile: spatial batch normalization, fwd-train and bwd, for tensors whose every
// channel tile fits in one block's shared memory (ResNet-50 at batch 32: the 14x14 and 7x7 layers,
// more than half of its 53 batch norms). One block per tile holds all of the tile's values (x, and
// dy in bwd) in shared memory, so x is read from memory once, no other block takes part in its
// statistics, and there is neither a grid barrier nor a workspace (bnorm.spatial.persistent pays
// two grid barriers and partials read back from L2: ~20 us fixed on the H200, s17).
//   channels last:  a tile is V channels (one 16-byte pack per row: 8 fp16/bf16 or 4 fp32), its
//                   units the M = N*D*H*W rows; lane j is channel c0 + j.
//   channels first: a tile is one channel, its units the M / V packs along its N planes of S =
//                   D*H*W values; the lanes are folded (in lane order) before the block sums.
// Math (fp32), the two-pass model of reference/bnorm.cpp's bounds:
//   fwd-train: mean = (sum x)/M; var = (sum (x - mean)^2)/M; inv = 1/sqrt(var + eps);
//              y = (x - mean) * (scale * inv) + bias; running stats with the momentum
//   bwd:       dbias = sum dy, dscale = sum dy * xhat, xhat = (x - mean) * inv;
//              dx = c (M dy - dbias - xhat dscale), c = scale * inv / M
// Thread t of B takes units t, t + B, ... of the tile: their packs go to shared memory by async
// copies (gpu/common/async_copy.hpp: all in flight at once), slot k of thread t at
// [tensor][k][t]; the sums are block_sum_2level's fixed order. Deterministic, no atomics.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/bnorm_problem.hpp"
#include "gpu/bnorm/bnorm_walk.hpp"  // pick_lanes, lane_channel, bn_plane_pack_offset, bn_store_train_stats
#include "gpu/bnorm/solvers.hpp"
#include "gpu/common/async_copy.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct TileGeom {
  long long C, S, M;         // channels; D*H*W; values per channel (N*S)
  long long units;           // packs of a tile: rows M (channels last) or M / V (channels first)
  FastDiv packs_per_plane;   // channels first: S / V
  int K;                     // cache slots per thread: ceil(units / kBlock)
  float m_f, unbias, eps, momentum;
};

struct TileBufs {
  const void *x, *dy;
  void* out;                               // y or dx
  const float *scale, *bias, *mean, *inv;  // bias: fwd; mean/inv: bwd's saved statistics
  float *running_mean, *running_var, *saved_mean, *saved_inv;  // fwd-train
  float *dscale, *dbias;                                       // bwd
};

// Reduction scratch of W values of `value_bytes` each per thread (block_sum_2level), 16-byte aligned.
constexpr std::size_t scratch_bytes(std::size_t value_bytes, int W) {
  return ((kBlock + kSumGroups + 1) * static_cast<std::size_t>(W) * value_bytes + 15) / 16 * 16;
}

// The tile's packs of thread t: units t + k * kBlock for k < visits (the last ones may have one fewer).
__device__ __forceinline__ int visits(const TileGeom& g) {
  const long long u0 = threadIdx.x;
  return u0 < g.units ? static_cast<int>((g.units - u0 + kBlock - 1) / kBlock) : 0;
}
// Element offset of visit k: channels last, row u of the V channels c0..; channels first, pack u of
// channel c0 (plane n = u / (S/V), pack s = u % (S/V)).
template <bool CL, int V>
__device__ __forceinline__ long long unit_offset(const TileGeom& g, long long c0, int k) {
  const long long u = threadIdx.x + static_cast<long long>(k) * kBlock;
  if constexpr (CL) return u * g.C + c0;
  else return bn_plane_pack_offset(g.packs_per_plane, g.C, g.S, c0, u, V);
}

// Per-channel block sums of the thread's lane values, to every thread: channels last, lane j is
// channel c0 + j; channels first, the lanes are folded first (in lane order) and every lane gets the total.
template <bool CL, int V, typename A>
__device__ __forceinline__ void channel_sums(A (&v)[V], A* scratch) {
  if constexpr (CL) {
    block_sum_2level<V>(v, scratch);
  } else {
    A t[1] = {v[0]};
#pragma unroll
    for (int j = 1; j < V; ++j) t[0] = t[0] + v[j];
    block_sum_2level<1>(t, scratch);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = t[0];
  }
}

template <bool CL, typename T, int V, int NT>
__device__ __forceinline__ Pack<T, V>* fill(const TileGeom& g, unsigned char* cache_bytes, long long c0, const T* const (&p)[NT]) {
  Pack<T, V>* cache = reinterpret_cast<Pack<T, V>*>(cache_bytes);
  const int n = visits(g);
  for (int k = 0; k < n; ++k) {
    const long long o = unit_offset<CL, V>(g, c0, k);
#pragma unroll
    for (int t = 0; t < NT; ++t)
      async_copy(&cache[(static_cast<long long>(t) * g.K + k) * kBlock + threadIdx.x], reinterpret_cast<const Pack<T, V>*>(p[t] + o));
  }
  async_copy_wait();
  return cache;
}

template <typename T, int V, bool CL>
__global__ void __launch_bounds__(kBlock) bnorm_tile_train(TileGeom g, TileBufs b) {
  HIPRIM_DYNAMIC_SMEM(smem);
  float* scratch = reinterpret_cast<float*>(smem);
  const long long c0 = static_cast<long long>(blockIdx.x) * (CL ? V : 1);
  const T* const x[1] = {static_cast<const T*>(b.x)};
  const Pack<T, V>* cache = fill<CL, T, V, 1>(g, smem + scratch_bytes(sizeof(float), V), c0, x);
  const int n = visits(g);
  auto at = [&](int k, float (&f)[V]) { unpack(cache[static_cast<long long>(k) * kBlock + threadIdx.x], f); };
  float mean[V], acc[V] = {};
  for (int k = 0; k < n; ++k) {
    float f[V];
    at(k, f);
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] += f[j];
  }
  channel_sums<CL, V>(acc, scratch);
#pragma unroll
  for (int j = 0; j < V; ++j) mean[j] = acc[j] / g.m_f, acc[j] = 0.0f;
  for (int k = 0; k < n; ++k) {
    float f[V];
    at(k, f);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float d = f[j] - mean[j];
      acc[j] += d * d;
    }
  }
  channel_sums<CL, V>(acc, scratch);
  float a[V], c[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const long long ch = lane_channel<CL>(c0, j);
    const float var = acc[j] / g.m_f, inv = 1.0f / sqrtf(var + g.eps);
    a[j] = b.scale[ch] * inv;
    c[j] = b.bias[ch];
    if (threadIdx.x == 0 && (CL || j == 0))
      bn_store_train_stats(b.saved_mean, b.saved_inv, b.running_mean, b.running_var, ch, mean[j], inv, var, g.momentum, g.unbias);
  }
  for (int k = 0; k < n; ++k) {
    float f[V];
    at(k, f);
#pragma unroll
    for (int j = 0; j < V; ++j) f[j] = (f[j] - mean[j]) * a[j] + c[j];
    store_raw<T, V>(static_cast<T*>(b.out), unit_offset<CL, V>(g, c0, k), pack_of<T, V>(f));
  }
}

template <typename T, int V, bool CL>
__global__ void __launch_bounds__(kBlock) bnorm_tile_bwd(TileGeom g, TileBufs b) {
  HIPRIM_DYNAMIC_SMEM(smem);
  Float2Sum* scratch = reinterpret_cast<Float2Sum*>(smem);
  const long long c0 = static_cast<long long>(blockIdx.x) * (CL ? V : 1);
  const T* const xdy[2] = {static_cast<const T*>(b.x), static_cast<const T*>(b.dy)};
  const Pack<T, V>* cache = fill<CL, T, V, 2>(g, smem + scratch_bytes(sizeof(Float2Sum), V), c0, xdy);
  const int n = visits(g);
  auto at = [&](int k, float (&fx)[V], float (&fd)[V]) {
    unpack(cache[static_cast<long long>(k) * kBlock + threadIdx.x], fx);
    unpack(cache[(static_cast<long long>(g.K) + k) * kBlock + threadIdx.x], fd);
  };
  float m[V], inv[V], cf[V];
#pragma unroll
  for (int j = 0; j < V; ++j) m[j] = b.mean[lane_channel<CL>(c0, j)], inv[j] = b.inv[lane_channel<CL>(c0, j)];
  Float2Sum acc[V] = {};
  for (int k = 0; k < n; ++k) {
    float fx[V], fd[V];
    at(k, fx, fd);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      acc[j].a += fd[j];
      acc[j].b += fd[j] * ((fx[j] - m[j]) * inv[j]);
    }
  }
  channel_sums<CL, V>(acc, scratch);
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const long long ch = lane_channel<CL>(c0, j);
    cf[j] = b.scale[ch] * inv[j] / g.m_f;
    if (threadIdx.x == 0 && (CL || j == 0)) b.dbias[ch] = acc[j].a, b.dscale[ch] = acc[j].b;
  }
  for (int k = 0; k < n; ++k) {
    float fx[V], fd[V];
    at(k, fx, fd);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float xhat = (fx[j] - m[j]) * inv[j];
      fx[j] = cf[j] * (g.m_f * fd[j] - acc[j].a - xhat * acc[j].b);
    }
    store_raw<T, V>(static_cast<T*>(b.out), unit_offset<CL, V>(g, c0, k), pack_of<T, V>(fx));
  }
}

// Packs of one tile with V-lane packs: M rows of V channels (channels last) or M / V packs of one channel.
long long tile_units(const BnormProblem& p, int V) { return p.shape.channels_last ? p.group_size() : p.group_size() / V; }

// Shared memory of a launch with V-lane packs: the scratch and ceil(units / kBlock) slots per thread and tensor.
std::size_t tile_smem(const BnormProblem& p, int V) {
  const bool bwd = p.dir == BnormDir::bwd;
  const long long K = (tile_units(p, V) + kBlock - 1) / kBlock;
  const std::size_t scratch = scratch_bytes(bwd ? sizeof(Float2Sum) : sizeof(float), V);
  return scratch + static_cast<std::size_t>(K) * kBlock * static_cast<std::size_t>(V) * dtype_size(p.shape.dtype) * (bwd ? 2 : 1);
}

// Lanes per pack that the contiguous extent allows (C channels last, D*H*W channels first): 16 bytes,
// 8 bytes, or scalars (the buffers' alignment may lower it at run time).
int lanes_for(const BnormProblem& p) {
  const int v = static_cast<int>(16 / dtype_size(p.shape.dtype));
  const long long along = p.shape.channels_last ? p.shape.c : p.group_size() / p.shape.n;
  return along % v == 0 ? v : along % (v / 2) == 0 ? v / 2 : 1;
}


class BnormTile final : public TypedOpSolver<BnormProblem> {
 public:
  std::string name() const override { return "bnorm.spatial.tile"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "spatial, fwd-train and bwd: one block per channel tile (channels last: 16 bytes of channels; channels first: "
           "one channel) holding all its values in shared memory (async copies), two-pass fp32 statistics in a fixed order, no "
           "grid barrier, no workspace; fp32/fp16/bf16; 16/8-byte or scalar packs; needs the tile to fit";
  }

 protected:
  Applicability applicable_to(const BnormProblem& p) const override {
    if (p.mode != BnormMode::spatial) return Applicability::no("per-activation mode (bnorm.thread_group and bnorm.block_group serve it)");
    if (p.dir == BnormDir::fwd_infer) return Applicability::no("fwd-infer: one streaming pass, no statistics (bnorm.spatial.infer_stream serves it)");
    if (!p.fp32_parameters()) return Applicability::no("scale=/stats= not fp32: the kernels read and write fp32 parameters and statistics");
    const int lanes = lanes_for(p);
    const std::size_t need = tile_smem(p, lanes), have = max_dynamic_smem_or_portable();
    if (need > have)
      return Applicability::no("a tile of " + std::to_string(p.shape.channels_last ? lanes : 1) + " channel(s) x " +
                               std::to_string(p.group_size()) + " values" +
                               (p.dir == BnormDir::bwd ? " (x and dy)" : "") + " needs " + std::to_string(need) +
                               " bytes of shared memory, the device offers " + std::to_string(have));
    return Applicability::yes();
  }
  void run_typed(const BnormProblem& p, const std::vector<void*>& buf, void*, void* stream) const override {
    auto f = [&](int i) { return static_cast<float*>(buf[static_cast<std::size_t>(i)]); };
    TileBufs b{};
    b.x = buf[0];
    if (p.dir == BnormDir::fwd_train) {  // x, scale, bias, running_mean, running_var, y, saved_mean, saved_inv_std
      b.scale = f(1), b.bias = f(2), b.running_mean = f(3), b.running_var = f(4), b.out = buf[5], b.saved_mean = f(6), b.saved_inv = f(7);
    } else {  // bwd: x, dy, scale, saved_mean, saved_inv_std, dx, dscale, dbias
      b.dy = buf[1], b.scale = f(2), b.mean = f(3), b.inv = f(4), b.out = buf[5], b.dscale = f(6), b.dbias = f(7);
    }
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      switch (pick_lanes<T>(p, {b.x, b.dy, b.out})) {
        case kVec<T>: return launch<T, kVec<T>>(p, b, stream);
        case kVec<T> / 2: return launch<T, kVec<T> / 2>(p, b, stream);
        default: return launch<T, 1>(p, b, stream);
      }
    });
  }

 private:
  template <typename T, int V>
  void launch(const BnormProblem& p, const TileBufs& b, void* stream) const {
    TileGeom g{};
    const bool cl = p.shape.channels_last;
    g.C = p.shape.c, g.M = p.group_size(), g.S = g.M / p.shape.n;
    g.units = tile_units(p, V);
    g.packs_per_plane = FastDiv(static_cast<std::uint32_t>(g.S / V));
    g.K = static_cast<int>((g.units + kBlock - 1) / kBlock);
    g.m_f = static_cast<float>(g.M);
    g.unbias = g.M > 1 ? static_cast<float>(static_cast<double>(g.M) / static_cast<double>(g.M - 1)) : 1.0f;
    g.eps = static_cast<float>(p.epsilon);
    g.momentum = p.momentum ? static_cast<float>(*p.momentum) : 0.0f;
    using Kernel = void (*)(TileGeom, TileBufs);
    const Kernel kernel = p.dir == BnormDir::bwd ? (cl ? &bnorm_tile_bwd<T, V, true> : &bnorm_tile_bwd<T, V, false>)
                                                 : (cl ? &bnorm_tile_train<T, V, true> : &bnorm_tile_train<T, V, false>);
    const std::size_t smem = tile_smem(p, V);
    (void)resident_per_mp(kernel, kBlock, smem);  // raises the kernel's shared memory limit (smem may exceed 48 KiB)
    const long long tiles = cl ? g.C / V : g.C;
    hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(tiles)), dim3(kBlock), smem, static_cast<hipStream_t>(stream), g, b);
    check_launch_lazy("bnorm_tile", [&] { return "running " + name() + " on " + to_string(p); });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> bnorm_tile_solver() { return std::make_shared<BnormTile>(); }

}  // namespace hiprim::gpu
