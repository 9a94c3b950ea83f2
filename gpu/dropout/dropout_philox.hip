// dropout.philox: forward and backward, fp32/fp16/bf16, any layout, 2D/3D.
// Math: out = keep(i) ? in * scale : 0 with keep(i) = dropout_word(seed, i) >= threshold
// (core/philox.hpp, the same code the CPU reference runs), i the element's logical NCHW index and
// scale the fp32 value of 1/(1-rate); fwd in = x, bwd in = dy (the mask is regenerated, not read).
// One Philox4x32-10 evaluation of counter b gives the words of logical elements 4b .. 4b+3, so
// every path below evaluates it once per four elements:
//   linear (channels first, or S = D*H*W = 1, or C = 1: storage order is the logical order):
//     item = one 16-byte pack of V = 4 (fp32) or 8 (fp16/bf16) elements = V/4 Philox blocks.
//   channels last with S % 4 == 0 and C % V == 0: item = 4 consecutive rows (spatial positions
//     4g .. 4g+3 of one sample) x V channels: four 16-byte packs at ((4g + q) * C + c0), lane j of
//     row q is logical ((n C + c0 + j) S + 4 s4 + q), i.e. word q of Philox block
//     (n C + c0 + j) S/4 + s4 (g = n S/4 + s4).
//   otherwise (or pointers not 16-byte aligned): one element per thread step, its own evaluation.
// Launch: the streaming loop (gpu/common/stream_loop.hpp) on a resident grid; deterministic.
#include <string>

#include "core/dropout_problem.hpp"
#include "core/philox.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/stream_loop.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/dropout/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

struct DropoutArgs {
  unsigned long long seed;
  unsigned threshold;
  float scale;
  long long n, channels, spatial;  // elements, C, S = D*H*W
  bool channels_last;
};

__device__ __forceinline__ Philox4x32 philox_block(const DropoutArgs& a, unsigned long long b) {
  return philox4x32_10(Philox4x32{{static_cast<unsigned>(b), static_cast<unsigned>(b >> 32), 0u, 0u}},
                       static_cast<unsigned>(a.seed), static_cast<unsigned>(a.seed >> 32));
}
__device__ __forceinline__ float keep_or_drop(const DropoutArgs& a, unsigned word, float v) {
  return word >= a.threshold ? v * a.scale : 0.0f;
}

// Linear: item i = pack i (elements i*V ..), V % 4 == 0.
template <typename T, int V>
struct LinearPacks {
  DropoutArgs a;
  const T* __restrict__ in;
  T* __restrict__ out;
  __device__ __forceinline__ Pack<T, V> load(long long i) const { return load_raw<T, V>(in, i * V); }
  __device__ __forceinline__ void finish(long long i, const Pack<T, V>& pk) const {
    float v[V];
    unpack(pk, v);
#pragma unroll
    for (int b = 0; b < V / 4; ++b) {
      const Philox4x32 w = philox_block(a, static_cast<unsigned long long>(i) * (V / 4) + b);
#pragma unroll
      for (int q = 0; q < 4; ++q) v[4 * b + q] = keep_or_drop(a, w.w[q], v[4 * b + q]);
    }
    store_raw<T, V>(out, i * V, pack_of<T, V>(v));
  }
};

// Channels last, S % 4 == 0, C % V == 0: item i = (row group g = i / CP, channel pack cp = i % CP).
template <typename T, int V>
struct RowQuads {
  DropoutArgs a;
  const T* __restrict__ in;
  T* __restrict__ out;
  struct Loaded {
    Pack<T, V> row[4];
  };
  __device__ __forceinline__ Loaded load(long long i) const {
    const long long cp = i % (a.channels / V), g = i / (a.channels / V);
    Loaded l;
#pragma unroll
    for (int q = 0; q < 4; ++q) l.row[q] = load_raw<T, V>(in, (4 * g + q) * a.channels + cp * V);
    return l;
  }
  __device__ __forceinline__ void finish(long long i, const Loaded& l) const {
    const long long cp = i % (a.channels / V), g = i / (a.channels / V);
    const long long s4n = a.spatial / 4, n = g / s4n, s4 = g - n * s4n;
    float v[4][V];
#pragma unroll
    for (int q = 0; q < 4; ++q) unpack(l.row[q], v[q]);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long c = cp * V + j;
      const Philox4x32 w = philox_block(a, static_cast<unsigned long long>((n * a.channels + c) * s4n + s4));
#pragma unroll
      for (int q = 0; q < 4; ++q) v[q][j] = keep_or_drop(a, w.w[q], v[q][j]);
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) store_raw<T, V>(out, (4 * g + q) * a.channels + cp * V, pack_of<T, V>(v[q]));
  }
};

// Any layout, one element per item: its logical index rebuilt from the storage offset.
template <typename T>
struct Elements {
  DropoutArgs a;
  const T* __restrict__ in;
  T* __restrict__ out;
  __device__ __forceinline__ float load(long long o) const { return load_f(in, o); }
  __device__ __forceinline__ void finish(long long o, float v) const {
    long long i = o;
    if (a.channels_last) {
      const long long c = o % a.channels, rest = o / a.channels;
      i = ((rest / a.spatial) * a.channels + c) * a.spatial + rest % a.spatial;
    }
    store_f(out, o, keep_or_drop(a, dropout_word(a.seed, static_cast<unsigned long long>(i)), v));
  }
};

template <typename T, int V>
__global__ void dropout_linear(DropoutArgs a, const T* __restrict__ in, T* __restrict__ out) {
  stream_items<2>(a.n / V, LinearPacks<T, V>{a, in, out});
  const long long t = a.n / V * V + grid_thread();  // the n % V tail
  if (t < a.n) {
    const Elements<T> e{a, in, out};
    e.finish(t, e.load(t));
  }
}

template <typename T, int V>
__global__ void dropout_row_quads(DropoutArgs a, const T* __restrict__ in, T* __restrict__ out) {
  stream_items<1>(a.n / (4 * V), RowQuads<T, V>{a, in, out});
}

template <typename T>
__global__ void dropout_elements(DropoutArgs a, const T* __restrict__ in, T* __restrict__ out) {
  stream_items<4>(a.n, Elements<T>{a, in, out});
}

class DropoutPhilox final : public TypedOpSolver<DropoutProblem> {
 public:
  std::string name() const override { return "dropout.philox"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "Philox4x32-10 mask keyed by (seed, logical index), one evaluation per 4 elements, 16-byte packs (channels last: "
           "4 rows x 16 bytes per thread when S % 4 == 0); fwd and bwd; fp32/fp16/bf16; all layouts, 2D/3D";
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
    a.channels_last = p.shape.channels_last && a.spatial > 1 && a.channels > 1;  // else storage order = logical
    const auto s = static_cast<hipStream_t>(stream);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      constexpr int V = kVec<T>;
      const T* in = static_cast<const T*>(b[0]);
      T* out = static_cast<T*>(b[1]);
      auto go = [&](auto kernel, long long threads) {
        hipLaunchKernelGGL(kernel, dim3(stream_grid(kernel, kBlock, threads)), dim3(kBlock), 0, s, a, in, out);
        check_launch_lazy("dropout kernel", [&] { return "running dropout.philox on " + to_string(p); });
      };
      const bool aligned = all_aligned<T, V>({in, out});
      if (aligned && !a.channels_last)
        go(&dropout_linear<T, V>, a.n / V / 2);
      else if (aligned && a.spatial % 4 == 0 && a.channels % V == 0)
        go(&dropout_row_quads<T, V>, a.n / (4 * V));
      else
        go(&dropout_elements<T>, a.n / 4);
    });
  }
};

}  // namespace

OpSolverList dropout_solvers() { return {std::make_shared<DropoutPhilox>()}; }

}  // namespace hiprim::gpu
