// conv.gemm.implicit: 2D conv fwd (groups 1, dilation 1, any stride/pad, NCHW/NHWC, fp32/fp16/bf16)
// as one batched GEMM (batch = image) over a zero-padded NHWC copy of x, with no im2col: the maps
// and the workspace plan are in implicit_gemm_plan.hpp. bwd-data with stride 1 runs as its fwd twin
// (implicit_flip_twin: In = dy, Out = dx, W' = the flipped, transposed filter). Steps:
//   1. x_pad = pad_nhwc(x)   (one pass; also the NCHW -> NHWC transpose)
//   2. W' = w as [K][R][S][C] when w is in another order (NCHW weights [K][C][R][S]); else w itself;
//      flip: W'[c][r][s][k] = w[k][c][R-1-r][S-1-s]
//   3. y[img][k][pixel] = round( sum_kk W'[k][kk] * B[img][kk][pixel] (+bias[k]) ), one fp32 sum per
//      output in a fixed order: deterministic, no split-K, no atomics.
// Zeros in x_pad's border are real zeros, so a padded tap contributes w*0 like im2col's (0*Inf = NaN).
// conv.gemm.implicit.mma: the same solver on the tensor-core GEMM (gemm_conv_engine.hpp), fp16/bf16.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/gemm_conv_engine.hpp"
#include "gpu/conv/implicit_gemm_plan.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/conv/weight_copies.hpp"
#include "gpu/gemm/gemm_epilogue.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr const char* kImplicitName = "conv.gemm.implicit";
constexpr int kPadBlock = 256;

// x_pad[e], e = ((img*Hp + hp)*Wp + wp)*C + c (written in its memory order: coalesced stores).
template <typename T>
__global__ void __launch_bounds__(kPadBlock)
    pad_nhwc_kernel(ConvGeom g, long long hp_sz, long long wp_sz, const T* __restrict__ x, T* __restrict__ xpad) {
  const long long c_sz = g.in_ch, total = static_cast<long long>(g.batch) * hp_sz * wp_sz * c_sz;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    const long long c = e % c_sz, wp = (e / c_sz) % wp_sz, hp = (e / (c_sz * wp_sz)) % hp_sz;
    const long long img = e / (c_sz * wp_sz * hp_sz);
    const long long h = hp - g.pad[1], w = wp - g.pad[2];
    if (h >= 0 && h < g.in_sz[1] && w >= 0 && w < g.in_sz[2])
      xpad[e] = x[g.in_offset(img, c, 0, h, w)];
    else
      store_f(xpad, e, 0.0f);
  }
}

template <typename T, typename Tile>
void run_implicit(const ConvProblem& p, const ConvTensors& t, const ImplicitGemmPlan& pl, const std::string& name) {
  const ConvProblem f = pl.flip ? implicit_flip_twin(p) : p;  // the fwd problem the GEMM runs
  const ConvGeom g = conv_geom(f);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const std::string context = name + " " + to_string(p);
  unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
  T* const xpad = reinterpret_cast<T*>(ws);
  pad_nhwc_kernel<T><<<grid_stride_blocks(pl.xpad_elements(), kPadBlock), kPadBlock, 0, stream>>>(
      g, pl.hp, pl.wp, static_cast<const T*>(pl.flip ? t.y : t.x), xpad);
  HIPRIM_CHECK_LAUNCH("pad_nhwc_kernel", context);
  const T* wk = static_cast<const T*>(t.w);
  if (pl.transform_w) {
    T* const wt = reinterpret_cast<T*>(ws + pl.w_offset);
    const unsigned blocks = grid_stride_blocks(g.w_elements(), kWeightCopyBlock);
    if (pl.flip)
      tap_weights_kernel<T><<<blocks, kWeightCopyBlock, 0, stream>>>(conv_geom(p), TapSelection::all(conv_geom(p)), wk, wt);
    else
      krsc_weights_kernel<T><<<blocks, kWeightCopyBlock, 0, stream>>>(g, wk, wt);
    HIPRIM_CHECK_LAUNCH(pl.flip ? "tap_weights_kernel" : "krsc_weights_kernel", context);
    wk = wt;
  }
  StoreEpilogue<T> ep;
  ep.out = static_cast<T*>(pl.flip ? t.x : t.y);
  ep.out_map = implicit_out_map(f);
  if (f.bias) {  // bias[k], the same for every image (batch)
    ep.bias = static_cast<const T*>(t.bias);
    ep.bias_rows = DimMap::plain(1);
    ep.bias_batch = DimMap::plain(0);
  }
  launch_gemm<T, Tile>(pl.shape(), wk, pl.a_map(), xpad, pl.b_map(), ep, stream, context);
}

template <typename Engine>
class ConvGemmImplicit final : public ConvSolver {
 public:
  std::string name() const override { return std::string(kImplicitName) + Engine::suffix; }
  Backend backend() const override { return Backend::device; }
  double accumulation_error_factor() const override { return Engine::accumulation_error_factor; }
  // fwd over x_pad (bwd-data: over dy_pad): every padded tap is a stored zero, multiplied.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::multiplied); }
  std::string summary() const override {
    return std::string("2D conv fwd as one ") + Engine::gemm +
           " per image over a zero-padded NHWC copy of x (no im2col), fp32 accumulation; groups 1, dilation 1, "
           "any stride/pad; bwd-data with stride 1 as the fwd conv of dy with the flipped filter; " + Engine::dtypes +
           "; NCHW/NHWC; workspace <= " +
           std::to_string(kImplicitWorkspaceLimit >> 20) + " MiB";
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (auto errors = p.validate(); !errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (auto why = Engine::refusal(p); !why) return why;
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    if (!pl.refusal.empty()) return Applicability::no(pl.refusal);
    return Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    return pl.refusal.empty() ? pl.workspace_bytes : 0;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string me = name();
    const ImplicitGemmPlan pl = plan_implicit_gemm(p);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (Engine::template takes<T>) run_implicit<T, typename Engine::Tile>(p, t, pl, me);
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_gemm_implicit() {
  return std::make_shared<ConvGemmImplicit<SimtConvEngine>>();
}
std::shared_ptr<const ConvSolver> make_conv_gemm_implicit_mma() {
  return std::make_shared<ConvGemmImplicit<MmaConvEngine>>();
}

}  // namespace hiprim::gpu
