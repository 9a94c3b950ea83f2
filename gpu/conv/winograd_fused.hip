// conv.winograd.fused.f2x3 and .f4x3: Winograd F(m x m, 3 x 3) fwd and bwd-data (as its fwd equivalent) for
// few input channels per group, the input transform, the transformed-domain products and the output
// transform in one kernel (gpu/conv/winograd_kernels.hpp has the transforms and the geometry). Only U,
// the filter transform, goes through the workspace (a^2 G kg cg floats, wino_filter).
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
#include <algorithm>
#include <memory>
#include <string>
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

template <int M>
class ConvWinogradFused final : public ConvSolver {
 public:
  std::string name() const override { return "conv.winograd.fused.f" + std::to_string(M) + "x3"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "Winograd F(" + std::to_string(M) + "x" + std::to_string(M) +
           ", 3x3), fused for few input channels per group (input transform, products and output transform in one kernel, "
           "U in shared memory; all in fp32): fwd and bwd-data (pad <= 2), 3x3, stride 1, dilation 1, any groups; fp32/fp16/bf16; "
           "NCHW/NHWC; judged by its derived bound (reference/winograd.hpp)";
  }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  ConvErrorModel error_model(const ConvProblem&) const override { return ConvErrorModel{M, 0.0}; }
  Applicability applicable(const ConvProblem& p) const override {
    if (auto errors = p.validate(); !errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (p.dir == ConvDir::bwd_weights) return Applicability::no("fwd or bwd-data only (bwd-weights: conv.winograd.f" + std::to_string(M) + "x3)");
    if (const std::string why = winograd_refusal(p, winograd_f3(M)); !why.empty()) return Applicability::no(why);
    if (p.math != ConvMath::exact) return Applicability::no("math=tf32: this solver has no TF32 path (exact fp32 only)");
    const WinoGeom wg = wino_geom(p, M);
    const std::size_t need = smem_bytes(wg, M + 2, {32, 16}), have = max_dynamic_smem_or_portable();
    if (need > have)
      return Applicability::no("C/G = " + std::to_string(wg.cg) + " input channels per group need " + std::to_string(need) +
                               " bytes of shared memory (k32.t16), the device offers " + std::to_string(have) +
                               ": the fused solver is for few channels (conv.winograd.f" + std::to_string(M) + "x3 takes any)");
    if (1LL * wg.g.groups * ((wg.kg + 31) / 32) > kMaxGridY)
      return Applicability::no(std::to_string(wg.g.groups) + " groups of " + std::to_string(wg.kg) + " output channels exceed " +
                               std::to_string(kMaxGridY) + " blocks of 32 channels");
    return Applicability::yes();
  }
  std::vector<std::string> perf_configs() const override { return {"k32.t16", "k32.t32", "k32.t64", "k64.t16", "k64.t32", "k64.t64"}; }
  // The configs whose shared memory fits (k64 only where a group has more than 32 output channels).
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!applicable(p)) return {};
    const WinoGeom wg = wino_geom(p, M);
    const std::size_t have = max_dynamic_smem_or_portable();
    std::vector<std::string> out;
    for (const std::string& c : perf_configs()) {
      const FusedShape s = parse_shape(c);
      if ((s.kc == 32 || wg.kg > 32) && smem_bytes(wg, M + 2, s) <= have && 1LL * wg.g.groups * ((wg.kg + s.kc - 1) / s.kc) <= kMaxGridY)
        out.push_back(c);
    }
    return out;
  }
  // k64 where a group has more than 32 output channels, else k32; 32 tiles a pass where it fits, else 16.
  std::string default_config_for(const ConvProblem& p) const override {
    const std::vector<std::string> fit = configs_for(p);
    if (fit.empty()) return "";
    const std::string k = wino_geom(p, M).kg > 32 ? "k64" : "k32";
    for (const std::string& c : {k + ".t32", k + ".t16", std::string("k32.t32")})
      if (std::find(fit.begin(), fit.end(), c) != fit.end()) return c;
    return fit.front();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    if (!applicable(p)) return 0;
    const WinoGeom wg = wino_geom(p, M);
    return static_cast<std::size_t>((M + 2) * (M + 2)) * wg.g.groups * wg.kg * wg.cg * sizeof(float);  // U
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    return workspace_bytes(p);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const FusedShape s = parse_shape(t.config.empty() ? default_config_for(p) : t.config);
    dispatch_dtype(p.dtype, [&]<typename T>() { run_fused<T, M>(p, t, s, name()); });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f2x3() { return std::make_shared<ConvWinogradFused<2>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f4x3() { return std::make_shared<ConvWinogradFused<4>>(); }

}  // namespace hiprim::gpu
