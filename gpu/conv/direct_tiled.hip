// conv.direct.tiled: direct 2D convolution (mode conv) with shared-memory tiles. Deterministic: no
// atomics, every sum in a fixed order in fp32. Layout: any strides (NCHW or NHWC), via ConvGeom
// (gpu/conv/conv_index.hpp; In = x, Out = y, W = w [K, C/G, R, S], depth 1).
//
// fwd:  y[n,k,oh,ow] = sum_{cc,r,s} x[n, g*Cg+cc, oh*sh-ph+r*dh, ow*sw-pw+s*dw] * w[k,cc,r,s] (+bias[k])
//   block = 16x8 output pixels (one per thread) x 8 output channels of one group, one image n.
//   Per chunk of input channels it stages the x tile with its halo, (8-1)*sh+(R-1)*dh+1 rows by
//   (16-1)*sw+(S-1)*dw+1 columns (zeros in the padding), and w[8 k][chunk][R][S], in shared memory.
// bwd-data: dx[n,c,ih,iw] = sum_{k in group, r, s: (ih+ph-r*dh) = oh*sh, (iw+pw-s*dw) = ow*sw} dy[n,k,oh,ow] * w[k,c%Cg,r,s]
//   block = 16x8 dx pixels x 8 input channels of one group. Per chunk of output channels it stages
//   the dy rows/cols that the tile can reach (out_range_of_in_tile, at most out_span_bound of them;
//   zeros outside dy) and w[8 c][chunk][R][S]; each thread keeps the taps whose division is exact.
// bwd-weights: dw[k,cc,r,s] = sum_{n,oh,ow} dy[n,k,oh,ow] * x[n, g*Cg+cc, oh*sh-ph+r*dh, ow*sw-pw+s*dw]
//   block = one k x 16 consecutive (cc, r, s) of it; 256 threads stride over n*OH*OW, each loads dy
//   once for all 16; the block's partial sums meet in a shared-memory tree reduction.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kTileW = 16, kTileH = 8, kTileThreads = kTileW * kTileH;  // one pixel per thread
constexpr int kChPerBlock = 8;                 // output channels (fwd) / input channels (bwd-data) per block
constexpr int kMaxChunk = 16;                  // reduction channels staged at once
constexpr long long kSharedBudget = 48 * 1024; // bytes: the default per-block limit on NVIDIA, < 64 KiB LDS on AMD
constexpr int kWThreads = 256, kWCombos = 16;  // bwd-weights: threads (a power of two), (cc,r,s) per block
constexpr long long kMaxBlocks = 2147483647LL;

// Shared-memory tile shape of a fwd or bwd-data launch.
struct TileShape {
  int chunk = 0;             // reduction channels per stage
  int tile_h = 0, tile_w = 0;  // staged rows/cols of the input (fwd: x with halo; bwd-data: dy)
  int tiles_h = 0, tiles_w = 0, ch_blocks = 0;
  long long blocks = 0;
  std::size_t shared_bytes = 0;
};

// fwd stages x tiles (in_span of the output tile) and reduces over Cg; bwd-data stages dy tiles
// (out_span_bound of the dx tile) and reduces over Kg.
TileShape tile_shape(const ConvGeom& g, bool fwd) {
  TileShape t;
  const int R = g.f_sz[1], S = g.f_sz[2];
  if (fwd) {
    t.tile_h = static_cast<int>(in_span(kTileH, R, g.stride[1], g.dil[1]));
    t.tile_w = static_cast<int>(in_span(kTileW, S, g.stride[2], g.dil[2]));
  } else {
    t.tile_h = static_cast<int>(out_span_bound(kTileH, R, g.stride[1], g.dil[1]));
    t.tile_w = static_cast<int>(out_span_bound(kTileW, S, g.stride[2], g.dil[2]));
  }
  const long long reduce = fwd ? g.in_per_group() : g.out_per_group();
  const long long per_channel = (1LL * t.tile_h * t.tile_w + 1LL * kChPerBlock * R * S) * 4;
  const long long fit = kSharedBudget / per_channel;
  t.chunk = static_cast<int>(std::min<long long>({reduce, fit, kMaxChunk}));
  t.shared_bytes = static_cast<std::size_t>(t.chunk * per_channel);
  const int res_h = fwd ? g.out_sz[1] : g.in_sz[1], res_w = fwd ? g.out_sz[2] : g.in_sz[2];
  t.tiles_h = (res_h + kTileH - 1) / kTileH;
  t.tiles_w = (res_w + kTileW - 1) / kTileW;
  const int per_group = fwd ? g.out_per_group() : g.in_per_group();
  t.ch_blocks = (per_group + kChPerBlock - 1) / kChPerBlock;
  t.blocks = 1LL * t.tiles_h * t.tiles_w * g.batch * g.groups * t.ch_blocks;
  return t;
}

// The block's place: which pixel tile, image, group and channel block (channels first..first+count).
struct TileBlock {
  int n, group, ch_first, ch_count, row0, col0;
};
__device__ TileBlock tile_block(const TileShape& t, int per_group, int groups) {
  long long b = blockIdx.x;
  TileBlock tb;
  const int tile = static_cast<int>(b % (1LL * t.tiles_h * t.tiles_w));
  b /= 1LL * t.tiles_h * t.tiles_w;
  const int cb = static_cast<int>(b % (1LL * groups * t.ch_blocks));
  tb.n = static_cast<int>(b / (1LL * groups * t.ch_blocks));
  tb.group = cb / t.ch_blocks;
  tb.ch_first = (cb % t.ch_blocks) * kChPerBlock;  // within the group
  tb.ch_count = min(kChPerBlock, per_group - tb.ch_first);
  tb.row0 = (tile / t.tiles_w) * kTileH;
  tb.col0 = (tile % t.tiles_w) * kTileW;
  return tb;
}

template <typename T>
__global__ void __launch_bounds__(kTileThreads)
    tiled_fwd(ConvGeom g, TileShape t, const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias,
              T* __restrict__ y) {
  extern __shared__ float smem[];
  const int R = g.f_sz[1], S = g.f_sz[2], RS = R * S, cg = g.in_per_group();
  float* xs = smem;                                   // [chunk][tile_h][tile_w]
  float* ws = smem + t.chunk * t.tile_h * t.tile_w;   // [kChPerBlock][chunk][R*S]
  const TileBlock b = tile_block(t, g.out_per_group(), g.groups);
  const int k_first = b.group * g.out_per_group() + b.ch_first;
  const long long ih0 = in_pos(b.row0, 0, g.stride[1], g.pad[1], g.dil[1]);
  const long long iw0 = in_pos(b.col0, 0, g.stride[2], g.pad[2], g.dil[2]);
  const int ty = threadIdx.x / kTileW, tx = threadIdx.x % kTileW;
  float acc[kChPerBlock] = {};
  for (int c0 = 0; c0 < cg; c0 += t.chunk) {
    const int cn = min(t.chunk, cg - c0);
    const int x_elems = t.chunk * t.tile_h * t.tile_w;
    for (int e = threadIdx.x; e < x_elems; e += blockDim.x) {
      const int cc = e / (t.tile_h * t.tile_w), rem = e % (t.tile_h * t.tile_w);
      const long long ih = ih0 + rem / t.tile_w, iw = iw0 + rem % t.tile_w;
      float v = 0.0f;
      if (cc < cn && ih >= 0 && ih < g.in_sz[1] && iw >= 0 && iw < g.in_sz[2])
        v = load_f(x, g.in_offset(b.n, b.group * cg + c0 + cc, 0, ih, iw));
      xs[e] = v;
    }
    for (int e = threadIdx.x; e < kChPerBlock * t.chunk * RS; e += blockDim.x) {
      const int kk = e / (t.chunk * RS), cc = (e / RS) % t.chunk, tap = e % RS;
      ws[e] = (kk < b.ch_count && cc < cn) ? load_f(w, g.w_offset(k_first + kk, c0 + cc, 0, tap / S, tap % S)) : 0.0f;
    }
    __syncthreads();
    for (int cc = 0; cc < cn; ++cc)
      for (int r = 0; r < R; ++r)
        for (int s = 0; s < S; ++s) {
          const long long row = staged_in_index(ty, r, g.stride[1], g.dil[1]);
          const long long col = staged_in_index(tx, s, g.stride[2], g.dil[2]);
          const float v = xs[(cc * t.tile_h + row) * t.tile_w + col];
#pragma unroll
          for (int kk = 0; kk < kChPerBlock; ++kk) acc[kk] += v * ws[(kk * t.chunk + cc) * RS + r * S + s];
        }
    __syncthreads();
  }
  const int oh = b.row0 + ty, ow = b.col0 + tx;
  if (oh >= g.out_sz[1] || ow >= g.out_sz[2]) return;
#pragma unroll
  for (int kk = 0; kk < kChPerBlock; ++kk)
    if (kk < b.ch_count) {
      float v = acc[kk];
      if (bias) v += load_f(bias, k_first + kk);
      store_f(y, g.out_offset(b.n, k_first + kk, 0, oh, ow), v);
    }
}

template <typename T>
__global__ void __launch_bounds__(kTileThreads)
    tiled_bwd_data(ConvGeom g, TileShape t, const T* __restrict__ dy, const T* __restrict__ w, T* __restrict__ dx) {
  extern __shared__ float smem[];
  const int R = g.f_sz[1], S = g.f_sz[2], RS = R * S, kg = g.out_per_group();
  float* ys = smem;                                  // [chunk][tile_h][tile_w] of dy
  float* ws = smem + t.chunk * t.tile_h * t.tile_w;  // [kChPerBlock][chunk][R*S]
  const TileBlock b = tile_block(t, g.in_per_group(), g.groups);
  const int c_first = b.ch_first;  // within the group (w's second index)
  const long long oh_lo = out_range_of_in_tile(b.row0, kTileH, R, g.stride[1], g.pad[1], g.dil[1]).lo;
  const long long ow_lo = out_range_of_in_tile(b.col0, kTileW, S, g.stride[2], g.pad[2], g.dil[2]).lo;
  const int ty = threadIdx.x / kTileW, tx = threadIdx.x % kTileW;
  const int ih = b.row0 + ty, iw = b.col0 + tx;
  float acc[kChPerBlock] = {};
  for (int k0 = 0; k0 < kg; k0 += t.chunk) {
    const int kn = min(t.chunk, kg - k0);
    const int y_elems = t.chunk * t.tile_h * t.tile_w;
    for (int e = threadIdx.x; e < y_elems; e += blockDim.x) {
      const int kk = e / (t.tile_h * t.tile_w), rem = e % (t.tile_h * t.tile_w);
      const long long oh = oh_lo + rem / t.tile_w, ow = ow_lo + rem % t.tile_w;
      float v = 0.0f;
      if (kk < kn && oh >= 0 && oh < g.out_sz[1] && ow >= 0 && ow < g.out_sz[2])
        v = load_f(dy, g.out_offset(b.n, b.group * kg + k0 + kk, 0, oh, ow));
      ys[e] = v;
    }
    for (int e = threadIdx.x; e < kChPerBlock * t.chunk * RS; e += blockDim.x) {
      const int cc = e / (t.chunk * RS), kk = (e / RS) % t.chunk, tap = e % RS;
      ws[e] = (cc < b.ch_count && kk < kn)
                  ? load_f(w, g.w_offset(b.group * kg + k0 + kk, c_first + cc, 0, tap / S, tap % S))
                  : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < kn; ++kk)
      for (int r = 0; r < R; ++r) {
        const long long row = staged_out_index(ih, r, g.stride[1], g.pad[1], g.dil[1], oh_lo);  // -1 or < tile_h
        if (row < 0) continue;
        for (int s = 0; s < S; ++s) {
          const long long col = staged_out_index(iw, s, g.stride[2], g.pad[2], g.dil[2], ow_lo);
          if (col < 0) continue;
          const float v = ys[(kk * t.tile_h + row) * t.tile_w + col];
#pragma unroll
          for (int cc = 0; cc < kChPerBlock; ++cc) acc[cc] += v * ws[(cc * t.chunk + kk) * RS + r * S + s];
        }
      }
    __syncthreads();
  }
  if (ih >= g.in_sz[1] || iw >= g.in_sz[2]) return;
#pragma unroll
  for (int cc = 0; cc < kChPerBlock; ++cc)
    if (cc < b.ch_count)
      store_f(dx, g.in_offset(b.n, b.group * g.in_per_group() + c_first + cc, 0, ih, iw), acc[cc]);
}

template <typename T>
__global__ void __launch_bounds__(kWThreads)
    tiled_bwd_weights(ConvGeom g, int combo_blocks, const T* __restrict__ x, const T* __restrict__ dy,
                      T* __restrict__ dw) {
  __shared__ float red[kWCombos * kWThreads];  // [combo][thread] partial sums
  __shared__ long long c_off[kWCombos];       // x offset of the combo's channel
  __shared__ int dh_of[kWCombos], dw_of[kWCombos];  // ih = oh*sh + dh_of, iw = ow*sw + dw_of
  const int S = g.f_sz[2], RS = g.f_sz[1] * S, cg = g.in_per_group();
  const int co = blockIdx.x / combo_blocks;
  const int combo0 = (blockIdx.x % combo_blocks) * kWCombos;
  const int combos = min(kWCombos, cg * RS - combo0);
  const int tid = threadIdx.x;
  if (tid < kWCombos) {
    const int combo = min(combo0 + tid, cg * RS - 1);  // past the end: a valid duplicate, never stored
    const int cc = combo / RS, r = (combo % RS) / S, s = combo % S;
    c_off[tid] = (1LL * (co / g.out_per_group()) * cg + cc) * g.in_str[1];
    dh_of[tid] = r * g.dil[1] - g.pad[1];
    dw_of[tid] = s * g.dil[2] - g.pad[2];
  }
  __syncthreads();
  float acc[kWCombos] = {};
  const long long plane = 1LL * g.out_sz[1] * g.out_sz[2], total = g.batch * plane;
  for (long long j = tid; j < total; j += blockDim.x) {
    const long long n = j / plane, oh = (j % plane) / g.out_sz[2], ow = j % g.out_sz[2];
    const float v = load_f(dy, g.out_offset(n, co, 0, oh, ow));
#pragma unroll
    for (int c = 0; c < kWCombos; ++c) {
      const long long ih = oh * g.stride[1] + dh_of[c], iw = ow * g.stride[2] + dw_of[c];
      if (ih >= 0 && ih < g.in_sz[1] && iw >= 0 && iw < g.in_sz[2])
        acc[c] += v * load_f(x, n * g.in_str[0] + c_off[c] + ih * g.in_str[3] + iw * g.in_str[4]);
    }
  }
#pragma unroll
  for (int c = 0; c < kWCombos; ++c) red[c * kWThreads + tid] = acc[c];
  __syncthreads();
  for (int half = kWThreads / 2; half > 0; half /= 2) {  // fixed pairing: deterministic
    if (tid < half)
#pragma unroll
      for (int c = 0; c < kWCombos; ++c) red[c * kWThreads + tid] += red[c * kWThreads + tid + half];
    __syncthreads();
  }
  if (tid < combos) {
    const int combo = combo0 + tid, cc = combo / RS, r = (combo % RS) / S, s = combo % S;
    store_f(dw, g.w_offset(co, cc, 0, r, s), red[tid * kWThreads]);
  }
}

int weight_combo_blocks(const ConvGeom& g) {
  return static_cast<int>((1LL * g.in_per_group() * g.taps() + kWCombos - 1) / kWCombos);
}

class ConvDirectTiled final : public ConvSolver {
 public:
  std::string name() const override { return "conv.direct.tiled"; }
  Backend backend() const override { return Backend::device; }
  // fwd multiplies the x tile's staged padding zeros; bwd-data multiplies the staged zeros outside dy
  // (taps whose division is exact) and skips inexact taps (staged_out_index -1); bwd-weights checks bounds.
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override {
    if (p.dir == ConvDir::fwd) return ImplicitZeros::all(ZeroTerm::multiplied);
    if (p.dir == ConvDir::bwd_data) return {.padding = ZeroTerm::skipped, .border_taps = ZeroTerm::multiplied, .stride_holes = ZeroTerm::skipped};
    return ImplicitZeros::all(ZeroTerm::skipped);
  }
  std::string summary() const override {
    return "direct with shared-memory tiles; fwd (+bias), bwd-data, bwd-weights; 2D mode conv only; groups, "
           "stride/pad/dilation; fp32/fp16/bf16; nchw/nhwc";
  }
  Applicability applicable(const ConvProblem& p) const override {
    auto errors = p.validate();
    if (!errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (p.rank() != 2) return Applicability::no("3D (spatial rank 3) is not handled: 2D kernels only");
    if (p.mode != ConvMode::conv) return Applicability::no("transposed convolution (mode trans) is not handled");
    const ConvGeom g = conv_geom(p);
    if (p.dir == ConvDir::bwd_weights) {
      const long long blocks = 1LL * g.out_ch * weight_combo_blocks(g);
      if (blocks > kMaxBlocks) return Applicability::no("bwd-weights grid of " + std::to_string(blocks) + " blocks exceeds 2^31-1");
      return Applicability::yes();
    }
    const bool fwd = p.dir == ConvDir::fwd;
    const TileShape t = tile_shape(g, fwd);
    if (t.chunk < 1)
      return Applicability::no(std::string(fwd ? "x" : "dy") + " tile of " + std::to_string(t.tile_h) + "x" +
                               std::to_string(t.tile_w) + " plus the filter slice of " + std::to_string(kChPerBlock) +
                               "x" + std::to_string(g.f_sz[1]) + "x" + std::to_string(g.f_sz[2]) +
                               " floats for one channel exceeds the " + std::to_string(kSharedBudget) +
                               "-byte shared-memory budget (large filter, stride or dilation)");
    if (t.blocks > kMaxBlocks) return Applicability::no("grid of " + std::to_string(t.blocks) + " blocks exceeds 2^31-1");
    return Applicability::yes();
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& tensors) const override {
    const ConvGeom g = conv_geom(p);
    const ConvOperands o = conv_operands(p, tensors);
    const auto stream = static_cast<hipStream_t>(tensors.stream);
    const std::string ctx = "running conv.direct.tiled on " + to_string(p);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if (p.dir == ConvDir::bwd_weights) {
        const int cb = weight_combo_blocks(g);
        hipLaunchKernelGGL(tiled_bwd_weights<T>, dim3(static_cast<unsigned>(1LL * g.out_ch * cb)), dim3(kWThreads), 0, stream,
                           g, cb, static_cast<const T*>(o.in), static_cast<const T*>(o.out), static_cast<T*>(o.w));
        HIPRIM_CHECK_LAUNCH("tiled_bwd_weights", ctx);
        return;
      }
      const bool fwd = p.dir == ConvDir::fwd;
      const TileShape t = tile_shape(g, fwd);
      const dim3 grid(static_cast<unsigned>(t.blocks)), block(kTileThreads);
      if (fwd) {
        const T* bias = static_cast<const T*>(p.bias ? o.bias : nullptr);
        hipLaunchKernelGGL(tiled_fwd<T>, grid, block, t.shared_bytes, stream, g, t, static_cast<const T*>(o.in),
                           static_cast<const T*>(o.w), bias, static_cast<T*>(o.out));
        HIPRIM_CHECK_LAUNCH("tiled_fwd", ctx);
      } else {
        hipLaunchKernelGGL(tiled_bwd_data<T>, grid, block, t.shared_bytes, stream, g, t, static_cast<const T*>(o.out),
                           static_cast<const T*>(o.w), static_cast<T*>(o.in));
        HIPRIM_CHECK_LAUNCH("tiled_bwd_data", ctx);
      }
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_direct_tiled() { return std::make_shared<ConvDirectTiled>(); }

}  // namespace hiprim::gpu
