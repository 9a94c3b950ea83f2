// softmax.block_row and softmax.thread_row: softmax / log-softmax, instance and channel modes,
// forward and backward, fp32/fp16/bf16, any layout, 2D/3D.
// Math (fp32, per row of L elements; every algorithm subtracts the row max, so 1e4-sized inputs
// stay finite):
//   fwd: m = max x; S = sum e^(x - m); y = e^(x - m) / S, log: y = (x - m) - log S
//   bwd: s = sum dy*y; dx = y (dy - s); log: S = sum dy; dx = dy - e^y S
// Rows (RowGeom): row r = (q, t) with q = r / per_q, t = r % per_q; element j at q*A + t*B + j*E:
//   instance:        per_q 1, A = L, B 0, E 1 (a sample's C*D*H*W values are contiguous in any layout)
//   channel, NCHW:   per_q S, A = C*S, B 1, E S (C values strided by S)
//   channel, NHWC:   per_q S, A = C*S, B C, E 1 (C values contiguous)
// block_row: one block per row (grid-stride over rows), threads stride over the row, block
//   reductions of gpu/common/block_reduce.hpp (shared memory only; any warp size). Deterministic.
// thread_row: one thread per row, a sequential loop; coalesced when consecutive rows are adjacent
//   (channel mode NCHW: B = 1). Refuses rows longer than 1024 (the block solver serves them).
#include <string>

#include "core/softmax_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"
#include "gpu/softmax/softmax_math.hpp"
#include "gpu/softmax/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr long long kThreadRowMax = 1024;

struct RowGeom {
  long long rows, per_q, A, B, E, L;
  bool log, bwd;
  __device__ long long base(long long r) const { return (r / per_q) * A + (r % per_q) * B; }
};

RowGeom row_geom(const SoftmaxProblem& p) {
  RowGeom g{};
  const long long S = p.shape.elements() / (p.shape.n * p.shape.c), C = p.shape.c;
  g.rows = p.rows();
  g.L = p.row_length();
  g.log = p.is_log();
  g.bwd = p.dir == SoftmaxDir::bwd;
  if (p.mode == SoftmaxMode::instance) {
    g.per_q = 1, g.A = g.L, g.B = 0, g.E = 1;
  } else if (!p.shape.channels_last) {
    g.per_q = S, g.A = C * S, g.B = 1, g.E = S;
  } else {
    g.per_q = S, g.A = C * S, g.B = C, g.E = 1;
  }
  return g;
}


// in0 = x (fwd) or y (bwd); in1 = dy (bwd); out = y or dx.
template <typename T, typename Team>
__device__ void softmax_row(const RowGeom& g, long long r, Team team, const T* __restrict__ in0, const T* __restrict__ in1,
                            T* __restrict__ out) {
  const long long base = g.base(r);
  const int lane = team.lane(), step = team.size();
  if (!g.bwd) {
    float m = -INFINITY;
    for (long long j = lane; j < g.L; j += step) m = MaxOp{}(m, load_f(in0, base + j * g.E));
    m = team.max(m);
    float s = 0.0f;
    for (long long j = lane; j < g.L; j += step) s += expf(load_f(in0, base + j * g.E) - m);
    s = team.sum(s);
    const float log_s = logf(s);
    for (long long j = lane; j < g.L; j += step) {
      const long long o = base + j * g.E;
      const float d = load_f(in0, o) - m;
      store_f(out, o, softmax_y(g.log, d, s, log_s));
    }
  } else {
    float s = 0.0f;
    for (long long j = lane; j < g.L; j += step) {
      const long long o = base + j * g.E;
      s += softmax_bwd_term(g.log, load_f(in0, o), load_f(in1, o));
    }
    s = team.sum(s);
    for (long long j = lane; j < g.L; j += step) {
      const long long o = base + j * g.E;
      const float y = load_f(in0, o), dy = load_f(in1, o);
      store_f(out, o, softmax_dx(g.log, y, dy, s));
    }
  }
}

template <typename T>
__global__ void softmax_block_rows(RowGeom g, const T* in0, const T* in1, T* out) {
  __shared__ Float2Sum scratch[kBlock];  // BlockTeam's reduction space (launched with kBlock threads)
  for (long long r = blockIdx.x; r < g.rows; r += gridDim.x)
    softmax_row(g, r, BlockTeam{reinterpret_cast<float*>(scratch)}, in0, in1, out);
}

template <typename T>
__global__ void softmax_thread_rows(RowGeom g, const T* in0, const T* in1, T* out) {
  for (long long r = grid_thread(); r < g.rows; r += grid_threads()) softmax_row(g, r, SoloTeam{}, in0, in1, out);
}

class SoftmaxRows final : public TypedOpSolver<SoftmaxProblem> {
 public:
  explicit SoftmaxRows(bool block) : block_(block) {}
  std::string name() const override { return block_ ? "softmax.block_row" : "softmax.thread_row"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return std::string(block_ ? "one block per row, shared-memory tree reductions" : "one thread per row (rows <= 1024)") +
           "; fast/accurate/log, instance/channel, fwd and bwd; fp32/fp16/bf16; all layouts, 2D/3D";
  }

 protected:
  Applicability applicable_to(const SoftmaxProblem& p) const override {
    if (!block_ && p.row_length() > kThreadRowMax)
      return Applicability::no("row length " + std::to_string(p.row_length()) + " > " + std::to_string(kThreadRowMax) +
                               " (one thread per row would serialize it; softmax.block_row serves it)");
    return Applicability::yes();
  }
  void run_typed(const SoftmaxProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const RowGeom g = row_geom(p);
    const bool bwd = p.dir == SoftmaxDir::bwd;
    const void* in0 = b[0];
    const void* in1 = bwd ? b[1] : nullptr;
    void* out = bwd ? b[2] : b[1];
    const auto s = static_cast<hipStream_t>(stream);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      if (block_) {
        const unsigned blocks = static_cast<unsigned>(std::min<long long>(g.rows, 65535));
        hipLaunchKernelGGL(softmax_block_rows<T>, dim3(blocks), dim3(kBlock), 0, s, g, static_cast<const T*>(in0),
                           static_cast<const T*>(in1), static_cast<T*>(out));
        HIPRIM_CHECK_LAUNCH("softmax_block_rows", ctx);
      } else {
        hipLaunchKernelGGL(softmax_thread_rows<T>, dim3(grid_stride_blocks(g.rows, kBlock)), dim3(kBlock), 0, s, g,
                           static_cast<const T*>(in0), static_cast<const T*>(in1), static_cast<T*>(out));
        HIPRIM_CHECK_LAUNCH("softmax_thread_rows", ctx);
      }
    });
  }

 private:
  bool block_;
};

}  // namespace

OpSolverList softmax_solvers() {
  return {make_softmax_team_row(), make_softmax_smem_row(), std::make_shared<SoftmaxRows>(true), std::make_shared<SoftmaxRows>(false)};
}

}  // namespace hiprim::gpu
