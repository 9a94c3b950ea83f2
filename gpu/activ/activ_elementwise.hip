// activ.elementwise: every activation mode, forward and backward, fp32/fp16/bf16, any layout.
// Math: gpu/activ/activ_math.hpp (fp32, on the stored input; dx = dy * f'(x)).
// Layout: elementwise over the packed storage, so the layout does not matter.
// Launch: grid-stride loop over packs of 4 consecutive elements (Pack4: one 16/8-byte access per
// tensor), 256 threads per block, then the n % 4 tail one element per thread. Deterministic.
#include <string>

#include "core/activ_problem.hpp"
#include "gpu/activ/activ_math.hpp"
#include "gpu/activ/solvers.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/elementwise.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

// bwd when dy != nullptr: out = dy * f'(x); else out = f(x).
template <typename T>
__global__ void activ_kernel(int mode, ActivCoeffs k, const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ out,
                             long long n, bool vec) {
  const long long packs = vec ? n / 4 : 0;
  for (long long p = grid_thread(); p < packs; p += grid_threads()) {
    const Pack4<T> a = reinterpret_cast<const Pack4<T>*>(x)[p];
    Pack4<T> g, r;
    if (dy) g = reinterpret_cast<const Pack4<T>*>(dy)[p];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float xv = load_f(a.v, j);
      store_f(r.v, j, dy ? load_f(g.v, j) * activ_derivative(mode, xv, k) : activ_fwd(mode, xv, k));
    }
    reinterpret_cast<Pack4<T>*>(out)[p] = r;
  }
  for (long long i = packs * 4 + grid_thread(); i < n; i += grid_threads()) {
    const float xv = load_f(x, i);
    store_f(out, i, dy ? load_f(dy, i) * activ_derivative(mode, xv, k) : activ_fwd(mode, xv, k));
  }
}

class ActivElementwise final : public TypedOpSolver<ActivProblem> {
 public:
  std::string name() const override { return "activ.elementwise"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "elementwise, 4-wide loads, fp32 math; all 13 modes, fwd and bwd; fp32/fp16/bf16; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const ActivProblem&) const override { return Applicability::yes(); }
  void run_typed(const ActivProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const ActivCoeffs k{static_cast<float>(p.alpha), static_cast<float>(p.beta), static_cast<float>(p.gamma)};
    const long long n = p.shape.desc().storage_elements();
    const bool bwd = p.dir == ActivDir::bwd;
    const void* x = b[0];
    const void* dy = bwd ? b[1] : nullptr;
    void* out = bwd ? b[2] : b[1];
    const std::string ctx = "running activ.elementwise on " + to_string(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      const bool vec = pack4_aligned<T>({x, dy, out});
      const long long work = vec ? n / 4 + n % 4 : n;
      hipLaunchKernelGGL(activ_kernel<T>, dim3(grid_stride_blocks(work, kBlock)), dim3(kBlock), 0, static_cast<hipStream_t>(stream),
                         static_cast<int>(p.mode), k, static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(out), n, vec);
      HIPRIM_CHECK_LAUNCH("activ_kernel", ctx);
    });
  }
};

}  // namespace

OpSolverList activ_solvers() { return {std::make_shared<ActivElementwise>()}; }

}  // namespace hiprim::gpu
