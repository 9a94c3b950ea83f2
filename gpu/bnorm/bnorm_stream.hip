// bnorm.spatial.infer_stream: spatial batch-norm inference (fwd-infer) as ONE streaming pass at
// copy speed: x read once, y written once; fp32/fp16/bf16 data with fp32 parameters; all layouts.
// Math (fp32, the expressions of bnorm.spatial.multiblock/.persistent, reference/bnorm.cpp's bound
// 6u|scale*xhat| + u|y|):  a = scale * (1/sqrt(var + eps));  y = (x - mean) * a + bias.
// Walk (gpu/common/channel_stream.hpp): the tensor as 16-byte packs (8-byte or scalars when the
// contiguous extent or the pointers do not allow) in storage order, the streaming loop's grid-stride
// order with 4 packs in flight per thread (gpu/common/stream_loop.hpp), 256-thread blocks, the
// device's resident grid:
//   channels-last with a channel-stationary grid (grid a multiple of C / gcd(C, 256*V)): each
//     thread's packs hold the same V channels, so it loads their coefficients once, while its
//     first loads are in flight (stream_items_prepared);
//   otherwise (channels-first, or no stationary grid fits): the coefficients of each pack's
//     channel(s) per pack (channels-first: one channel for all lanes; they come from L1).
// Deterministic: every element is one fp32 expression.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/bnorm_problem.hpp"
#include "gpu/bnorm/bnorm_walk.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/common/channel_stream.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/stream_loop.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4;
// Blocks resident per multiprocessor the register budget is set for: 4 (1024 threads x 4 packs x 16 bytes
// in flight, <= 64 registers) with the thread's coefficients in registers; 3 for the per-pack ones
// (the 8-lane kernels spill at 64).
template <bool Stationary>
inline constexpr int kMinBlocks = Stationary ? 4 : 3;

struct InferArgs {
  const void* x;
  void* y;
  const float *scale, *bias, *mean, *var;
  float eps;
};

// Per-lane coefficients: y = (x - m) * a + b.
template <int V>
struct Lanes {
  float m[V], a[V], b[V];
};

template <typename T, int V, bool Stationary>
struct InferPacks {
  ChannelStream cs;
  InferArgs args;

  __device__ __forceinline__ void coef(long long c, float& m, float& a, float& b) const {
    m = args.mean[c];
    a = args.scale[c] * (1.0f / sqrtf(args.var[c] + args.eps));
    b = args.bias[c];
  }
  // The lanes of a pack whose first channel is c0.
  __device__ __forceinline__ Lanes<V> lanes(long long c0) const {
    Lanes<V> l;
    if (cs.channels_last) {
#pragma unroll
      for (int j = 0; j < V; ++j) coef(c0 + j, l.m[j], l.a[j], l.b[j]);
    } else {
      float m, a, b;
      coef(c0, m, a, b);
#pragma unroll
      for (int j = 0; j < V; ++j) l.m[j] = m, l.a[j] = a, l.b[j] = b;
    }
    return l;
  }
  __device__ __forceinline__ Pack<T, V> load(long long i) const { return load_raw<T, V>(static_cast<const T*>(args.x), i * V); }
  // Stationary: the thread's channels (those of its first pack, grid_thread()); else nothing.
  __device__ __forceinline__ Lanes<V> prepare() const {
    if constexpr (Stationary) return lanes(cs.channel(grid_thread()));
    return Lanes<V>{};
  }
  __device__ __forceinline__ void finish(long long i, const Pack<T, V>& pk, const Lanes<V>& st) const {
    Lanes<V> l;
    if constexpr (Stationary) l = st;
    else l = lanes(cs.channel(i));
    float f[V];
    unpack(pk, f);
#pragma unroll
    for (int j = 0; j < V; ++j) f[j] = (f[j] - l.m[j]) * l.a[j] + l.b[j];
    store_raw<T, V>(static_cast<T*>(args.y), i * V, pack_of<T, V>(f));
  }
};

template <typename T, int V, bool Stationary>
__global__ void __launch_bounds__(kBlock, kMinBlocks<Stationary>) bnorm_infer_packs(ChannelStream cs, InferArgs args) {
  stream_items_prepared<kUnroll>(cs.packs, InferPacks<T, V, Stationary>{cs, args});
}

class BnormInferStream final : public TypedOpSolver<BnormProblem> {
 public:
  std::string name() const override { return "bnorm.spatial.infer_stream"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "spatial fwd-infer only: one streaming pass over 16-byte packs (4 in flight per thread, resident grid); "
           "channels-last grids sized so each thread keeps its channels (coefficients loaded once); fp32/fp16/bf16 data, "
           "fp32 parameters; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const BnormProblem& p) const override {
    if (p.dir != BnormDir::fwd_infer) return Applicability::no("fwd-infer only (one elementwise pass; training needs the statistics first)");
    if (!p.fp32_parameters()) return Applicability::no("scale=/stats= not fp32: the kernel reads fp32 parameters and statistics");
    if (p.mode != BnormMode::spatial)
      return Applicability::no("per-activation mode: the coefficients vary per position (bnorm.thread_group and bnorm.block_group serve it)");
    return Applicability::yes();
  }
  void run_typed(const BnormProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    // x, scale, bias, est_mean, est_var, y
    auto f = [&](int i) { return static_cast<const float*>(b[static_cast<std::size_t>(i)]); };
    const InferArgs args{b[0], b[5], f(1), f(2), f(3), f(4), static_cast<float>(p.epsilon)};
    const auto s = static_cast<hipStream_t>(stream);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      switch (pick_lanes<T>(p, {b[0], b[5]})) {
        case kVec<T>: return run_lanes<T, kVec<T>>(p, args, s);
        case kVec<T> / 2: return run_lanes<T, kVec<T> / 2>(p, args, s);
        default: return run_lanes<T, 1>(p, args, s);
      }
    });
  }

 private:
  template <typename T, int V>
  void run_lanes(const BnormProblem& p, const InferArgs& args, hipStream_t s) const {
    const long long N = p.shape.n, C = p.shape.c, S = p.shape.elements() / (N * C);
    const ChannelStream cs = channel_stream(N, C, S, p.shape.channels_last, V);
    const long long want = bn_ceil_div(cs.packs, static_cast<long long>(kUnroll) * kBlock);
    auto ctx = [&] { return "running " + name() + " on " + to_string(p); };
    if (p.shape.channels_last) {
      const auto kernel = &bnorm_infer_packs<T, V, true>;
      const long long resident = static_cast<long long>(std::max(resident_per_mp(kernel, kBlock, 0), 1)) * multiprocessors();
      const long long grid = stationary_grid(C, kBlock, V, want, resident);
      if (grid > 0) {
        hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0, s, cs, args);
        check_launch_lazy("bnorm_infer_packs", ctx);
        return;
      }
    }
    const auto kernel = &bnorm_infer_packs<T, V, false>;
    hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, want * kBlock)), dim3(kBlock), 0, s, cs, args);
    check_launch_lazy("bnorm_infer_packs", ctx);
  }
};

}  // namespace

std::shared_ptr<const OpSolver> bnorm_infer_stream_solver() { return std::make_shared<BnormInferStream>(); }

}  // namespace hiprim::gpu
