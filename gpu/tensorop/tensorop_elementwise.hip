// Tensor-op solvers: c = op(alpha1*a, alpha2*b) + beta*c (core/tensorop_problem.hpp), one pass,
// fp32 arithmetic, deterministic. C is packed, so a thread's storage-order index is its offset in
// a and c; b's offset comes from the index decoded over the (up to 5) dims in storage order with
// b's strides, 0 on broadcast dims. With beta = 0, c is never read.
//   tensorop.elementwise  V = 1: any problem.
//   tensorop.vec          V = 16 bytes of dtype (fp32 4, fp16/bf16 8) consecutive elements of the
//                         innermost storage dim per thread (needs its extent % V == 0): 16-byte
//                         loads of a (and c) and stores of c; b is one scalar per thread when that
//                         dim is broadcast in b, else a 16-byte load too.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/tensorop_problem.hpp"
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)
#include "gpu/common/vec_pack.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"
#include "gpu/tensorop/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

// Dims in storage order (outermost first), padded to 5 with extent-1 dims in front.
struct TensorOpGeom {
  long long ext[5];
  long long b_stride[5];  // 0 where b broadcasts
  int op;                 // TensorOpKind
  bool has_beta;
  float alpha1, alpha2, beta;
};

__device__ __forceinline__ float apply_op(int op, float t1, float t2) {
  switch (op) {
    case 0: return t1 + t2;
    case 1: return t1 * t2;
    case 2: return t1 < t2 ? t1 : t2;
    default: return t1 > t2 ? t1 : t2;
  }
}

template <typename T, int V>
__global__ void tensorop_kernel(TensorOpGeom g, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  const long long total = g.ext[0] * g.ext[1] * g.ext[2] * g.ext[3] * g.ext[4] / V;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    const long long lin = i * V;
    long long rest = lin, boff = 0;
    for (int d = 4; d >= 0; --d) {
      boff += (rest % g.ext[d]) * g.b_stride[d];
      rest /= g.ext[d];
    }
    float av[V], bv[V], cv[V] = {};
    load_pack<T, V>(a, lin, av);
    if (V == 1 || g.b_stride[4] != 0) {
      load_pack<T, V>(b, boff, bv);
    } else {
      const float s = load_f(b, boff);
#pragma unroll
      for (int j = 0; j < V; ++j) bv[j] = s;
    }
    if (g.has_beta) load_pack<T, V>(c, lin, cv);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float r = apply_op(g.op, g.alpha1 * av[j], g.alpha2 * bv[j]);
      cv[j] = g.has_beta ? r + g.beta * cv[j] : r;
    }
    store_pack<T, V>(c, lin, cv);
  }
}

TensorOpGeom tensorop_geom(const TensorOpProblem& p) {
  TensorOpGeom g{};
  const TensorDesc ad = p.a_desc(), bd = p.b_desc();
  const int r = p.rank();
  // Storage order of the dims: by a's stride, largest first (a is packed: strides are distinct
  // for dims of extent > 1; ties only between extent-1 dims, whose order does not matter).
  std::vector<int> order(static_cast<std::size_t>(r));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ad.strides[x] > ad.strides[y]; });
  for (int k = 0; k < 5; ++k) {
    const int pos = k - (5 - r);  // index into order; < 0: padding dim
    g.ext[k] = pos < 0 ? 1 : ad.dims[order[pos]];
    g.b_stride[k] = pos < 0 || bd.dims[order[pos]] == 1 ? 0 : bd.strides[order[pos]];
  }
  g.op = static_cast<int>(p.op);
  g.has_beta = p.beta != 0;
  g.alpha1 = static_cast<float>(p.alpha1);
  g.alpha2 = static_cast<float>(p.alpha2);
  g.beta = static_cast<float>(p.beta);
  return g;
}

template <typename T>
constexpr int kLanes = static_cast<int>(16 / sizeof(T));

template <typename T, int V>
void launch(const TensorOpProblem& p, const std::vector<void*>& buf, void* stream, const std::string& name) {
  const TensorOpGeom g = tensorop_geom(p);
  const long long total = p.c_desc().elements() / V;
  hipLaunchKernelGGL((tensorop_kernel<T, V>), dim3(grid_stride_blocks(total, kBlock)), dim3(kBlock), 0,
                     static_cast<hipStream_t>(stream), g, static_cast<const T*>(buf[0]), static_cast<const T*>(buf[1]),
                     static_cast<T*>(buf[2]));
  HIPRIM_CHECK_LAUNCH("tensorop_kernel", "running " + name + " on " + to_string(p));
}

class TensorOpElementwise final : public TypedOpSolver<TensorOpProblem> {
 public:
  std::string name() const override { return "tensorop.elementwise"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one thread per element; add/mul/min/max with B broadcast over any dims; ranks 1-5; fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const TensorOpProblem&) const override { return Applicability::yes(); }
  void run_typed(const TensorOpProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    dispatch_dtype(p.dtype, [&]<typename T>() { launch<T, 1>(p, b, stream, name()); });
  }
};

class TensorOpVec final : public TypedOpSolver<TensorOpProblem> {
 public:
  std::string name() const override { return "tensorop.vec"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "16-byte loads/stores, 4 (fp32) or 8 (fp16/bf16) elements per thread; needs the innermost storage dim % lanes == 0";
  }

 protected:
  Applicability applicable_to(const TensorOpProblem& p) const override {
    const TensorOpGeom g = tensorop_geom(p);
    const int lanes = static_cast<int>(16 / dtype_size(p.dtype));
    if (g.ext[4] % lanes != 0)
      return Applicability::no("innermost storage dim has " + std::to_string(g.ext[4]) + " elements, not a multiple of " +
                               std::to_string(lanes) + " (16 bytes of " + std::string(dtype_name(p.dtype)) + ")");
    return Applicability::yes();
  }
  void run_typed(const TensorOpProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    dispatch_dtype(p.dtype, [&]<typename T>() {
      constexpr int V = kLanes<T>;
      for (void* ptr : b)
        if (!aligned_for_pack<T, V>(ptr)) throw InputError("tensorop.vec: buffers must be 16-byte aligned");
      launch<T, V>(p, b, stream, name());
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_tensorop_vec() { return std::make_shared<TensorOpVec>(); }
std::shared_ptr<const OpSolver> make_tensorop_elementwise() { return std::make_shared<TensorOpElementwise>(); }
OpSolverList tensorop_solvers() { return {make_tensorop_vec(), make_tensorop_elementwise()}; }

}  // namespace hiprim::gpu
