// conv.direct.grouped: direct (non-GEMM) grouped and depthwise 2D convolution, channels-last, mode
// conv, for the memory-bound shapes: depthwise (G = C = K, or K = m*C) and small groups (C/G, K/G <= 32).
//
// Layout (packed NHWC): x [N][H][W][C], y [N][P][Q][K], w [K][R][S][Cg]; Cg = C/G, Kg = K/G, and
// output channel k lies in group g = k / Kg, which reads input channels g*Cg .. g*Cg + Cg-1.
//   fwd:         y[n,p,q,k]   = sum_{r,s,cc} x[n, p*sh-ph+r*dh, q*sw-pw+s*dw, g*Cg+cc] * w[k,r,s,cc] (+ bias[k])
//   bwd-data:    dx[n,h,v,c]  = sum_{r,s,kk} dy[n,p,q,g*Kg+kk] * w[g*Kg+kk,r,s,c-g*Cg]   (g = c / Cg)
//                               over the taps with h+ph-r*dh = p*sh, v+pw-s*dw = q*sw, 0 <= p < P, 0 <= q < Q
//   bwd-weights: dw[k,r,s,cc] = sum_{n,p,q} dy[n,p,q,k] * x[n, p*sh-ph+r*dh, q*sw-pw+s*dw, g*Cg+cc]
//
// fwd and bwd-data are one gather (dg_gather) from "In" to "Out": fwd In = x, Out = y; bwd-data
// In = dy, Out = dx. A thread computes V consecutive Out channels (one Pack<T, V>, 16 bytes where
// the channel counts allow) of kPix Out pixels, in fp32 registers; a block is cvb channel vectors x
// (256 / cvb) pixel lanes, stages its channels' filter slice w_s[tap][i][j] (fp32) in shared memory
// once and walks tiles_per_block pixel tiles. Per tap a pixel loads
//   depthwise (In and Out groups of one channel): In channels o0..o0+V-1, one pack;
//   grouped (V | Out per group, so the V lanes share a group): In channels g*CIg + i, XW per pack,
//   each In value feeding all V lanes with the staged weights w_s[tap][i][lane].
// The reads are bounds-checked: a tap outside In (padding; in bwd-data also inexact divisions and
// positions past dy's edge) is skipped, never multiplied. Index math: 32-bit, pixel coordinates by
// multiply-shift division (FastDiv) once per pixel and tile.
//
// Perf configs: "gather" (dg_gather, dg_wgrad_*) and, for depthwise 3x3, rows.q2 / rows.q4 (the row
// kernels of gpu/conv/depthwise_rows.hpp; rows.q4 is the default where they apply).
//
// bwd-weights (deterministic, no atomics): pass 1 (dg_wgrad_partial) splits the N*P*Q pixels into
// `chunks` fixed chunks (about 528 blocks); a block = one chunk x one chunk of <= 9 taps x cpb
// "combos" (V consecutive k of one cc; cpb <= 32, the problem's combo count rounded up to a power of
// two) x 256/cpb pixel lanes; lane l sums pixels l, l+lanes, ... of the chunk, the lanes are added
// in lane order, and the chunk's partial goes to the fp32 workspace part[chunk][w element]. Pass 2
// (dg_wgrad_sum) adds the chunks of each element in chunk order and rounds once to the dtype. The
// chunking depends on the problem only (not on the device or the pointers' alignment).
//
// Error model: fp32 sums of the L terms of the conv (plus the bias, added last), each term a product
// of two stored values; the compiler may contract a += x*w into one FMA, which rounds once where
// a multiply and an add round twice: each term still passes <= L roundings, so gamma(L) bounds it
// (reference/error_model.hpp), accumulation_error_factor 1. The order of every sum is fixed by the
// problem (taps r, s, then channels; the lane split never changes an element's order).
#include <algorithm>
#include <numeric>
#include <string>

#include "gpu/common/fast_div.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/conv/depthwise_rows.hpp"
#include "gpu/conv/direct_grouped_wgrad.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kThreads = 256;          // every gather block
constexpr int kPix = 2;                // Out pixels per thread (one weight read serves both)
constexpr int kMaxCvb = 8;             // channel vectors per block (<= 8 distinct weight addresses per warp)
constexpr int kMaxPerGroup = 32;       // C/G and K/G limit: beyond it a GEMM solver is faster
constexpr int kMaxSliceTaps = 1024;    // R*S*(reduction channels per group): the staged slice of one vector
constexpr int kSmemBytes = 32 * 1024;  // staged filter slice per block (kMaxSliceTaps * 8 lanes * 4 bytes)
constexpr long long kTargetBlocks = 4096;  // gather grid: more tiles per block beyond this
constexpr int kMaxSpatial = 1 << 20;   // sizes, pads, strides, dilations: 32-bit index math stays exact

// ---- fwd and bwd-data: the gather ----

struct GatherGeom {
  int in_h, in_w, in_c, in_g;      // In [N][in_h][in_w][in_c], in_g channels per group
  int out_h, out_w, out_c, out_g;  // Out [N][out_h][out_w][out_c]
  int R, S, sh, sw, ph, pw, dh, dw;
  int npix;                        // N * out_h * out_w
  FastDiv div_ow, div_oh, div_sh, div_sw;
  int cvb, lanes, slices, tiles, tiles_per_block;  // block: cvb vectors x lanes pixels; tile = lanes*kPix pixels
};

// The In position that Out position o reads through tap f on one axis, or -1 (outside In; bwd-data:
// also an inexact division). fwd: i = o*stride - pad + f*dil; bwd-data: o + pad - f*dil = i*stride.
template <bool kBwd>
__device__ __forceinline__ int tap_pos(int o, int f, int stride, int pad, int dil, const FastDiv& sdiv, int size) {
  if constexpr (!kBwd) {
    const int i = o * stride - pad + f * dil;
    return static_cast<unsigned>(i) < static_cast<unsigned>(size) ? i : -1;
  } else {
    const int t = o + pad - f * dil;
    if (t < 0) return -1;
    std::uint32_t q, rem;
    sdiv.divmod(static_cast<std::uint32_t>(t), q, rem);
    return rem == 0 && q < static_cast<std::uint32_t>(size) ? static_cast<int>(q) : -1;
  }
}

// V fp32 values of shared memory at p (p 4*V-byte aligned up to 16).
template <int V>
__device__ __forceinline__ void load_smem(const float* p, float (&v)[V]) {
  const Pack<float, V> pk = *reinterpret_cast<const Pack<float, V>*>(p);
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = pk.v[j];
}

// KRS: the filter's R = S when known at compile time (3: the tap loops unroll, so a thread issues all
// its loads of a pixel tile at once), 0: g.R x g.S at run time.
template <typename T, int V, int XW, bool kDw, bool kBwd, int KRS>
__global__ void __launch_bounds__(kThreads)
    dg_gather(GatherGeom g, const T* __restrict__ in, const T* __restrict__ w, const T* __restrict__ bias,
              T* __restrict__ out) {
  HIPRIM_DYNAMIC_SMEM(smem);
  float* ws = reinterpret_cast<float*>(smem);  // [R*S][cin][kb]: the weight of (Out channel o_blk+j, In channel i, tap)
  const int R = KRS ? KRS : g.R, S = KRS ? KRS : g.S;
  const int RS = R * S, cin = kDw ? 1 : g.in_g, kb = g.cvb * V;
  const int slice = static_cast<int>(blockIdx.x) % g.slices, tgroup = static_cast<int>(blockIdx.x) / g.slices;
  const int o_blk = slice * kb;
  for (int e = threadIdx.x; e < RS * cin * kb; e += blockDim.x) {
    const int j = e % kb, i = (e / kb) % cin, tap = e / (kb * cin), o = o_blk + j;
    float v = 0.0f;
    if (o < g.out_c) {
      // fwd: w[o][tap][i]; bwd-data: w[gr*Kg + i][tap][o - gr*Cg] with gr = o / Cg (Kg = in_g, Cg = out_g)
      const int gr = o / g.out_g;
      const int idx = kBwd ? ((gr * g.in_g + i) * RS + tap) * g.out_g + (o - gr * g.out_g) : (o * RS + tap) * g.in_g + i;
      v = load_f(w, idx);
    }
    ws[e] = v;
  }
  __syncthreads();
  const int cv = static_cast<int>(threadIdx.x) % g.cvb, lane = static_cast<int>(threadIdx.x) / g.cvb;
  const int o0 = o_blk + cv * V;  // the thread's first Out channel; V divides out_c
  const bool ch_ok = o0 < g.out_c;
  const int in_c0 = kDw ? o0 : (o0 / g.out_g) * g.in_g;  // first In channel its lanes read
  const float* wt = ws + cv * V;
  const int t_lo = tgroup * g.tiles_per_block, t_hi = min(g.tiles, t_lo + g.tiles_per_block);
  for (int tile = t_lo; tile < t_hi; ++tile) {
    int pix[kPix], img[kPix], oa[kPix], ob[kPix];
    bool ok[kPix];
#pragma unroll
    for (int u = 0; u < kPix; ++u) {
      pix[u] = (tile * kPix + u) * g.lanes + lane;
      ok[u] = ch_ok && pix[u] < g.npix;
      std::uint32_t nq, b, n, a;
      g.div_ow.divmod(static_cast<std::uint32_t>(ok[u] ? pix[u] : 0), nq, b);
      g.div_oh.divmod(nq, n, a);
      img[u] = static_cast<int>(n) * g.in_h;
      oa[u] = static_cast<int>(a);
      ob[u] = static_cast<int>(b);
    }
    float acc[kPix][V] = {};
#pragma unroll
    for (int r = 0; r < R; ++r) {
      int row[kPix];
#pragma unroll
      for (int u = 0; u < kPix; ++u) row[u] = ok[u] ? tap_pos<kBwd>(oa[u], r, g.sh, g.ph, g.dh, g.div_sh, g.in_h) : -1;
#pragma unroll
      for (int s = 0; s < S; ++s) {
        int off[kPix];
        bool use[kPix];
#pragma unroll
        for (int u = 0; u < kPix; ++u) {
          const int col = row[u] < 0 ? -1 : tap_pos<kBwd>(ob[u], s, g.sw, g.pw, g.dw, g.div_sw, g.in_w);
          use[u] = col >= 0;
          off[u] = ((img[u] + row[u]) * g.in_w + col) * g.in_c + in_c0;
        }
        const float* wtap = wt + (r * S + s) * cin * kb;
        if constexpr (kDw) {
          float xv[kPix][V] = {}, wv[V];
#pragma unroll
          for (int u = 0; u < kPix; ++u)
            if (use[u]) load_pack<T, V>(in, off[u], xv[u]);
          load_smem<V>(wtap, wv);
#pragma unroll
          for (int u = 0; u < kPix; ++u)
            if (use[u])
#pragma unroll
              for (int j = 0; j < V; ++j) acc[u][j] += xv[u][j] * wv[j];
        } else {
          for (int c = 0; c < cin; c += XW) {
            float xv[kPix][XW] = {};
#pragma unroll
            for (int u = 0; u < kPix; ++u)
              if (use[u]) load_pack<T, XW>(in, off[u] + c, xv[u]);
#pragma unroll
            for (int e = 0; e < XW; ++e) {
              float wv[V];
              load_smem<V>(wtap + (c + e) * kb, wv);
#pragma unroll
              for (int u = 0; u < kPix; ++u)
                if (use[u])
#pragma unroll
                  for (int j = 0; j < V; ++j) acc[u][j] += xv[u][e] * wv[j];
            }
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kPix; ++u) {
      if (!ok[u]) continue;
      if (bias)
#pragma unroll
        for (int j = 0; j < V; ++j) acc[u][j] += load_f(bias, o0 + j);
      store_pack<T, V>(out, pix[u] * g.out_c + o0, acc[u]);
    }
  }
}

// The pack widths of a gather: V Out channels per thread, XW In channels per load (grouped), or the
// depthwise kernel (V In = Out channels per load).
struct Widths {
  int v = 1, xw = 1;
  bool dw = false;
};


Widths gather_widths(const GatherGeom& g, int kvec) {
  if (g.in_g == 1 && g.out_g == 1) {
    const int v = pow2_dividing(g.out_c, kvec);
    return {v, v, v > 1};
  }
  const int both = pow2_dividing(std::gcd(g.out_g, g.in_g), kvec);
  if (both > 1) return {both, both, false};
  const int v = pow2_dividing(g.out_g, kvec);
  if (v > 1) return {v, 1, false};
  return {1, pow2_dividing(g.in_g, kvec), false};
}

template <typename T, bool kBwd>
using GatherKernel = void (*)(GatherGeom, const T*, const T*, const T*, T*);

// taps3: a 3x3 filter (depthwise kernels only: there the loads dominate).
template <typename T, bool kBwd>
GatherKernel<T, kBwd> gather_kernel(const Widths& wd, bool taps3) {
  if (taps3 && wd.dw) {
    if (wd.v == 2) return &dg_gather<T, 2, 2, true, kBwd, 3>;
    if (wd.v == 4) return &dg_gather<T, 4, 4, true, kBwd, 3>;
    if constexpr (kVec<T> >= 8)
      if (wd.v == 8) return &dg_gather<T, 8, 8, true, kBwd, 3>;
  }
#define HIPRIM_DG_PICK(V, XW, DW) \
  if (wd.v == V && wd.xw == XW && wd.dw == DW) return &dg_gather<T, V, XW, DW, kBwd, 0>
  HIPRIM_DG_PICK(2, 2, true);
  HIPRIM_DG_PICK(4, 4, true);
  HIPRIM_DG_PICK(1, 2, false);
  HIPRIM_DG_PICK(1, 4, false);
  HIPRIM_DG_PICK(2, 1, false);
  HIPRIM_DG_PICK(2, 2, false);
  HIPRIM_DG_PICK(4, 1, false);
  HIPRIM_DG_PICK(4, 4, false);
  if constexpr (kVec<T> >= 8) {
    HIPRIM_DG_PICK(8, 8, true);
    HIPRIM_DG_PICK(1, 8, false);
    HIPRIM_DG_PICK(8, 1, false);
    HIPRIM_DG_PICK(8, 8, false);
  }
#undef HIPRIM_DG_PICK
  return &dg_gather<T, 1, 1, false, kBwd, 0>;
}

// The gather's geometry and block plan for p (fwd or bwd-data), with V = v Out channels per thread.
GatherGeom gather_geom(const ConvProblem& p, int v) {
  const bool bwd = p.dir == ConvDir::bwd_data;
  const Dims o = p.out();
  const int H = static_cast<int>(p.in[0]), W = static_cast<int>(p.in[1]);
  const int P = static_cast<int>(o[0]), Q = static_cast<int>(o[1]);
  const int C = static_cast<int>(p.c), K = static_cast<int>(p.k), G = static_cast<int>(p.groups);
  GatherGeom g{};
  g.in_h = bwd ? P : H, g.in_w = bwd ? Q : W, g.in_c = bwd ? K : C, g.in_g = (bwd ? K : C) / G;
  g.out_h = bwd ? H : P, g.out_w = bwd ? W : Q, g.out_c = bwd ? C : K, g.out_g = (bwd ? C : K) / G;
  g.R = static_cast<int>(p.filter[0]), g.S = static_cast<int>(p.filter[1]);
  g.sh = static_cast<int>(p.stride[0]), g.sw = static_cast<int>(p.stride[1]);
  g.ph = static_cast<int>(p.pad[0]), g.pw = static_cast<int>(p.pad[1]);
  g.dh = static_cast<int>(p.dilation[0]), g.dw = static_cast<int>(p.dilation[1]);
  g.npix = static_cast<int>(p.n * g.out_h * g.out_w);
  g.div_ow = FastDiv(static_cast<std::uint32_t>(g.out_w));
  g.div_oh = FastDiv(static_cast<std::uint32_t>(g.out_h));
  g.div_sh = FastDiv(static_cast<std::uint32_t>(g.sh));
  g.div_sw = FastDiv(static_cast<std::uint32_t>(g.sw));
  const int vectors = g.out_c / v;
  const bool dw = g.in_g == 1 && g.out_g == 1;
  const long long slice_floats = 1LL * g.R * g.S * (dw ? 1 : g.in_g) * v;  // per channel vector
  g.cvb = channel_vectors_per_block(vectors, kMaxCvb, [&](int c) { return slice_floats * c * 4 <= kSmemBytes; });
  g.lanes = kThreads / g.cvb;
  g.slices = (vectors + g.cvb - 1) / g.cvb;
  g.tiles = static_cast<int>((1LL * g.npix + 1LL * g.lanes * kPix - 1) / (1LL * g.lanes * kPix));
  g.tiles_per_block = static_cast<int>(std::max<long long>(1, (1LL * g.tiles * g.slices + kTargetBlocks - 1) / kTargetBlocks));
  return g;
}

std::size_t gather_smem(const GatherGeom& g, const Widths& wd) {
  return static_cast<std::size_t>(g.R) * g.S * (wd.dw ? 1 : g.in_g) * g.cvb * wd.v * sizeof(float);
}
unsigned gather_blocks(const GatherGeom& g) {
  return static_cast<unsigned>(1LL * g.slices * ((g.tiles + g.tiles_per_block - 1) / g.tiles_per_block));
}

// ---- fwd and bwd-data: the rows kernel of depthwise 3x3 (gpu/conv/depthwise_rows.hpp) ----

// Perf configs: "gather" (dg_gather: every problem the solver takes) and rows.q<QT> (dw_rows, QT Out
// columns per strip: the problems rows_refusal passes).
constexpr const char* kGatherConfig = "gather";

class ConvDirectGrouped final : public ConvSolver {
 public:
  std::string name() const override { return "conv.direct.grouped"; }
  Backend backend() const override { return Backend::device; }
  // Every read is bounds-checked (tap_pos, the bwd-weights bounds test): no zero is ever multiplied.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  std::string summary() const override {
    return "direct grouped/depthwise, channel-vectorized (16-byte packs), filters in shared memory; fwd (+bias), "
           "bwd-data, bwd-weights (two-pass, deterministic); depthwise 3x3 by row windows (configs rows.q2/q4); "
           "2D mode conv; C/G, K/G <= 32; fp32/fp16/bf16; nhwc only";
  }
  Applicability applicable(const ConvProblem& p) const override {
    auto errors = p.validate();
    if (!errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (!p.channels_last) return Applicability::no("layout " + p.layout_name() + " is not handled: channels-last (nhwc) kernels only");
    if (p.rank() != 2) return Applicability::no("3D (spatial rank 3) is not handled: 2D kernels only");
    if (p.mode != ConvMode::conv) return Applicability::no("transposed convolution (mode trans) is not handled");
    const long long cg = p.c / p.groups, kg = p.k / p.groups;
    if (cg > kMaxPerGroup || kg > kMaxPerGroup)
      return Applicability::no("C/G = " + std::to_string(cg) + ", K/G = " + std::to_string(kg) + ": more than " +
                               std::to_string(kMaxPerGroup) + " channels per group, a GEMM solver is faster");
    const Dims o = p.out();
    for (long long v : {p.in[0], p.in[1], o[0], o[1], p.filter[0], p.filter[1], p.pad[0], p.pad[1], p.stride[0], p.stride[1],
                        p.dilation[0], p.dilation[1]})
      if (v >= kMaxSpatial)
        return Applicability::no("a spatial size, filter size, pad, stride or dilation of " + std::to_string(v) +
                                 " is not below 2^20 (the 32-bit index math)");
    const long long taps = p.filter[0] * p.filter[1];
    if (p.dir != ConvDir::bwd_weights) {
      const long long red = p.dir == ConvDir::fwd ? cg : kg;
      if (taps * red > kMaxSliceTaps)
        return Applicability::no("R*S*" + std::string(p.dir == ConvDir::fwd ? "C/G" : "K/G") + " = " +
                                 std::to_string(taps * red) + " exceeds " + std::to_string(kMaxSliceTaps) +
                                 ": the filter slice of one channel vector does not fit the shared-memory budget");
    }
    return Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    return applicable(p) ? config_workspace(p, default_config_for(p)) : 0;
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    return config_workspace(p, config.empty() ? default_config_for(p) : config);
  }
  std::vector<std::string> perf_configs() const override { return {kGatherConfig, "rows.q2", "rows.q4"}; }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!applicable(p)) return {};
    std::vector<std::string> out{kGatherConfig};
    if (rows_refusal(p).empty())
      for (const std::string& c : rows_configs(p)) out.push_back(c);
    return out;
  }
  // rows.q4 where the rows kernels apply: on the H200 (s16 call 8, 103-128 registers) the best config
  // of 21 of the 26 depthwise bench problems is a rows one, rows.q4 on 18 of them.
  std::string default_config_for(const ConvProblem& p) const override {
    if (!applicable(p)) return "";
    return rows_refusal(p).empty() ? "rows.q4" : kGatherConfig;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const auto stream = static_cast<hipStream_t>(t.stream);
    auto ctx = [&] { return "running conv.direct.grouped on " + to_string(p); };
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const std::string config = t.config.empty() ? default_config_for(p) : t.config;
      // bwd-weights' pass 2: dw[e] = the workspace's `chunks` partials of e added in order, one rounding.
      auto sum_chunks = [&](int elems, int chunks) {
        const unsigned blocks = static_cast<unsigned>(std::min<long long>((elems + kWThreads - 1) / kWThreads, 65536));
        hipLaunchKernelGGL(dg_wgrad_sum<T>, dim3(blocks), dim3(kWThreads), 0, stream, elems, chunks,
                           static_cast<const float*>(t.workspace), static_cast<T*>(t.w));
        check_launch_lazy("dg_wgrad_sum", ctx);
      };
      if (p.dir == ConvDir::bwd_weights && config != kGatherConfig) {  // dw_rows_wgrad, then the chunk sum
        const DwRowsGeom g = rows_wgrad_geom(p);
        const int v = rows_wgrad_lanes(p);  // the plan's lanes (rows_wgrad_geom); misaligned: scalar loads
        const int ublocks = rows_wgrad_unit_blocks(g), elems = static_cast<int>(9 * p.c);
        float* part = static_cast<float*>(t.workspace);
        const auto kernel = rows_wgrad_kernel<T>(v, static_cast<int>(p.stride[1]), !pack_ok<T>(v, {t.x, t.y}));
        hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(1LL * g.slices * ublocks)), dim3(kDwThreads), 0, stream, g,
                           static_cast<const T*>(t.x), static_cast<const T*>(t.y), part);
        check_launch_lazy("dw_rows_wgrad", ctx);
        sum_chunks(elems, ublocks);
        return;
      }
      if (p.dir == ConvDir::bwd_weights) {
        int v = wgrad_width(p, kVec<T>);
        const bool dw = p.c == p.groups && p.k == p.groups;
        // dy is read in packs of v; x too when depthwise (one scalar per tap when grouped).
        if (!(dw ? pack_ok<T>(v, {t.x, t.y}) : pack_ok<T>(v, {t.y}))) v = 1;
        const WgradGeom g = wgrad_geom(p, v);
        const auto kernel = wgrad_kernel<T>(v, dw && v > 1);
        const unsigned blocks = static_cast<unsigned>(1LL * g.chunks * g.tap_chunks * g.combo_tiles);
        float* part = static_cast<float*>(t.workspace);
        hipLaunchKernelGGL(kernel, dim3(blocks), dim3(kWThreads), 0, stream, g, static_cast<const T*>(t.x),
                           static_cast<const T*>(t.y), part);
        check_launch_lazy("dg_wgrad_partial", ctx);
        sum_chunks(g.w_elems, g.chunks);
        return;
      }
      const bool bwd = p.dir == ConvDir::bwd_data;
      const void* in = bwd ? t.y : t.x;
      void* out = bwd ? t.x : t.y;
      const T* bias = static_cast<const T*>(p.bias ? t.bias : nullptr);
      if (config != kGatherConfig) {
        int v = pow2_dividing(p.c, kVec<T>);
        if (!pack_ok<T>(v, {in, out})) v = 1;
        const int qt = rows_qt(config);
        const DwRowsGeom g = rows_geom(p, v, qt);
        const int sw = static_cast<int>(p.stride[1]);
        const auto kernel = bwd ? rows_kernel<T, true>(v, qt, sw) : rows_kernel<T, false>(v, qt, sw);
        hipLaunchKernelGGL(kernel, dim3(dw_rows_blocks(g)), dim3(kDwThreads), 0, stream, g, static_cast<const T*>(in),
                           static_cast<const T*>(t.w), bwd ? static_cast<const T*>(nullptr) : bias, static_cast<T*>(out));
        check_launch_lazy(bwd ? "dw_rows (bwd-data)" : "dw_rows (fwd)", ctx);
        return;
      }
      Widths wd = gather_widths(gather_geom(p, 1), kVec<T>);
      if (!pack_ok<T>(wd.dw ? wd.v : wd.xw, {in}) || !pack_ok<T>(wd.v, {out})) wd = Widths{};
      const GatherGeom g = gather_geom(p, wd.v);
      const dim3 grid(gather_blocks(g)), block(kThreads);
      const std::size_t smem = gather_smem(g, wd);
      const bool taps3 = p.filter[0] == 3 && p.filter[1] == 3;
      if (bwd) {
        const auto kernel = gather_kernel<T, true>(wd, taps3);
        hipLaunchKernelGGL(kernel, grid, block, smem, stream, g, static_cast<const T*>(in), static_cast<const T*>(t.w),
                           static_cast<const T*>(nullptr), static_cast<T*>(out));
      } else {
        const auto kernel = gather_kernel<T, false>(wd, taps3);
        hipLaunchKernelGGL(kernel, grid, block, smem, stream, g, static_cast<const T*>(in), static_cast<const T*>(t.w),
                           bias, static_cast<T*>(out));
      }
      check_launch_lazy(bwd ? "dg_gather (bwd-data)" : "dg_gather (fwd)", ctx);
    });
  }

 private:
  static std::size_t config_workspace(const ConvProblem& p, const std::string& config) {
    if (p.dir != ConvDir::bwd_weights) return 0;
    return config == kGatherConfig ? wgrad_workspace(p) : rows_wgrad_workspace(p);
  }
  // Whether every pointer can be read as Pack<T, v> (v = 1: always).
  template <typename T>
  static bool pack_ok(int v, std::initializer_list<const void*> ptrs) {
    switch (v) {
      case 2: return all_aligned<T, 2>(ptrs);
      case 4: return all_aligned<T, 4>(ptrs);
      case 8: return all_aligned<T, 8>(ptrs);
      default: return true;
    }
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_direct_grouped() { return std::make_shared<ConvDirectGrouped>(); }

}  // namespace hiprim::gpu
