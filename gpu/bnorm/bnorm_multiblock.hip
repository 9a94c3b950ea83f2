// bnorm.spatial.multiblock: spatial batch normalization with every channel's N*D*H*W values spread
// over many blocks; fwd-train, fwd-infer, bwd; fp32/fp16/bf16 data with fp32 parameters; all layouts.
// Math (fp32; core/bnorm_problem.hpp), the two-pass model of reference/bnorm.cpp's bounds:
//   fwd-train: mean = (sum x)/M; var = (sum (x - mean)^2)/M; inv = 1/sqrt(var + eps);
//              y = (x - mean) * (scale * inv) + bias
//   fwd-infer: y = (x - mean) * (scale * (1/sqrt(var + eps))) + bias   (one elementwise pass)
//   bwd:       dbias = sum dy, dscale = sum dy * xhat, xhat = (x - mean) * inv;
//              dx = c (M dy - dbias - xhat dscale), c = scale * inv / M
// Views of x (S = D*H*W): channels-last = rows r in [0, N*S), each row C contiguous values;
// channels-first = N planes per channel, plane (n, c) S contiguous values at n*C*S + c*S.
// Work split (fixed by the problem and the pack width V, never by the device):
//   channels-last: block = (row slice, channel tile); thread (tx, ty) owns V adjacent channels
//     (one pack) and walks rows ty, ty + TY, ... of the slice (a warp reads whole row segments).
//   channels-first: block = (pack slice, channel); threads walk the channel's packs (V values of
//     one plane) with a stride of a block.
// Reductions (fwd-train twice, bwd once): phase 1 writes one fp32 partial per (slice, channel) into
// the workspace (the block's tree: gpu/common/block_reduce.hpp's order); phase 2, one block per
// channel, sums the slices' partials with a fixed tree and finishes the channel's statistics;
// phase 3 is the elementwise pass. No float atomics: bitwise reproducible for a given launch.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/bnorm_problem.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr long long kTargetBlocks = 1024;  // about one wave of 256-thread blocks on a large GPU
constexpr long long kMinSteps = 4;         // loop steps per thread before a slice is split further

struct Geom {
  long long N, C, S;
  bool channels_last;
  int tx, ty;               // channels-last: threads across channel packs (a power of two <= 32), rows per step
  long long ctiles;         // channels-last: channel tiles of tx packs
  long long units;          // rows (channels-last) or packs per channel (channels-first)
  long long slices, slice;  // slices and units per slice
  long long blocks;         // slices * (ctiles or C)
  float m_f, unbias, eps, momentum;
};

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

Geom make_geom(const BnormProblem& p, int V) {
  Geom g{};
  g.N = p.shape.n, g.C = p.shape.c, g.S = p.shape.elements() / (g.N * g.C);
  g.channels_last = p.shape.channels_last;
  long long groups, min_units;
  if (g.channels_last) {
    const long long packs = g.C / V;
    g.tx = 1;
    while (g.tx < 32 && g.tx < packs) g.tx *= 2;
    g.ty = kBlock / g.tx;
    g.ctiles = ceil_div(packs, g.tx);
    g.units = g.N * g.S;
    groups = g.ctiles;
    min_units = g.ty * kMinSteps;
  } else {
    g.tx = 1, g.ty = 1, g.ctiles = 1;
    g.units = g.N * g.S / V;
    groups = g.C;
    min_units = kBlock * kMinSteps;
  }
  const long long want = std::clamp<long long>(ceil_div(kTargetBlocks, groups), 1, ceil_div(g.units, min_units));
  g.slice = ceil_div(g.units, want);
  g.slices = ceil_div(g.units, g.slice);
  g.blocks = g.slices * groups;
  const long long M = p.group_size();
  g.m_f = static_cast<float>(M);
  g.unbias = M > 1 ? static_cast<float>(static_cast<double>(M) / static_cast<double>(M - 1)) : 1.0f;
  g.eps = static_cast<float>(p.epsilon);
  g.momentum = p.momentum ? static_cast<float>(*p.momentum) : 0.0f;
  return g;
}

// Per-channel values a pass needs, loaded once per thread for each of its channels.
struct Coef {
  float m, a, b, c, d;
};

// The block's share blk of the tensor: calls pass.visit(offset, coef, acc) for each of the thread's
// packs (offset of the pack's first value); coef[j], acc[j] belong to the pack's lane j.
template <int V, typename Pass>
__device__ void walk(const Geom& g, long long blk, const Pass& pass, Float2Sum (&acc)[V]) {
  const int tid = threadIdx.x;
  Coef k[V];
  if (g.channels_last) {
    const long long slice = blk / g.ctiles, c0 = ((blk % g.ctiles) * g.tx + tid % g.tx) * V;
    if (c0 >= g.C) return;
#pragma unroll
    for (int j = 0; j < V; ++j) k[j] = pass.coef(c0 + j);
    const long long r1 = (slice + 1) * g.slice < g.units ? (slice + 1) * g.slice : g.units;
#pragma unroll 4
    for (long long r = slice * g.slice + tid / g.tx; r < r1; r += g.ty) pass.visit(r * g.C + c0, k, acc);
  } else {
    const long long c = blk % g.C, slice = blk / g.C;
    const Coef kc = pass.coef(c);
#pragma unroll
    for (int j = 0; j < V; ++j) k[j] = kc;
    // Pack q of the channel: plane n = q / SV, pack s = q % SV; advance by kBlock packs without dividing.
    const long long SV = g.S / V, step_n = kBlock / SV, step_s = kBlock % SV, plane = g.C * g.S;
    long long q = slice * g.slice + tid;
    const long long q1 = (slice + 1) * g.slice < g.units ? (slice + 1) * g.slice : g.units;
    long long n = q / SV, s = q % SV;
#pragma unroll 4
    for (; q < q1; q += kBlock) {
      pass.visit(n * plane + c * g.S + s * V, k, acc);
      n += step_n, s += step_s;
      if (s >= SV) s -= SV, ++n;
    }
  }
}

// Work item of a block: blockIdx.x, or counted from the end (a pass that follows another starts
// where that one ended, on data still in the L2 cache).
__device__ __forceinline__ long long work_item(bool reverse) { return reverse ? gridDim.x - 1LL - blockIdx.x : blockIdx.x; }

// Phase 1: the block's partial sums per channel into partials[slice * C + c].

template <int V, typename Pass>
__global__ void bnorm_partials(Geom g, Pass pass, Float2Sum* partials, bool reverse) {
  __shared__ Float2Sum red[kBlock * V];
  Float2Sum acc[V];
#pragma unroll
  for (int j = 0; j < V; ++j) acc[j] = Float2Sum{0.0f, 0.0f};
  const long long blk = work_item(reverse);
  walk<V>(g, blk, pass, acc);
  const int tid = threadIdx.x;
  if (g.channels_last) {
    // Rows of the tile (ty) combined pairwise: ty with ty + s for s = TY/2, ..., 1.
#pragma unroll
    for (int j = 0; j < V; ++j) red[tid * V + j] = acc[j];
    __syncthreads();
    for (int s = g.ty / 2; s > 0; s /= 2) {
      if (tid / g.tx < s)
        for (int j = 0; j < V; ++j) red[tid * V + j] = red[tid * V + j] + red[(tid + s * g.tx) * V + j];
      __syncthreads();
    }
    const long long c0 = ((blk % g.ctiles) * g.tx + tid) * V;
    if (tid < g.tx && c0 < g.C)
      for (int j = 0; j < V; ++j) partials[(blk / g.ctiles) * g.C + c0 + j] = red[tid * V + j];
  } else {
    Float2Sum t = acc[0];
#pragma unroll
    for (int j = 1; j < V; ++j) t = t + acc[j];
    t = block_sum(t, red);
    if (tid == 0) partials[(blk / g.C) * g.C + blk % g.C] = t;
  }
}

// Phase 2: per channel, the slices' partials in a fixed tree; fin(c, total) finishes the channel.
template <typename Fin>
__global__ void bnorm_combine(Geom g, const Float2Sum* partials, Fin fin) {
  __shared__ Float2Sum red[kBlock];
  for (long long c = blockIdx.x; c < g.C; c += gridDim.x) {
    Float2Sum t{0.0f, 0.0f};
    for (long long s = threadIdx.x; s < g.slices; s += kBlock) t = t + partials[s * g.C + c];
    t = block_sum(t, red);
    if (threadIdx.x == 0) fin(g, c, t);
  }
}

// Phase 3 (and fwd-infer): the elementwise pass.
template <int V, typename Pass>
__global__ void bnorm_apply(Geom g, Pass pass, bool reverse) {
  Float2Sum unused[V];
  walk<V>(g, work_item(reverse), pass, unused);
}

// ---- passes (T: data type; V: pack width) ----
template <typename T, int V>
struct SumX {  // acc.a += x
  const T* x;
  __device__ Coef coef(long long) const { return {}; }
  __device__ void visit(long long o, const Coef (&)[V], Float2Sum (&acc)[V]) const {
    float v[V];
    load_pack<T, V>(x, o, v);
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j].a += v[j];
  }
};
template <typename T, int V>
struct SumSqDev {  // acc.a += (x - mean)^2
  const T* x;
  const float* mean;
  __device__ Coef coef(long long c) const { return {mean[c], 0, 0, 0, 0}; }
  __device__ void visit(long long o, const Coef (&k)[V], Float2Sum (&acc)[V]) const {
    float v[V];
    load_pack<T, V>(x, o, v);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float d = v[j] - k[j].m;
      acc[j].a += d * d;
    }
  }
};
template <typename T, int V>
struct BwdSums {  // acc.a += dy, acc.b += dy * (x - mean) * inv
  const T *x, *dy;
  const float *mean, *inv;
  __device__ Coef coef(long long c) const { return {mean[c], inv[c], 0, 0, 0}; }
  __device__ void visit(long long o, const Coef (&k)[V], Float2Sum (&acc)[V]) const {
    float v[V], d[V];
    load_pack<T, V>(x, o, v);
    load_pack<T, V>(dy, o, d);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      acc[j].a += d[j];
      acc[j].b += d[j] * ((v[j] - k[j].m) * k[j].a);
    }
  }
};
// y = (x - m) * a + b with a = scale * inv: inv from the workspace (fwd-train) or from est_var.
template <typename T, int V>
struct Affine {
  const T* x;
  T* y;
  const float *mean, *scale_inv, *bias;          // fwd-train: workspace mean and scale*inv
  const float *scale, *var;                      // fwd-infer (scale_inv null): a = scale * (1/sqrt(var + eps))
  float eps;
  __device__ Coef coef(long long c) const {
    const float a = scale_inv ? scale_inv[c] : scale[c] * (1.0f / sqrtf(var[c] + eps));
    return {mean[c], a, bias[c], 0, 0};
  }
  __device__ void visit(long long o, const Coef (&k)[V], Float2Sum (&)[V]) const {
    float v[V];
    load_pack<T, V>(x, o, v);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = (v[j] - k[j].m) * k[j].a + k[j].b;
    store_pack<T, V>(y, o, v);
  }
};
template <typename T, int V>
struct BwdDx {  // dx = c (M dy - dbias - xhat dscale); coef {mean, inv, c, dbias, dscale}
  const T *x, *dy;
  T* dx;
  const float *mean, *inv, *cf, *dbias, *dscale;
  float m_f;
  __device__ Coef coef(long long c) const { return {mean[c], inv[c], cf[c], dbias[c], dscale[c]}; }
  __device__ void visit(long long o, const Coef (&k)[V], Float2Sum (&)[V]) const {
    float v[V], d[V];
    load_pack<T, V>(x, o, v);
    load_pack<T, V>(dy, o, d);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float xhat = (v[j] - k[j].m) * k[j].a;
      v[j] = k[j].b * (m_f * d[j] - k[j].c - xhat * k[j].d);
    }
    store_pack<T, V>(dx, o, v);
  }
};


// ---- phase 2's finishers: fp32, the same expressions as bnorm.block_group ----
struct MeanFin {  // mean = sum / M
  float* mean;
  __device__ void operator()(const Geom& g, long long c, Float2Sum t) const { mean[c] = t.a / g.m_f; }
};
struct TrainFin {  // var = sum (x - mean)^2 / M; saved and running statistics; scale * inv for phase 3
  const float *mean, *scale;
  float *scale_inv, *running_mean, *running_var, *saved_mean, *saved_inv;
  __device__ void operator()(const Geom& g, long long c, Float2Sum t) const {
    const float var = t.a / g.m_f, inv = 1.0f / sqrtf(var + g.eps), keep = 1.0f - g.momentum;
    scale_inv[c] = scale[c] * inv;
    saved_mean[c] = mean[c];
    saved_inv[c] = inv;
    running_mean[c] = keep * running_mean[c] + g.momentum * mean[c];
    running_var[c] = keep * running_var[c] + g.momentum * var * g.unbias;
  }
};
struct BwdFin {  // dbias, dscale; c = scale * inv / M for phase 3
  const float *scale, *inv;
  float *cf, *dscale, *dbias;
  __device__ void operator()(const Geom& g, long long c, Float2Sum t) const {
    dbias[c] = t.a;
    dscale[c] = t.b;
    cf[c] = scale[c] * inv[c] / g.m_f;
  }
};

// Workspace: partials [slices][C] (Float2Sum), then mean [C] and a second per-channel value [C].
struct Workspace {
  Float2Sum* partials;
  float *mean, *coef;
};
Workspace carve(void* ws, const Geom& g) {
  auto* part = static_cast<Float2Sum*>(ws);
  auto* rest = reinterpret_cast<float*>(part + g.slices * g.C);
  return {part, rest, rest + g.C};
}

// Pack widths tried, widest first: 16 bytes, 8 bytes (16-bit types), single values.
template <typename T>
bool pack_fits(const BnormProblem& p, int V, const std::vector<const void*>& data) {
  const long long C = p.shape.c, S = p.shape.elements() / (p.shape.n * C);
  if ((p.shape.channels_last ? C : S) % V != 0) return false;
  for (const void* d : data) {
    const bool ok = V == 8 ? aligned_for_pack<T, 8>(d) : V == 4 ? aligned_for_pack<T, 4>(d) : true;
    if (!ok) return false;
  }
  return true;
}

class BnormMultiblock final : public TypedOpSolver<BnormProblem> {
 public:
  std::string name() const override { return "bnorm.spatial.multiblock"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "spatial only; every channel spread over many blocks: per-slice fp32 partials combined in a fixed order "
           "(two-pass fwd-train statistics, bwd sums), then an elementwise pass with 16-byte packs where the layout allows; "
           "fwd-train, fwd-infer, bwd; fp32/fp16/bf16 data, fp32 parameters; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const BnormProblem& p) const override {
    if (!p.fp32_parameters()) return Applicability::no("scale=/stats= not fp32: the kernels read and write fp32 parameters and statistics");
    if (p.mode != BnormMode::spatial)
      return Applicability::no("per-activation mode: each group holds only N values, nothing to spread over blocks "
                               "(bnorm.thread_group and bnorm.block_group serve it)");
    return Applicability::yes();
  }
  // The largest over the pack widths run_typed may pick (the choice depends on the buffers' alignment).
  std::size_t workspace_for(const BnormProblem& p) const override {
    if (p.mode != BnormMode::spatial) return 0;
    long long slices = 0;
    for (int V : {1, 4, 8}) {
      const long long C = p.shape.c, S = p.shape.elements() / (p.shape.n * C);
      if ((p.shape.channels_last ? C : S) % V == 0) slices = std::max(slices, make_geom(p, V).slices);
    }
    return static_cast<std::size_t>(slices * p.shape.c) * sizeof(Float2Sum) + 2 * static_cast<std::size_t>(p.shape.c) * sizeof(float);
  }
  void run_typed(const BnormProblem& p, const std::vector<void*>& b, void* ws, void* stream) const override {
    const std::string ctx = "running " + name() + " on " + to_string(p);
    const auto s = static_cast<hipStream_t>(stream);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      std::vector<const void*> data{b[0], b[5]};  // x and y or dx
      if (p.dir == BnormDir::bwd) data.push_back(b[1]);  // dy
      if constexpr (sizeof(T) == 2) {
        if (pack_fits<T>(p, 8, data)) return run_packed<T, 8>(p, b, ws, s, ctx);
      }
      if (pack_fits<T>(p, 4, data)) return run_packed<T, 4>(p, b, ws, s, ctx);
      run_packed<T, 1>(p, b, ws, s, ctx);
    });
  }

 private:
  template <typename T, int V>
  static void run_packed(const BnormProblem& p, const std::vector<void*>& b, void* ws, hipStream_t s, const std::string& ctx) {
    const Geom g = make_geom(p, V);
    auto f = [&](int i) { return static_cast<float*>(b[static_cast<std::size_t>(i)]); };
    auto t = [&](int i) { return static_cast<T*>(b[static_cast<std::size_t>(i)]); };
    const unsigned channel_blocks = static_cast<unsigned>(std::min<long long>(g.C, 65535));
    switch (p.dir) {
      case BnormDir::fwd_infer: {
        // x, scale, bias, est_mean, est_var, y
        const Affine<T, V> pass{t(0), t(5), f(3), nullptr, f(2), f(1), f(4), g.eps};
        apply(g, pass, false, s, ctx);
        break;
      }
      case BnormDir::fwd_train: {
        // x, scale, bias, running_mean, running_var, y, saved_mean, saved_inv_std
        const Workspace w = carve(ws, g);
        partials(g, SumX<T, V>{t(0)}, w, false, s, ctx);  // x forward, backward, forward
        combine(g, MeanFin{w.mean}, w, channel_blocks, s, ctx);
        partials(g, SumSqDev<T, V>{t(0), w.mean}, w, true, s, ctx);
        combine(g, TrainFin{w.mean, f(1), w.coef, f(3), f(4), f(6), f(7)}, w, channel_blocks, s, ctx);
        apply(g, Affine<T, V>{t(0), t(5), w.mean, w.coef, f(2), nullptr, nullptr, 0.0f}, false, s, ctx);
        break;
      }
      case BnormDir::bwd: {
        // x, dy, scale, saved_mean, saved_inv_std, dx, dscale, dbias
        const Workspace w = carve(ws, g);
        partials(g, BwdSums<T, V>{t(0), t(1), f(3), f(4)}, w, false, s, ctx);  // x, dy forward, then backward
        combine(g, BwdFin{f(2), f(4), w.coef, f(6), f(7)}, w, channel_blocks, s, ctx);
        apply(g, BwdDx<T, V>{t(0), t(1), t(5), f(3), f(4), w.coef, f(7), f(6), g.m_f}, true, s, ctx);
        break;
      }
    }
  }
  template <int V, template <typename, int> class P, typename T>
  static void partials(const Geom& g, const P<T, V>& pass, const Workspace& w, bool reverse, hipStream_t s, const std::string& ctx) {
    constexpr auto kernel = &bnorm_partials<V, P<T, V>>;
    hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(g.blocks)), dim3(kBlock), 0, s, g, pass, w.partials, reverse);
    HIPRIM_CHECK_LAUNCH("bnorm_partials", ctx);
  }
  template <typename Fin>
  static void combine(const Geom& g, const Fin& fin, const Workspace& w, unsigned blocks, hipStream_t s, const std::string& ctx) {
    constexpr auto kernel = &bnorm_combine<Fin>;
    hipLaunchKernelGGL(kernel, dim3(blocks), dim3(kBlock), 0, s, g, static_cast<const Float2Sum*>(w.partials), fin);
    HIPRIM_CHECK_LAUNCH("bnorm_combine", ctx);
  }
  template <int V, template <typename, int> class P, typename T>
  static void apply(const Geom& g, const P<T, V>& pass, bool reverse, hipStream_t s, const std::string& ctx) {
    constexpr auto kernel = &bnorm_apply<V, P<T, V>>;
    hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(g.blocks)), dim3(kBlock), 0, s, g, pass, reverse);
    HIPRIM_CHECK_LAUNCH("bnorm_apply", ctx);
  }
};

}  // namespace

std::shared_ptr<const OpSolver> bnorm_multiblock_solver() { return std::make_shared<BnormMultiblock>(); }

}  // namespace hiprim::gpu
