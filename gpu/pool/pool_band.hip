// pool.nchw.band: 2D pooling of channels-first tensors (NCHW) by bands of rows staged in shared
// memory (math, index and tie rules: core/pool_problem.hpp; the walk is pool.direct's, so the
// results are its bits).
//
// One block per (plane, band), plane = n*C + c (an H x W image, rows contiguous in memory):
//   fwd: the band is output rows [oh0, oh1). The input rows its windows touch,
//        h in [max(0, oh0*sh - ph), min(H, (oh1-1)*sh - ph + KH)), are one contiguous span of x:
//        it is copied once into shared memory (16-byte async copies over the aligned middle,
//        scalars at both ends), then each thread computes outputs (oh, ow) of the band in storage
//        order from it, walking its window in scan order (skipping taps outside the input).
//   bwd: the band is dx rows [h0, h1). The windows containing them have rows
//        oh in [lo(h0), hi(h1-1)] (windows_of): the dy span of those rows (and max's idx span)
//        is staged the same way; each thread gathers its positions' windows in increasing
//        (oh, ow) from it.
// Reads are one coalesced pass over x (fwd; bands overlap by KH - sh rows) or over dy and idx
// (bwd), writes one coalesced pass over y (and idx) or dx: the per-output window reads that
// pool.direct makes from memory come from shared memory here.
// The band height is chosen on the host (band_plan): about kBandWork outputs (fwd) or positions
// (bwd) per block, the staged spans within kBandSmem bytes; a problem whose one-row band does not
// fit 48 KiB is refused.
#include <algorithm>
#include <optional>
#include <string>

#include "core/pool_problem.hpp"
#include "gpu/common/async_copy.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/pool/pool_geom.hpp"
#include "gpu/pool/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBandWork = 1024;                     // outputs (fwd) / positions (bwd) a band aims at
constexpr std::size_t kBandSmem = 32 * 1024;        // staged bytes a band aims to stay within
constexpr std::size_t kBandSmemMax = 48 * 1024;     // the most (no opt-in attribute needed)

struct BandGeom {
  PoolGeom g;
  int rows;              // band height: output rows (fwd) or input rows (bwd)
  int bands;             // bands per plane
  FastDiv bands_div;     // division by bands
  FastDiv row_div;       // division by the band's row length: OW (fwd) or W (bwd)
  int stage_offset;      // bwd: byte offset of idx's stage (after dy's)
};

// A span of `n` elements of p from element `start`, staged in shared memory: element e lies at
// s[e - base], base = start rounded down to V (so the stage is pack-aligned like p).
template <typename T, int V>
__device__ __forceinline__ long long stage_span(const T* __restrict__ p, long long start, int n, T* s) {
  const long long base = start - start % V, end = start + n;
  const long long up = (start + V - 1) / V * V, down = end / V * V;
  const long long first = up < end ? up : end, last = down > first ? down : first;
  for (long long i = first + static_cast<long long>(threadIdx.x) * V; i < last; i += static_cast<long long>(blockDim.x) * V)
    async_copy(reinterpret_cast<Pack<T, V>*>(s + (i - base)), reinterpret_cast<const Pack<T, V>*>(p + i));
  for (long long i = start + threadIdx.x; i < first; i += blockDim.x) s[i - base] = p[i];
  for (long long i = last + threadIdx.x; i < end; i += blockDim.x) s[i - base] = p[i];
  return base;
}

// Elements of a stage of n elements starting anywhere: n plus the V - 1 before the first.
constexpr std::size_t stage_elements(long long n, int v) { return static_cast<std::size_t>(n + v - 1); }

// fwd: VT lanes per pack of x (1: scalars).
template <typename T, int VT, int KH, int KW>
__global__ void pool_fwd_band(BandGeom b, const T* __restrict__ x, T* __restrict__ y, float* __restrict__ idx) {
  HIPRIM_DYNAMIC_SMEM(smem);
  T* xs = reinterpret_cast<T*>(smem);
  const PoolGeom& g = b.g;
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const std::uint32_t blk = blockIdx.x;
  const long long plane = b.bands_div.div(blk);
  const int band = static_cast<int>(blk - static_cast<std::uint32_t>(plane) * static_cast<std::uint32_t>(b.bands));
  const int oh0 = band * b.rows, oh1 = min(OH, oh0 + b.rows);
  const int h0 = max(0, oh0 * g.str[1] - g.pad[1]), h1 = min(H, (oh1 - 1) * g.str[1] - g.pad[1] + g.win[1]);
  const long long xbase = stage_span<T, VT>(x, plane * H * W + static_cast<long long>(h0) * W, max(0, h1 - h0) * W, xs);
  async_copy_wait();
  __syncthreads();
  const T* xrow0 = xs + (plane * H * W + static_cast<long long>(h0) * W - xbase);  // stage of row h0, column 0
  const int wh = trips<KH>(g.win[1]), ww = trips<KW>(g.win[2]);
  const int outputs = (oh1 - oh0) * OW;
  for (int i = threadIdx.x; i < outputs; i += blockDim.x) {
    const int r = static_cast<int>(b.row_div.div(static_cast<std::uint32_t>(i)));
    const int oh = oh0 + r, ow = i - r * OW;
    const int sh = oh * g.str[1] - g.pad[1], sw = ow * g.str[2] - g.pad[2];
    float best = 0.0f, acc = 0.0f;
    int best_k = 0, count = 0;
#pragma unroll
    for (int kh = 0; kh < wh; ++kh) {
      const int h = sh + kh;
#pragma unroll
      for (int kw = 0; kw < ww; ++kw) {
        const int w = sw + kw;
        if (h < 0 || h >= H || w < 0 || w >= W) continue;
        const float v = load_f(xrow0, static_cast<long long>(h - h0) * W + w);
        if (count == 0 || beats(v, best)) {
          best = v;
          best_k = kh * g.win[2] + kw;
        }
        acc = count == 0 ? v : acc + v;
        ++count;
      }
    }
    const long long yo = plane * OH * OW + static_cast<long long>(oh) * OW + ow;
    if (g.mode == 0) {
      store_f(y, yo, best);
      idx[yo] = static_cast<float>(best_k);
    } else {
      store_f(y, yo, acc / static_cast<float>(g.mode == 1 ? g.win[1] * g.win[2] : count));
    }
  }
}

// bwd: VT lanes per pack of dy, VI of idx (1: scalars); MH x MW the most windows containing a
// position along h and w (0: run time).
template <typename T, int VT, int VI, int MH, int MW>
__global__ void pool_bwd_band(BandGeom b, const T* __restrict__ dy, const float* __restrict__ idx, T* __restrict__ dx) {
  HIPRIM_DYNAMIC_SMEM(smem);
  T* dys = reinterpret_cast<T*>(smem);
  float* idxs = reinterpret_cast<float*>(smem + b.stage_offset);
  const PoolGeom& g = b.g;
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const std::uint32_t blk = blockIdx.x;
  const long long plane = b.bands_div.div(blk);
  const int band = static_cast<int>(blk - static_cast<std::uint32_t>(plane) * static_cast<std::uint32_t>(b.bands));
  const int h0 = band * b.rows, h1 = min(H, h0 + b.rows);
  int olo, ohi, unused;
  windows_of(g, 1, h0, olo, unused);
  windows_of(g, 1, h1 - 1, unused, ohi);
  const long long ybegin = plane * OH * OW + static_cast<long long>(olo) * OW;
  const int staged = max(0, ohi - olo + 1) * OW;
  const long long dybase = stage_span<T, VT>(dy, ybegin, staged, dys);
  const long long ibase = g.mode == 0 ? stage_span<float, VI>(idx, ybegin, staged, idxs) : 0;
  async_copy_wait();
  __syncthreads();
  const T* dyrow0 = dys + (ybegin - dybase);      // stage of dy row olo, column 0
  const float* irow0 = g.mode == 0 ? idxs + (ybegin - ibase) : nullptr;  // the same for idx (max only)
  const int positions = (h1 - h0) * W;
  for (int i = threadIdx.x; i < positions; i += blockDim.x) {
    const int r = static_cast<int>(b.row_div.div(static_cast<std::uint32_t>(i)));
    const int h = h0 + r, w = i - r * W;
    int lh, hh, lw, hw;
    windows_of(g, 1, h, lh, hh);
    windows_of(g, 2, w, lw, hw);
    const int nh = MH > 0 ? MH : hh - lh + 1, nw = MW > 0 ? MW : hw - lw + 1;
    float acc = 0.0f;
#pragma unroll
    for (int jh = 0; jh < nh; ++jh) {
      const int oh = lh + jh, sh = oh * g.str[1] - g.pad[1];
#pragma unroll
      for (int jw = 0; jw < nw; ++jw) {
        const int ow = lw + jw, sw = ow * g.str[2] - g.pad[2];
        if (oh > hh || ow > hw) continue;
        const int so = (oh - olo) * OW + ow;
        const float gv = load_f(dyrow0, so);
        if (g.mode == 0) {
          if (irow0[so] == static_cast<float>((h - sh) * g.win[2] + (w - sw))) acc += gv;
        } else {
          acc += gv / window_divisor(g, 0, sh, sw);
        }
      }
    }
    store_f(dx, plane * H * W + static_cast<long long>(h) * W + w, acc);
  }
}

// The band height, band count and staged bytes of p (kBandWork, kBandSmem), or nullopt when even
// a one-row band's stage exceeds kBandSmemMax. Packs of 16 bytes assumed for the stage's slack.
struct BandPlan {
  int rows, bands;
  std::size_t dy_bytes, smem;  // smem: every stage, dy's (or x's) first, each 16-byte aligned
};

std::size_t align16(std::size_t n) { return (n + 15) / 16 * 16; }

std::optional<BandPlan> band_plan(const PoolProblem& p) {
  const PoolGeom g = pool_geom(p, 1);
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const bool fwd = p.dir == PoolDir::fwd, with_idx = !fwd && p.mode == PoolMode::max;
  const std::size_t es = dtype_size(p.shape.dtype);
  const int total = fwd ? OH : H, row = fwd ? OW : W;
  // Staged bytes of bands of `rows` rows: the largest over the bands.
  auto plan = [&](int rows) {
    BandPlan b{rows, (total + rows - 1) / rows, 0, 0};
    long long most = 0;
    for (int k = 0; k < b.bands; ++k) {
      const int a = k * rows, z = std::min(total, a + rows);
      long long span;
      if (fwd) {
        span = static_cast<long long>(std::min(H, (z - 1) * g.str[1] - g.pad[1] + g.win[1]) - std::max(0, a * g.str[1] - g.pad[1])) * W;
      } else {
        // windows_of on the host: rows lo(a) .. hi(z - 1)
        const int first = std::max(0, (a + g.pad[1] - g.win[1] + 1 + g.str[1] - 1) / g.str[1]);
        const int last = std::min(OH - 1, (z - 1 + g.pad[1]) / g.str[1]);
        span = static_cast<long long>(std::max(0, last - first + 1)) * OW;
      }
      most = std::max(most, span);
    }
    b.dy_bytes = align16(stage_elements(most, static_cast<int>(16 / es)) * es);
    b.smem = b.dy_bytes + (with_idx ? align16(stage_elements(most, 4) * 4) : 0);
    return b;
  };
  const int want = (static_cast<long long>(total) * row + kBandWork - 1) / kBandWork;  // bands of about kBandWork
  int rows = std::max(1, (total + want - 1) / want);
  BandPlan b = plan(rows);
  while (b.smem > kBandSmem && rows > 1) b = plan(rows = (rows + 1) / 2);
  if (b.smem > kBandSmemMax) return std::nullopt;
  return b;
}

// Threads of a band's block: a power of two covering its work, 64 to 256.
int band_threads(const BandPlan& b, int row) {
  int t = 64;
  while (t < 256 && t < b.rows * row) t *= 2;
  return t;
}

template <typename T, bool Packed>
void launch(const PoolProblem& p, const BandPlan& plan, const std::vector<void*>& buf, hipStream_t stream, const std::string& solver) {
  constexpr int VT = Packed ? kVec<T> : 1, VI = Packed ? 4 : 1;
  BandGeom b{};
  b.g = pool_geom(p, 1);
  b.rows = plan.rows;
  b.bands = plan.bands;
  b.bands_div = FastDiv(static_cast<std::uint32_t>(plan.bands));
  const bool fwd = p.dir == PoolDir::fwd, is_max = p.mode == PoolMode::max;
  const int row = fwd ? b.g.out[2] : b.g.in[2];
  b.row_div = FastDiv(static_cast<std::uint32_t>(row));
  b.stage_offset = static_cast<int>(plan.dy_bytes);
  const unsigned blocks = static_cast<unsigned>(p.shape.n * p.shape.c * plan.bands);
  const int threads = band_threads(plan, row);
  auto ctx = [&] { return "running " + solver + " on " + to_string(p); };
  with_window_trips(p.dir, b.g, [&]<int KH, int KW>() {
    if (fwd) {
      hipLaunchKernelGGL((pool_fwd_band<T, VT, KH, KW>), dim3(blocks), dim3(threads), plan.smem, stream, b, static_cast<const T*>(buf[0]),
                         static_cast<T*>(buf[1]), is_max ? static_cast<float*>(buf[2]) : nullptr);
      check_launch_lazy("pool_fwd_band", ctx);
    } else {
      hipLaunchKernelGGL((pool_bwd_band<T, VT, VI, KH, KW>), dim3(blocks), dim3(threads), plan.smem, stream, b,
                         static_cast<const T*>(buf[0]), is_max ? static_cast<const float*>(buf[1]) : nullptr,
                         static_cast<T*>(buf[is_max ? 2 : 1]));
      check_launch_lazy("pool_bwd_band", ctx);
    }
  });
}

class PoolNchwBand final : public TypedOpSolver<PoolProblem> {
 public:
  std::string name() const override { return "pool.nchw.band"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "NCHW 2D: one block per (plane, band of rows), the band's input (fwd) or dy/idx rows (bwd) staged once in shared "
           "memory by 16-byte async copies, windows read from there; max, avg_incl, avg_excl; fwd/bwd; fp32/fp16/bf16";
  }

 protected:
  Applicability applicable_to(const PoolProblem& p) const override {
    if (p.shape.channels_last || p.rank() != 2)
      return Applicability::no("layout " + p.shape.layout_name() + ": bands of rows are 2D channels first (nchw) only");
    if (!band_plan(p))
      return Applicability::no("a band of one row stages more than " + std::to_string(kBandSmemMax / 1024) +
                               " KiB (rows of w = " + std::to_string(p.shape.in.back()) + ")");
    if (static_cast<double>(p.shape.n) * static_cast<double>(p.shape.c) * static_cast<double>(band_plan(p)->bands) >= 2147483648.0)
      return Applicability::no("2^31 blocks or more (n * c * bands)");
    return Applicability::yes();
  }
  void run_typed(const PoolProblem& p, const std::vector<void*>& b, void*, void* stream) const override {
    const BandPlan plan = *band_plan(p);
    dispatch_dtype(p.shape.dtype, [&]<typename T>() {
      bool packed = true;  // every buffer aligned to 16 bytes (x / dy packs of T, idx packs of fp32)
      for (void* ptr : b) packed = packed && aligned_for_pack<float, 4>(ptr);
      if (packed)
        launch<T, true>(p, plan, b, static_cast<hipStream_t>(stream), name());
      else
        launch<T, false>(p, plan, b, static_cast<hipStream_t>(stream), name());
    });
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_pool_nchw_band() { return std::make_shared<PoolNchwBand>(); }

}  // namespace hiprim::gpu
