// Pooling solvers (math, index and tie rules: core/pool_problem.hpp). Deterministic: no atomics,
// every sum in a fixed order in fp32.
//
// fwd: one thread per output position and V channels; it walks its window in scan order (d, h, w)
//   skipping the taps outside the input, keeping the first maximum (strict >, NaN beats numbers)
//   and its window index, or the fp32 sum divided by prod(win) (avg_incl) or by the taps inside
//   (avg_excl).
// bwd: one thread per input position (stride 2 x 2 along h and w: per tile of 2 x 2 positions, the
//   windows they share read once) and V channels, gathering (no atomics) over the windows that
//   contain it: o in [ceil((i+pad-win+1)/str), floor((i+pad)/str)] per dim (at most ceil(win/str)
//   windows; the divisions by str multiply-shift, FastDiv), adding dy[o] when idx[o] names this
//   position (max) or dy[o]/count(o) (avg), in increasing o.
// Threads run over the tensor in storage order (grid-stride, resident grid), so neighbouring
// threads write neighbouring elements in every layout. Positions are decoded with FastDiv
// (tensors < 2^31 elements; else 64-bit division). fwd: windows of 3x3 and 2x2 (h x w; any depth)
// have their h/w tap loops unrolled (the taps' loads all in flight). bwd: when at most 1, 2 or 3
// windows per h and w contain a position (ceil(win/str): 3x3 stride 2 -> 2 x 2, stride 1 -> 3 x 3,
// 2x2 stride 2 -> 1 x 1) those loops are unrolled to that bound, predicated. Others: run-time loops.
//   pool.direct    V = 1: any layout, 2D/3D.
//   pool.nhwc.vec  channels last with C % V == 0 (V*dtype = 16 bytes: fp32 4, fp16/bf16 8): each
//                  thread moves V channels per access with 16-byte loads and stores.
#include <string>

#include "core/pool_problem.hpp"
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/pool/pool_geom.hpp"
#include "gpu/pool/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

template <bool Fast>
__device__ __forceinline__ Nc3Pos decode(long long i, const Nc3FastExtent& e) {
  return Fast ? nc3_decode_fast(static_cast<std::uint32_t>(i), e) : nc3_decode(i, e.e);
}

template <typename T, int V, int KH, int KW, bool Fast>
__global__ void pool_fwd(PoolGeom g, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx) {
  const long long total = nc3_elements(g.y_ext.e);
  const int wh = trips<KH>(g.win[1]), ww = trips<KW>(g.win[2]);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos o = decode<Fast>(i, g.y_ext);
    int start[3];
    for (int d = 0; d < 3; ++d) start[d] = o.s[d] * g.str[d] - g.pad[d];
    const int c0 = o.c * V;
    float best[V] = {}, acc[V] = {};
    int best_k[V] = {}, count = 0;
    for (int kd = 0; kd < g.win[0]; ++kd) {
      const int d = start[0] + kd;
      if (d < 0 || d >= g.in[0]) continue;
#pragma unroll
      for (int kh = 0; kh < wh; ++kh) {
        const int h = start[1] + kh;
#pragma unroll
        for (int kw = 0; kw < ww; ++kw) {
          const int w = start[2] + kw;
          if (h < 0 || h >= g.in[1] || w < 0 || w >= g.in[2]) continue;
          float v[V];
          load_pack<T, V>(x, g.xs.at(o.n, c0, d, h, w), v);
          const int k = (kd * g.win[1] + kh) * g.win[2] + kw;
#pragma unroll
          for (int j = 0; j < V; ++j) {
            if (count == 0 || beats(v[j], best[j])) {
              best[j] = v[j];
              best_k[j] = k;
            }
            acc[j] = count == 0 ? v[j] : acc[j] + v[j];
          }
          ++count;
        }
      }
    }
    const long long yo = g.ys.at(o.n, c0, o.s[0], o.s[1], o.s[2]);
    if (g.mode == 0) {
      float kf[V];
#pragma unroll
      for (int j = 0; j < V; ++j) kf[j] = static_cast<float>(best_k[j]);
      store_pack<T, V>(y, yo, best);
      store_pack<float, V>(idx, yo, kf);
    } else {
      const float div = static_cast<float>(g.mode == 1 ? g.win[0] * g.win[1] * g.win[2] : count);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] = acc[j] / div;
      store_pack<T, V>(y, yo, acc);
    }
  }
}

// MH, MW: the most windows containing a position along h and w (0: run time).
template <typename T, int V, int MH, int MW, bool Fast>
__global__ void pool_bwd(PoolGeom g, const T* __restrict__ dy, const float* __restrict__ idx, T* __restrict__ dx) {
  const long long total = nc3_elements(g.x_ext.e);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = decode<Fast>(i, g.x_ext);
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) windows_of(g, d, p.s[d], lo[d], hi[d]);
    // At most MH x MW windows contain the position along h and w: that many trips when fixed.
    const int nh = MH > 0 ? MH : hi[1] - lo[1] + 1, nw = MW > 0 ? MW : hi[2] - lo[2] + 1;
    const int c0 = p.c * V;
    float acc[V];
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = 0.0f;
    for (int od = lo[0]; od <= hi[0]; ++od) {
      const int sd = od * g.str[0] - g.pad[0];
#pragma unroll
      for (int jh = 0; jh < nh; ++jh) {
        const int oh = lo[1] + jh, sh = oh * g.str[1] - g.pad[1];
#pragma unroll
        for (int jw = 0; jw < nw; ++jw) {
          const int ow = lo[2] + jw, sw = ow * g.str[2] - g.pad[2];
          if (oh > hi[1] || ow > hi[2]) continue;
          const long long yo = g.ys.at(p.n, c0, od, oh, ow);
          float gv[V];
          load_pack<T, V>(dy, yo, gv);
          if (g.mode == 0) {
            float saved[V];
            load_pack<float, V>(idx, yo, saved);
            const float k = static_cast<float>(((p.s[0] - sd) * g.win[1] + (p.s[1] - sh)) * g.win[2] + (p.s[2] - sw));
#pragma unroll
            for (int j = 0; j < V; ++j)
              if (saved[j] == k) acc[j] += gv[j];
          } else {
            const float div = window_divisor(g, sd, sh, sw);
#pragma unroll
            for (int j = 0; j < V; ++j) acc[j] += gv[j] / div;
          }
        }
      }
    }
    store_pack<T, V>(dx, g.xs.at(p.n, c0, p.s[0], p.s[1], p.s[2]), acc);
  }
}

// bwd with stride SH x SW along h and w: one thread per tile of SH x SW input positions (storage-order
// tiles: tile extent g.t_ext), so the windows its positions share are read once (3x3 stride 2: 2 x 2
// windows for 4 positions instead of 9 window reads). Each position still adds the windows that
// contain it in increasing o and from 0, so dx equals pool_bwd's bit for bit.
template <typename T, int V, int SH, int SW>
__global__ void pool_bwd_tile(PoolGeom g, const T* __restrict__ dy, const float* __restrict__ idx, T* __restrict__ dx) {
  const long long total = nc3_elements(g.t_ext.e);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = decode<true>(i, g.t_ext);
    const int d = p.s[0], h0 = p.s[1] * SH, w0 = p.s[2] * SW, c0 = p.c * V;
    int lo[3], hi[3], unused;
    windows_of(g, 0, d, lo[0], hi[0]);
    windows_of(g, 1, h0, lo[1], unused);
    windows_of(g, 1, min(h0 + SH, g.in[1]) - 1, unused, hi[1]);
    windows_of(g, 2, w0, lo[2], unused);
    windows_of(g, 2, min(w0 + SW, g.in[2]) - 1, unused, hi[2]);
    float acc[SH][SW][V];
#pragma unroll
    for (int a = 0; a < SH; ++a)
#pragma unroll
      for (int b = 0; b < SW; ++b)
#pragma unroll
        for (int j = 0; j < V; ++j) acc[a][b][j] = 0.0f;
    for (int od = lo[0]; od <= hi[0]; ++od) {
      const int sd = od * g.str[0] - g.pad[0];
      for (int oh = lo[1]; oh <= hi[1]; ++oh) {
        const int sh = oh * g.str[1] - g.pad[1];
        for (int ow = lo[2]; ow <= hi[2]; ++ow) {
          const int sw = ow * g.str[2] - g.pad[2];
          const long long yo = g.ys.at(p.n, c0, od, oh, ow);
          float gv[V], saved[V];
          load_pack<T, V>(dy, yo, gv);
          if (g.mode == 0) load_pack<float, V>(idx, yo, saved);
          const float div = g.mode == 0 ? 1.0f : window_divisor(g, sd, sh, sw);
#pragma unroll
          for (int a = 0; a < SH; ++a) {
            const int kh = h0 + a - sh;
#pragma unroll
            for (int b = 0; b < SW; ++b) {
              const int kw = w0 + b - sw;
              if (kh < 0 || kh >= g.win[1] || kw < 0 || kw >= g.win[2]) continue;  // outside window o
              if (g.mode == 0) {
                const float k = static_cast<float>(((d - sd) * g.win[1] + kh) * g.win[2] + kw);
#pragma unroll
                for (int j = 0; j < V; ++j)
                  if (saved[j] == k) acc[a][b][j] += gv[j];
              } else {
#pragma unroll
                for (int j = 0; j < V; ++j) acc[a][b][j] += gv[j] / div;
              }
            }
          }
        }
      }
    }
#pragma unroll
    for (int a = 0; a < SH; ++a)
#pragma unroll
      for (int b = 0; b < SW; ++b)
        if (h0 + a < g.in[1] && w0 + b < g.in[2]) store_pack<T, V>(dx, g.xs.at(p.n, c0, d, h0 + a, w0 + b), acc[a][b]);
  }
}

// fwd: KH x KW the window (h x w); bwd: the most windows containing a position along h and w.
template <typename T, int V, int KH, int KW, bool Fast>
void launch_shape(const PoolProblem& p, const PoolGeom& g, const std::vector<void*>& b, hipStream_t stream, const std::string& solver) {
  const bool is_max = p.mode == PoolMode::max;
  auto ctx = [&] { return "running " + solver + " on " + to_string(p); };
  if (p.dir == PoolDir::fwd) {
    const auto kernel = &pool_fwd<T, V, KH, KW, Fast>;
    hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, nc3_elements(g.y_ext.e))), dim3(kBlock), 0, stream, g,
                       static_cast<const T*>(b[0]), static_cast<T*>(b[1]), is_max ? static_cast<float*>(b[2]) : nullptr);
    check_launch_lazy("pool_fwd", ctx);
  } else {
    const auto kernel = &pool_bwd<T, V, KH, KW, Fast>;
    const float* idx = is_max ? static_cast<const float*>(b[1]) : nullptr;
    hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, nc3_elements(g.x_ext.e))), dim3(kBlock), 0, stream, g,
                       static_cast<const T*>(b[0]), idx, static_cast<T*>(b[is_max ? 2 : 1]));
    check_launch_lazy("pool_bwd", ctx);
  }
}

// bwd by tiles of SH x SW positions (stride SH x SW along h and w; tensors below 2^31 elements).
template <typename T, int V, int SH, int SW>
void launch_bwd_tile(const PoolProblem& p, PoolGeom g, const std::vector<void*>& b, hipStream_t stream, const std::string& solver) {
  Nc3Extent t = g.x_ext.e;
  t.s[1] = (t.s[1] + SH - 1) / SH;
  t.s[2] = (t.s[2] + SW - 1) / SW;
  g.t_ext = nc3_fast(t);
  const bool is_max = p.mode == PoolMode::max;
  const auto kernel = &pool_bwd_tile<T, V, SH, SW>;
  hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, nc3_elements(t))), dim3(kBlock), 0, stream, g,
                     static_cast<const T*>(b[0]), is_max ? static_cast<const float*>(b[1]) : nullptr, static_cast<T*>(b[is_max ? 2 : 1]));
  check_launch_lazy("pool_bwd_tile", [&] { return "running " + solver + " on " + to_string(p); });
}

// The unrolled kernels (with_window_trips); tensors of 2^31 elements or more take the 64-bit decode.
template <typename T, int V>
void launch(const PoolProblem& p, const std::vector<void*>& b, hipStream_t stream, const std::string& solver) {
  const PoolGeom g = pool_geom(p, V);
  const long long elements = std::max(p.x_desc().elements(), p.y_desc().elements());
  if (elements >= kFastDivLimit) return launch_shape<T, V, 0, 0, false>(p, g, b, stream, solver);
  if (p.dir == PoolDir::bwd && g.str[1] == 2 && g.str[2] == 2) return launch_bwd_tile<T, V, 2, 2>(p, g, b, stream, solver);
  with_window_trips(p.dir, g, [&]<int KH, int KW>() { launch_shape<T, V, KH, KW, true>(p, g, b, stream, solver); });
}

class PoolDirect final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.direct"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one thread per output (fwd) / input (bwd, gather) element, resident grid, unrolled 3x3 and 2x2 windows; max, "
           "avg_incl, avg_excl; 2D/3D; fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const PoolProblem&) const override { return Applicability::yes(); }
  void run_typed(const PoolProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    dispatch_dtype(p.shape.dtype, [&]<typename T>() { launch<T, 1>(p, b, static_cast<hipStream_t>(stream), name()); });
  }
};

class PoolNhwcVec final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.nhwc.vec"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "channels last, 16-byte loads/stores of 4 (fp32) or 8 (fp16/bf16) channels per thread, resident grid, unrolled "
           "3x3 and 2x2 windows; max, avg_incl, avg_excl; fwd/bwd; 2D/3D; needs C % lanes == 0";
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
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      constexpr int V = kVec<T>;
      bool aligned = true;
      for (void* ptr : b) aligned = aligned && aligned_for_pack<float, V>(ptr);  // idx (fp32) needs the most
      if (aligned) launch<T, V>(p, b, static_cast<hipStream_t>(stream), name());
      else launch<T, 1>(p, b, static_cast<hipStream_t>(stream), name());
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_pool_direct() { return std::make_shared<PoolDirect>(); }
std::shared_ptr<const OpSolver> make_pool_nhwc_vec() { return std::make_shared<PoolNhwcVec>(); }
OpSolverList pool_solvers() { return {make_pool_global(), make_pool_nhwc_vec(), make_pool_nchw_band(), make_pool_direct()}; }

}  // namespace hiprim::gpu
