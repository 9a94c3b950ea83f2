// activ.elementwise: every activation mode, forward and backward, fp32/fp16/bf16, any layout.
// Math: gpu/activ/activ_math.hpp (fp32, on the stored input): fwd y = f(x); bwd dx = dy * f'(x).
// Layout: elementwise over the packed storage, so the layout does not matter.
// Launch: the one-pass walk (stream_chunks, gpu/common/stream_loop.hpp) over 16-byte packs (fp32 4,
// fp16/bf16 8 lanes), U packs per tensor in flight per thread, B-thread blocks, one block per U*B
// packs; the n % lanes tail by the first threads. Perf configs (gpu/common/chunk_shape.hpp) pick U
// and B (smaller chunks: a small tensor spreads evenly over the SMs). The mode is a template
// parameter (one kernel per mode, direction and dtype: no per-element branch on it). Pointers not
// aligned to 16 bytes take one scalar kernel per dtype and direction (mode chosen per element).
// Deterministic: every element is one fp32 expression.
#include <string>

#include "core/activ_problem.hpp"
#include "core/error.hpp"
#include "gpu/activ/activ_math.hpp"
#include "gpu/activ/solvers.hpp"
#include "gpu/common/chunk_shape.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/stream_loop.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::gpu {
namespace {

// Item i = pack i (V lanes at element offset i*V). Mode < 0: the mode is read at run time.
template <typename T, int V, int Mode, bool Bwd>
struct ActivPacks {
  const T* __restrict__ x;
  const T* __restrict__ dy;
  T* __restrict__ out;
  int mode;
  ActivCoeffs k;
  struct Loaded {
    Pack<T, V> x, dy;
  };
  __device__ __forceinline__ Loaded load(long long i) const {
    Loaded l;
    l.x = load_raw<T, V>(x, i * V);
    if constexpr (Bwd) l.dy = load_raw<T, V>(dy, i * V);
    return l;
  }
  __device__ __forceinline__ void finish(long long i, const Loaded& l) const {
    const int m = Mode >= 0 ? Mode : mode;
    float a[V], r[V];
    unpack(l.x, a);
    if constexpr (Bwd) {
      float g[V];
      unpack(l.dy, g);
#pragma unroll
      for (int j = 0; j < V; ++j) r[j] = g[j] * activ_derivative(m, a[j], k);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) r[j] = activ_fwd(m, a[j], k);
    }
    store_raw<T, V>(out, i * V, pack_of<T, V>(r));
  }
};

// V = kVec<T> packs, U per thread, then the n % V tail one element per thread (V = 1: every element a pack).
template <typename T, int V, int Mode, bool Bwd, int U>
__global__ void activ_kernel(ActivCoeffs k, int mode, const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ out,
                             long long n) {
  const ActivPacks<T, V, Mode, Bwd> packs{x, dy, out, mode, k};
  stream_chunks<U>(n / V, packs);
  if constexpr (V > 1) {
    const long long t = n / V * V + grid_thread();
    if (t < n) {
      const ActivPacks<T, 1, Mode, Bwd> one{x, dy, out, mode, k};
      one.finish(t, one.load(t));
    }
  }
}

// f.template operator()<M>() with the mode as a constant.
template <typename F>
void dispatch_mode(int mode, F&& f) {
  switch (mode) {
    case kActPassthru: return f.template operator()<kActPassthru>();
    case kActLogistic: return f.template operator()<kActLogistic>();
    case kActTanh: return f.template operator()<kActTanh>();
    case kActRelu: return f.template operator()<kActRelu>();
    case kActSoftrelu: return f.template operator()<kActSoftrelu>();
    case kActAbs: return f.template operator()<kActAbs>();
    case kActPower: return f.template operator()<kActPower>();
    case kActClippedRelu: return f.template operator()<kActClippedRelu>();
    case kActLeakyRelu: return f.template operator()<kActLeakyRelu>();
    case kActElu: return f.template operator()<kActElu>();
    case kActGelu: return f.template operator()<kActGelu>();
    case kActGeluTanh: return f.template operator()<kActGeluTanh>();
    case kActSilu: return f.template operator()<kActSilu>();
  }
  throw InputError("activ.elementwise: unknown activation mode number " + std::to_string(mode));
}

class ActivElementwise final : public TypedOpSolver<ActivProblem> {
 public:
  std::string name() const override { return "activ.elementwise"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "elementwise, 16-byte packs, 1-4 packs in flight per thread, one-pass grid, fp32 math; all 13 modes, fwd and bwd; "
           "fp32/fp16/bf16; all layouts, 2D/3D";
  }
  std::vector<std::string> perf_configs() const override { return chunk_shape_configs(); }
  std::string default_config_for(const OpProblem& p) const override {
    const ActivProblem* q = op_problem_cast<ActivProblem>(p);
    return q ? default_for(*q) : default_chunk_shape(0);
  }

 protected:
  Applicability applicable_to(const ActivProblem&) const override { return Applicability::yes(); }
  void run_typed(const ActivProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    launch(p, b, stream, chunk_shape_of(default_for(p)));
  }
  void run_typed_config(const ActivProblem& p, const std::vector<void*>& b, void*, void* stream,
                        const std::string& config) const override {
    launch(p, b, stream, chunk_shape_of(config));
  }

 private:
  static std::string default_for(const ActivProblem& p) {
    return default_chunk_shape(p.shape.desc().storage_elements() * static_cast<long long>(dtype_size(p.shape.dtype)));
  }
  void launch(const ActivProblem& p, const std::vector<void*>& b, void* stream, ChunkShape shape) const {
    const ActivCoeffs k{static_cast<float>(p.alpha), static_cast<float>(p.beta), static_cast<float>(p.gamma)};
    const long long n = p.shape.desc().storage_elements();
    const bool bwd = p.dir == ActivDir::bwd;
    const int mode = static_cast<int>(p.mode);
    const void* x = b[0];
    const void* dy = bwd ? b[1] : nullptr;
    void* out = bwd ? b[2] : b[1];
    const auto s = static_cast<hipStream_t>(stream);
    with_unroll(shape.unroll, [&]<int U>() {
      dispatch_dtype(p.shape.dtype, [&]<typename T>() {
        const T* xt = static_cast<const T*>(x);
        const T* dyt = static_cast<const T*>(dy);
        T* ot = static_cast<T*>(out);
        auto go = [&](auto kernel, int V) {
          hipLaunchKernelGGL(kernel, dim3(chunk_grid(n / V, U, shape.block)), dim3(shape.block), 0, s, k, mode,
                             xt, dyt, ot, n);
          check_launch_lazy("activ_kernel", [&] { return "running activ.elementwise on " + to_string(p); });
        };
        constexpr int V = kVec<T>;
        if (!all_aligned<T, V>({x, dy, out})) {
          if (bwd) go(&activ_kernel<T, 1, -1, true, U>, 1);
          else go(&activ_kernel<T, 1, -1, false, U>, 1);
          return;
        }
        dispatch_mode(mode, [&]<int M>() {
          if (bwd) go(&activ_kernel<T, V, M, true, U>, V);
          else go(&activ_kernel<T, V, M, false, U>, V);
        });
      });
    });
  }
};

}  // namespace

OpSolverList activ_solvers() { return {std::make_shared<ActivElementwise>()}; }

}  // namespace hiprim::gpu
