// softmax.team_row and softmax.smem_row: softmax / log-softmax over contiguous rows (instance
// mode in any layout, channel mode channels-last or with D*H*W = 1: row r is elements
// [r*L, (r+1)*L)), forward and backward, fp32/fp16/bf16. Math: gpu/softmax/softmax_math.hpp.
// Both read every input element from memory once and write every output once: the row stays on
// chip between its reductions and the output pass (x read once, y written once: the minimum).
//   team_row: a team of TS threads per row (TS the power of two >= ceil(P / R), P = L/V packs,
//     R = 4 packs of 16 bytes per thread, 32 scalars when V = 1), the row in registers; lane l
//     holds packs l + i*TS; the teams of a block side by side (up to 256 threads' worth, fewer
//     when the rows are too few to reach every SM), reductions by team_reduce (fixed pairwise
//     tree per team). One launch; for short rows (ResNet-50's 32 x 1000) it is the
//     whole cost: one load round trip, two trees, one store.
//   smem_row: one 1024-thread block per row (grid-stride over rows), the row (bwd: y and dy) in
//     dynamic shared memory as packs, block trees; rows up to the device's shared memory (H200:
//     ~113 K bf16 values, 56 K fp32; bwd half; without a device applicable() assumes 48 KiB).
// Deterministic: per-thread sums in a fixed order, then the fixed tree.
#include <algorithm>
#include <string>

#include "core/softmax_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/softmax/softmax_math.hpp"
#include "gpu/softmax/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kTeamBlock = 256;   // threads per block when the team is smaller
constexpr int kMaxTeam = 1024;
#if HIPRIM_PLATFORM_EMU
constexpr int kSmemBlock = 128;
#else
constexpr int kSmemBlock = 1024;
#endif

// Packs per thread: 4 of 16 bytes; 32 scalars (V = 1), so a row of any dtype that fits 16-byte
// packs also fits scalars (1024 x 4 x 8 = 1024 x 32).
template <int V>
inline constexpr int kTeamPacks = V == 1 ? 32 : 4;

struct RowArgs {
  long long rows, L;
  int team;  // team_row: threads per row
  bool log;
};

// Rows are contiguous when every row is [r*L, (r+1)*L) in storage.
bool contiguous_rows(const SoftmaxProblem& p) {
  const long long S = p.shape.elements() / (p.shape.n * p.shape.c);
  return p.mode == SoftmaxMode::instance || p.shape.channels_last || S == 1;
}

// MaxB: the largest block it is launched with (256, or 1024 for teams of 512 and 1024 threads).
template <typename T, int V, bool Bwd, int MaxB>
__global__ void __launch_bounds__(MaxB) softmax_team_rows(RowArgs a, const T* __restrict__ in0, const T* __restrict__ in1,
                                                          T* __restrict__ out) {
  constexpr int R = kTeamPacks<V>;
  __shared__ float scratch[kMaxTeam];
  const int ts = a.team, lane = static_cast<int>(threadIdx.x) % ts, teams = static_cast<int>(blockDim.x) / ts;
  const long long packs = a.L / V;
  for (long long r0 = static_cast<long long>(blockIdx.x) * teams; r0 < a.rows; r0 += static_cast<long long>(gridDim.x) * teams) {
    const long long r = r0 + static_cast<int>(threadIdx.x) / ts;
    const bool live = r < a.rows;
    const long long base = r * a.L;
    Pack<T, V> p0[R] = {}, p1[R] = {};  // lanes without a pack stay 0 (and unused)
    bool has[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const long long q = lane + static_cast<long long>(i) * ts;
      has[i] = live && q < packs;
      if (has[i]) {
        p0[i] = load_raw<T, V>(in0, base + q * V);
        if (Bwd) p1[i] = load_raw<T, V>(in1, base + q * V);
      }
    }
    float v0[R][V], v1[R][V];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      unpack(p0[i], v0[i]);
      unpack(p1[i], v1[i]);
    }
    if constexpr (!Bwd) {
      float m = -INFINITY;
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (has[i])
#pragma unroll
          for (int j = 0; j < V; ++j) m = MaxOp{}(m, v0[i][j]);
      m = team_reduce(m, scratch, ts, MaxOp{});
      float s = 0.0f;
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (has[i])
#pragma unroll
          for (int j = 0; j < V; ++j) s += expf(v0[i][j] - m);
      s = team_reduce(s, scratch, ts, SumOp{});
      const float log_s = logf(s);
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (!has[i]) continue;
#pragma unroll
        for (int j = 0; j < V; ++j) v0[i][j] = softmax_y(a.log, v0[i][j] - m, s, log_s);
        store_raw<T, V>(out, base + (lane + static_cast<long long>(i) * ts) * V, pack_of<T, V>(v0[i]));
      }
    } else {
      float s = 0.0f;
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (has[i])
#pragma unroll
          for (int j = 0; j < V; ++j) s += softmax_bwd_term(a.log, v0[i][j], v1[i][j]);
      s = team_reduce(s, scratch, ts, SumOp{});
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (!has[i]) continue;
#pragma unroll
        for (int j = 0; j < V; ++j) v0[i][j] = softmax_dx(a.log, v0[i][j], v1[i][j], s);
        store_raw<T, V>(out, base + (lane + static_cast<long long>(i) * ts) * V, pack_of<T, V>(v0[i]));
      }
    }
  }
}

// Shared memory of smem_row: the scratch of the block trees, then the row's packs (bwd: two rows).
constexpr std::size_t kSmemScratch = kSmemBlock * sizeof(float);

template <typename T, int V, bool Bwd>
__global__ void __launch_bounds__(kSmemBlock) softmax_smem_rows(RowArgs a, const T* __restrict__ in0, const T* __restrict__ in1,
                                                                 T* __restrict__ out) {
  HIPRIM_DYNAMIC_SMEM(smem);
  float* scratch = reinterpret_cast<float*>(smem);
  const long long packs = a.L / V;
  Pack<T, V>* row0 = reinterpret_cast<Pack<T, V>*>(smem + kSmemScratch);
  Pack<T, V>* row1 = row0 + packs;
  const int t = static_cast<int>(threadIdx.x), B = static_cast<int>(blockDim.x);
  for (long long r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const long long base = r * a.L;
    // Load the row (4 packs per thread in flight), with the thread's max or backward sum.
    float acc = Bwd ? 0.0f : -INFINITY;
    long long q = t;
    auto take = [&](long long qq, const Pack<T, V>& x0, const Pack<T, V>& x1) {
      row0[qq] = x0;
      float f0[V], f1[V];
      unpack(x0, f0);
      if (Bwd) {
        row1[qq] = x1;
        unpack(x1, f1);
      }
#pragma unroll
      for (int j = 0; j < V; ++j) acc = Bwd ? acc + softmax_bwd_term(a.log, f0[j], f1[j]) : MaxOp{}(acc, f0[j]);
    };
    for (; q + 3LL * B < packs; q += 4LL * B) {
      Pack<T, V> x0[4], x1[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        x0[u] = load_raw<T, V>(in0, base + (q + u * B) * V);
        if (Bwd) x1[u] = load_raw<T, V>(in1, base + (q + u * B) * V);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) take(q + u * B, x0[u], x1[u]);
    }
    for (; q < packs; q += B) take(q, load_raw<T, V>(in0, base + q * V), Bwd ? load_raw<T, V>(in1, base + q * V) : Pack<T, V>{});
    if constexpr (!Bwd) {
      const float m = block_reduce(acc, scratch, MaxOp{});
      float s = 0.0f;
      for (long long k = t; k < packs; k += B) {
        float f[V];
        unpack(row0[k], f);
#pragma unroll
        for (int j = 0; j < V; ++j) s += expf(f[j] - m);
      }
      s = block_sum(s, scratch);
      const float log_s = logf(s);
      for (long long k = t; k < packs; k += B) {
        float f[V];
        unpack(row0[k], f);
#pragma unroll
        for (int j = 0; j < V; ++j) f[j] = softmax_y(a.log, f[j] - m, s, log_s);
        store_raw<T, V>(out, base + k * V, pack_of<T, V>(f));
      }
    } else {
      const float s = block_sum(acc, scratch);
      for (long long k = t; k < packs; k += B) {
        float f0[V], f1[V];
        unpack(row0[k], f0);
        unpack(row1[k], f1);
#pragma unroll
        for (int j = 0; j < V; ++j) f0[j] = softmax_dx(a.log, f0[j], f1[j], s);
        store_raw<T, V>(out, base + k * V, pack_of<T, V>(f0));
      }
    }
    __syncthreads();  // the row's shared memory is reused by the next row
  }
}

// Pack lanes: 16 bytes when L is a multiple and the buffers are aligned, else scalars.
template <typename T>
int row_lanes(long long L, std::initializer_list<const void*> ptrs) {
  return L % kVec<T> == 0 && all_aligned<T, kVec<T>>(ptrs) ? kVec<T> : 1;
}
int team_size(long long packs, int R) {
  int ts = 1;
  while (static_cast<long long>(ts) * R < packs) ts *= 2;
  return ts;
}

class SoftmaxOnChip final : public TypedOpSolver<SoftmaxProblem> {
 public:
  enum class Kind { team, smem };
  explicit SoftmaxOnChip(Kind k) : kind_(k) {}
  std::string name() const override { return kind_ == Kind::team ? "softmax.team_row" : "softmax.smem_row"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return std::string(kind_ == Kind::team ? "a team of threads per row, the row in registers (rows <= 1024 x 4 packs of 16 bytes)"
                                           : "one block per row, the row in shared memory (rows up to the device's shared memory)") +
           ", one read and one write per element, fixed-tree reductions; contiguous rows (instance; channel with channels last "
           "or D*H*W = 1); fast/accurate/log, fwd and bwd; fp32/fp16/bf16";
  }

 protected:
  Applicability applicable_to(const SoftmaxProblem& p) const override {
    if (!contiguous_rows(p))
      return Applicability::no("channel mode, channels first, D*H*W > 1: a row's values are strided (softmax.block_row and "
                               "softmax.thread_row serve it)");
    const long long L = p.row_length();
    if (kind_ == Kind::team) {
      const long long cap = static_cast<long long>(kMaxTeam) * kTeamPacks<4> * static_cast<long long>(16 / dtype_size(p.shape.dtype));
      if (L > cap)
        return Applicability::no("row length " + std::to_string(L) + " > " + std::to_string(cap) +
                                 " (1024 threads x 4 packs of 16 bytes in registers); softmax.smem_row serves longer rows");
      return Applicability::yes();
    }
    const std::size_t limit = max_dynamic_smem_or_portable();
    const std::size_t need = kSmemScratch + static_cast<std::size_t>(L) * dtype_size(p.shape.dtype) * (p.dir == SoftmaxDir::bwd ? 2 : 1);
    if (need > limit)
      return Applicability::no("the row needs " + std::to_string(need) + " bytes of shared memory, the device has " +
                               std::to_string(limit) + " (softmax.block_row serves it)");
    return Applicability::yes();
  }
  void run_typed(const SoftmaxProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const bool bwd = p.dir == SoftmaxDir::bwd;
    const void* in0 = b[0];
    const void* in1 = bwd ? b[1] : nullptr;
    void* out = bwd ? b[2] : b[1];
    RowArgs a{p.rows(), p.row_length(), 1, p.is_log()};
    const auto s = static_cast<hipStream_t>(stream);
    auto ctx = [&] { return "running " + name() + " on " + to_string(p); };
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      const T* i0 = static_cast<const T*>(in0);
      const T* i1 = static_cast<const T*>(in1);
      T* o = static_cast<T*>(out);
      auto go = [&]<int V>() {
        if (kind_ == Kind::team) {
          a.team = team_size(a.L / V, kTeamPacks<V>);
          // Teams per block: up to kTeamBlock threads' worth, fewer when the rows would not reach
          // every multiprocessor (short-row batches such as 32 x 1000: one team per block spreads
          // the rows over 32 SMs instead of 4-8, and the block trees sync fewer warps).
          const long long spread = (a.rows + multiprocessors() - 1) / multiprocessors();
          const int teams = a.team >= kTeamBlock ? 1 : static_cast<int>(std::clamp<long long>(spread, 1, kTeamBlock / a.team));
          const int block = teams * a.team;
          const auto kernel = block > kTeamBlock ? (bwd ? &softmax_team_rows<T, V, true, kMaxTeam> : &softmax_team_rows<T, V, false, kMaxTeam>)
                                                 : (bwd ? &softmax_team_rows<T, V, true, kTeamBlock> : &softmax_team_rows<T, V, false, kTeamBlock>);
          const long long blocks_needed = (a.rows + teams - 1) / teams;
          hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, block, blocks_needed * block)), dim3(block), 0, s, a, i0, i1, o);
          check_launch_lazy("softmax_team_rows", ctx);
        } else {
          const auto kernel = bwd ? &softmax_smem_rows<T, V, true> : &softmax_smem_rows<T, V, false>;
          const std::size_t smem = kSmemScratch + static_cast<std::size_t>(a.L) * sizeof(T) * (bwd ? 2 : 1);
          const unsigned grid = static_cast<unsigned>(std::min<long long>(stream_grid(kernel, kSmemBlock, a.rows * kSmemBlock, smem), a.rows));
          hipLaunchKernelGGL(kernel, dim3(grid), dim3(kSmemBlock), smem, s, a, i0, i1, o);
          check_launch_lazy("softmax_smem_rows", ctx);
        }
      };
      if (row_lanes<T>(a.L, {in0, in1, out}) == kVec<T>) go.template operator()<kVec<T>>();
      else go.template operator()<1>();
    });
  }

 private:
  Kind kind_;
};

}  // namespace

std::shared_ptr<const OpSolver> make_softmax_team_row() { return std::make_shared<SoftmaxOnChip>(SoftmaxOnChip::Kind::team); }
std::shared_ptr<const OpSolver> make_softmax_smem_row() { return std::make_shared<SoftmaxOnChip>(SoftmaxOnChip::Kind::smem); }

}  // namespace hiprim::gpu
