// conv.winograd.fused.f2x3 and .f4x3: Winograd F(m x m, 3 x 3) fwd, bwd-data (as its fwd equivalent) and
// bwd-weights for few input channels per group. fwd / bwd-data: the input transform, the transformed-domain
// products and the output transform in one kernel (gpu/conv/winograd_kernels.hpp has the transforms and the
// geometry); only U, the filter transform, goes through the workspace (a^2 G kg cg floats, wino_filter).
//
// Where it pays: with few input channels (VGG's and ResNet's first layer, C = 3) the non-fused solvers
// move the transformed output M (a^2 / m^2 times y) through memory twice for a product of only C terms;
// here M stays in registers and y is written once.
//
// A block holds U of KC output channels of one group in shared memory, us [cg][a^2][KC] (k fastest),
// and walks groups of TP tiles (grid-stride over tile groups; blockIdx.y = group * k-chunks + k-chunk):
//   1. V of each (tile, c) into shared memory, vs [TP][cg][a^2]: thread i -> (tile i / cg, c i % cg);
//   2. thread (k lane = tid % 32, row = tid / 32) for tiles row, row + 8, ... and k = lane, lane + 32, ..:
//        M[xi] = sum_{c ascending} U[xi][k][c] V[xi][c]   (fmaf chain from 0: the batched GEMM's order)
//      then y = A^T M A, stored per output (NHWC: a row's 32 lanes write 32 consecutive channels).
// Every value is the one reference/winograd.hpp's fp32 evaluation forms (the same operations in the same
// order), judged by the same derived bound as the non-fused solvers (ConvErrorModel{m}).
// Perf configs "k<KC>.t<TP>": KC in {32, 64}, TP in {16, 32, 64}; listed where the shared memory
// a^2 cg (KC + TP) 4 bytes fits the device; the smallest (k32.t16) must fit, else refused with the sizes.
//
// bwd-weights (reference/winograd.hpp's wgrad order): block (x: run s of R consecutive tiles, y: group *
// k-chunks + k-chunk of KB channels) sums M_s[xi][k][c] = sum_{p in run s, ascending} D_p[xi][k] V_p[xi][c]
// (fmaf chain from 0; D = A e A^T of dy's tile, V = B^T x B) over stages of TP tiles: D (TP x KB) and V
// (TP x cg, in row halves) into shared memory, ds [TP][KB][a^2], vs [TP][cg][a^2], then thread (k = tid / cg,
// c = tid % cg) adds the stage's tiles in order. With several runs, M = 0 + sum_{s ascending} M_s (the split
// GEMM's reduction, reference chunk = R); then dw = G^T M G (wino_wgrad_output). KB = min(kg, 64, 256 / cg),
// halved until TP RP (KB + cg) 4 bytes fit (RP: a^2, F(2)'s padded to 20). Configs "r<R>.s<TP>": R in {64,
// 128, 256, 512, 1024} tiles a run, TP in {8, 16, 32} (F(2)) or {4, 8, 16} (F(4)) tiles a stage; the stage
// changes no sum's order. Configs "r<R>.s<TP>.reg" (C/G <= 3 for F(4), 4 for F(2)): the same sums with D in
// registers (wino_fused_wgrad_reg), TP in {8, 16, 32}.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/conv/winograd_kernels.hpp"

namespace hiprim::gpu {
namespace {

using namespace wino;  // NOLINT(google-build-using-namespace): the transforms shared with winograd.hip

constexpr int kRows = kBlock / 32;  // tile rows of a block's product phase
constexpr int kMaxGridY = 65535;

template <typename T, int M, int KC>
__global__ void __launch_bounds__(kBlock) wino_fused(WinoGeom wg, WinoMats mt, int tp, long long tile_groups, const T* __restrict__ x,
                                                     const float* __restrict__ u, T* __restrict__ y) {
  constexpr int A = M + 2, AA = A * A;
  HIPRIM_DYNAMIC_SMEM(smem_raw);
  float* us = reinterpret_cast<float*>(smem_raw);  // [cg][AA][KC]
  float* vs = us + AA * wg.cg * KC;                // [tp][cg][AA]
  const int kchunks = (wg.kg + KC - 1) / KC;
  const int grp = static_cast<int>(blockIdx.y) / kchunks, k0 = static_cast<int>(blockIdx.y) % kchunks * KC;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, row = tid / 32;
  const long long groups = wg.g.groups;
  for (int i = tid; i < AA * wg.cg * KC; i += kBlock) {  // u is [AA][G][kg][cg]
    const int kl = i % KC, xi = i / KC % AA, c = i / KC / AA, k = k0 + kl;
    us[i] = k < wg.kg ? u[((xi * groups + grp) * wg.kg + k) * wg.cg + c] : 0.0f;
  }
  for (long long tg = blockIdx.x; tg < tile_groups; tg += gridDim.x) {
    const long long p0 = tg * tp;
    __syncthreads();  // us is loaded (first pass); the last pass is done with vs
    for (int i = tid; i < tp * wg.cg; i += kBlock) {
      const int tl = i / wg.cg, c = i - tl * wg.cg;
      float* out = vs + i * AA;
      if (p0 + tl < wg.tiles) input_transform<T, M>(wg, mt, x, p0 + tl, grp * wg.cg + c, [&](int xi, float value) { out[xi] = value; });
    }
    __syncthreads();
    for (int tl = row; tl < tp && p0 + tl < wg.tiles; tl += kRows) {
      const float* vt = vs + tl * wg.cg * AA;
      for (int kl = lane; kl < KC && k0 + kl < wg.kg; kl += 32) {
        float m[AA];
#pragma unroll
        for (int xi = 0; xi < AA; ++xi) m[xi] = 0.0f;
        for (int c = 0; c < wg.cg; ++c) {
          const float* uc = us + c * AA * KC + kl;
          const float* vc = vt + c * AA;
#pragma unroll
          for (int xi = 0; xi < AA; ++xi) m[xi] = fmaf(uc[xi * KC], vc[xi], m[xi]);
        }
        output_transform<T, M>(wg, mt, p0 + tl, grp * wg.kg + k0 + kl, [&](int xi) { return m[xi]; }, y);
      }
    }
  }
}

// put(xi, V[xi]) for the rows of V = B^T d B in row half h (rows [h a/2, (h+1) a/2)): about one dy transform's
// work, so the threads that take V in the bwd-weights stages do not wait on a whole input transform.
template <typename T, int M, typename Put>
__device__ __forceinline__ void input_transform_half(const WinoGeom& wg, const WinoMats& mt, const T* __restrict__ x, long long p, int ch,
                                                     int h, Put put) {
  constexpr int A = M + 2, H = A / 2;
  if (h == 0)
    input_transform<T, M, 0, H>(wg, mt, x, p, ch, put);
  else
    input_transform<T, M, H, A>(wg, mt, x, p, ch, put);
}

// Floats a row of a (k, c) pair's a^2 values takes in a bwd-weights stage (see below).
constexpr int wgrad_pitch(int m) { return (m + 2) * (m + 2) % 8 == 0 ? (m + 2) * (m + 2) + 4 : (m + 2) * (m + 2); }

// bwd-weights, one stage of tp tiles: D into ds [tp][kb][RP] and V into vs [tp][cg][RP] (a (k, c) pair's a^2
// values contiguous in a row of RP = wgrad_pitch(m) floats: the products read them as float4; RP / 4 odd, so
// the 8 float4 stores of a quarter warp to consecutive rows fall on distinct banks: F(4) 36, F(2) 16 + 4),
// then thread (k = tid / cg, c = tid % cg) adds the stage's tiles in order. The stage's transforms are one
// list of items over the block's threads: V in halves (rows [0, a/2) and [a/2, a): each about one D's cost,
// so the threads that take V do not wait on a whole input transform), then D of each (tile, k).
template <typename T, int M>
__global__ void __launch_bounds__(kBlock) wino_fused_wgrad(WinoGeom wg, WinoMats mt, int kb, int tp, long long run, const T* __restrict__ x,
                                                           const T* __restrict__ dy, float* __restrict__ out) {
  constexpr int A = M + 2, AA = A * A, Q = AA / 4, RP = wgrad_pitch(M);
  static_assert(AA % 4 == 0 && RP % 8 == 4, "float4 rows of a^2 values, an odd number of float4 a row");
  HIPRIM_DYNAMIC_SMEM(smem_raw);
  float* ds = reinterpret_cast<float*>(smem_raw);  // [tp][kb][RP]
  float* vs = ds + tp * kb * RP;                   // [tp][cg][RP]
  const int cg = wg.cg, kchunks = (wg.kg + kb - 1) / kb;
  const int grp = static_cast<int>(blockIdx.y) / kchunks, k0 = static_cast<int>(blockIdx.y) % kchunks * kb;
  const long long p_begin = blockIdx.x * run, p_end = p_begin + run < wg.tiles ? p_begin + run : wg.tiles;
  const int tid = static_cast<int>(threadIdx.x), kl = tid / cg, c = tid - kl * cg;
  const bool owner = kl < kb && k0 + kl < wg.kg;
  const int v_items = tp * cg * 2, items = v_items + tp * kb;
  float acc[AA];
#pragma unroll
  for (int xi = 0; xi < AA; ++xi) acc[xi] = 0.0f;
  for (long long p0 = p_begin; p0 < p_end; p0 += tp) {
    const int nt = p_end - p0 < tp ? static_cast<int>(p_end - p0) : tp;
    __syncthreads();  // the last stage's sums are done with ds and vs
    for (int i = tid; i < items; i += kBlock) {
      if (i < v_items) {  // (tile, channel, half) of V
        const int tl = i / (2 * cg), cc = i / 2 - tl * cg;
        if (tl >= nt) continue;
        float* dst = vs + (tl * cg + cc) * RP;
        input_transform_half<T, M>(wg, mt, x, p0 + tl, grp * cg + cc, i % 2, [&](int xi, float value) { dst[xi] = value; });
      } else {  // (tile, k) of D
        const int tl = (i - v_items) / kb, j = i - v_items - tl * kb;
        if (tl >= nt || k0 + j >= wg.kg) continue;
        float d[AA];
        dy_transform<T, M>(wg, mt, dy, p0 + tl, grp * wg.kg + k0 + j, [&](int xi, float value) { d[xi] = value; });
        float4* dst = reinterpret_cast<float4*>(ds + (tl * kb + j) * RP);
#pragma unroll
        for (int q = 0; q < Q; ++q) dst[q] = make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
      }
    }
    __syncthreads();
    if (owner)
      for (int tl = 0; tl < nt; ++tl) {
        const float4* d4 = reinterpret_cast<const float4*>(ds + (tl * kb + kl) * RP);
        const float4* v4 = reinterpret_cast<const float4*>(vs + (tl * cg + c) * RP);
#pragma unroll
        for (int q = 0; q < Q; ++q) {
          const float4 dd = d4[q], vv = v4[q];
          acc[4 * q] = fmaf(dd.x, vv.x, acc[4 * q]);
          acc[4 * q + 1] = fmaf(dd.y, vv.y, acc[4 * q + 1]);
          acc[4 * q + 2] = fmaf(dd.z, vv.z, acc[4 * q + 2]);
          acc[4 * q + 3] = fmaf(dd.w, vv.w, acc[4 * q + 3]);
        }
      }
  }
  if (owner) {
    const long long groups = wg.g.groups;
    float* o = out + blockIdx.x * (AA * groups * wg.kg * cg);
#pragma unroll
    for (int xi = 0; xi < AA; ++xi) o[((xi * groups + grp) * wg.kg + k0 + kl) * cg + c] = acc[xi];
  }
}

// bwd-weights with D in registers (configs "r<R>.s<TP>.reg", cg <= reg_max_cg(m)): thread (k lane = tid % 32,
// half h = tid / 32 % 2, run lane rl = tid / 64) owns rows [h a/2, h a/2 + a/2) of M_s[xi][k][c] for every c of
// its group (CB = cg accumulators of a^2/2), s = blockIdx.x * kRegRuns + rl, k = its k chunk of 32 + lane. A tile
// of the run (ascending): dy's m x m tile (loaded one tile ahead, its (n, th, tw) stepped) -> D's rows in
// registers -> acc[c][xi] = fmaf(D[xi], V[c][xi], acc), V of the stage's TP tiles in shared memory,
// vs [kRegRuns][TP][CB][2][a^2/2] (row halves, the block's threads together). D, the larger operand with few input channels (K = 64 against C = 3),
// never goes through shared memory. Same terms, same order as wino_fused_wgrad: bit for bit the same M_s.
constexpr int kRegRuns = kBlock / 64;  // run lanes of a block: 32 k lanes x 2 row halves each
// The most input channels a group may have: F(4)'s 3 x 18 accumulators and F(2)'s 4 x 8 fit 128 registers.
constexpr int reg_max_cg(int m) { return m == 4 ? 3 : 4; }
template <typename T, int M, int CB>
__global__ void __launch_bounds__(kBlock, 2) wino_fused_wgrad_reg(WinoGeom wg, WinoMats mt, int tp, long long run, long long runs,
                                                                  const T* __restrict__ x, const T* __restrict__ dy, float* __restrict__ out) {
  constexpr int A = M + 2, AA = A * A, H = A / 2, RH = AA / 2;
  static_assert(A % 2 == 0, "float2 reads of a row");
  HIPRIM_DYNAMIC_SMEM(smem_raw);
  float* vs = reinterpret_cast<float*>(smem_raw);  // [kRegRuns][tp][CB][2][RH]
  const int tid = static_cast<int>(threadIdx.x), kchunks = (wg.kg + 31) / 32;
  const int grp = static_cast<int>(blockIdx.y) / kchunks, k = static_cast<int>(blockIdx.y) % kchunks * 32 + tid % 32;
  const int half = tid / 32 % 2, rl = tid / 64;
  const long long s = 1LL * blockIdx.x * kRegRuns + rl, p_begin = s * run, p_end = p_begin + run < wg.tiles ? p_begin + run : wg.tiles;
  const bool owner = s < runs && k < wg.kg;
  const int ch = grp * wg.kg + k;
  float acc[CB][RH];
#pragma unroll
  for (int c = 0; c < CB; ++c)
#pragma unroll
    for (int j = 0; j < RH; ++j) acc[c][j] = 0.0f;
  float e[M][M];
  int n = 0, th = 0, tw = 0;  // the tile in e
  if (owner) {
    tile_of(wg, p_begin, n, th, tw);
    dy_tile_at<T, M>(wg, dy, n, th, tw, ch, e);
  }
  for (long long t0 = 0; t0 < run; t0 += tp) {  // the same stages in every run lane (barriers)
    __syncthreads();  // the last stage's products are done with vs
    for (int i = tid; i < kRegRuns * tp * CB * 2; i += kBlock) {  // i = ((r tp + tl) CB + c) 2 + half
      const int c = i / 2 % CB, tl = i / (2 * CB) % tp, r = i / (2 * CB * tp);
      const long long sr = 1LL * blockIdx.x * kRegRuns + r, p = sr * run + t0 + tl;
      if (sr >= runs || t0 + tl >= run || p >= wg.tiles) continue;
      float* dst = vs + i * RH - i % 2 * RH;  // the half's rows at [0, RH)
      input_transform_half<T, M>(wg, mt, x, p, grp * CB + c, i % 2, [&](int xi, float value) { dst[xi] = value; });
    }
    __syncthreads();
    if (!owner) continue;
    for (int tl = 0; tl < tp && p_begin + t0 + tl < p_end; ++tl) {
      const long long p = p_begin + t0 + tl;
      float cur[M][M];
#pragma unroll
      for (int r = 0; r < M; ++r)
#pragma unroll
        for (int q = 0; q < M; ++q) cur[r][q] = e[r][q];
      if (p + 1 < p_end) {
        next_tile(wg, n, th, tw);
        dy_tile_at<T, M>(wg, dy, n, th, tw, ch, e);
      }
      const float* v = vs + ((rl * tp + tl) * CB * 2 + half) * RH;
      // One row of D at a time (row R of D needs row R of A e alone): its a values meet V's row at once.
      const auto row = [&]<int R>() {
        float d[A];
        dy_tile_transform<M, R, R + 1>(mt, cur, [&](int xi, float value) { d[xi - R * A] = value; });
        constexpr int j0 = (R % H) * A;  // the row's first entry in this half
#pragma unroll
        for (int c = 0; c < CB; ++c) {
          const float2* v2 = reinterpret_cast<const float2*>(v + c * 2 * RH + j0);
#pragma unroll
          for (int q = 0; q < A / 2; ++q) {
            const float2 vv = v2[q];
            acc[c][j0 + 2 * q] = fmaf(d[2 * q], vv.x, acc[c][j0 + 2 * q]);
            acc[c][j0 + 2 * q + 1] = fmaf(d[2 * q + 1], vv.y, acc[c][j0 + 2 * q + 1]);
          }
        }
      };
      [&]<int... Rs>(std::integer_sequence<int, Rs...>) {
        if (half == 0)
          (row.template operator()<Rs>(), ...);
        else
          (row.template operator()<H + Rs>(), ...);
      }(std::make_integer_sequence<int, H>{});
    }
  }
  if (owner) {
    const long long groups = wg.g.groups;
    float* o = out + s * (AA * groups * wg.kg * CB);
#pragma unroll
    for (int c = 0; c < CB; ++c)
#pragma unroll
      for (int j = 0; j < RH; ++j) o[(((half * RH + j) * groups + grp) * wg.kg + k) * CB + c] = acc[c][j];
  }
}

// m[e] = 0 + sum_{s ascending} partial[s * mn + e]: a block takes kSumCols consecutive e at a time; its threads
// stage kSumRows runs of them in shared memory (a warp reads 32 consecutive floats of one run; 32 loads a thread
// in flight), then thread j < kSumCols adds column j's staged runs in order.
constexpr int kSumCols = 32;
#if HIPRIM_PLATFORM_EMU
constexpr int kSumRows = 4;  // the emulation's few runs still take several rounds, the last one short
#else
constexpr int kSumRows = 256;
#endif
__global__ void __launch_bounds__(kBlock) wino_sum_runs(const float* __restrict__ partial, long long mn, long long runs, float* __restrict__ m) {
  __shared__ float stage[kSumRows][kSumCols + 1];  // +1: the column walks fall on distinct banks
  const int tid = static_cast<int>(threadIdx.x), col = tid % kSumCols;
  for (long long e0 = 1LL * blockIdx.x * kSumCols; e0 < mn; e0 += 1LL * gridDim.x * kSumCols) {
    const bool live = e0 + col < mn;
    float acc = 0.0f;
    for (long long s0 = 0; s0 < runs; s0 += kSumRows) {
      const int rows = runs - s0 < kSumRows ? static_cast<int>(runs - s0) : kSumRows;
      __syncthreads();  // the last round's adds are done with stage
      for (int r = tid / kSumCols; r < rows; r += kBlock / kSumCols) stage[r][col] = live ? partial[(s0 + r) * mn + e0 + col] : 0.0f;
      __syncthreads();
      if (tid < kSumCols)
        for (int r = 0; r < rows; ++r) acc = acc + stage[r][tid];
    }
    if (tid < kSumCols && live) m[e0 + tid] = acc;
  }
}

struct FusedShape {
  int kc = 0, tp = 0;
};

FusedShape parse_shape(const std::string& config) {
  const std::size_t dot = config.find(".t");
  return {std::stoi(config.substr(1, dot - 1)), std::stoi(config.substr(dot + 2))};
}

std::size_t smem_bytes(const WinoGeom& wg, int a, FusedShape s) { return 1ULL * a * a * wg.cg * (s.kc + s.tp) * sizeof(float); }

template <typename T, int M, int KC>
void launch_fused(const WinoGeom& wg, const WinoMats& mt, int tp, const T* x, const float* u, T* y, hipStream_t stream,
                  const std::string& ctx) {
  const auto kernel = &wino_fused<T, M, KC>;
  const std::size_t smem = smem_bytes(wg, M + 2, {KC, tp});
  const long long gy = 1LL * wg.g.groups * ((wg.kg + KC - 1) / KC), tile_groups = (wg.tiles + tp - 1) / tp;
  const long long resident = 1LL * resident_per_mp(kernel, kBlock, smem) * multiprocessors();
  if (resident == 0) throw InputError(ctx + ": a block of " + std::to_string(smem) + " bytes of shared memory cannot launch");
  const long long gx = std::clamp<long long>(resident / gy, 1, std::min<long long>(tile_groups, 0x7fffffffLL));
  hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), dim3(kBlock), smem, stream, wg, mt, tp,
                     tile_groups, x, u, y);
  check_launch_lazy("wino_fused", [&] { return ctx; });
}

template <typename T, int M>
void run_fused(const ConvProblem& p, const ConvTensors& t, FusedShape s, const std::string& name) {
  const WinoMats mt = mats_of(winograd_f3(M));
  const WinoGeom wg = wino_geom(p, M);
  float* u = static_cast<float*>(t.workspace);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const std::string ctx = "running " + name + " on " + to_string(p);
  const auto filter = &wino_filter<T, M>;
  hipLaunchKernelGGL(filter, dim3(stream_grid(filter, kBlock, 1LL * wg.g.groups * wg.kg * wg.cg)), dim3(kBlock), 0, stream, wg, mt,
                     static_cast<const T*>(t.w), u);
  check_launch_lazy("wino_filter", [&] { return ctx; });
  const bool fwd = p.dir == ConvDir::fwd;  // bwd-data: dy in, dx out
  const T* in = static_cast<const T*>(fwd ? t.x : t.y);
  T* out = static_cast<T*>(fwd ? t.y : t.x);
  if (s.kc == 32)
    launch_fused<T, M, 32>(wg, mt, s.tp, in, u, out, stream, ctx);
  else
    launch_fused<T, M, 64>(wg, mt, s.tp, in, u, out, stream, ctx);
}

// bwd-weights configs "r<R>.s<TP>": runs of R tiles, stages of TP tiles (F(2): 8, 16, 32; F(4): 4, 8, 16);
// "r<R>.s<TP>.reg" (D in registers, cg <= reg_max_cg(m)): TP in {8, 16, 32}.
constexpr long long kRuns[] = {64, 128, 256, 512, 1024};
constexpr int kStages = 3;
constexpr long long kWgradBlocks = 528;  // the default run's least block count
int wgrad_stage(int m, int i) { return (m == 2 ? 8 : 4) << i; }
int wgrad_reg_stage(int i) { return 8 << i; }
struct WgradShape {
  long long run = 0;
  int tp = 0;
  bool reg = false;
};
WgradShape parse_wgrad(const std::string& config) {
  const std::size_t dot = config.find(".s");
  return {std::stoll(config.substr(1, dot - 1)), std::stoi(config.substr(dot + 2)), config.ends_with(".reg")};
}
std::string wgrad_config(long long run, int tp, bool reg) {
  return "r" + std::to_string(run) + ".s" + std::to_string(tp) + (reg ? ".reg" : "");
}
// The D-in-registers kernel: V of kRegRuns x tp tiles x cg channels in shared memory; k chunks of 32.
std::size_t wgrad_reg_smem(int m, int tp, int cg) { return 1ULL * kRegRuns * tp * cg * (m + 2) * (m + 2) * sizeof(float); }
long long wgrad_reg_grid_y(const WinoGeom& wg) { return 1LL * wg.g.groups * ((wg.kg + 31) / 32); }
long long wgrad_reg_blocks(const WinoGeom& wg, long long run) { return ((wg.tiles + run - 1) / run + kRegRuns - 1) / kRegRuns * wgrad_reg_grid_y(wg); }
// Shared memory of a stage of tp tiles with kb output channels; the largest kb <= min(kg, 64, 256 / cg)
// (halved) that fits `have` bytes (1 when none does: the caller checks).
std::size_t wgrad_smem(int m, int tp, int kb, int cg) { return 1ULL * tp * wgrad_pitch(m) * (kb + cg) * sizeof(float); }
int wgrad_kb_cap(const WinoGeom& wg) { return std::min({wg.kg, 64, kBlock / wg.cg}); }
int wgrad_kb(const WinoGeom& wg, int m, int tp, std::size_t have) {
  int kb = wgrad_kb_cap(wg);
  while (kb > 1 && wgrad_smem(m, tp, kb, wg.cg) > have) kb = (kb + 1) / 2;
  return kb;
}
long long wgrad_grid_y(const WinoGeom& wg, int kb) { return 1LL * wg.g.groups * ((wg.kg + kb - 1) / kb); }
long long m_floats(const WinoGeom& wg, int m) { return 1LL * (m + 2) * (m + 2) * wg.g.groups * wg.kg * wg.cg; }

template <typename T, int M, int CB>
void launch_wgrad_reg(const WinoGeom& wg, const WinoMats& mt, int tp, long long run, const T* x, const T* dy, float* out, hipStream_t stream,
                      const std::string& ctx) {
  const auto kernel = &wino_fused_wgrad_reg<T, M, CB>;
  const std::size_t smem = wgrad_reg_smem(M, tp, CB);
  if (resident_per_mp(kernel, kBlock, smem) == 0)
    throw InputError(ctx + ": a block of " + std::to_string(smem) + " bytes of shared memory cannot launch");
  const long long runs = (wg.tiles + run - 1) / run, gx = (runs + kRegRuns - 1) / kRegRuns;
  hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(gx), static_cast<unsigned>(wgrad_reg_grid_y(wg))), dim3(kBlock), smem, stream, wg, mt,
                     tp, run, runs, x, dy, out);
  check_launch_lazy("wino_fused_wgrad_reg", [&] { return ctx; });
}

template <typename T, int M>
void run_fused_wgrad(const ConvProblem& p, const ConvTensors& t, WgradShape shape, const std::string& name) {
  const WinoMats mt = mats_of(winograd_f3(M));
  const WinoGeom wg = wino_geom(p, M);
  const long long run = shape.run;
  const long long runs = (wg.tiles + run - 1) / run, mn = m_floats(wg, M);
  float* mw = static_cast<float*>(t.workspace);
  float* partial = runs == 1 ? mw : mw + mn;
  const T* x = static_cast<const T*>(t.x);
  const T* dy = static_cast<const T*>(t.y);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const std::string ctx = "running " + name + " on " + to_string(p);
  if (shape.reg) {
    static_assert(reg_max_cg(M) <= 4, "one instantiation per channel count");
    if (wg.cg == 1)
      launch_wgrad_reg<T, M, 1>(wg, mt, shape.tp, run, x, dy, partial, stream, ctx);
    else if (wg.cg == 2)
      launch_wgrad_reg<T, M, 2>(wg, mt, shape.tp, run, x, dy, partial, stream, ctx);
    else if (wg.cg == 3)
      launch_wgrad_reg<T, M, 3>(wg, mt, shape.tp, run, x, dy, partial, stream, ctx);
    else if constexpr (reg_max_cg(M) >= 4)
      launch_wgrad_reg<T, M, 4>(wg, mt, shape.tp, run, x, dy, partial, stream, ctx);
  } else {
    const int kb = wgrad_kb(wg, M, shape.tp, max_dynamic_smem());
    const std::size_t smem = wgrad_smem(M, shape.tp, kb, wg.cg);
    const auto kernel = &wino_fused_wgrad<T, M>;
    if (resident_per_mp(kernel, kBlock, smem) == 0)
      throw InputError(ctx + ": a block of " + std::to_string(smem) + " bytes of shared memory cannot launch");
    hipLaunchKernelGGL(kernel, dim3(static_cast<unsigned>(runs), static_cast<unsigned>(wgrad_grid_y(wg, kb))), dim3(kBlock), smem, stream, wg,
                       mt, kb, shape.tp, run, x, dy, partial);
    check_launch_lazy("wino_fused_wgrad", [&] { return ctx; });
  }
  if (runs > 1) {
    const long long cols = (mn + kSumCols - 1) / kSumCols;
    hipLaunchKernelGGL(wino_sum_runs, dim3(static_cast<unsigned>(std::min<long long>(cols, 65535))), dim3(kBlock), 0, stream, mw + mn, mn, runs, mw);
    check_launch_lazy("wino_sum_runs", [&] { return ctx; });
  }
  const auto output = &wino_wgrad_output<T, M>;
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, 1LL * wg.g.groups * wg.kg * wg.cg)), dim3(kBlock), 0, stream, wg, mt,
                     static_cast<const float*>(mw), static_cast<T*>(t.w));
  check_launch_lazy("wino_wgrad_output", [&] { return ctx; });
}

template <int M>
class ConvWinogradFused final : public ConvSolver {
 public:
  std::string name() const override { return "conv.winograd.fused.f" + std::to_string(M) + "x3"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "Winograd F(" + std::to_string(M) + "x" + std::to_string(M) +
           ", 3x3), fused for few input channels per group (fwd / bwd-data: transforms and products in one kernel, U in shared "
           "memory; bwd-weights: D and V in shared memory, runs of tiles summed in order; all in fp32): 3x3, stride 1, dilation 1, "
           "any groups; fp32/fp16/bf16; NCHW/NHWC; judged by its derived bound (reference/winograd.hpp)";
  }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  ConvErrorModel error_model(const ConvProblem&) const override { return ConvErrorModel{M, 0.0}; }
  Applicability applicable(const ConvProblem& p) const override {
    if (const std::string why = winograd_solver_refusal(p, M); !why.empty()) return Applicability::no(why);
    const bool wgrad = p.dir == ConvDir::bwd_weights;
    const WinoGeom wg = wino_geom(p, M);
    const std::size_t have = max_dynamic_smem_or_portable();
    const int tp0 = wgrad_stage(M, 0);
    const std::size_t need = wgrad ? (wg.cg > kBlock ? SIZE_MAX : wgrad_smem(M, tp0, 1, wg.cg)) : smem_bytes(wg, M + 2, {32, 16});
    if (need > have)
      return Applicability::no("C/G = " + std::to_string(wg.cg) + " input channels per group need " +
                               (need == SIZE_MAX ? std::string("more than 256 threads") : std::to_string(need) + " bytes of shared memory") +
                               " at the least, the device offers " + std::to_string(have) +
                               ": the fused solver is for few channels (conv.winograd.f" + std::to_string(M) + "x3 takes any)");
    const int kc = wgrad ? wgrad_kb(wg, M, tp0, have) : 32;
    if (1LL * wg.g.groups * ((wg.kg + kc - 1) / kc) > kMaxGridY)
      return Applicability::no(std::to_string(wg.g.groups) + " groups of " + std::to_string(wg.kg) + " output channels exceed " +
                               std::to_string(kMaxGridY) + " blocks of " + std::to_string(kc) + " channels");
    return Applicability::yes();
  }
  std::vector<std::string> perf_configs() const override {
    std::vector<std::string> all = {"k32.t16", "k32.t32", "k32.t64", "k64.t16", "k64.t32", "k64.t64"};
    for (const bool reg : {false, true})
      for (const long long run : kRuns)
        for (int i = 0; i < kStages; ++i) all.push_back(wgrad_config(run, reg ? wgrad_reg_stage(i) : wgrad_stage(M, i), reg));
    return all;
  }
  // fwd / bwd-data: the k<KC>.t<TP> whose shared memory fits (k64 only where a group has more than 32 output
  // channels). bwd-weights: every stage of the runs shorter than the tile count and of the first that covers it
  // (one run), where the grid's k chunks fit; then the same of ".reg" where cg <= reg_max_cg(m).
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!applicable(p)) return {};
    const WinoGeom wg = wino_geom(p, M);
    std::vector<std::string> out;
    const std::size_t have = max_dynamic_smem_or_portable();
    if (p.dir == ConvDir::bwd_weights) {
      for (const long long run : kRuns) {
        for (int i = 0; i < kStages; ++i) {
          const int tp = wgrad_stage(M, i), kb = wgrad_kb(wg, M, tp, have);
          if (wgrad_smem(M, tp, kb, wg.cg) <= have && wgrad_grid_y(wg, kb) <= kMaxGridY) out.push_back(wgrad_config(run, tp, false));
        }
        if (run >= wg.tiles) break;
      }
      if (wg.cg > reg_max_cg(M) || wgrad_reg_grid_y(wg) > kMaxGridY) return out;
      for (const long long run : kRuns) {
        for (int i = 0; i < kStages; ++i)
          if (wgrad_reg_smem(M, wgrad_reg_stage(i), wg.cg) <= have) out.push_back(wgrad_config(run, wgrad_reg_stage(i), true));
        if (run >= wg.tiles) break;
      }
      return out;
    }
    for (const std::string& c : perf_configs()) {
      if (c[0] != 'k') continue;
      const FusedShape s = parse_shape(c);
      if ((s.kc == 32 || wg.kg > 32) && smem_bytes(wg, M + 2, s) <= have && 1LL * wg.g.groups * ((wg.kg + s.kc - 1) / s.kc) <= kMaxGridY)
        out.push_back(c);
    }
    return out;
  }
  // fwd / bwd-data: k64 where a group has more than 32 output channels, else k32; 32 tiles a pass where it
  // fits, else 16. bwd-weights: where cg <= reg_max_cg(m), ".reg" with the largest stage that fits (32, 16, 8
  // tiles; s31's tunes of conv1_1: s32 fastest at every run length on an H200 and an H100) and the longest run that
  // still gives 528 blocks; else the largest stage where two blocks of full k chunks
  // (min(kg, 64, 256 / cg)) fit the shared memory, else the smallest; then the longest run that still gives 528
  // blocks (two waves of two an H100 SM: s30's tune of conv1_1, F(4) r128.s8 607 us against r256.s8's 392 blocks
  // 757 us), else the shortest.
  std::string default_config_for(const ConvProblem& p) const override {
    const std::vector<std::string> fit = configs_for(p);
    if (fit.empty()) return "";
    const WinoGeom wg = wino_geom(p, M);
    if (p.dir == ConvDir::bwd_weights) {
      std::string pick;
      for (const int tp : {32, 16, 8}) {
        for (const std::string& c : fit) {
          const WgradShape s = parse_wgrad(c);
          if (s.reg && s.tp == tp && (pick.empty() || wgrad_reg_blocks(wg, s.run) >= kWgradBlocks)) pick = c;
        }
        if (!pick.empty()) return pick;
      }
      const std::size_t have = max_dynamic_smem_or_portable();
      int tp = wgrad_stage(M, 0);
      for (int i = 1; i < kStages; ++i)
        if (2 * wgrad_smem(M, wgrad_stage(M, i), wgrad_kb_cap(wg), wg.cg) <= have) tp = wgrad_stage(M, i);
      const long long gy = wgrad_grid_y(wg, wgrad_kb(wg, M, tp, have));
      for (const std::string& c : fit) {
        const WgradShape s = parse_wgrad(c);
        if (!s.reg && s.tp == tp && (pick.empty() || (wg.tiles + s.run - 1) / s.run * gy >= kWgradBlocks)) pick = c;
      }
      return pick.empty() ? fit.front() : pick;
    }
    const std::string k = wg.kg > 32 ? "k64" : "k32";
    for (const std::string& c : {k + ".t32", k + ".t16", std::string("k32.t32")})
      if (std::find(fit.begin(), fit.end(), c) != fit.end()) return c;
    return fit.front();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    return applicable(p) ? config_workspace_bytes(p, default_config_for(p)) : 0;
  }
  // fwd / bwd-data: U (a^2 G kg cg floats); bwd-weights: M, then each run's M_s when there are several.
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    const WinoGeom wg = wino_geom(p, M);
    const long long mn = m_floats(wg, M);
    if (p.dir != ConvDir::bwd_weights) return static_cast<std::size_t>(mn) * sizeof(float);
    const long long run = parse_wgrad(config.empty() ? default_config_for(p) : config).run, runs = (wg.tiles + run - 1) / run;
    return static_cast<std::size_t>(runs > 1 ? mn * (runs + 1) : mn) * sizeof(float);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string config = t.config.empty() ? default_config_for(p) : t.config;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if (p.dir == ConvDir::bwd_weights)
        run_fused_wgrad<T, M>(p, t, parse_wgrad(config), name());
      else
        run_fused<T, M>(p, t, parse_shape(config), name());
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f2x3() { return std::make_shared<ConvWinogradFused<2>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f4x3() { return std::make_shared<ConvWinogradFused<4>>(); }

}  // namespace hiprim::gpu
