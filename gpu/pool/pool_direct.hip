// Pooling solvers (math, index and tie rules: core/pool_problem.hpp). Deterministic: no atomics,
// every sum in a fixed order in fp32.
//
// fwd: one thread per output position and V channels; it walks its window clipped to the input in
//   scan order (d, h, w), keeping the first maximum (strict >, NaN beats numbers) and its window
//   index, or the fp32 sum divided by prod(win) (avg_incl) or by the clipped count (avg_excl).
// bwd: one thread per input position and V channels, gathering (no atomics) over the windows that
//   contain it: o in [ceil((i+pad-win+1)/str), floor((i+pad)/str)] per dim, adding dy[o] when
//   idx[o] names this position (max) or dy[o]/count(o) (avg).
// Threads run over the tensor in storage order (a grid-stride loop), so neighbouring threads
// write neighbouring elements in every layout.
//   pool.direct    V = 1: any layout, 2D/3D.
//   pool.nhwc.vec  channels last with C % V == 0 (V*dtype = 16 bytes: fp32 4, fp16/bf16 8): each
//                  thread moves V channels per access with 16-byte loads and stores.
#include <string>

#include "core/error.hpp"
#include "core/pool_problem.hpp"
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)
#include "gpu/common/nc3_host.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/pool/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

// The problem in 3-D form (2D: depth 1, window 1, pad 0, stride 1).
struct PoolGeom {
  Nc3Extent x_ext, y_ext;  // channel counts in groups of V
  Nc3Strides xs, ys;       // x (and dx) / y (and dy, idx) element strides
  int in[3], out[3], win[3], pad[3], str[3];
  int mode;  // 0 max, 1 avg_incl, 2 avg_excl
};

__device__ __forceinline__ bool beats(float v, float best) { return (v != v && best == best) || v > best; }

template <typename T, int V>
__global__ void pool_fwd(PoolGeom g, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx) {
  const long long total = nc3_elements(g.y_ext);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos o = nc3_decode(i, g.y_ext);
    int lo[3], hi[3], start[3];
    for (int d = 0; d < 3; ++d) {
      start[d] = o.s[d] * g.str[d] - g.pad[d];
      lo[d] = max(start[d], 0);
      hi[d] = min(start[d] + g.win[d], g.in[d]);
    }
    const int c0 = o.c * V;
    float best[V] = {}, acc[V] = {}, v[V];
    int best_k[V] = {};
    bool first = true;
    for (int d = lo[0]; d < hi[0]; ++d)
      for (int h = lo[1]; h < hi[1]; ++h)
        for (int w = lo[2]; w < hi[2]; ++w) {
          load_pack<T, V>(x, g.xs.at(o.n, c0, d, h, w), v);
          const int k = ((d - start[0]) * g.win[1] + (h - start[1])) * g.win[2] + (w - start[2]);
#pragma unroll
          for (int j = 0; j < V; ++j) {
            if (first || beats(v[j], best[j])) {
              best[j] = v[j];
              best_k[j] = k;
            }
            acc[j] = first ? v[j] : acc[j] + v[j];
          }
          first = false;
        }
    const long long yo = g.ys.at(o.n, c0, o.s[0], o.s[1], o.s[2]);
    if (g.mode == 0) {
      float kf[V];
#pragma unroll
      for (int j = 0; j < V; ++j) kf[j] = static_cast<float>(best_k[j]);
      store_pack<T, V>(y, yo, best);
      store_pack<float, V>(idx, yo, kf);
    } else {
      const int count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      const float div = static_cast<float>(g.mode == 1 ? g.win[0] * g.win[1] * g.win[2] : count);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] = acc[j] / div;
      store_pack<T, V>(y, yo, acc);
    }
  }
}

template <typename T, int V>
__global__ void pool_bwd(PoolGeom g, const T* __restrict__ dy, const float* __restrict__ idx, T* __restrict__ dx) {
  const long long total = nc3_elements(g.x_ext);
  const int win_all = g.win[0] * g.win[1] * g.win[2];
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = nc3_decode(i, g.x_ext);
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const int a = p.s[d] + g.pad[d] - g.win[d] + 1;  // first window with o*str >= a
      lo[d] = a <= 0 ? 0 : (a + g.str[d] - 1) / g.str[d];
      hi[d] = min(g.out[d] - 1, (p.s[d] + g.pad[d]) / g.str[d]);
    }
    const int c0 = p.c * V;
    float acc[V], gv[V], saved[V];
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = 0.0f;
    for (int od = lo[0]; od <= hi[0]; ++od)
      for (int oh = lo[1]; oh <= hi[1]; ++oh)
        for (int ow = lo[2]; ow <= hi[2]; ++ow) {
          const int o[3] = {od, oh, ow};
          int start[3], count = 1;
          for (int d = 0; d < 3; ++d) {
            start[d] = o[d] * g.str[d] - g.pad[d];
            count *= min(start[d] + g.win[d], g.in[d]) - max(start[d], 0);
          }
          const long long yo = g.ys.at(p.n, c0, od, oh, ow);
          load_pack<T, V>(dy, yo, gv);
          if (g.mode == 0) {
            load_pack<float, V>(idx, yo, saved);
            const float k = static_cast<float>(((p.s[0] - start[0]) * g.win[1] + (p.s[1] - start[1])) * g.win[2] +
                                               (p.s[2] - start[2]));
#pragma unroll
            for (int j = 0; j < V; ++j)
              if (saved[j] == k) acc[j] += gv[j];
          } else {
            const float div = static_cast<float>(g.mode == 1 ? win_all : count);
#pragma unroll
            for (int j = 0; j < V; ++j) acc[j] += gv[j] / div;
          }
        }
    store_pack<T, V>(dx, g.xs.at(p.n, c0, p.s[0], p.s[1], p.s[2]), acc);
  }
}

PoolGeom pool_geom(const PoolProblem& p, int v) {
  PoolGeom g{};
  const Dims o = p.out();
  const int r = p.rank();
  g.x_ext = nc3_extent(p.x_desc(), p.shape.channels_last, v);
  g.y_ext = nc3_extent(p.y_desc(), p.shape.channels_last, v);
  g.xs = nc3_strides(p.x_desc());
  g.ys = nc3_strides(p.y_desc());
  for (int i = 0; i < 3; ++i) {
    const int s = i - (3 - r);
    g.in[i] = s < 0 ? 1 : static_cast<int>(p.shape.in[s]);
    g.out[i] = s < 0 ? 1 : static_cast<int>(o[s]);
    g.win[i] = s < 0 ? 1 : static_cast<int>(p.window[s]);
    g.pad[i] = s < 0 ? 0 : static_cast<int>(p.pad[s]);
    g.str[i] = s < 0 ? 1 : static_cast<int>(p.stride[s]);
  }
  g.mode = p.mode == PoolMode::max ? 0 : p.mode == PoolMode::avg_incl ? 1 : 2;
  return g;
}

// 16 bytes of T per access.
template <typename T>
constexpr int kLanes = static_cast<int>(16 / sizeof(T));

template <typename T, int V>
void launch(const PoolProblem& p, const std::vector<void*>& b, hipStream_t stream, const std::string& ctx) {
  const PoolGeom g = pool_geom(p, V);
  const bool is_max = p.mode == PoolMode::max;
  if (p.dir == PoolDir::fwd) {
    const long long total = p.y_desc().elements() / V;
    hipLaunchKernelGGL((pool_fwd<T, V>), dim3(grid_stride_blocks(total, kBlock)), dim3(kBlock), 0, stream, g,
                       static_cast<const T*>(b[0]), static_cast<T*>(b[1]), is_max ? static_cast<float*>(b[2]) : nullptr);
    HIPRIM_CHECK_LAUNCH("pool_fwd", ctx);
  } else {
    const long long total = p.x_desc().elements() / V;
    const float* idx = is_max ? static_cast<const float*>(b[1]) : nullptr;
    hipLaunchKernelGGL((pool_bwd<T, V>), dim3(grid_stride_blocks(total, kBlock)), dim3(kBlock), 0, stream, g,
                       static_cast<const T*>(b[0]), idx, static_cast<T*>(b[is_max ? 2 : 1]));
    HIPRIM_CHECK_LAUNCH("pool_bwd", ctx);
  }
}

class PoolDirect final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.direct"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one thread per output (fwd) / input (bwd, gather) element; max, avg_incl, avg_excl; 2D/3D; "
           "fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const PoolProblem&) const override { return Applicability::yes(); }
  void run_typed(const PoolProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const std::string ctx = "running pool.direct on " + to_string(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() { launch<T, 1>(p, b, static_cast<hipStream_t>(stream), ctx); });
  }
};

class PoolNhwcVec final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.nhwc.vec"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "channels last, 16-byte loads/stores of 4 (fp32) or 8 (fp16/bf16) channels per thread; max, avg_incl, "
           "avg_excl; fwd/bwd; 2D/3D; needs C % lanes == 0";
  }

 protected:
  Applicability applicable_to(const PoolProblem& p) const override {
    if (!p.shape.channels_last) return Applicability::no("layout " + p.shape.layout_name() + " is not channels last");
    const int lanes = static_cast<int>(16 / dtype_size(p.shape.dtype));
    if (p.shape.c % lanes != 0)
      return Applicability::no("channels c = " + std::to_string(p.shape.c) + " is not a multiple of " +
                               std::to_string(lanes) + " (16 bytes of " + std::string(dtype_name(p.shape.dtype)) + ")");
    return Applicability::yes();
  }
  void run_typed(const PoolProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const std::string ctx = "running pool.nhwc.vec on " + to_string(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      constexpr int V = kLanes<T>;
      bool aligned = true;
      for (void* ptr : b) aligned = aligned && aligned_for_pack<float, V>(ptr);  // idx (fp32) needs the most
      if (!aligned) throw InputError("pool.nhwc.vec: buffers must be 16-byte aligned");
      launch<T, V>(p, b, static_cast<hipStream_t>(stream), ctx);
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_pool_direct() { return std::make_shared<PoolDirect>(); }
std::shared_ptr<const OpSolver> make_pool_nhwc_vec() { return std::make_shared<PoolNhwcVec>(); }
OpSolverList pool_solvers() { return {make_pool_nhwc_vec(), make_pool_direct()}; }

}  // namespace hiprim::gpu
