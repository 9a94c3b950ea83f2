// lrn.direct: LRN forward and backward (math: core/lrn_problem.hpp), fp32 arithmetic, deterministic
// (fixed-order sums, no atomics). Any layout, 2D/3D.
//
// fwd: one thread per element in storage order: s = k + (alpha/A) * sum_{W(i)} x^2, y = x * powf(s, -beta).
//   Across channels the window's loads are C-strided in NCHW (neighbouring threads read neighbouring
//   w: coalesced) and adjacent in NHWC.
// bwd: two passes over a workspace of 2 floats per element (indexed by x's storage offset):
//   pass 1: s_j and q_j = dy_j * x_j * powf(s_j, -beta-1)
//   pass 2: dx_i = dy_i * powf(s_i, -beta) - (2 alpha beta / A) * x_i * sum_{j in W(i)} q_j
//   (W symmetric, so the gather over W(i) collects every j whose window holds i).
#include <string>

#include "core/lrn_problem.hpp"
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)
#include "gpu/common/ncdhw_walk_host.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/lrn/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct LrnGeom {
  Nc3Extent ext;
  Nc3Strides st;
  int half;     // (n - 1) / 2
  bool across;  // else within
  float alpha_over_area, beta, k, coef;  // coef = 2 alpha beta / A
};

// Calls f(offset) for every j in W(p), clipped to the tensor, in a fixed order.
template <typename F>
__device__ __forceinline__ void for_window(const LrnGeom& g, const Nc3Pos& p, F&& f) {
  int lo[4], hi[4];  // c, d, h, w; inclusive
  lo[0] = hi[0] = p.c;
  for (int d = 0; d < 3; ++d) lo[d + 1] = hi[d + 1] = p.s[d];
  if (g.across) {
    lo[0] = max(0, p.c - g.half);
    hi[0] = min(g.ext.c - 1, p.c + g.half);
  } else {
    for (int d = 0; d < 3; ++d) {
      lo[d + 1] = max(0, p.s[d] - g.half);
      hi[d + 1] = min(g.ext.s[d] - 1, p.s[d] + g.half);
    }
  }
  for (int c = lo[0]; c <= hi[0]; ++c)
    for (int d = lo[1]; d <= hi[1]; ++d)
      for (int h = lo[2]; h <= hi[2]; ++h)
        for (int w = lo[3]; w <= hi[3]; ++w) f(g.st.at(p.n, c, d, h, w));
}

template <typename T>
__device__ __forceinline__ float scale_at(const LrnGeom& g, const Nc3Pos& p, const T* __restrict__ x) {
  float sq = 0.0f;
  for_window(g, p, [&](long long o) {
    const float v = load_f(x, o);
    sq += v * v;
  });
  return g.k + g.alpha_over_area * sq;
}

template <typename T>
__global__ void lrn_fwd(LrnGeom g, const T* __restrict__ x, T* __restrict__ y) {
  const long long total = nc3_elements(g.ext);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = nc3_decode(i, g.ext);
    const long long o = g.st.at(p.n, p.c, p.s[0], p.s[1], p.s[2]);
    const float s = scale_at(g, p, x);
    store_f(y, o, load_f(x, o) * powf(s, -g.beta));
  }
}

// ws[2*o] = s_o, ws[2*o + 1] = q_o (o: x's storage offset).
template <typename T>
__global__ void lrn_bwd_scale(LrnGeom g, const T* __restrict__ x, const T* __restrict__ dy, float* __restrict__ ws) {
  const long long total = nc3_elements(g.ext);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = nc3_decode(i, g.ext);
    const long long o = g.st.at(p.n, p.c, p.s[0], p.s[1], p.s[2]);
    const float s = scale_at(g, p, x);
    ws[2 * o] = s;
    ws[2 * o + 1] = load_f(dy, o) * load_f(x, o) * powf(s, -g.beta - 1.0f);
  }
}

template <typename T>
__global__ void lrn_bwd_dx(LrnGeom g, const T* __restrict__ x, const T* __restrict__ dy, const float* __restrict__ ws,
                           T* __restrict__ dx) {
  const long long total = nc3_elements(g.ext);
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const Nc3Pos p = nc3_decode(i, g.ext);
    const long long o = g.st.at(p.n, p.c, p.s[0], p.s[1], p.s[2]);
    float sum = 0.0f;
    for_window(g, p, [&](long long j) { sum += ws[2 * j + 1]; });
    const float v = load_f(dy, o) * powf(ws[2 * o], -g.beta) - g.coef * load_f(x, o) * sum;
    store_f(dx, o, v);
  }
}

LrnGeom lrn_geom(const LrnProblem& p) {
  const TensorDesc d = p.shape.desc();
  LrnGeom g{};
  g.ext = nc3_extent(d, p.shape.channels_last);
  g.st = nc3_strides(d);
  g.half = static_cast<int>((p.size - 1) / 2);
  g.across = p.mode == LrnMode::across;
  const float alpha = static_cast<float>(p.alpha), area = static_cast<float>(p.area());
  g.beta = static_cast<float>(p.beta);
  g.k = static_cast<float>(p.k);
  g.alpha_over_area = alpha / area;
  g.coef = 2.0f * alpha * g.beta / area;
  return g;
}

class LrnDirect final : public TypedOpSolver<LrnProblem> {
 public:
  std::string name() const override { return "lrn.direct"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one thread per element; within/across; fwd, bwd (two passes, workspace 8 B/element); 2D/3D; "
           "fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const LrnProblem&) const override { return Applicability::yes(); }
  std::size_t workspace_for(const LrnProblem& p) const override {
    return p.dir == LrnDir::bwd ? static_cast<std::size_t>(p.shape.desc().storage_elements()) * 2 * sizeof(float) : 0;
  }
  void run_typed(const LrnProblem& p, const std::vector<void*>& b, void* ws, void* stream_ptr) const override {
    const std::string ctx = "running lrn.direct on " + to_string(p);
    const LrnGeom g = lrn_geom(p);
    const auto stream = static_cast<hipStream_t>(stream_ptr);
    const dim3 grid(grid_stride_blocks(nc3_elements(g.ext), kBlock)), block(kBlock);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      const T* x = static_cast<const T*>(b[0]);
      if (p.dir == LrnDir::fwd) {
        hipLaunchKernelGGL(lrn_fwd<T>, grid, block, 0, stream, g, x, static_cast<T*>(b[1]));
        HIPRIM_CHECK_LAUNCH("lrn_fwd", ctx);
        return;
      }
      const T* dy = static_cast<const T*>(b[1]);
      float* w = static_cast<float*>(ws);
      hipLaunchKernelGGL(lrn_bwd_scale<T>, grid, block, 0, stream, g, x, dy, w);
      HIPRIM_CHECK_LAUNCH("lrn_bwd_scale", ctx);
      hipLaunchKernelGGL(lrn_bwd_dx<T>, grid, block, 0, stream, g, x, dy, static_cast<const float*>(w),
                         static_cast<T*>(b[2]));
      HIPRIM_CHECK_LAUNCH("lrn_bwd_dx", ctx);
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_lrn_direct() { return std::make_shared<LrnDirect>(); }
OpSolverList lrn_solvers() { return {make_lrn_across_tile(), make_lrn_direct()}; }

}  // namespace hiprim::gpu
