// dropout.philox: forward and backward, fp32/fp16/bf16, any layout, 2D/3D.
// Math: out = keep(i) ? in * scale : 0 with keep(i) = dropout_word(seed, i) >= threshold
// (core/philox.hpp, the same code the CPU reference runs), i the element's logical NCHW index and
// scale the fp32 value of 1/(1-rate).
// Layout: channels first, storage offset == logical index; channels last (N, spatial, C), the
// logical index is rebuilt from the offset: c = o % C, sp = (o / C) % S, n = o / (C S).
// Launch: grid-stride over packs of 4 consecutive storage elements (Pack4 accesses); channels
// first, a pack is one Philox block (i = 4p .. 4p+3: one evaluation gives its 4 words); then the tail.
#include <string>

#include "core/dropout_problem.hpp"
#include "core/philox.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/elementwise.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/dropout/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct DropoutArgs {
  unsigned long long seed;
  unsigned threshold;
  float scale;
  long long n, channels, spatial;  // S = D*H*W
  bool channels_last;
};

__device__ __forceinline__ long long logical_index(const DropoutArgs& a, long long o) {
  if (!a.channels_last) return o;
  const long long c = o % a.channels, rest = o / a.channels;
  return ((rest / a.spatial) * a.channels + c) * a.spatial + rest % a.spatial;
}

__device__ __forceinline__ float apply(const DropoutArgs& a, unsigned word, float v) { return word >= a.threshold ? v * a.scale : 0.0f; }

template <typename T>
__global__ void dropout_kernel(DropoutArgs a, const T* __restrict__ in, T* __restrict__ out, bool vec) {
  const long long packs = vec ? a.n / 4 : 0;
  for (long long p = grid_thread(); p < packs; p += grid_threads()) {
    const Pack4<T> v = reinterpret_cast<const Pack4<T>*>(in)[p];
    Pack4<T> r;
    if (!a.channels_last) {
      const unsigned long long block = static_cast<unsigned long long>(p);
      const Philox4x32 w = philox4x32_10(Philox4x32{{static_cast<unsigned>(block), static_cast<unsigned>(block >> 32), 0u, 0u}},
                                         static_cast<unsigned>(a.seed), static_cast<unsigned>(a.seed >> 32));
#pragma unroll
      for (int j = 0; j < 4; ++j) store_f(r.v, j, apply(a, w.w[j], load_f(v.v, j)));
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        store_f(r.v, j, apply(a, dropout_word(a.seed, static_cast<unsigned long long>(logical_index(a, 4 * p + j))), load_f(v.v, j)));
    }
    reinterpret_cast<Pack4<T>*>(out)[p] = r;
  }
  for (long long o = packs * 4 + grid_thread(); o < a.n; o += grid_threads())
    store_f(out, o, apply(a, dropout_word(a.seed, static_cast<unsigned long long>(logical_index(a, o))), load_f(in, o)));
}

class DropoutPhilox final : public TypedOpSolver<DropoutProblem> {
 public:
  std::string name() const override { return "dropout.philox"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "Philox4x32-10 mask keyed by (seed, logical index), 4-wide loads; fwd and bwd; fp32/fp16/bf16; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const DropoutProblem&) const override { return Applicability::yes(); }
  void run_typed(const DropoutProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    DropoutArgs a{};
    a.seed = p.seed;
    a.threshold = p.threshold();
    a.scale = p.scale();
    a.n = p.shape.elements();
    a.channels = p.shape.c;
    a.spatial = a.n / (p.shape.n * p.shape.c);
    a.channels_last = p.shape.channels_last;
    const std::string ctx = "running dropout.philox on " + to_string(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      const bool vec = pack4_aligned<T>({b[0], b[1]});
      const long long work = vec ? a.n / 4 + a.n % 4 : a.n;
      hipLaunchKernelGGL(dropout_kernel<T>, dim3(grid_stride_blocks(work, kBlock)), dim3(kBlock), 0, static_cast<hipStream_t>(stream), a,
                         static_cast<const T*>(b[0]), static_cast<T*>(b[1]), vec);
      HIPRIM_CHECK_LAUNCH("dropout_kernel", ctx);
    });
  }
};

}  // namespace

OpSolverList dropout_solvers() { return {std::make_shared<DropoutPhilox>()}; }

}  // namespace hiprim::gpu
