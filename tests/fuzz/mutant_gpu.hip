// Test-only GPU mutants: a 16x16-output-pixel tiled direct convolution with planted bugs (see
// mutant_gpu.hpp). Not production code: it exists so the fuzzer can show it catches GPU-only bugs.
//
// Math (fwd, mode conv): y[n,k,oh,ow] = sum_{cc,r,s} x[n, g*Cg+cc, oh*sh-ph+r*dh, ow*sw-pw+s*dw] * w[k,cc,r,s] (+ bias[k]),
//   g = k / Kg; a tap outside x is absent (not multiplied: a NaN weight must not reach it).
// Layout: any strides (NCHW or NHWC), passed in elements.
// Launch: block 16x16 threads = 16x16 outputs of one (n, k); grid (ceil(OW/16), ceil(OH/16), N*K).
//   Per input channel of the group the block stages the x tile with its halo, (15*sh + (R-1)*dh + 1) x
//   (15*sw + (S-1)*dw + 1) floats, in shared memory; __syncthreads() before reading it and before the
//   next channel overwrites it. Staging order is reversed (thread t writes the elements thread
//   255-t reads first) so that a missing barrier shows.
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/runtime/check.hpp"
#include "tests/fuzz/mutant_gpu.hpp"

namespace hiprim::fuzz_test {
namespace {

constexpr int kTile = 16, kThreads = kTile * kTile;
constexpr long long kMaxSharedBytes = 48 * 1024;

struct Geom {
  int n, c, k, groups, h, w, oh, ow, r, s, sh, sw, ph, pw, dh, dw;
  int tile_h, tile_w;
  long long xs[4], ws[4], ys[4];  // element strides of x [N,C,H,W], w [K,C/G,R,S], y [N,K,OH,OW]
};

template <typename T, bool kSync, bool kTruncBf16>
__global__ void mutant_tiled_fwd(Geom g, const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias, T* __restrict__ y) {
  extern __shared__ float tile[];
  const int n = blockIdx.z / g.k, k = blockIdx.z % g.k;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTile + tx;
  const int oh = blockIdx.y * kTile + ty, ow = blockIdx.x * kTile + tx;
  const int cg = g.c / g.groups, kg = g.k / g.groups, grp = k / kg;
  const int ih0 = blockIdx.y * kTile * g.sh - g.ph, iw0 = blockIdx.x * kTile * g.sw - g.pw;
  const int tile_elems = g.tile_h * g.tile_w;
  float acc = 0.0f;
  for (int cc = 0; cc < cg; ++cc) {
    const long long xc = n * g.xs[0] + (grp * cg + cc) * g.xs[1];
    for (int e = kThreads - 1 - tid; e < tile_elems; e += kThreads) {
      const int ih = ih0 + e / g.tile_w, iw = iw0 + e % g.tile_w;
      tile[e] = (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) ? gpu::load_f(x, xc + ih * g.xs[2] + iw * g.xs[3]) : 0.0f;
    }
    if (kSync) __syncthreads();
    if (oh < g.oh && ow < g.ow) {
      for (int r = 0; r < g.r; ++r) {
        const int th = ty * g.sh + r * g.dh, ih = ih0 + th;
        if (ih < 0 || ih >= g.h) continue;  // padding: no term
        for (int s = 0; s < g.s; ++s) {
          const int tw = tx * g.sw + s * g.dw, iw = iw0 + tw;
          if (iw < 0 || iw >= g.w) continue;
          acc += tile[th * g.tile_w + tw] * gpu::load_f(w, k * g.ws[0] + cc * g.ws[1] + r * g.ws[2] + s * g.ws[3]);
        }
      }
    }
    if (kSync) __syncthreads();
  }
  if (oh >= g.oh || ow >= g.ow) return;
  if (bias) acc += gpu::load_f(bias, k);
  const long long yo = n * g.ys[0] + k * g.ys[1] + oh * g.ys[2] + ow * g.ys[3];
  if constexpr (kTruncBf16 && sizeof(T) == 2 && !std::is_same_v<T, __half>) {
    reinterpret_cast<unsigned short*>(y)[yo] = static_cast<unsigned short>(__float_as_uint(acc) >> 16);  // the bug
  } else {
    gpu::store_f(y, yo, acc);
  }
}

Geom geom_of(const ConvProblem& p) {
  Geom g{};
  const Dims o = p.out();
  g.n = static_cast<int>(p.n);
  g.c = static_cast<int>(p.c);
  g.k = static_cast<int>(p.k);
  g.groups = static_cast<int>(p.groups);
  g.h = static_cast<int>(p.in[0]);
  g.w = static_cast<int>(p.in[1]);
  g.oh = static_cast<int>(o[0]);
  g.ow = static_cast<int>(o[1]);
  g.r = static_cast<int>(p.filter[0]);
  g.s = static_cast<int>(p.filter[1]);
  g.sh = static_cast<int>(p.stride[0]);
  g.sw = static_cast<int>(p.stride[1]);
  g.ph = static_cast<int>(p.pad[0]);
  g.pw = static_cast<int>(p.pad[1]);
  g.dh = static_cast<int>(p.dilation[0]);
  g.dw = static_cast<int>(p.dilation[1]);
  g.tile_h = (kTile - 1) * g.sh + (g.r - 1) * g.dh + 1;
  g.tile_w = (kTile - 1) * g.sw + (g.s - 1) * g.dw + 1;
  const TensorDesc xd = p.x_desc(), wd = p.w_desc(), yd = p.y_desc();
  for (int i = 0; i < 4; ++i) {
    g.xs[i] = xd.strides[static_cast<std::size_t>(i)];
    g.ws[i] = wd.strides[static_cast<std::size_t>(i)];
    g.ys[i] = yd.strides[static_cast<std::size_t>(i)];
  }
  return g;
}

class GpuMutant final : public ConvSolver {
 public:
  explicit GpuMutant(GpuBug b) : bug_(b) {}
  std::string name() const override { return "mutant.gpu." + gpu_bug_name(bug_); }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override { return "test-only tiled fwd conv: " + gpu_bug_description(bug_); }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }  // bounds checks
  Applicability applicable(const ConvProblem& p) const override {
    auto e = p.validate();
    if (!e.empty()) return Applicability::no("invalid problem: " + e.front());
    if (p.dir != ConvDir::fwd) return Applicability::no("fwd only");
    if (p.mode != ConvMode::conv) return Applicability::no("mode conv only");
    if (p.rank() != 2) return Applicability::no("2D only");
    const Geom g = geom_of(p);
    if (4LL * g.tile_h * g.tile_w > kMaxSharedBytes) return Applicability::no("x tile does not fit in 48 KiB of shared memory");
    if (p.n * p.k > 65535) return Applicability::no("n*k exceeds the grid's z limit");
    return Applicability::yes();
  }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const Geom g = geom_of(p);
    // The bug dropped_tail: floor instead of ceil (and no launch at all when a dim is below one tile).
    const int gx = bug_ == GpuBug::dropped_tail ? g.ow / kTile : (g.ow + kTile - 1) / kTile;
    const int gy = bug_ == GpuBug::dropped_tail ? g.oh / kTile : (g.oh + kTile - 1) / kTile;
    if (gx == 0 || gy == 0) return;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(g.n * g.k)), block(kTile, kTile);
    const std::size_t shared = sizeof(float) * static_cast<std::size_t>(g.tile_h * g.tile_w);
    const auto stream = static_cast<hipStream_t>(t.stream);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    gpu::dispatch_dtype(p.dtype, [&]<typename T>() {
      const T* bias = static_cast<const T*>(p.bias ? t.bias : nullptr);
      auto* x = static_cast<const T*>(t.x);
      auto* w = static_cast<const T*>(t.w);
      auto* y = static_cast<T*>(t.y);
      auto kernel = mutant_tiled_fwd<T, true, false>;
      if (bug_ == GpuBug::missing_sync) kernel = mutant_tiled_fwd<T, false, false>;
      if (bug_ == GpuBug::bf16_truncation) kernel = mutant_tiled_fwd<T, true, true>;
      hipLaunchKernelGGL(kernel, grid, block, shared, stream, g, x, w, bias, y);
      HIPRIM_CHECK_LAUNCH("mutant_tiled_fwd", ctx);
    });
  }

 private:
  GpuBug bug_;
};

}  // namespace

std::string gpu_bug_name(GpuBug b) {
  switch (b) {
    case GpuBug::none: return "none";
    case GpuBug::missing_sync: return "missing_sync";
    case GpuBug::dropped_tail: return "dropped_tail";
    case GpuBug::bf16_truncation: return "bf16_truncation";
  }
  return "?";
}

std::string gpu_bug_description(GpuBug b) {
  switch (b) {
    case GpuBug::none: return "no bug (control)";
    case GpuBug::missing_sync: return "missing synchronization: no barrier between staging the shared-memory tile and reading it (nor before overwriting it)";
    case GpuBug::dropped_tail: return "dropped tail: the grid covers OW/16 x OH/16 tiles (floor), the remainder is never computed";
    case GpuBug::bf16_truncation: return "bf16 stores truncate the fp32 accumulator instead of rounding to nearest even";
  }
  return "?";
}

std::vector<GpuBug> all_gpu_bugs() { return {GpuBug::missing_sync, GpuBug::dropped_tail, GpuBug::bf16_truncation}; }

std::shared_ptr<const ConvSolver> make_gpu_mutant(GpuBug b) { return std::make_shared<GpuMutant>(b); }

}  // namespace hiprim::fuzz_test
