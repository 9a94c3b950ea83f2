// conv.fft.t16, .t32 and .t64: fp32 2D forward and backward-data convolution (mode conv, groups 1, stride 1, dilation 1,
// filters 2..T-1, pad < filter) by tiled overlap-save FFTs of T x T points (core/fft_tiles.hpp has the
// tiling, reference/fft_conv.hpp the fp32 order these kernels follow and the derived bound that judges
// them). Non-fused, F = T (T/2 + 1) frequencies (the half spectrum), P = N * tiles:
//   U[z][2K][2C] = [[Wr | Wi]; [-Wi | Wr]]  W = DFT(w[k][c] zero-padded)      fft_filter   workspace
//   V[z][P][2C]  = [Dr | Di]                D = DFT(x window of (tile, c))    fft_input    workspace
//   O[z][P][2K]  = V_z U_z^T: [Yr | Yi], Y = sum_c D conj(W)  F batched GEMMs (channels_last mode)
//   y tile       = Re IDFT(Y) / T^2 on the tile's out_h x out_w outputs      fft_output
// The GEMMs run on conv.igemm.simt's kernel (gpu/conv/simt_batched_gemm.hpp: one fmaf chain per entry,
// 2C terms ascending), its tile the perf config (t128x128, t128x64, t64x128, t64x64).
// Each transform kernel works on kBatch<T> = 4096 / T^2 arrays of T x T complex values at once in
// 32 KiB of shared memory (planar re / im), one block of kBlock threads per group of kBatch items
// (grid-stride over groups), the items of a group consecutive in the workspace's fastest index (c for
// U and V, k for O), so the spectrum stores and loads are kBatch floats contiguous. Global x / y
// accesses walk channels fastest for NHWC, the row fastest for NCHW. A 2D DFT: the array loaded in
// bit-reversed order on both axes, one radix-2 DIT pass along the rows, one along the columns v <= T/2
// (dit_pass, explicit fmaf butterflies: the same bits on every platform and in the host emulation).
// A non-finite input value makes every output of the tiles whose window holds it NaN (for every k),
// a non-finite filter value every output of its output channel (the transforms spread it).
// bwd-data (stride 1, pad <= filter - 1) runs as its fwd equivalent (core/fft_tiles.hpp): dy is the
// input, dx the output, fft_filter reads w flipped with its channels swapped, pad' = R - 1 - pad.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/fft_tiles.hpp"
#include "core/winograd_transforms.hpp"  // winograd_fwd_equivalent
#include "gpu/common/launch_grid.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/simt_batched_gemm.hpp"
#include "gpu/conv/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;
constexpr long long kMaxRows = 0x7fffffffLL - 1024;  // the batched GEMM's int rows
template <int T>
constexpr int kBatch = 4096 / (T * T);  // transforms per block: 2 * 4 * 4096 bytes of shared memory
template <int T>
constexpr int kLog2 = T == 16 ? 4 : T == 32 ? 5 : 6;
template <int T>
constexpr int kCols = T / 2 + 1;  // the half spectrum's columns
template <int T>
constexpr int kFreqs = T * kCols<T>;

// w_k = exp(-2 pi i k / T), k < T/2 (core/fft_tiles.hpp: fft_twiddles), passed by value.
template <int T>
struct Twiddles {
  float re[T / 2], im[T / 2];
};

struct FftGeom {
  ConvGeom g;  // of the fwd equivalent: In = x (dy for bwd-data), Out = y (dx), W = w (its strides: w_str)
  bool flip;   // bwd-data: w'[k][c][r][s] = w[c][k][R-1-r][S-1-s]
  long long w_str[5];  // the problem's own w strides [co, ci, t, r, s]
  int out_h, out_w, tiles_h, tiles_w;
  long long tiles;  // P
  int c, k;
  bool chan_fast;  // NHWC: x and y accessed channel-fastest
  // The tile of index p: image n, tile row th, tile column tw.
  __device__ __forceinline__ void tile_of(long long p, int& n, int& th, int& tw) const {
    const long long per_image = 1LL * tiles_h * tiles_w;
    n = static_cast<int>(p / per_image);
    const int r = static_cast<int>(p - n * per_image);
    th = r / tiles_w;
    tw = r - th * tiles_w;
  }
};

// Workspace (floats): U [F][2K][2C], V [F][P][2C], O [F][P][2K].
struct FftSpans {
  long long u, v, o;
};
FftSpans spans(const FftGeom& f, int freqs) {
  return {1LL * freqs * 2 * f.k * 2 * f.c, 1LL * freqs * f.tiles * 2 * f.c, 1LL * freqs * f.tiles * 2 * f.k};
}

// The arrays and the twiddles (copied from the kernel argument once: indexed at run time, the argument
// would be copied to local memory).
// A group's item: its tile p = (n, th, tw) and channel ch (valid: inside the item count).
struct FftItem {
  long long p;
  int n, th, tw, ch, valid;
};
template <int T>
struct FftSmem {
  float re[kBatch<T>][T][T], im[kBatch<T>][T][T];
  float twr[T / 2], twi[T / 2];
  FftItem item[kBatch<T>];
};
// The group's items i0 + b (b < kBatch), per_row channels per tile; before a __syncthreads.
template <int T>
__device__ __forceinline__ void load_items(FftSmem<T>& s, const FftGeom& f, long long i0, long long items, long long per_row) {
  if (threadIdx.x >= kBatch<T>) return;
  const long long it = i0 + threadIdx.x;
  FftItem& m = s.item[threadIdx.x];
  m.valid = it < items;
  m.p = it / per_row;
  m.ch = static_cast<int>(it - m.p * per_row);
  f.tile_of(m.p, m.n, m.th, m.tw);
}
// Before the first __syncthreads of the kernel; compile-time indices (no local copy of the argument).
template <int T>
__device__ __forceinline__ void load_twiddles(FftSmem<T>& s, const Twiddles<T>& tw) {
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int k = 0; k < T / 2; ++k) s.twr[k] = tw.re[k], s.twi[k] = tw.im[k];
}

__device__ __forceinline__ int bitrev(int i, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// a' = a + w b, b' = a - w b (w b by two fused multiply-adds per part).
__device__ __forceinline__ void butterfly(float& ar, float& ai, float& br, float& bi, float wr, float wi) {
  const float tr = fmaf(wr, br, -(wi * bi)), ti = fmaf(wr, bi, wi * br);
  br = ar - tr;
  bi = ai - ti;
  ar = ar + tr;
  ai = ai + ti;
}

// One radix-2 DIT pass (log2 T stages) over lines [0, Lines) of each array, in place, each line in
// bit-reversed order: along the rows (Rows: line = row i, points [i][j]) or the columns (line = column
// j, points [i][j] over i). Stage h pairs (j0, j0 + h), j0 = (b / h) 2h + b % h, with w_{(b % h) T / 2h}
// (conjugated when inverse). Consecutive threads take consecutive points of a row (Rows) or lines.
template <int T, bool Rows, int Lines>
__device__ void dit_pass(FftSmem<T>& s, bool inverse) {
  constexpr int kHalf = T / 2, kTotal = kBatch<T> * Lines * kHalf;  // (compile-time: no run-time division)
#pragma unroll
  for (int st = 0; st < kLog2<T>; ++st) {
    const int h = 1 << st;
    for (int i = threadIdx.x; i < kTotal; i += blockDim.x) {
      const int bf = Rows ? i % kHalf : i / Lines % kHalf, line = Rows ? i / kHalf % Lines : i % Lines;
      const int b = i / kHalf / Lines;
      const int pos = bf & (h - 1), j0 = ((bf >> st) << (st + 1)) + pos, j1 = j0 + h, k = pos << (kLog2<T> - 1 - st);
      const float wr = s.twr[k], wi = inverse ? -s.twi[k] : s.twi[k];
      float& ar = Rows ? s.re[b][line][j0] : s.re[b][j0][line];
      float& ai = Rows ? s.im[b][line][j0] : s.im[b][j0][line];
      float& br = Rows ? s.re[b][line][j1] : s.re[b][j1][line];
      float& bi = Rows ? s.im[b][line][j1] : s.im[b][j1][line];
      butterfly(ar, ai, br, bi, wr, wi);
    }
    __syncthreads();
  }
}

// The forward 2D DFT of the loaded arrays: rows, then the columns v <= T/2.
template <int T>
__device__ void forward_2d(FftSmem<T>& s) {
  dit_pass<T, true, T>(s, false);
  dit_pass<T, false, kCols<T>>(s, false);
}

// Element e of a kBatch x rows x cols walk: array b fastest (chan_fast) or column j fastest.
__device__ __forceinline__ void split3(int e, int nb, int rows, int cols, bool b_fast, int& b, int& i, int& j) {
  if (b_fast) {
    b = e % nb, i = e / nb % rows, j = e / nb / rows;  // (j outer: rows of one column stay near)
  } else {
    j = e % cols, i = e / cols % rows, b = e / cols / rows;
  }
}

// Stores the half spectra of the group's arrays: item b at dst[(z * rows + p) * ld + ch] (re) and
// + half_ld (im), (p, ch) the item's tile and channel.
template <int T>
__device__ void store_spectrum(const FftSmem<T>& s, long long rows, float* __restrict__ dst, long long ld, long long half_ld) {
  constexpr int B = kBatch<T>;
  for (int e = threadIdx.x; e < B * kFreqs<T>; e += blockDim.x) {
    const int b = e % B, z = e / B;
    const FftItem& m = s.item[b];
    if (!m.valid) continue;
    float* out = dst + (z * rows + m.p) * ld + m.ch;
    out[0] = s.re[b][z / kCols<T>][z % kCols<T>];
    out[half_ld] = s.im[b][z / kCols<T>][z % kCols<T>];
  }
}

// U for items (k, c), c fastest: W = DFT(w[k][c] padded); rows k and K + k of U_z.
template <int T>
__global__ void __launch_bounds__(kBlock) fft_filter(FftGeom f, Twiddles<T> tw, const float* __restrict__ w, float* __restrict__ u) {
  constexpr int B = kBatch<T>;
  __shared__ FftSmem<T> s;
  load_twiddles<T>(s, tw);
  const long long items = 1LL * f.k * f.c, groups = (items + B - 1) / B;
  const int R = f.g.f_sz[1], S = f.g.f_sz[2];
  for (long long grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const long long i0 = grp * B;
    load_items<T>(s, f, i0, items, f.c);  // (p: the output channel k)
    __syncthreads();
    for (int e = threadIdx.x; e < B * T * T; e += blockDim.x) {
      int b, i, j;
      split3(e, B, T, T, true, b, i, j);
      const FftItem& m = s.item[b];
      const bool tap = m.valid && i < R && j < S;
      const long long k = m.p, c = m.ch;
      const long long at = f.flip ? c * f.w_str[0] + k * f.w_str[1] + (R - 1 - i) * f.w_str[3] + (S - 1 - j) * f.w_str[4]
                                  : f.g.w_offset(k, c, 0, i, j);
      s.re[b][bitrev(i, kLog2<T>)][bitrev(j, kLog2<T>)] = tap ? w[at] : 0.0f;
      s.im[b][bitrev(i, kLog2<T>)][bitrev(j, kLog2<T>)] = 0.0f;
    }
    __syncthreads();
    forward_2d<T>(s);
    const long long ld = 2LL * f.c, zs = 2LL * f.k;  // U_z [2K][2C]
    for (int e = threadIdx.x; e < B * kFreqs<T>; e += blockDim.x) {
      const int b = e % B, z = e / B;
      const FftItem& m = s.item[b];
      if (!m.valid) continue;
      const long long k = m.p, c = m.ch;
      const float re = s.re[b][z / kCols<T>][z % kCols<T>], im = s.im[b][z / kCols<T>][z % kCols<T>];
      float* uz = u + z * zs * ld;
      uz[k * ld + c] = re;
      uz[k * ld + f.c + c] = im;
      uz[(f.k + k) * ld + c] = -im;
      uz[(f.k + k) * ld + f.c + c] = re;
    }
    __syncthreads();
  }
}

// V for items (p, c), c fastest: D = DFT(x window of tile p, channel c).
template <int T>
__global__ void __launch_bounds__(kBlock) fft_input(FftGeom f, Twiddles<T> tw, const float* __restrict__ x, float* __restrict__ v) {
  constexpr int B = kBatch<T>;
  __shared__ FftSmem<T> s;
  load_twiddles<T>(s, tw);
  const long long items = f.tiles * f.c, groups = (items + B - 1) / B;
  for (long long grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const long long i0 = grp * B;
    load_items<T>(s, f, i0, items, f.c);
    __syncthreads();
    for (int e = threadIdx.x; e < B * T * T; e += blockDim.x) {
      int b, i, j;
      split3(e, B, T, T, f.chan_fast, b, i, j);
      const FftItem& m = s.item[b];
      float val = 0.0f;
      if (m.valid) {
        const int h = m.th * f.out_h - f.g.pad[1] + i, ww = m.tw * f.out_w - f.g.pad[2] + j;
        if (h >= 0 && h < f.g.in_sz[1] && ww >= 0 && ww < f.g.in_sz[2]) val = x[f.g.in_offset(m.n, m.ch, 0, h, ww)];
      }
      s.re[b][bitrev(i, kLog2<T>)][bitrev(j, kLog2<T>)] = val;
      s.im[b][bitrev(i, kLog2<T>)][bitrev(j, kLog2<T>)] = 0.0f;
    }
    __syncthreads();
    forward_2d<T>(s);
    store_spectrum<T>(s, f.tiles, v, 2LL * f.c, f.c);
    __syncthreads();
  }
}

// y for items (p, k), k fastest: Y from O (rows Yr, Yi), inverse columns, every row extended (those past out_h discarded)
// by Hermitian symmetry and bit-reversed (through registers), inverse rows, real part / T^2.
template <int T>
__global__ void __launch_bounds__(kBlock) fft_output(FftGeom f, Twiddles<T> tw, const float* __restrict__ o, float* __restrict__ y) {
  constexpr int B = kBatch<T>, kPer = B * T * T / kBlock;
  __shared__ FftSmem<T> s;
  load_twiddles<T>(s, tw);
  const long long items = f.tiles * f.k, groups = (items + B - 1) / B, ld = 2LL * f.k;
  const float scale = 1.0f / static_cast<float>(T * T);
  for (long long grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const long long i0 = grp * B;
    load_items<T>(s, f, i0, items, f.k);
    __syncthreads();
    for (int e = threadIdx.x; e < B * kFreqs<T>; e += blockDim.x) {
      const int b = e % B, z = e / B, uu = z / kCols<T>, vv = z % kCols<T>;
      const FftItem& m = s.item[b];
      float re = 0.0f, im = 0.0f;
      if (m.valid) {
        const float* oz = o + (z * f.tiles + m.p) * ld + m.ch;
        re = oz[0], im = oz[f.k];
      }
      s.re[b][bitrev(uu, kLog2<T>)][vv] = re;
      s.im[b][bitrev(uu, kLog2<T>)][vv] = im;
    }
    __syncthreads();
    dit_pass<T, false, kCols<T>>(s, true);
    // every row a (those past out_h are discarded; compile-time sizes): [a][rev(v)] = v <= T/2 ? Z[a][v] : conj(Z[a][T - v])
    float gr[kPer], gi[kPer];
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int e = threadIdx.x + q * kBlock;
      const int vr = e % T, a = e / T % T, b = e / T / T, v = bitrev(vr, kLog2<T>);
      gr[q] = s.re[b][a][v < kCols<T> ? v : T - v];
      gi[q] = v < kCols<T> ? s.im[b][a][v] : -s.im[b][a][T - v];
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int e = threadIdx.x + q * kBlock;
      const int vr = e % T, a = e / T % T, b = e / T / T;
      s.re[b][a][vr] = gr[q];
      s.im[b][a][vr] = gi[q];
    }
    __syncthreads();
    dit_pass<T, true, T>(s, true);
    for (int e = threadIdx.x; e < B * f.out_h * f.out_w; e += blockDim.x) {
      int b, a, bc;
      split3(e, B, f.out_h, f.out_w, f.chan_fast, b, a, bc);
      const FftItem& m = s.item[b];
      if (!m.valid) continue;
      const int oh = m.th * f.out_h + a, ow = m.tw * f.out_w + bc;
      if (oh < f.g.out_sz[1] && ow < f.g.out_sz[2]) y[f.g.out_offset(m.n, m.ch, 0, oh, ow)] = s.re[b][a][bc] * scale;
    }
    __syncthreads();
  }
}

FftGeom fft_geom(const ConvProblem& p, int t) {
  const FftTiling tl = fft_tiling(p, t);
  FftGeom f{};
  const ConvProblem q = winograd_fwd_equivalent(p);
  f.g = conv_geom(q);
  f.flip = p.dir == ConvDir::bwd_data;
  const ConvGeom own = conv_geom(p);
  for (int i = 0; i < 5; ++i) f.w_str[i] = own.w_str[i];
  f.out_h = tl.out_h, f.out_w = tl.out_w, f.tiles_h = tl.tiles_h, f.tiles_w = tl.tiles_w, f.tiles = tl.tiles;
  f.c = static_cast<int>(q.c), f.k = static_cast<int>(q.k);
  f.chan_fast = p.channels_last;
  return f;
}

// The F GEMMs O_z [P][2K] = V_z [P][2C] x U_z [2K][2C]^T.
SimtBatchedGemm batched_gemm(const FftGeom& f, int freqs, const float* u, const float* v, float* o) {
  SimtBatchedGemm b;
  b.v = v, b.u = u, b.out = o;
  b.p = f.tiles, b.c = 2LL * f.c, b.k = 2LL * f.k, b.batch = freqs;
  b.channels_last = true;
  return b;
}

template <int T>
Twiddles<T> twiddles() {
  const FftTwiddleTable t = fft_twiddles(T);
  Twiddles<T> tw{};
  for (int k = 0; k < T / 2; ++k) tw.re[k] = t.re[static_cast<std::size_t>(k)], tw.im[k] = t.im[static_cast<std::size_t>(k)];
  return tw;
}

template <int T>
void run_fft(const ConvProblem& p, const ConvTensors& t, const std::string& name, const std::string& config) {
  constexpr int B = kBatch<T>;
  const FftGeom f = fft_geom(p, T);
  const FftSpans sp = spans(f, kFreqs<T>);
  const Twiddles<T> tw = twiddles<T>();
  float* u = static_cast<float*>(t.workspace);
  float* v = u + sp.u;
  float* o = v + sp.v;
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  auto ctx = [&] { return "running " + name + " on " + to_string(p); };
  auto groups = [](long long items) { return (items + B - 1) / B * kBlock; };  // threads_needed: one block per group
  const auto filter = &fft_filter<T>;
  const auto input = &fft_input<T>;
  const auto output = &fft_output<T>;
  hipLaunchKernelGGL(filter, dim3(stream_grid(filter, kBlock, groups(1LL * f.k * f.c))), dim3(kBlock), 0, stream, f, tw,
                     static_cast<const float*>(t.w), u);
  check_launch_lazy("fft_filter", ctx);
  const bool fwd = p.dir == ConvDir::fwd;
  hipLaunchKernelGGL(input, dim3(stream_grid(input, kBlock, groups(f.tiles * f.c))), dim3(kBlock), 0, stream, f, tw,
                     static_cast<const float*>(fwd ? t.x : t.y), v);
  check_launch_lazy("fft_input", ctx);
  launch_simt_batched_gemm(batched_gemm(f, kFreqs<T>, u, v, o), config, stream, name + " frequency-domain GEMM");
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, groups(f.tiles * f.k))), dim3(kBlock), 0, stream, f, tw,
                     static_cast<const float*>(o), static_cast<float*>(fwd ? t.y : t.x));
  check_launch_lazy("fft_output", ctx);
}

template <int T>
class ConvFft final : public ConvSolver {
 public:
  std::string name() const override { return "conv.fft.t" + std::to_string(T); }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "FFT convolution, tiled overlap-save with " + std::to_string(T) + "x" + std::to_string(T) +
           " transforms (own radix-2 kernels, half spectrum), the channel sums as batched SIMT GEMMs; fp32 2D fwd and "
           "bwd-data (pad < filter), groups 1, stride 1, filters 2.." + std::to_string(T - 1) + "; NCHW/NHWC; judged by its derived normwise bound "
           "(reference/fft_conv.hpp)";
  }
  // The window's zeros outside the image enter the transforms as real zeros.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  // The FFT model on the problems it takes (a refused case is never judged; its tolerance is the direct one).
  ConvErrorModel error_model(const ConvProblem& p) const override {
    ConvErrorModel m;
    if (fft_conv_refusal(p, T).empty()) m.fft_tile = T;
    return m;
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (auto errors = p.validate(); !errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (const std::string why = fft_conv_refusal(p, T); !why.empty()) return Applicability::no(why);
    const FftGeom f = fft_geom(p, T);
    if (f.tiles > kMaxRows || 2LL * f.c > kMaxRows || 2LL * f.k > kMaxRows)
      return Applicability::no(std::to_string(f.tiles) + " tiles or the channels exceed the GEMM dimension limit");
    return Applicability::yes();
  }
  std::vector<std::string> perf_configs() const override { return simt_batched_gemm_tiles(); }
  std::string default_config_for(const ConvProblem& p) const override {
    return simt_batched_gemm_default(batched_gemm(fft_geom(p, T), kFreqs<T>, nullptr, nullptr, nullptr));
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    if (!applicable(p)) return 0;
    const FftSpans sp = spans(fft_geom(p, T), kFreqs<T>);
    return static_cast<std::size_t>(sp.u + sp.v + sp.o) * sizeof(float);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    run_fft<T>(p, t, name(), t.config.empty() ? default_config_for(p) : t.config);
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_fft_t16() { return std::make_shared<ConvFft<16>>(); }
std::shared_ptr<const ConvSolver> make_conv_fft_t32() { return std::make_shared<ConvFft<32>>(); }
std::shared_ptr<const ConvSolver> make_conv_fft_t64() { return std::make_shared<ConvFft<64>>(); }

}  // namespace hiprim::gpu
