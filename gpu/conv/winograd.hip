// conv.winograd.f2x3, .f4x3, .f5x3 and .f6x3: fp32/fp16/bf16 2D forward and backward-data convolution with 3x3 filters,
// stride 1, dilation 1, any padding and groups, by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin &
// Gray, arXiv 1509.09308), non-fused, a = m + 2, every step in fp32 (16-bit data is read as fp32 and the
// output rounded to its dtype once at the store):
//   U[xi][g][k][c] = (G w G^T)[xi]      filter transform, a x a per (k, c)                 workspace
//   V[xi][g][p][c] = (B^T d B)[xi]      input transform, a x a per (c, tile p)              workspace
//   M[xi][g][p][k] = sum_c V[xi][g][p][c] U[xi][g][k][c]    a^2 * G batched GEMMs           workspace
//   y tile          = A^T M A            output transform per (k, tile), clipped at the edge
// V and M are stored channel-fastest ([p][c], [p][k]) for NHWC, tile-fastest ([c][p], [k][p]) for
// NCHW, and the transforms' threads walk the same index fastest: their global reads and writes of x,
// V, M and y are then coalesced (WinoGeom::chan_fast).
// xi = i*a + j over the a x a transformed domain; a tile p = (n, th, tw) covers outputs
// [th*m, th*m + m) x [tw*m, tw*m + m) and reads the a x a inputs from (th*m - pad_h, tw*m - pad_w),
// zeros outside the image (multiplied: ImplicitZeros multiplied). The GEMMs run batched on
// conv.igemm.simt's kernel as 1x1 convolutions (gpu/conv/simt_batched_gemm.hpp: one thread's fp32 sum
// per entry, c ascending), its tile the perf config (t128x128, t128x64, t64x128, t64x64).
// Every product of the transforms is one sum per entry with the inner index ascending, in fp32:
// reference/winograd.hpp's fp32 evaluation, whose derived bound (ConvErrorModel{m}) judges the
// output. The matrices are core/winograd_transforms.hpp's (num/den rounded to fp32 once).
// A non-finite input makes every output of the tiles that read it NaN (its transform multiplies it
// by the transforms' zeros too), a non-finite filter value every output of its output channel.
// bwd-data (stride 1, pad <= 2) runs as its fwd equivalent (core/winograd_transforms.hpp): dy is the
// input, dx the output, the filter transform reads w flipped with its channels swapped, pad' = 2 - pad.
// bwd-weights (reference/winograd.hpp's wgrad order): V = B^T x B as above, D[xi][g][p][k] = (A dy_p A^T)[xi]
// (dy's m x m tile, zeros past P x Q), M[xi][g][k][c] = sum_{p ascending} D V (the batched GEMM's
// bwd-weights mode, unsplit), dw = G^T M G; V and D channels-fastest whatever the layout.
// Layouts: NCHW and NHWC for x and y (ConvGeom strides), w as the problem stores it. The transforms and the
// geometry are gpu/conv/winograd_kernels.hpp's, shared with the fused solvers (winograd_fused.hip).
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/conv/simt_batched_gemm.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/conv/winograd_kernels.hpp"

namespace hiprim::gpu {
namespace {

using namespace wino;  // NOLINT(google-build-using-namespace): the transforms shared with winograd_fused.hip

// Workspace layout (floats): U [a^2][G][kg][cg], V [a^2][G] x (cg, P), M [a^2][G] x (kg, P); batch b = xi*G + g.
struct WinoSpans {
  long long u, v, m;
};
WinoSpans spans(const WinoGeom& w, int a) {
  const long long aa = 1LL * a * a, G = w.g.groups;
  return {aa * G * w.kg * w.cg, aa * G * w.cg * w.tiles, aa * G * w.kg * w.tiles};
}

// V = B^T d B for every (g, c, p): thread i -> (c, p), walked as chan_tile_of says.
template <typename T, int M>
__global__ void wino_input(WinoGeom wg, WinoMats mt, const T* __restrict__ x, float* __restrict__ v) {
  const long long P = wg.tiles, C = 1LL * wg.g.groups * wg.cg, total = C * P;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int gc;
    long long p;
    chan_tile_of(wg, i, C, gc, p);
    const int cc = gc % wg.cg, grp = gc / wg.cg;
    const long long stride = 1LL * wg.g.groups * wg.cg * P;  // between xi
    float* out = v + wg.wsp(grp, wg.cg, cc, p);
    input_transform<T, M>(wg, mt, x, p, gc, [&](int xi, float value) { out[xi * stride] = value; });
  }
}

// y tile = A^T M A for every (g, k, p): thread i -> (k, p), walked as chan_tile_of says.
template <typename T, int M>
__global__ void wino_output(WinoGeom wg, WinoMats mt, const float* __restrict__ mw, T* __restrict__ y) {
  const long long P = wg.tiles, C = 1LL * wg.g.groups * wg.kg, total = C * P;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int gk;
    long long p;
    chan_tile_of(wg, i, C, gk, p);
    const int kk = gk % wg.kg, grp = gk / wg.kg;
    const long long stride = 1LL * wg.g.groups * wg.kg * P;  // between xi
    const float* in = mw + wg.wsp(grp, wg.kg, kk, p);
    output_transform<T, M>(wg, mt, p, gk, [&](int xi) { return in[xi * stride]; }, y);
  }
}

// The a^2 * G transformed-domain GEMMs over the workspace's U (bwd-weights: D), V and M.
SimtBatchedGemm batched_gemm(const WinoGeom& wg, int a, bool wgrad, const float* u, const float* v, float* m,
                             float* partial = nullptr) {
  SimtBatchedGemm b;
  b.v = v, b.u = u, b.out = m, b.partial = partial;
  b.p = wg.tiles, b.c = wg.cg, b.k = wg.kg, b.batch = 1LL * a * a * wg.g.groups;
  b.channels_last = wg.chan_fast;
  b.wgrad = wgrad;
  return b;
}

// bwd-weights: D = A e A^T per (g, k, tile p) (dy_transform) into d at wsp(., kg, k, p): thread i -> (k, p)
// as chan_tile_of.
template <typename T, int M>
__global__ void wino_dy(WinoGeom wg, WinoMats mt, const T* __restrict__ dy, float* __restrict__ d) {
  const long long P = wg.tiles, C = 1LL * wg.g.groups * wg.kg, total = C * P;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int gk;
    long long p;
    chan_tile_of(wg, i, C, gk, p);
    const int kk = gk % wg.kg, grp = gk / wg.kg;
    const long long stride = 1LL * wg.g.groups * wg.kg * P;  // between xi
    float* out = d + wg.wsp(grp, wg.kg, kk, p);
    dy_transform<T, M>(wg, mt, dy, p, gk, [&](int xi, float value) { out[xi * stride] = value; });
  }
}

// Floats before a split GEMM's partial sums (bwd-weights): the spans, rounded up to 16 bytes.
long long partial_offset(const WinoSpans& sp) { return (sp.u + sp.v + sp.m + 3) / 4 * 4; }

// bwd-weights: the workspace as fwd's spans, M in U's place ([a^2][G][kg][cg]), V, then D in M's
// place, then (a split config) the GEMM's partial sums at partial_offset.
template <typename T, int M>
void run_winograd_wgrad(const ConvProblem& p, const ConvTensors& t, const std::string& name, const std::string& config) {
  constexpr int A = M + 2;
  const WinoMats mt = mats_of(winograd_f3(M));
  const WinoGeom wg = wino_geom(p, M);
  const WinoSpans sp = spans(wg, A);
  float* mw = static_cast<float*>(t.workspace);
  float* v = mw + sp.u;
  float* d = v + sp.v;
  float* partial = mw + partial_offset(sp);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  auto ctx = [&] { return "running " + name + " on " + to_string(p); };
  const long long vcp = 1LL * wg.g.groups * wg.cg * wg.tiles, dkp = 1LL * wg.g.groups * wg.kg * wg.tiles,
                  kc = 1LL * wg.g.groups * wg.kg * wg.cg;
  const auto input = &wino_input<T, M>;
  const auto dyt = &wino_dy<T, M>;
  const auto output = &wino_wgrad_output<T, M>;
  hipLaunchKernelGGL(input, dim3(stream_grid(input, kBlock, vcp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.x), v);
  check_launch_lazy("wino_input", ctx);
  hipLaunchKernelGGL(dyt, dim3(stream_grid(dyt, kBlock, dkp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.y), d);
  check_launch_lazy("wino_dy", ctx);
  // M[b] = sum_p D[b][p] (x) V[b][p] for b = xi*G + g (fp32, tiles ascending)
  launch_simt_batched_gemm(batched_gemm(wg, A, true, d, v, mw, partial), config, stream, name + " transformed-domain GEMM (bwd-weights)");
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, kc)), dim3(kBlock), 0, stream, wg, mt, static_cast<const float*>(mw),
                     static_cast<T*>(t.w));
  check_launch_lazy("wino_wgrad_output", ctx);
}

template <typename T, int M>
void run_winograd(const ConvProblem& p, const ConvTensors& t, const std::string& name, const std::string& config) {
  constexpr int A = M + 2;
  const WinogradTransforms tr = winograd_f3(M);
  const WinoMats mt = mats_of(tr);
  const WinoGeom wg = wino_geom(p, M);
  const WinoSpans sp = spans(wg, A);
  float* u = static_cast<float*>(t.workspace);
  float* v = u + sp.u;
  float* mw = v + sp.v;
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  auto ctx = [&] { return "running " + name + " on " + to_string(p); };
  const long long ukc = 1LL * wg.g.groups * wg.kg * wg.cg, vcp = 1LL * wg.g.groups * wg.cg * wg.tiles,
                  mkp = 1LL * wg.g.groups * wg.kg * wg.tiles;
  const auto filter = &wino_filter<T, M>;
  const auto input = &wino_input<T, M>;
  const auto output = &wino_output<T, M>;
  const bool fwd = p.dir == ConvDir::fwd;
  hipLaunchKernelGGL(filter, dim3(stream_grid(filter, kBlock, ukc)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.w), u);
  check_launch_lazy("wino_filter", ctx);
  hipLaunchKernelGGL(input, dim3(stream_grid(input, kBlock, vcp)), dim3(kBlock), 0, stream, wg, mt,
                     static_cast<const T*>(fwd ? t.x : t.y), v);
  check_launch_lazy("wino_input", ctx);
  // M[b] = V[b] U[b]^T for b = xi*G + g < a^2 * G, fp32 operands whatever the dtype: V's and M's
  // layouts (wsp) are those of the batched GEMM's channels_last (NHWC) or not.
  launch_simt_batched_gemm(batched_gemm(wg, A, false, u, v, mw), config, stream, name + " transformed-domain GEMM");
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, mkp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const float*>(mw),
                     static_cast<T*>(fwd ? t.y : t.x));
  check_launch_lazy("wino_output", ctx);
}

template <int M>
class ConvWinograd final : public ConvSolver {
 public:
  std::string name() const override { return "conv.winograd.f" + std::to_string(M) + "x3"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "Winograd F(" + std::to_string(M) + "x" + std::to_string(M) +
           ", 3x3), non-fused (filter and input transforms, batched SIMT GEMMs, output transform; all in fp32): fwd, "
           "bwd-data (pad <= 2) and bwd-weights (the transposed form), 3x3, stride 1, dilation 1, any groups; fp32/fp16/bf16; "
           "NCHW/NHWC; judged by its derived bound (reference/winograd.hpp)";
  }
  // The tile's zeros outside the image enter the input transform as real zeros.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  ConvErrorModel error_model(const ConvProblem&) const override { return ConvErrorModel{M, 0.0}; }
  Applicability applicable(const ConvProblem& p) const override {
    if (const std::string why = winograd_solver_refusal(p, M); !why.empty()) return Applicability::no(why);
    const WinoGeom wg = wino_geom(p, M);
    if (wg.tiles > kMaxTiles) return Applicability::no(std::to_string(wg.tiles) + " tiles exceed the GEMM dimension limit");
    return Applicability::yes();
  }
  // The batched GEMM's configs (bwd-weights: with the reduction's split, simt_batched_gemm.hpp).
  std::vector<std::string> perf_configs() const override { return simt_batched_gemm_tiles(); }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!applicable(p)) return {};
    return simt_batched_gemm_configs(gemm_of(p));
  }
  std::string default_config_for(const ConvProblem& p) const override { return simt_batched_gemm_default(gemm_of(p)); }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    return applicable(p) ? config_workspace_bytes(p, default_config_for(p)) : 0;
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    const WinoSpans sp = spans(wino_geom(p, M), M + 2);
    const std::int64_t partial = simt_batched_gemm_partial_floats(gemm_of(p), config.empty() ? default_config_for(p) : config);
    return static_cast<std::size_t>(partial > 0 ? partial_offset(sp) + partial : sp.u + sp.v + sp.m) * sizeof(float);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string config = t.config.empty() ? default_config_for(p) : t.config;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if (p.dir == ConvDir::bwd_weights)
        run_winograd_wgrad<T, M>(p, t, name(), config);
      else
        run_winograd<T, M>(p, t, name(), config);
    });
  }

 private:
  static SimtBatchedGemm gemm_of(const ConvProblem& p) {
    return batched_gemm(wino_geom(p, M), M + 2, p.dir == ConvDir::bwd_weights, nullptr, nullptr, nullptr);
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_winograd_f2x3() { return std::make_shared<ConvWinograd<2>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f4x3() { return std::make_shared<ConvWinograd<4>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f5x3() { return std::make_shared<ConvWinograd<5>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f6x3() { return std::make_shared<ConvWinograd<6>>(); }

}  // namespace hiprim::gpu
