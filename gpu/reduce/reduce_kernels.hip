// Reduction solvers (core/reduce_problem.hpp: ops, index, tie and NaN rules). fp32 accumulation;
// deterministic: fixed per-thread orders and a fixed shared-memory tree (gpu/common/block_reduce.hpp,
// no warp shuffles, so no warp-size assumption).
//
// Geometry: an output's offset in y (packed) is its thread/block index; decoded over the kept dims
// (y's storage order) with x's strides it gives the slice base in x. A slice position r in
// [0, L) is decoded over the reduced dims in x's storage order (innermost fastest, so consecutive
// r are consecutive addresses when a reduced dim is innermost); its logical index (the last
// reduced dim fastest; what idx reports and ties compare) is sum coord_k * lweight_k.
//   reduce.blockwise:  one block (256 threads) per output; thread t takes r = t, t+256, ...;
//                      partials meet in the tree. Coalesced when the innermost dim is reduced.
//   reduce.threadwise: one thread per output, r sequential. Coalesced when the innermost dim is
//                      kept (neighbouring threads: neighbouring outputs).
#include <algorithm>
#include <numeric>
#include <string>

#include "core/reduce_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/reduce/reduce_ops.hpp"
#include "gpu/reduce/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct ReduceGeom {
  int kept_n, red_n;                        // number of kept / reduced dims (x's storage order)
  long long kept_ext[5], kept_xstride[5];   // kept dims, outermost first
  long long red_ext[5], red_xstride[5], red_lweight[5];  // reduced dims, outermost first
  long long outputs, length;                // y elements, L
  int op;                                   // ReduceOp
  bool propagate_nan;
};

// x offset of output o's slice base.
__device__ __forceinline__ long long slice_base(const ReduceGeom& g, long long o) {
  long long off = 0;
  for (int k = g.kept_n - 1; k >= 0; --k) {
    off += (o % g.kept_ext[k]) * g.kept_xstride[k];
    o /= g.kept_ext[k];
  }
  return off;
}

// Slice position r (storage order) -> x offset from the base, and its logical index.
__device__ __forceinline__ long long slice_offset(const ReduceGeom& g, long long r, int* logical) {
  long long off = 0, lg = 0;
  for (int k = g.red_n - 1; k >= 0; --k) {
    const long long c = r % g.red_ext[k];
    r /= g.red_ext[k];
    off += c * g.red_xstride[k];
    lg += c * g.red_lweight[k];
  }
  *logical = static_cast<int>(lg);
  return off;
}

template <typename T>
__global__ void reduce_blockwise(ReduceGeom g, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx) {
  __shared__ Sel sel_scratch[kBlock];
  __shared__ float sum_scratch[kBlock];
  const SelBetter sel_op{g.op, g.propagate_nan};
  for (long long o = blockIdx.x; o < g.outputs; o += gridDim.x) {
    const long long base = slice_base(g, o);
    float acc = g.op == 1 ? 1.0f : 0.0f;
    Sel sel{0.0f, -1};
    for (long long r = threadIdx.x; r < g.length; r += blockDim.x) {
      int lg = 0;
      const float v = load_f(x, base + slice_offset(g, r, &lg));
      if (selects(g.op))
        sel = sel_op(Sel{v, lg}, sel);
      else
        acc = g.op == 1 ? acc * v : acc + term(g.op, v);
    }
    if (selects(g.op))
      sel = block_reduce(sel, sel_scratch, sel_op);
    else
      acc = g.op == 1 ? block_reduce(acc, sum_scratch, MulOp{}) : block_sum(acc, sum_scratch);
    if (threadIdx.x == 0) write_out(g.op, g.length, o, acc, sel, y, idx);
  }
}

template <typename T>
__global__ void reduce_threadwise(ReduceGeom g, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx) {
  const SelBetter sel_op{g.op, g.propagate_nan};
  for (long long o = grid_thread(); o < g.outputs; o += grid_threads()) {
    const long long base = slice_base(g, o);
    float acc = g.op == 1 ? 1.0f : 0.0f;
    Sel sel{0.0f, -1};
    for (long long r = 0; r < g.length; ++r) {
      int lg = 0;
      const float v = load_f(x, base + slice_offset(g, r, &lg));
      if (selects(g.op))
        sel = sel_op(Sel{v, lg}, sel);
      else
        acc = g.op == 1 ? acc * v : acc + term(g.op, v);
    }
    write_out(g.op, g.length, o, acc, sel, y, idx);
  }
}

ReduceGeom reduce_geom(const ReduceProblem& p) {
  ReduceGeom g{};
  const TensorDesc xd = p.x_desc();
  const int r = p.rank();
  std::vector<int> order(static_cast<std::size_t>(r));  // x's storage order, outermost first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return xd.strides[a] > xd.strides[b]; });
  std::vector<bool> reduced(static_cast<std::size_t>(r), false);
  for (auto d : p.over) reduced[static_cast<std::size_t>(d)] = true;
  // Logical weights: the last reduced dim (in dim order) fastest.
  std::vector<long long> lweight(static_cast<std::size_t>(r), 0);
  long long w = 1;
  for (int d = r - 1; d >= 0; --d)
    if (reduced[d]) {
      lweight[d] = w;
      w *= p.dims[d];
    }
  // y is packed in x's layout: its storage order over the kept dims is x's order restricted to them.
  for (int d : order) {
    if (reduced[d]) {
      g.red_ext[g.red_n] = p.dims[d];
      g.red_xstride[g.red_n] = xd.strides[d];
      g.red_lweight[g.red_n] = lweight[d];
      ++g.red_n;
    } else {
      g.kept_ext[g.kept_n] = p.dims[d];
      g.kept_xstride[g.kept_n] = xd.strides[d];
      ++g.kept_n;
    }
  }
  g.outputs = p.y_desc().elements();
  g.length = p.reduced_length();
  g.op = static_cast<int>(p.op);
  g.propagate_nan = p.propagate_nan;
  return g;
}

enum class Shape { blockwise, threadwise };

template <Shape S>
class ReduceSolver final : public TypedOpSolver<ReduceProblem> {
 public:
  std::string name() const override { return S == Shape::blockwise ? "reduce.blockwise" : "reduce.threadwise"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return std::string(S == Shape::blockwise ? "one 256-thread block per output, shared-memory tree"
                                             : "one thread per output, sequential slice") +
           "; add/mul/min/max/amax/avg/norm1/norm2 over any dims, NaN modes, indices; ranks 1-5; fp32/fp16/bf16";
  }

 protected:
  Applicability applicable_to(const ReduceProblem&) const override { return Applicability::yes(); }
  void run_typed(const ReduceProblem& p, const std::vector<void*>& b, void*, void* stream_ptr) const override {
    const ReduceGeom g = reduce_geom(p);
    const auto stream = static_cast<hipStream_t>(stream_ptr);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    float* idx = p.indices ? static_cast<float*>(b[2]) : nullptr;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const T* x = static_cast<const T*>(b[0]);
      T* y = static_cast<T*>(b[1]);
      if constexpr (S == Shape::blockwise) {
        const auto blocks = static_cast<unsigned>(std::min<long long>(g.outputs, 1 << 20));
        hipLaunchKernelGGL(reduce_blockwise<T>, dim3(blocks), dim3(kBlock), 0, stream, g, x, y, idx);
        HIPRIM_CHECK_LAUNCH("reduce_blockwise", ctx);
      } else {
        hipLaunchKernelGGL(reduce_threadwise<T>, dim3(grid_stride_blocks(g.outputs, kBlock)), dim3(kBlock), 0, stream, g,
                           x, y, idx);
        HIPRIM_CHECK_LAUNCH("reduce_threadwise", ctx);
      }
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_reduce_blockwise() { return std::make_shared<ReduceSolver<Shape::blockwise>>(); }
std::shared_ptr<const OpSolver> make_reduce_threadwise() { return std::make_shared<ReduceSolver<Shape::threadwise>>(); }
OpSolverList reduce_solvers() { return {make_reduce_split(), make_reduce_blockwise(), make_reduce_threadwise()}; }

}  // namespace hiprim::gpu
