// bnorm.block_group and bnorm.thread_group: batch normalization, fwd-train, fwd-infer and bwd,
// spatial and per-activation, fp32/fp16/bf16 data with fp32 parameters, any layout, 2D/3D.
// Math (fp32, per normalized group of M values; core/bnorm_problem.hpp):
//   fwd-train: two passes for the statistics (mean, then the centered sum of squares), a third
//              writes y = (x - mean) * (scale * inv) + bias; the group's first lane stores the
//              saved statistics and updates the running ones.
//   fwd-infer: y = (x - mean) * (scale / sqrt(var + eps)) + bias
//   bwd:       sums dy and dy * xhat in one pass (Float2Sum), then dx = c (M dy - dbias - xhat dscale), c = scale*inv/M
// Groups (GroupGeom): element j of group g at (j / J1)*P + (j % J1)*Q + g*G:
//   spatial NCHW: J1 = S, P = C*S, Q = 1, G = S     spatial NHWC: J1 = M, P = 0, Q = C, G = 1
//   per-activation (parameters [1, C, spatial] in x's layout): J1 = 1, P = C*S, Q = 0, G = 1
// block_group: one block per group (grid-stride over groups), threads stride over the M values,
//   shared-memory tree reductions (gpu/common/block_reduce.hpp: no warp-size assumption).
// thread_group: one thread per group, sequential sums; per-activation only, where consecutive
//   groups are adjacent in memory, so a warp's loads are coalesced.
// Both deterministic (fixed reduction order for a given launch).
#include <string>

#include "core/bnorm_problem.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct GroupGeom {
  long long groups, M, J1, P, Q, G;
  float m_f;         // fp32 M
  float unbias;      // fp32 M / (M - 1) (1 when M = 1)
  float eps, momentum;
  __device__ long long offset(long long g, long long j) const { return (j / J1) * P + (j % J1) * Q + g * G; }
};

GroupGeom group_geom(const BnormProblem& p) {
  GroupGeom g{};
  const long long C = p.shape.c, S = p.shape.elements() / (p.shape.n * C);
  g.groups = p.groups();
  g.M = p.group_size();
  if (p.mode == BnormMode::per_activation) {
    g.J1 = 1, g.P = C * S, g.Q = 0, g.G = 1;
  } else if (!p.shape.channels_last) {
    g.J1 = S, g.P = C * S, g.Q = 1, g.G = S;
  } else {
    g.J1 = g.M, g.P = 0, g.Q = C, g.G = 1;
  }
  g.m_f = static_cast<float>(g.M);
  g.unbias = g.M > 1 ? static_cast<float>(static_cast<double>(g.M) / static_cast<double>(g.M - 1)) : 1.0f;
  g.eps = static_cast<float>(p.epsilon);
  g.momentum = p.momentum ? static_cast<float>(*p.momentum) : 0.0f;
  return g;
}


// Buffers in tensors() order (core/bnorm_problem.hpp).
struct TrainBufs {
  const void* x;
  const float *scale, *bias;
  float *running_mean, *running_var;
  void* y;
  float *saved_mean, *saved_inv;
};
struct InferBufs {
  const void* x;
  const float *scale, *bias, *mean, *var;
  void* y;
};
struct BwdBufs {
  const void *x, *dy;
  const float *scale, *mean, *inv;
  void* dx;
  float *dscale, *dbias;
};

template <typename T, typename Team>
__device__ void train_group(const GroupGeom& g, long long grp, Team team, const TrainBufs& b) {
  const T* x = static_cast<const T*>(b.x);
  const int lane = team.lane(), step = team.size();
  float s = 0.0f;
  for (long long j = lane; j < g.M; j += step) s += load_f(x, g.offset(grp, j));
  const float mean = team.sum(s) / g.m_f;
  float q = 0.0f;
  for (long long j = lane; j < g.M; j += step) {
    const float d = load_f(x, g.offset(grp, j)) - mean;
    q += d * d;
  }
  const float var = team.sum(q) / g.m_f;
  const float inv = 1.0f / sqrtf(var + g.eps);
  const float a = b.scale[grp] * inv, c = b.bias[grp];
  for (long long j = lane; j < g.M; j += step) {
    const long long o = g.offset(grp, j);
    store_f(static_cast<T*>(b.y), o, (load_f(x, o) - mean) * a + c);
  }
  if (lane == 0) {
    const float keep = 1.0f - g.momentum;
    b.saved_mean[grp] = mean;
    b.saved_inv[grp] = inv;
    b.running_mean[grp] = keep * b.running_mean[grp] + g.momentum * mean;
    b.running_var[grp] = keep * b.running_var[grp] + g.momentum * var * g.unbias;
  }
}

template <typename T, typename Team>
__device__ void infer_group(const GroupGeom& g, long long grp, Team team, const InferBufs& b) {
  const float inv = 1.0f / sqrtf(b.var[grp] + g.eps);
  const float a = b.scale[grp] * inv, c = b.bias[grp], mean = b.mean[grp];
  for (long long j = team.lane(); j < g.M; j += team.size()) {
    const long long o = g.offset(grp, j);
    store_f(static_cast<T*>(b.y), o, (load_f(static_cast<const T*>(b.x), o) - mean) * a + c);
  }
}

template <typename T, typename Team>
__device__ void bwd_group(const GroupGeom& g, long long grp, Team team, const BwdBufs& b) {
  const T* x = static_cast<const T*>(b.x);
  const T* dy = static_cast<const T*>(b.dy);
  const int lane = team.lane(), step = team.size();
  const float mean = b.mean[grp], inv = b.inv[grp];
  Float2Sum s{0.0f, 0.0f};  // a: sum dy, b: sum dy * xhat
  for (long long j = lane; j < g.M; j += step) {
    const long long o = g.offset(grp, j);
    const float d = load_f(dy, o);
    s.a += d;
    s.b += d * ((load_f(x, o) - mean) * inv);
  }
  s = team.sum(s);
  const float c = b.scale[grp] * inv / g.m_f;
  for (long long j = lane; j < g.M; j += step) {
    const long long o = g.offset(grp, j);
    const float xhat = (load_f(x, o) - mean) * inv;
    store_f(static_cast<T*>(b.dx), o, c * (g.m_f * load_f(dy, o) - s.a - xhat * s.b));
  }
  if (lane == 0) {
    b.dbias[grp] = s.a;
    b.dscale[grp] = s.b;
  }
}

// The direction follows from the buffers' type.
template <typename T, typename Team>
__device__ void run_group(const GroupGeom& g, long long grp, Team t, const TrainBufs& b) { train_group<T>(g, grp, t, b); }
template <typename T, typename Team>
__device__ void run_group(const GroupGeom& g, long long grp, Team t, const InferBufs& b) { infer_group<T>(g, grp, t, b); }
template <typename T, typename Team>
__device__ void run_group(const GroupGeom& g, long long grp, Team t, const BwdBufs& b) { bwd_group<T>(g, grp, t, b); }

template <typename T, typename Bufs>
__global__ void bnorm_block_groups(GroupGeom g, Bufs b) {
  __shared__ Float2Sum scratch[kBlock];  // BlockTeam's reduction space (launched with kBlock threads)
  for (long long grp = blockIdx.x; grp < g.groups; grp += gridDim.x)
    run_group<T>(g, grp, BlockTeam{reinterpret_cast<float*>(scratch)}, b);
}

template <typename T, typename Bufs>
__global__ void bnorm_thread_groups(GroupGeom g, Bufs b) {
  for (long long grp = grid_thread(); grp < g.groups; grp += grid_threads()) run_group<T>(g, grp, SoloTeam{}, b);
}

class BnormGroups final : public TypedOpSolver<BnormProblem> {
 public:
  explicit BnormGroups(bool block) : block_(block) {}
  std::string name() const override { return block_ ? "bnorm.block_group" : "bnorm.thread_group"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return std::string(block_ ? "one block per group, shared-memory tree reductions; spatial and per-activation"
                              : "one thread per group (coalesced across groups); per-activation only") +
           "; fwd-train (two-pass statistics), fwd-infer, bwd; fp32/fp16/bf16 data, fp32 parameters; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const BnormProblem& p) const override {
    if (!p.fp32_parameters()) return Applicability::no("scale=/stats= not fp32: the kernels read and write fp32 parameters and statistics");
    if (!block_ && p.mode != BnormMode::per_activation)
      return Applicability::no("spatial mode: one thread would serialize a channel's N*D*H*W values (bnorm.block_group serves it)");
    return Applicability::yes();
  }
  void run_typed(const BnormProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const GroupGeom g = group_geom(p);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    auto f = [](void* v) { return static_cast<float*>(v); };
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      switch (p.dir) {
        case BnormDir::fwd_train: launch<T>(g, TrainBufs{b[0], f(b[1]), f(b[2]), f(b[3]), f(b[4]), b[5], f(b[6]), f(b[7])}, stream, ctx); break;
        case BnormDir::fwd_infer: launch<T>(g, InferBufs{b[0], f(b[1]), f(b[2]), f(b[3]), f(b[4]), b[5]}, stream, ctx); break;
        case BnormDir::bwd: launch<T>(g, BwdBufs{b[0], b[1], f(b[2]), f(b[3]), f(b[4]), b[5], f(b[6]), f(b[7])}, stream, ctx); break;
      }
    });
  }

 private:
  template <typename T, typename Bufs>
  void launch(const GroupGeom& g, const Bufs& bufs, void* stream, const std::string& ctx) const {
    const auto s = static_cast<hipStream_t>(stream);
    if (block_) {
      const unsigned blocks = static_cast<unsigned>(std::min<long long>(g.groups, 65535));
      constexpr auto kernel = &bnorm_block_groups<T, Bufs>;
      hipLaunchKernelGGL(kernel, dim3(blocks), dim3(kBlock), 0, s, g, bufs);
      HIPRIM_CHECK_LAUNCH("bnorm_block_groups", ctx);
    } else {
      constexpr auto kernel = &bnorm_thread_groups<T, Bufs>;
      hipLaunchKernelGGL(kernel, dim3(grid_stride_blocks(g.groups, kBlock)), dim3(kBlock), 0, s, g, bufs);
      HIPRIM_CHECK_LAUNCH("bnorm_thread_groups", ctx);
    }
  }
  bool block_;
};

}  // namespace

OpSolverList bnorm_solvers() {
  return {bnorm_infer_stream_solver(), bnorm_tile_solver(), bnorm_persistent_solver(), bnorm_multiblock_solver(), std::make_shared<BnormGroups>(true), std::make_shared<BnormGroups>(false)};
}

}  // namespace hiprim::gpu
