// reduce.split: every reduce op over any set of dims in ONE cooperative launch, each output's slice
// split over as many blocks as keep the device busy (ops and rules: gpu/reduce/reduce_ops.hpp,
// core/reduce_problem.hpp). fp32 accumulation, deterministic.
// Geometry (SplitGeom): x's dims in storage order, extent-1 dims dropped, neighbours of the same
// kind collapsed (kept dims always; reduced dims when their logical weights agree, so the slice's
// logical index stays linear). A slice position r in [0, L) (storage order over the reduced dims)
// and an output o decode with FastDiv (x < 2^31 elements). Two shapes:
//   rows (the innermost storage dim is reduced, run Ri): item = (output o, chunk j of r); the
//     block's threads take 16-byte packs r = r0 + (t + m*B)*V of the chunk (Ri % V == 0), four in
//     flight; lanes then threads combine (block tree).
//   columns (the innermost storage dim is kept, run Ki of consecutive outputs): item = (tile of
//     tx*V consecutive outputs, chunk j of r); thread (col, row) takes V outputs as one pack and
//     the positions r0 + row + m*ty; the rows combine in column trees.
// Each item writes one partial (value, index) per output and chunk; after grid_sync() every
// thread combines the chunks of its outputs in increasing j and writes y (and idx). With one
// chunk the items write y directly. The choice of chunks depends on the grid (the device's SM
// count), so sums are bitwise reproducible per device; selections do not depend on it at all.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/reduce_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/reduce/reduce_ops.hpp"
#include "gpu/reduce/solvers.hpp"

namespace hiprim::gpu {
namespace {

#if HIPRIM_PLATFORM_EMU
constexpr int kBlock = 64;
#else
constexpr int kBlock = 256;
#endif
constexpr long long kGridCap = 1024;

struct RDim {
  long long ext, xstride, lweight;
  FastDiv div;
};

struct SplitGeom {
  int kn, rn;                // collapsed kept / reduced dims (storage order, outermost first)
  RDim kept[5], red[5];
  long long outputs, L;
  bool columns;              // the innermost storage dim is kept
  long long run;             // Ri (rows) or Ki (columns)
  int V, tx, ty;
  long long tiles;           // columns: tiles of tx*V outputs per run of Ki
  long long groups, chunks, chunk, items;
  int op;
  bool prop;
};

// A partial result: the fp32 accumulator (summing ops) or the chosen element (selecting ops).
using Part = Sel;

struct PartOp {
  int op;
  bool prop;
  __device__ __forceinline__ Part operator()(const Part& a, const Part& b) const {
    if (selects(op)) return SelBetter{op, prop}(a, b);
    return Part{op == 1 ? a.v * b.v : a.v + b.v, 0};
  }
};
__device__ __forceinline__ Part part_init(int op) { return Part{op == 1 ? 1.0f : 0.0f, selects(op) ? -1 : 0}; }
__device__ __forceinline__ Part part_take(int op, bool prop, const Part& acc, float v, int lg) {
  if (selects(op)) return SelBetter{op, prop}(Sel{v, lg}, acc);
  return Part{op == 1 ? acc.v * v : acc.v + term(op, v), 0};
}

// x offset of the kept coordinates of o over kept dims [0, kn_used).
__device__ __forceinline__ long long kept_base(const SplitGeom& g, long long o, int kn_used) {
  std::uint32_t rest = static_cast<std::uint32_t>(o);
  long long off = 0;
  for (int k = kn_used - 1; k >= 0; --k) {
    std::uint32_t q, r;
    g.kept[k].div.divmod(rest, q, r);
    off += r * g.kept[k].xstride;
    rest = q;
  }
  return off;
}
// x offset (from the slice base) and logical index of slice position r.
__device__ __forceinline__ long long red_offset(const SplitGeom& g, long long r, int& lg) {
  std::uint32_t rest = static_cast<std::uint32_t>(r);
  long long off = 0, l = 0;
  for (int k = g.rn - 1; k >= 0; --k) {
    std::uint32_t q, c;
    g.red[k].div.divmod(rest, q, c);
    off += c * g.red[k].xstride;
    l += c * g.red[k].lweight;
    rest = q;
  }
  lg = static_cast<int>(l);
  return off;
}

template <typename T>
__device__ __forceinline__ void finish(const SplitGeom& g, long long o, const Part& p, T* y, float* idx) {
  write_out(g.op, g.L, o, p.v, p, y, idx);
}

template <typename T, int V>
__global__ void reduce_split_kernel(SplitGeom g, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx, Part* part) {
  HIPRIM_DYNAMIC_SMEM(smem);
  Part* scratch = reinterpret_cast<Part*>(smem);
  const PartOp pop{g.op, g.prop};
  const int t = static_cast<int>(threadIdx.x), B = static_cast<int>(blockDim.x);
  for (long long item = blockIdx.x; item < g.items; item += gridDim.x) {
    const long long grp = item % g.groups, j = item / g.groups;
    const long long r0 = j * g.chunk, r1 = min(r0 + g.chunk, g.L);
    if (!g.columns) {
      // rows: output grp, packs of V consecutive positions of the innermost reduced run.
      const long long base = kept_base(g, grp, g.kn);
      const long long lw = g.red[g.rn - 1].lweight;
      Part acc = part_init(g.op);
      auto take = [&](long long r, const Pack<T, V>& pk) {
        int lg = 0;
        (void)red_offset(g, r, lg);
        float f[V];
        unpack(pk, f);
#pragma unroll
        for (int l = 0; l < V; ++l) acc = part_take(g.op, g.prop, acc, f[l], lg + static_cast<int>(l * lw));
      };
      long long r = r0 + static_cast<long long>(t) * V;
      const long long step = static_cast<long long>(B) * V;
      for (; r + 3 * step < r1; r += 4 * step) {
        Pack<T, V> pk[4];
        int lg;
#pragma unroll
        for (int u = 0; u < 4; ++u) pk[u] = load_raw<T, V>(x, base + red_offset(g, r + u * step, lg));
#pragma unroll
        for (int u = 0; u < 4; ++u) take(r + u * step, pk[u]);
      }
      for (; r < r1; r += step) {
        int lg;
        take(r, load_raw<T, V>(x, base + red_offset(g, r, lg)));
      }
      acc = block_reduce(acc, scratch, pop);
      if (t == 0) {
        if (g.chunks == 1) finish(g, grp, acc, y, idx);
        else part[j * g.outputs + grp] = acc;
      }
    } else {
      // columns: V consecutive outputs of one run of Ki per thread, positions r0 + row + m*ty.
      const int col = t % g.tx, row = t / g.tx;
      const long long outer = grp / g.tiles, in0 = ((grp % g.tiles) * g.tx + col) * V;
      const bool live = in0 < g.run;
      const long long base = kept_base(g, outer, g.kn - 1) + in0;
      Part acc[V];
#pragma unroll
      for (int l = 0; l < V; ++l) acc[l] = part_init(g.op);
      if (live) {
        long long r = r0 + row;
        const long long ty = g.ty;
        for (; r + 3 * ty < r1; r += 4 * ty) {
          Pack<T, V> pk[4];
          int lg[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) pk[u] = load_raw<T, V>(x, base + red_offset(g, r + u * ty, lg[u]));
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            float f[V];
            unpack(pk[u], f);
#pragma unroll
            for (int l = 0; l < V; ++l) acc[l] = part_take(g.op, g.prop, acc[l], f[l], lg[u]);
          }
        }
        for (; r < r1; r += ty) {
          int lg;
          float f[V];
          unpack(load_raw<T, V>(x, base + red_offset(g, r, lg)), f);
#pragma unroll
          for (int l = 0; l < V; ++l) acc[l] = part_take(g.op, g.prop, acc[l], f[l], lg);
        }
      }
      column_reduce<V>(g.tx, g.ty, acc, scratch, pop);
      if (row == 0 && live) {
        const long long o0 = outer * g.run + in0;
#pragma unroll
        for (int l = 0; l < V; ++l) {
          if (g.chunks == 1) finish(g, o0 + l, acc[l], y, idx);
          else part[j * g.outputs + o0 + l] = acc[l];
        }
      }
    }
  }
  if (g.chunks == 1) return;  // uniform over the grid
  grid_sync();
  for (long long o = grid_thread(); o < g.outputs; o += grid_threads()) {
    Part acc = part[o];
    for (long long j = 1; j < g.chunks; ++j) acc = pop(acc, part[j * g.outputs + o]);
    finish(g, o, acc, y, idx);
  }
}

// ---- host side ----

// Collapsed dims and the shape; V and the split come later (split_for).
SplitGeom collapse(const ReduceProblem& p) {
  SplitGeom g{};
  const TensorDesc xd = p.x_desc();
  const int rank = p.rank();
  std::vector<int> order(static_cast<std::size_t>(rank));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return xd.strides[a] > xd.strides[b]; });
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (auto d : p.over) reduced[static_cast<std::size_t>(d)] = true;
  std::vector<long long> lweight(static_cast<std::size_t>(rank), 0);
  long long w = 1;
  for (int d = rank - 1; d >= 0; --d)
    if (reduced[d]) lweight[d] = w, w *= p.dims[d];
  int last = -1;  // kind of the previous collapsed dim: 0 kept, 1 reduced
  for (int d : order) {
    if (p.dims[d] == 1) continue;
    const long long e = p.dims[d], st = xd.strides[d];
    if (reduced[d]) {
      if (last == 1 && g.red[g.rn - 1].lweight == lweight[d] * e) {
        g.red[g.rn - 1].ext *= e, g.red[g.rn - 1].xstride = st, g.red[g.rn - 1].lweight = lweight[d];
      } else {
        g.red[g.rn++] = RDim{e, st, lweight[d], {}};
      }
      last = 1;
    } else {
      if (last == 0) g.kept[g.kn - 1].ext *= e, g.kept[g.kn - 1].xstride = st;
      else g.kept[g.kn++] = RDim{e, st, 0, {}};
      last = 0;
    }
  }
  if (g.rn == 0) g.red[g.rn++] = RDim{1, 1, 0, {}};  // every reduced dim of extent 1
  for (int k = 0; k < g.kn; ++k) g.kept[k].div = FastDiv(static_cast<std::uint32_t>(g.kept[k].ext));
  for (int k = 0; k < g.rn; ++k) g.red[k].div = FastDiv(static_cast<std::uint32_t>(g.red[k].ext));
  g.outputs = p.y_desc().elements();
  g.L = p.reduced_length();
  g.columns = last == 0;
  g.run = g.columns ? g.kept[g.kn - 1].ext : g.red[g.rn - 1].ext;
  g.op = static_cast<int>(p.op);
  g.prop = p.propagate_nan;
  return g;
}

// The split for V lanes over a grid of `grid` blocks.
void split_for(SplitGeom& g, int V, long long grid) {
  g.V = V;
  long long per_item_min;
  if (g.columns) {
    const long long packs = g.run / V;
    g.tx = 1;
    while (g.tx < 32 && g.tx < packs) g.tx *= 2;
    g.ty = kBlock / g.tx;
    g.tiles = (packs + g.tx - 1) / g.tx;
    g.groups = g.outputs / g.run * g.tiles;
    per_item_min = 4LL * g.ty;
  } else {
    g.tx = 1, g.ty = kBlock, g.tiles = 1;
    g.groups = g.outputs;
    per_item_min = 4LL * kBlock * V;
  }
  g.chunks = std::clamp<long long>(grid / g.groups, 1, std::max<long long>(1, g.L / per_item_min));
  g.chunk = (g.L + g.chunks - 1) / g.chunks;
  if (!g.columns) g.chunk = (g.chunk + V - 1) / V * V;  // packs never straddle chunks
  g.chunks = (g.L + g.chunk - 1) / g.chunk;
  g.items = g.groups * g.chunks;
}

class ReduceSplit final : public TypedOpSolver<ReduceProblem> {
 public:
  std::string name() const override { return "reduce.split"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one cooperative launch: each output's slice split over blocks (rows: 16-byte packs along a reduced innermost "
           "dim; columns: 16-byte packs of consecutive outputs), fixed-order partials combined after a grid barrier; all "
           "eight ops, NaN modes, indices; any dims of ranks 1-5; fp32/fp16/bf16";
  }

 protected:
  Applicability applicable_to(const ReduceProblem& p) const override {
    if (p.x_desc().elements() >= kFastDivLimit)
      return Applicability::no("x has " + std::to_string(p.x_desc().elements()) +
                               " elements >= 2^31 (the 32-bit position decode); reduce.blockwise serves it");
    const SplitGeom g = collapse(p);
    if (!g.columns && g.L < 2LL * kBlock && g.outputs > 2LL * kBlock)
      return Applicability::no("slices of " + std::to_string(g.L) + " contiguous values are shorter than a block's work "
                               "(reduce.threadwise serves many short slices)");
    return Applicability::yes();
  }
  std::size_t workspace_for(const ReduceProblem& p) const override {
    SplitGeom g = collapse(p);
    long long chunks = 1;
    for (int V : {1, 2, 4, 8})
      if (g.run % V == 0) {
        split_for(g, V, kGridCap);
        chunks = std::max(chunks, g.chunks);
      }
    return chunks > 1 ? static_cast<std::size_t>(chunks * g.outputs) * sizeof(Part) : 0;
  }
  void run_typed(const ReduceProblem& p, const std::vector<void*>& b, void* ws, void* stream) const override {
    const auto s = static_cast<hipStream_t>(stream);
    float* idx = p.indices ? static_cast<float*>(b[2]) : nullptr;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const T* x = static_cast<const T*>(b[0]);
      T* y = static_cast<T*>(b[1]);
      SplitGeom g = collapse(p);
      auto go = [&]<int V>() {
        const auto kernel = &reduce_split_kernel<T, V>;
        // Scratch: the rows' block tree (kBlock values) or the columns' trees ((kBlock/2 + tx) * V).
        const std::size_t smem = static_cast<std::size_t>(std::max(kBlock, (kBlock / 2 + 32) * V)) * sizeof(Part);
        const long long resident = static_cast<long long>(resident_per_mp(kernel, kBlock, smem)) * multiprocessors();
        split_for(g, V, std::min(resident, kGridCap));
        const long long grid = std::min({resident, kGridCap, std::max<long long>(g.items, 1)});
        launch_cooperative(kernel, dim3(static_cast<unsigned>(grid)), dim3(kBlock), smem, s, g, x, y, idx, static_cast<Part*>(ws));
        check_launch_lazy("reduce_split_kernel", [&] { return "running reduce.split on " + to_string(p); });
      };
      constexpr int V = kVec<T>;
      if (g.run % V == 0 && aligned_for_pack<T, V>(x)) go.template operator()<V>();
      else go.template operator()<1>();
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_reduce_split() { return std::make_shared<ReduceSplit>(); }

}  // namespace hiprim::gpu
