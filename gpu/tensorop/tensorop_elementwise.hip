// Tensor-op solvers: c = op(alpha1*a, alpha2*b) + beta*c (core/tensorop_problem.hpp), one pass,
// fp32 arithmetic (the reference's four roundings), deterministic. With beta = 0, c is never read.
// Geometry (TensorOpGeom): a and c are packed, so a thread's storage-order index e is its offset
// in both; the dims in storage order are collapsed (neighbours merge when b broadcasts both or
// neither: then b is contiguous across them too), leaving nd <= 5 dims, innermost last, with b's
// strides (0 where it broadcasts). b's offset is e decoded over the collapsed dims.
//   tensorop.vec          16-byte packs (fp32 4, fp16/bf16 8 lanes), 4 packs per thread in flight,
//                         resident grid or one pass (gpu/common/stream_loop.hpp). Same shapes (nd = 1, b not
//                         broadcast): pure streaming, any length (scalar tail); perf configs chunks.<walk> (one pass,
//                         gpu/common/chunk_shape.hpp; default chunks.u1.b256) and loop.b256 (resident grid); broadcasts
//                         have one config, bcast. Else the innermost
//                         collapsed extent must be a multiple of the lanes: b is one 16-byte pack
//                         (innermost dim kept) or one scalar (broadcast) per pack; the decode
//                         divides with FastDiv (C < 2^31 elements). Unaligned pointers: 1-lane packs.
//                         b one row of P elements repeated over c's rows (collapsed dims [R, P],
//                         b strides {0, 1}: e.g. a per-channel b in channels-last) with a
//                         channel-stationary grid (gpu/common/channel_stream.hpp: grid * block * V
//                         a multiple of P): every pack of a thread meets the same b pack, loaded
//                         once (while the thread's first loads are in flight).
//   tensorop.elementwise  one element per thread step, 64-bit decode: any problem.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/tensorop_problem.hpp"
#include "gpu/common/channel_stream.hpp"
#include "gpu/common/chunk_shape.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/stream_loop.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/tensorop/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4;

struct TensorOpGeom {
  int nd;                 // collapsed dims, innermost last
  long long ext[5];       // extents
  long long b_stride[5];  // b's strides, 0 where b broadcasts
  FastDiv div[5];         // ext[k] as FastDiv (used when C has < 2^31 elements)
  long long total;        // elements of c
  int op;                 // TensorOpKind
  bool has_beta;
  float alpha1, alpha2, beta;
  bool same_shape() const { return nd == 1 && b_stride[0] != 0; }
};

__device__ __forceinline__ float apply_op(const TensorOpGeom& g, float a, float b, float c) {
  const float t1 = g.alpha1 * a, t2 = g.alpha2 * b;
  const float r = g.op == 0 ? t1 + t2 : g.op == 1 ? t1 * t2 : g.op == 2 ? (t1 < t2 ? t1 : t2) : (t1 > t2 ? t1 : t2);
  return g.has_beta ? r + g.beta * c : r;
}

// b's offset of element e (e < 2^31: FastDiv).
__device__ __forceinline__ long long b_offset_fast(const TensorOpGeom& g, long long e) {
  std::uint32_t rest = static_cast<std::uint32_t>(e);
  long long off = 0;
  for (int k = g.nd - 1; k > 0; --k) {
    std::uint32_t q, r;
    g.div[k].divmod(rest, q, r);
    off += r * g.b_stride[k];
    rest = q;
  }
  return off + rest * g.b_stride[0];
}
__device__ __forceinline__ long long b_offset_wide(const TensorOpGeom& g, long long e) {
  long long off = 0;
  for (int k = g.nd - 1; k > 0; --k) {
    off += (e % g.ext[k]) * g.b_stride[k];
    e /= g.ext[k];
  }
  return off + e * g.b_stride[0];
}

// c's pack i (elements i*V ..) from the packs of a, b and (beta != 0) c.
template <typename T, int V>
__device__ __forceinline__ void combine_store(const TensorOpGeom& g, T* c, long long i, const Pack<T, V>& ap, const Pack<T, V>& bp,
                                              const Pack<T, V>& cp) {
  float av[V], bv[V], cv[V] = {}, r[V];
  unpack(ap, av);
  unpack(bp, bv);
  if (g.has_beta) unpack(cp, cv);
#pragma unroll
  for (int j = 0; j < V; ++j) r[j] = apply_op(g, av[j], bv[j], g.has_beta ? cv[j] : 0.0f);
  store_raw<T, V>(c, i * V, pack_of<T, V>(r));
}

// Item i = pack i of c (elements i*V ..). Same: b has c's shape; else decode (innermost % V == 0).
template <typename T, int V, bool Same>
struct TensorOpPacks {
  TensorOpGeom g;
  const T* __restrict__ a;
  const T* __restrict__ b;
  T* __restrict__ c;
  struct Loaded {
    Pack<T, V> a, b, c;
  };
  __device__ __forceinline__ Loaded load(long long i) const {
    Loaded l{};
    l.a = load_raw<T, V>(a, i * V);
    if (Same) {
      l.b = load_raw<T, V>(b, i * V);
    } else {
      const long long bo = b_offset_fast(g, i * V);
      if (g.b_stride[g.nd - 1] != 0) {
        l.b = load_raw<T, V>(b, bo);
      } else {
        const T s = b[bo];
#pragma unroll
        for (int j = 0; j < V; ++j) l.b.v[j] = s;
      }
    }
    if (g.has_beta) l.c = load_raw<T, V>(c, i * V);
    return l;
  }
  __device__ __forceinline__ void finish(long long i, const Loaded& l) const { combine_store<T, V>(g, c, i, l.a, l.b, l.c); }
};

// b one row of P = ext[1] elements (collapsed [R, P], b strides {0, 1}), grid * blockDim * V a
// multiple of P: pack i meets b at (i*V) % P, the same for all of a thread's packs.
template <typename T, int V>
struct TensorOpRowPacks {
  TensorOpGeom g;
  const T* __restrict__ a;
  const T* __restrict__ b;
  T* __restrict__ c;
  struct Loaded {
    Pack<T, V> a, c;
  };
  __device__ __forceinline__ Loaded load(long long i) const {
    Loaded l{};
    l.a = load_raw<T, V>(a, i * V);
    if (g.has_beta) l.c = load_raw<T, V>(c, i * V);
    return l;
  }
  __device__ __forceinline__ Pack<T, V> prepare() const { return load_raw<T, V>(b, grid_thread() * V % g.ext[1]); }
  __device__ __forceinline__ void finish(long long i, const Loaded& l, const Pack<T, V>& bp) const {
    combine_store<T, V>(g, c, i, l.a, bp, l.c);
  }
};

template <typename T, int V>
__global__ void tensorop_row_packs(TensorOpGeom g, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  stream_items_prepared<kUnroll>(g.total / V, TensorOpRowPacks<T, V>{g, a, b, c});
}

// b is one row repeated over c's rows (the case tensorop_row_packs serves).
bool row_broadcast(const TensorOpGeom& g) { return g.nd == 2 && g.b_stride[0] == 0 && g.b_stride[1] == 1; }

// The walk, as measured on the H100 (32x256x56x56 add, same run as PyTorch): same shapes take the
// one-pass chunks with one pack per thread (default u1.b256, gpu/common/chunk_shape.hpp: s23, 16-bit
// 52.4 us against the resident loop's 55.8 and U = 4 chunks' 67.0, PyTorch 52.1; at U = 4 the 16-bit
// kernel held 81 registers, 3 blocks per SM, s19); broadcasts keep the resident-grid loop (a
// per-channel b in NCHW: chunks 1365 vs the loop's 2208 GB/s, s19). Chunked: the one-pass walk (same
// shapes only), U packs per thread.
template <typename T, int V, bool Same, bool Chunked, int U = kUnroll>
__global__ void tensorop_packs(TensorOpGeom g, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  if constexpr (Chunked) stream_chunks<U>(g.total / V, TensorOpPacks<T, V, Same>{g, a, b, c});
  else stream_items<kUnroll>(g.total / V, TensorOpPacks<T, V, Same>{g, a, b, c});
  if constexpr (Same && V > 1) {  // the total % V tail
    const long long t = g.total / V * V + grid_thread();
    if (t < g.total) {
      const TensorOpPacks<T, 1, true> one{g, a, b, c};
      one.finish(t, one.load(t));
    }
  }
}

// tensorop.elementwise: one element per step, 64-bit decode.
template <typename T>
__global__ void tensorop_elements(TensorOpGeom g, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  for (long long e = grid_thread(); e < g.total; e += grid_threads()) {
    const float cv = g.has_beta ? load_f(c, e) : 0.0f;
    store_f(c, e, apply_op(g, load_f(a, e), load_f(b, b_offset_wide(g, e)), cv));
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
  // Collapse: skip extent-1 dims; merge into the previous dim when both broadcast or both not.
  for (int d : order) {
    const long long e = ad.dims[d];
    if (e == 1) continue;
    const long long bs = bd.dims[d] == 1 ? 0 : bd.strides[d];
    if (g.nd > 0 && (g.b_stride[g.nd - 1] == 0) == (bs == 0)) {
      g.ext[g.nd - 1] *= e;
      g.b_stride[g.nd - 1] = bs;  // the inner dim's stride (0 stays 0)
      continue;
    }
    g.ext[g.nd] = e;
    g.b_stride[g.nd] = bs;
    ++g.nd;
  }
  if (g.nd == 0) {  // every extent 1: one element, b not broadcast (its only element)
    g.nd = 1, g.ext[0] = 1, g.b_stride[0] = 1;
  }
  g.total = p.c_desc().elements();
  for (int k = 0; k < g.nd; ++k)
    if (g.ext[k] < kFastDivLimit) g.div[k] = FastDiv(static_cast<std::uint32_t>(g.ext[k]));
  g.op = static_cast<int>(p.op);
  g.has_beta = p.beta != 0;
  g.alpha1 = static_cast<float>(p.alpha1);
  g.alpha2 = static_cast<float>(p.alpha2);
  g.beta = static_cast<float>(p.beta);
  return g;
}

class TensorOpVec final : public TypedOpSolver<TensorOpProblem> {
 public:
  std::string name() const override { return "tensorop.vec"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "16-byte packs, 1-4 in flight per thread; same shapes: one pass (default one pack per thread), broadcasts: resident grid; same shapes stream (any length); a row of b repeated "
           "over c's rows (e.g. per-channel, channels last) loaded once per thread on a channel-stationary grid; broadcasts need the "
           "innermost collapsed dim % lanes == 0 and C < 2^31 elements; add/mul/min/max, alpha/beta; ranks 1-5; fp32/fp16/bf16";
  }

 protected:
  Applicability applicable_to(const TensorOpProblem& p) const override {
    const TensorOpGeom g = tensorop_geom(p);
    if (g.same_shape()) return Applicability::yes();
    const int lanes = static_cast<int>(16 / dtype_size(p.dtype));
    if (g.ext[g.nd - 1] % lanes != 0)
      return Applicability::no("b broadcasts and the innermost collapsed dim has " + std::to_string(g.ext[g.nd - 1]) +
                               " elements, not a multiple of " + std::to_string(lanes) + " (16 bytes of " +
                               std::string(dtype_name(p.dtype)) + "); tensorop.elementwise serves it");
    if (g.total >= kFastDivLimit)
      return Applicability::no("b broadcasts over a C of " + std::to_string(g.total) +
                               " elements >= 2^31 (the 32-bit index decode); tensorop.elementwise serves it");
    return Applicability::yes();
  }
  void run_typed(const TensorOpProblem& p, const std::vector<void*>& buf, void*, void* stream) const override {
    launch(p, buf, stream, default_for(p));
  }

 public:
  std::vector<std::string> perf_configs() const override {
    std::vector<std::string> all;
    for (const std::string& b : chunk_shape_configs()) all.push_back("chunks." + b);
    all.push_back(kLoopConfig);
    all.push_back(kBcastConfig);
    return all;
  }
  std::vector<std::string> configs_for(const OpProblem& p) const override {
    const TensorOpProblem* q = op_problem_cast<TensorOpProblem>(p);
    if (!q || !applicable(p)) return {};
    if (!tensorop_geom(*q).same_shape()) return {kBcastConfig};
    std::vector<std::string> all = perf_configs();
    all.pop_back();
    return all;
  }
  std::string default_config_for(const OpProblem& p) const override {
    const TensorOpProblem* q = op_problem_cast<TensorOpProblem>(p);
    return q ? default_for(*q) : kBcastConfig;
  }

 protected:
  void run_typed_config(const TensorOpProblem& p, const std::vector<void*>& buf, void*, void* stream,
                        const std::string& config) const override {
    launch(p, buf, stream, config);
  }

 private:
  static constexpr const char* kLoopConfig = "loop.b256";
  static constexpr const char* kBcastConfig = "bcast";
  static std::string default_for(const TensorOpProblem& p) {
    if (!tensorop_geom(p).same_shape()) return kBcastConfig;
    return "chunks." + default_chunk_shape(p.c_desc().elements() * static_cast<long long>(dtype_size(p.dtype)));
  }
  // config: one of configs_for(p).
  void launch(const TensorOpProblem& p, const std::vector<void*>& buf, void* stream, const std::string& config) const {
    const TensorOpGeom g = tensorop_geom(p);
    const bool chunked = config.rfind("chunks.", 0) == 0;
    const ChunkShape walk = chunked ? chunk_shape_of(config.substr(7)) : ChunkShape{kUnroll, kBlock};
    dispatch_dtype(p.dtype, [&]<typename T>() {
      constexpr int V = kVec<T>;
      const bool wide = all_aligned<T, V>({buf[0], buf[1], buf[2]});
      auto go = [&](auto kernel, int lanes, bool chunks) {
        const long long items = g.total / lanes;
        const unsigned grid = chunks ? chunk_grid(items, walk.unroll, walk.block) : stream_grid(kernel, kBlock, (items + kUnroll - 1) / kUnroll);
        hipLaunchKernelGGL(kernel, dim3(grid), dim3(chunks ? walk.block : kBlock), 0, static_cast<hipStream_t>(stream), g,
                           static_cast<const T*>(buf[0]), static_cast<const T*>(buf[1]), static_cast<T*>(buf[2]));
        check_launch_lazy("tensorop_packs", [&] { return "running tensorop.vec on " + to_string(p); });
      };
      if (wide && row_broadcast(g)) {
        const auto kernel = &tensorop_row_packs<T, V>;
        const long long resident = static_cast<long long>(std::max(resident_per_mp(kernel, kBlock, 0), 1)) * multiprocessors();
        const long long want = (g.total / V + kUnroll * kBlock - 1) / (kUnroll * kBlock);
        const long long grid = stationary_grid(g.ext[1], kBlock, V, want, resident);
        if (grid > 0) {
          hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(grid)), dim3(kBlock), 0, static_cast<hipStream_t>(stream), g,
                             static_cast<const T*>(buf[0]), static_cast<const T*>(buf[1]), static_cast<T*>(buf[2]));
          check_launch_lazy("tensorop_row_packs", [&] { return "running tensorop.vec on " + to_string(p); });
          return;
        }
      }
      if (g.same_shape() && chunked) {  // the one-pass walk, U packs per thread
        with_unroll(walk.unroll, [&]<int U>() {
          if (wide) go(&tensorop_packs<T, V, true, true, U>, V, true);
          else go(&tensorop_packs<T, 1, true, true, U>, 1, true);
        });
      } else if (g.same_shape()) {
        if (wide) go(&tensorop_packs<T, V, true, false>, V, false);
        else go(&tensorop_packs<T, 1, true, false>, 1, false);
      } else {
        if (wide) go(&tensorop_packs<T, V, false, false>, V, false);
        else go(&tensorop_packs<T, 1, false, false>, 1, false);
      }
    });
  }
};

class TensorOpElementwise final : public TypedOpSolver<TensorOpProblem> {
 public:
  std::string name() const override { return "tensorop.elementwise"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "one element per thread step, 64-bit index decode; add/mul/min/max with B broadcast over any dims; ranks 1-5; "
           "fp32/fp16/bf16; any layout";
  }

 protected:
  Applicability applicable_to(const TensorOpProblem&) const override { return Applicability::yes(); }
  void run_typed(const TensorOpProblem& p, const std::vector<void*>& buf, void*, void* stream) const override {
    const TensorOpGeom g = tensorop_geom(p);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const auto kernel = &tensorop_elements<T>;
      hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, g.total)), dim3(kBlock), 0, static_cast<hipStream_t>(stream), g,
                         static_cast<const T*>(buf[0]), static_cast<const T*>(buf[1]), static_cast<T*>(buf[2]));
      check_launch_lazy("tensorop_elements", [&] { return "running tensorop.elementwise on " + to_string(p); });
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_tensorop_vec() { return std::make_shared<TensorOpVec>(); }
std::shared_ptr<const OpSolver> make_tensorop_elementwise() { return std::make_shared<TensorOpElementwise>(); }
OpSolverList tensorop_solvers() { return {make_tensorop_vec(), make_tensorop_elementwise()}; }

}  // namespace hiprim::gpu
