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
// conv.winograd.tc.f<m>x3 (fp16/bf16 data): the same steps with U and V (bwd-weights: D and V) stored in bf16,
// each rounded to nearest even once after its fp32 transform, and the GEMMs on the project's GEMM layer
// (gpu/gemm: fp32 accumulation into the fp32 M) on tensor cores (config "mma": mma.sync m16n8k16, sm_80+) or
// the SIMT tile ("simt", every device and the host emulation: k ascending, one fmaf a step, bitwise the
// reference's order). bf16 for fp16 data too: B^T d B grows past fp16's 65504 where |d| is large (F(4x4)'s
// |B^T| rows sum to 10), bf16 keeps fp32's range. Judged by ConvErrorModel{m, winograd_operands = bf16} with
// the accumulation factor 2 (reference/winograd.hpp). bwd-weights splits the tile sum (K) as gemm_index.hpp's
// plan_split_k picks for the engine's tile.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/conv/simt_batched_gemm.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/conv/winograd_kernels.hpp"
#include "gpu/gemm/gemm.hpp"  // gemm_mma_unavailable
#include "gpu/gemm/gemm_mma.hpp"
#include "gpu/gemm/gemm_tile.hpp"

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

// Byte offsets of the workspace's regions: `first` (fwd U, bwd-weights M), V, `third` (fwd M, bwd-weights D),
// the split GEMM's fp32 partial sums, and the total. U, V and D hold `operand_bytes` each (4: fp32, 2: bf16), M
// fp32. fp32 operands: the regions back to back, the partial sums at a 16-byte boundary; 16-bit operands:
// every region at a 256-byte boundary (the tensor-core GEMM's 16-byte vector loads).
struct WinoLayout {
  std::size_t first, v, third, partial, total;
};
WinoLayout layout_of(const WinoSpans& sp, bool wgrad, std::size_t operand_bytes, long long partial_floats) {
  const std::size_t al = operand_bytes == 4 ? 4 : 256, al_partial = operand_bytes == 4 ? 16 : 256;
  auto up = [](std::size_t b, std::size_t to) { return (b + to - 1) / to * to; };
  const std::size_t first = static_cast<std::size_t>(sp.u) * (wgrad ? 4 : operand_bytes),
                    third = static_cast<std::size_t>(sp.m) * (wgrad ? operand_bytes : 4);
  WinoLayout l{};
  l.v = up(first, al);
  l.third = up(l.v + static_cast<std::size_t>(sp.v) * operand_bytes, al);
  const std::size_t end = l.third + third;
  l.partial = up(end, al_partial);
  l.total = partial_floats > 0 ? l.partial + static_cast<std::size_t>(partial_floats) * sizeof(float) : end;
  return l;
}
template <typename P>
P* at_byte(void* base, std::size_t offset) {
  return reinterpret_cast<P*>(static_cast<unsigned char*>(base) + offset);
}

// V = B^T d B for every (g, c, p): thread i -> (c, p), walked as chan_tile_of says.
template <typename T, int M, typename W>
__global__ void wino_input(WinoGeom wg, WinoMats mt, const T* __restrict__ x, W* __restrict__ v) {
  const long long P = wg.tiles, C = 1LL * wg.g.groups * wg.cg, total = C * P;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int gc;
    long long p;
    chan_tile_of(wg, i, C, gc, p);
    const int cc = gc % wg.cg, grp = gc / wg.cg;
    const long long stride = 1LL * wg.g.groups * wg.cg * P;  // between xi
    W* out = v + wg.wsp(grp, wg.cg, cc, p);
    input_transform<T, M>(wg, mt, x, p, gc, [&](int xi, float value) { store_f(out, xi * stride, value); });
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
template <typename T, int M, typename W>
__global__ void wino_dy(WinoGeom wg, WinoMats mt, const T* __restrict__ dy, W* __restrict__ d) {
  const long long P = wg.tiles, C = 1LL * wg.g.groups * wg.kg, total = C * P;
  for (long long i = grid_thread(); i < total; i += grid_threads()) {
    int gk;
    long long p;
    chan_tile_of(wg, i, C, gk, p);
    const int kk = gk % wg.kg, grp = gk / wg.kg;
    const long long stride = 1LL * wg.g.groups * wg.kg * P;  // between xi
    W* out = d + wg.wsp(grp, wg.kg, kk, p);
    dy_transform<T, M>(wg, mt, dy, p, gk, [&](int xi, float value) { store_f(out, xi * stride, value); });
  }
}

// The a^2 G transformed-domain GEMMs of a tc solver over 16-bit operands (b = xi*G + g), into fp32 M:
//   fwd:          M[b](p, k) = sum_c V[b](p, c) U[b](k, c)      m = P, n = kg, K = cg
//   bwd-weights:  M[b](k, c) = sum_p D[b](p, k) V[b](p, c)      m = kg, n = cg, K = P (split by plan_split_k)
// V, M and D at WinoGeom::wsp (channels fastest or not), U and bwd-weights' M [b][kg][cg].
struct TcGemm {
  GemmShape shape;
  MatrixMap a, b, c;
  bool swap = false;  // bwd-weights: A is D, B is V (fwd: A is V, B is U)
};
TcGemm tc_gemm_of(const WinoGeom& wg, int a, bool wgrad) {
  const long long P = wg.tiles, cg = wg.cg, kg = wg.kg, batch = 1LL * a * a * wg.g.groups;
  auto pl = [](long long s) { return DimMap::plain(s); };
  TcGemm g;
  if (wgrad) {
    g.shape = GemmShape{kg, cg, P, batch};
    g.a = MatrixMap{pl(1), pl(kg), pl(P * kg)};  // D^T: rows k, columns p
    g.b = MatrixMap{pl(cg), pl(1), pl(P * cg)};  // V: rows p, columns c
    g.c = MatrixMap{pl(cg), pl(1), pl(kg * cg)};
    g.swap = true;
    return g;
  }
  g.shape = GemmShape{P, kg, cg, batch};
  g.a = wg.chan_fast ? MatrixMap{pl(cg), pl(1), pl(P * cg)} : MatrixMap{pl(1), pl(P), pl(cg * P)};  // V: rows p, columns c
  g.b = MatrixMap{pl(1), pl(cg), pl(kg * cg)};                                                      // U^T: rows c, columns k
  g.c = wg.chan_fast ? MatrixMap{pl(kg), pl(1), pl(P * kg)} : MatrixMap{pl(1), pl(P), pl(kg * P)};
  return g;
}
// K slices of the GEMM on the engine ("mma": the tensor-core tile, else the SIMT default tile); fwd: 1.
long long tc_splits(const TcGemm& g, bool mma) {
  if (!g.swap) return 1;
  return mma ? plan_split_k(g.shape, GemmMmaTile::BM, GemmMmaTile::BN) : plan_split_k(g.shape, GemmTileDefault::BM, GemmTileDefault::BN);
}
long long tc_partial_floats(const TcGemm& g, bool mma) {
  const long long s = tc_splits(g, mma);
  return s > 1 ? static_cast<long long>(split_k_workspace_bytes(g.shape, s) / sizeof(float)) : 0;
}
template <typename W>
void launch_tc_gemm(const TcGemm& g, bool mma, const W* first, const W* second, float* m, float* partial, hipStream_t stream,
                    const std::string& context) {
  StoreEpilogue<float> ep;
  ep.out = m;
  ep.out_map = g.c;
  const long long splits = tc_splits(g, mma);
  if (mma)
    launch_gemm_split_k<W, GemmMmaTile>(g.shape, splits, partial, first, g.a, second, g.b, ep, stream, context);
  else
    launch_gemm_split_k<W, GemmTileDefault>(g.shape, splits, partial, first, g.a, second, g.b, ep, stream, context);
}

// The GEMM step of run_winograd(_wgrad): fp32 operands on the SIMT batched kernel with `config`'s tile, 16-bit
// ones on the GEMM layer ("mma" or "simt"). first: fwd V, bwd-weights D; second: fwd U, bwd-weights V.
template <typename W>
void transformed_gemm(const WinoGeom& wg, int a, bool wgrad, const W* first, const W* second, float* m, float* partial,
                      const std::string& config, hipStream_t stream, const std::string& context) {
  if constexpr (std::is_same_v<W, float>)
    launch_simt_batched_gemm(wgrad ? batched_gemm(wg, a, true, first, second, m, partial) : batched_gemm(wg, a, false, second, first, m),
                             config, stream, context);
  else
    launch_tc_gemm<W>(tc_gemm_of(wg, a, wgrad), config == "mma", first, second, m, partial, stream, context);
}

// bwd-weights: the workspace (layout_of): M [a^2][G][kg][cg] (fp32), V, then D, then (a split GEMM) the
// partial sums.
template <typename T, int M, typename W>
void run_winograd_wgrad(const ConvProblem& p, const ConvTensors& t, const std::string& name, const std::string& config,
                        long long partial_floats) {
  constexpr int A = M + 2;
  const WinoMats mt = mats_of(winograd_f3(M));
  const WinoGeom wg = wino_geom(p, M);
  const WinoLayout l = layout_of(spans(wg, A), true, sizeof(W), partial_floats);
  float* mw = at_byte<float>(t.workspace, 0);
  W* v = at_byte<W>(t.workspace, l.v);
  W* d = at_byte<W>(t.workspace, l.third);
  float* partial = at_byte<float>(t.workspace, l.partial);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  auto ctx = [&] { return "running " + name + " on " + to_string(p); };
  const long long vcp = 1LL * wg.g.groups * wg.cg * wg.tiles, dkp = 1LL * wg.g.groups * wg.kg * wg.tiles,
                  kc = 1LL * wg.g.groups * wg.kg * wg.cg;
  const auto input = &wino_input<T, M, W>;
  const auto dyt = &wino_dy<T, M, W>;
  const auto output = &wino_wgrad_output<T, M>;
  hipLaunchKernelGGL(input, dim3(stream_grid(input, kBlock, vcp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.x), v);
  check_launch_lazy("wino_input", ctx);
  hipLaunchKernelGGL(dyt, dim3(stream_grid(dyt, kBlock, dkp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.y), d);
  check_launch_lazy("wino_dy", ctx);
  // M[b] = sum_p D[b][p] (x) V[b][p] for b = xi*G + g (fp32 sums, tiles ascending)
  transformed_gemm<W>(wg, A, true, d, v, mw, partial, config, stream, name + " transformed-domain GEMM (bwd-weights)");
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, kc)), dim3(kBlock), 0, stream, wg, mt, static_cast<const float*>(mw),
                     static_cast<T*>(t.w));
  check_launch_lazy("wino_wgrad_output", ctx);
}

// fwd and bwd-data: the workspace (layout_of): U, V, then M (fp32).
template <typename T, int M, typename W>
void run_winograd(const ConvProblem& p, const ConvTensors& t, const std::string& name, const std::string& config) {
  constexpr int A = M + 2;
  const WinogradTransforms tr = winograd_f3(M);
  const WinoMats mt = mats_of(tr);
  const WinoGeom wg = wino_geom(p, M);
  const WinoLayout l = layout_of(spans(wg, A), false, sizeof(W), 0);
  W* u = at_byte<W>(t.workspace, 0);
  W* v = at_byte<W>(t.workspace, l.v);
  float* mw = at_byte<float>(t.workspace, l.third);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  auto ctx = [&] { return "running " + name + " on " + to_string(p); };
  const long long ukc = 1LL * wg.g.groups * wg.kg * wg.cg, vcp = 1LL * wg.g.groups * wg.cg * wg.tiles,
                  mkp = 1LL * wg.g.groups * wg.kg * wg.tiles;
  const auto filter = &wino_filter<T, M, W>;
  const auto input = &wino_input<T, M, W>;
  const auto output = &wino_output<T, M>;
  const bool fwd = p.dir == ConvDir::fwd;
  hipLaunchKernelGGL(filter, dim3(stream_grid(filter, kBlock, ukc)), dim3(kBlock), 0, stream, wg, mt, static_cast<const T*>(t.w), u);
  check_launch_lazy("wino_filter", ctx);
  hipLaunchKernelGGL(input, dim3(stream_grid(input, kBlock, vcp)), dim3(kBlock), 0, stream, wg, mt,
                     static_cast<const T*>(fwd ? t.x : t.y), v);
  check_launch_lazy("wino_input", ctx);
  // M[b] = V[b] U[b]^T for b = xi*G + g < a^2 * G: V's and M's layouts (wsp) are those of the batched GEMM's
  // channels_last (NHWC) or not.
  transformed_gemm<W>(wg, A, false, v, u, mw, nullptr, config, stream, name + " transformed-domain GEMM");
  hipLaunchKernelGGL(output, dim3(stream_grid(output, kBlock, mkp)), dim3(kBlock), 0, stream, wg, mt, static_cast<const float*>(mw),
                     static_cast<T*>(fwd ? t.y : t.x));
  check_launch_lazy("wino_output", ctx);
}

// What both non-fused families share: the name's tile, the refusals, the zeros' role.
template <int M>
class ConvWinogradBase : public ConvSolver {
 public:
  Backend backend() const override { return Backend::device; }
  // The tile's zeros outside the image enter the input transform as real zeros.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  Applicability applicable(const ConvProblem& p) const override {
    if (const std::string why = winograd_solver_refusal(p, M); !why.empty()) return Applicability::no(why);
    const WinoGeom wg = wino_geom(p, M);
    if (wg.tiles > kMaxTiles) return Applicability::no(std::to_string(wg.tiles) + " tiles exceed the GEMM dimension limit");
    return Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    return applicable(p) ? config_workspace_bytes(p, default_config_for(p)) : 0;
  }
};

template <int M>
class ConvWinograd final : public ConvWinogradBase<M> {
 public:
  std::string name() const override { return "conv.winograd.f" + std::to_string(M) + "x3"; }
  std::string summary() const override {
    return "Winograd F(" + std::to_string(M) + "x" + std::to_string(M) +
           ", 3x3), non-fused (filter and input transforms, batched SIMT GEMMs, output transform; all in fp32): fwd, "
           "bwd-data (pad <= 2) and bwd-weights (the transposed form), 3x3, stride 1, dilation 1, any groups; fp32/fp16/bf16; "
           "NCHW/NHWC; judged by its derived bound (reference/winograd.hpp)";
  }
  ConvErrorModel error_model(const ConvProblem&) const override { return ConvErrorModel{M, 0.0}; }
  // The batched GEMM's configs (bwd-weights: with the reduction's split, simt_batched_gemm.hpp).
  std::vector<std::string> perf_configs() const override { return simt_batched_gemm_tiles(); }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!this->applicable(p)) return {};
    return simt_batched_gemm_configs(gemm_of(p));
  }
  std::string default_config_for(const ConvProblem& p) const override { return simt_batched_gemm_default(gemm_of(p)); }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    const std::int64_t partial = simt_batched_gemm_partial_floats(gemm_of(p), config.empty() ? default_config_for(p) : config);
    return layout_of(spans(wino_geom(p, M), M + 2), p.dir == ConvDir::bwd_weights, sizeof(float), partial).total;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string config = t.config.empty() ? default_config_for(p) : t.config;
    const std::int64_t partial = simt_batched_gemm_partial_floats(gemm_of(p), config);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if (p.dir == ConvDir::bwd_weights)
        run_winograd_wgrad<T, M, float>(p, t, name(), config, partial);
      else
        run_winograd<T, M, float>(p, t, name(), config);
    });
  }

 private:
  static SimtBatchedGemm gemm_of(const ConvProblem& p) {
    return batched_gemm(wino_geom(p, M), M + 2, p.dir == ConvDir::bwd_weights, nullptr, nullptr, nullptr);
  }
};

// conv.winograd.tc.f<m>x3: fp16/bf16 data, bf16 transformed operands, the GEMMs on tensor cores ("mma") or the
// SIMT tile ("simt"); configs_for lists "mma" only where gemm_mma_unavailable() is empty (the default there).
template <int M>
class ConvWinogradTc final : public ConvWinogradBase<M> {
 public:
  std::string name() const override { return "conv.winograd.tc.f" + std::to_string(M) + "x3"; }
  std::string summary() const override {
    return "Winograd F(" + std::to_string(M) + "x" + std::to_string(M) +
           ", 3x3), non-fused, fp16/bf16 data: fp32 transforms, U and V (bwd-weights D and V) stored in bf16, the "
           "transformed-domain GEMMs on tensor cores (mma.sync, sm_80+; config simt: the SIMT tile), fp32 M: fwd, bwd-data "
           "(pad <= 2) and bwd-weights, 3x3, stride 1, dilation 1, any groups; NCHW/NHWC; judged by its derived bound with "
           "the bf16 operands' rounding (reference/winograd.hpp)";
  }
  double accumulation_error_factor() const override { return 2.0; }  // the tensor core's truncating fp32 adds
  ConvErrorModel error_model(const ConvProblem&) const override {
    ConvErrorModel e{M, 0.0};
    e.winograd_operands = DType::bf16;
    return e;
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (p.dtype == DType::fp32)
      return Applicability::no("fp32 data: the 16-bit tensor-core GEMMs would round it (conv.winograd.f" + std::to_string(M) +
                               "x3 keeps fp32)");
    return ConvWinogradBase<M>::applicable(p);
  }
  std::vector<std::string> perf_configs() const override { return {"mma", "simt"}; }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    if (!applicable(p)) return {};
    if (gemm_mma_unavailable().empty()) return {"mma", "simt"};
    return {"simt"};
  }
  std::string default_config_for(const ConvProblem& p) const override {
    const std::vector<std::string> c = configs_for(p);
    return c.empty() ? "" : c.front();
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    check_config(name(), to_string(p), configs_for(p), config);
    const bool mma = (config.empty() ? default_config_for(p) : config) == "mma", wgrad = p.dir == ConvDir::bwd_weights;
    const WinoGeom wg = wino_geom(p, M);
    return layout_of(spans(wg, M + 2), wgrad, 2, tc_partial_floats(tc_gemm_of(wg, M + 2, wgrad), mma)).total;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string config = t.config.empty() ? default_config_for(p) : t.config;
    const WinoGeom wg = wino_geom(p, M);
    const long long partial = tc_partial_floats(tc_gemm_of(wg, M + 2, p.dir == ConvDir::bwd_weights), config == "mma");
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (!std::is_same_v<T, float>) {
        if (p.dir == ConvDir::bwd_weights)
          run_winograd_wgrad<T, M, hiprim_bf16_t>(p, t, name(), config, partial);
        else
          run_winograd<T, M, hiprim_bf16_t>(p, t, name(), config);
      }
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_winograd_f2x3() { return std::make_shared<ConvWinograd<2>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f4x3() { return std::make_shared<ConvWinograd<4>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f5x3() { return std::make_shared<ConvWinograd<5>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_f6x3() { return std::make_shared<ConvWinograd<6>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f2x3() { return std::make_shared<ConvWinogradTc<2>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f4x3() { return std::make_shared<ConvWinogradTc<4>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f5x3() { return std::make_shared<ConvWinogradTc<5>>(); }
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f6x3() { return std::make_shared<ConvWinogradTc<6>>(); }

}  // namespace hiprim::gpu
