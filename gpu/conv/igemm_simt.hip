// conv.igemm.simt: fp32 NHWC 2D convolution as an implicit GEMM on the FMA units (no tf32), all
// three directions: fwd and bwd-weights gather the activations in the kernel (no im2col, no padded
// copy); bwd-data runs each sub-pixel class as the stride-1 fwd conv of dy with the class's flipped
// sub-filter (copied into the workspace), writing the class's dx rows. Few channels (.col): the GEMMs
// over a column buffer (igemm_simt_col.hpp). Plan, configs and heuristic: igemm_simt_plan.hpp; kernel:
// igemm_simt_kernel.hpp.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/igemm_simt_col.hpp"
#include "gpu/conv/igemm_simt_kernel.hpp"
#include "gpu/conv/igemm_simt_launch.hpp"
#include "gpu/conv/igemm_simt_plan.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/conv/weight_copies.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr const char* kSimtName = "conv.igemm.simt";

SimtConvGeom simt_geom(const ConvProblem& f) {
  const Dims o = f.out();
  SimtConvGeom g;
  g.imgs = static_cast<int>(f.n), g.h = static_cast<int>(f.in[0]), g.w = static_cast<int>(f.in[1]);
  g.c = static_cast<int>(f.c), g.k = static_cast<int>(f.k);
  g.r = static_cast<int>(f.filter[0]), g.s = static_cast<int>(f.filter[1]);
  g.p = static_cast<int>(o[0]), g.q = static_cast<int>(o[1]);
  g.str_h = static_cast<int>(f.stride[0]), g.str_w = static_cast<int>(f.stride[1]);
  g.pad_h = static_cast<int>(f.pad[0]), g.pad_w = static_cast<int>(f.pad[1]);
  g.dil_h = static_cast<int>(f.dilation[0]), g.dil_w = static_cast<int>(f.dilation[1]);
  return g;
}

// bwd-data class z of p as the stride-1 fwd conv over dy (In = dy [N][P][Q][K], Out = the class's
// grid of dx rows): a class without taps keeps one (unused) tap so no index divides by zero.
SimtConvGeom class_geom(const ConvProblem& p, const SimtConvClass& z) {
  const Dims o = p.out();
  SimtConvGeom g;
  g.imgs = static_cast<int>(p.n), g.h = static_cast<int>(o[0]), g.w = static_cast<int>(o[1]);
  g.c = static_cast<int>(p.k), g.k = static_cast<int>(p.c);
  g.r = std::max(z.taps_h, 1), g.s = std::max(z.taps_w, 1);
  g.p = z.rows_h, g.q = z.rows_w;
  g.pad_h = z.pad_h, g.pad_w = z.pad_w, g.dil_h = z.dil_h, g.dil_w = z.dil_w;
  return g;
}

// One GEMM: the kernel (16-byte vectors where the channel counts are multiples of 4 and the
// buffers aligned), then the split's reduction into final_out.
void run_gemm(SimtConvArgs a, SimtConvDir d, const SimtConvConfig& c, float* partial, float* final_out,
              const float* bias, hipStream_t stream, const std::string& context) {
  a.k_chunk = static_cast<int>(simt_conv_chunk(a.kred, c));
  a.partial = c.splits > 1;
  a.out = a.partial ? partial : final_out;
  a.bias = a.partial ? nullptr : bias;
  const bool nchw = d == SimtConvDir::nchw_fwd || d == SimtConvDir::nchw_bwd_data;
  // float4 stores: 4-runs contiguous and 16-byte aligned (rows of pitch N, or NCHW pixel runs)
  a.vec_out = simt_aligned16(a.out) && (a.partial || !nchw ? a.n % 4 == 0 : a.map.cols_pq % 4 == 0);
  bool vec_a = false, vec_b = false;
  if (nchw) {  // A = W: C % 4 (fwd's rows of C, bwd-data's rows of M = C); B: pixel runs of stride 1
    vec_a = (d == SimtConvDir::nchw_fwd ? a.kred : a.m) % 4 == 0 && simt_aligned16(a.a);
    vec_b = a.g.str_h == 1 && a.g.str_w == 1 && a.g.p * a.g.q % 4 == 0 && simt_aligned16(a.b);
  } else {
    vec_a = vec_b = a.g.c % 4 == 0 && a.g.k % 4 == 0 && simt_aligned16(a.a) && simt_aligned16(a.b) && simt_aligned16(a.out);
  }
  switch (d) {
    case SimtConvDir::fwd: launch_simt_widths<SimtConvDir::fwd>(a, c, c.splits, vec_a, vec_b, stream, context); break;
    case SimtConvDir::wgrad: launch_simt_widths<SimtConvDir::wgrad>(a, c, c.splits, vec_a, vec_b, stream, context); break;
    case SimtConvDir::nchw_fwd:
      launch_simt_widths<SimtConvDir::nchw_fwd>(a, c, c.splits, vec_a, vec_b, stream, context);
      break;
    case SimtConvDir::nchw_bwd_data:
      launch_simt_widths<SimtConvDir::nchw_bwd_data>(a, c, c.splits, vec_a, vec_b, stream, context);
      break;
  }
  if (a.partial) launch_simt_conv_reduce(partial, static_cast<long long>(a.m) * a.n, a.n, c.splits, bias, final_out, a.map, stream, context);
}

// NCHW 1x1 pad 0 (fwd any stride, bwd-data stride 1): one GEMM reading NCHW in place (see the kernel).
void run_nchw(const ConvProblem& p, const ConvTensors& t, const SimtConvPlan& pl, const SimtConvConfig& c,
              float* partial, hipStream_t stream, const std::string& context) {
  const bool fwd = p.dir == ConvDir::fwd;
  SimtConvGeom g = simt_geom(p);
  if (!fwd) {  // dx = W^T dy[img]: B = dy [img][K][P][Q], the output dx [img][C][H][W] (H = P, W = Q)
    g.c = static_cast<int>(p.k), g.k = static_cast<int>(p.c), g.h = g.p, g.w = g.q;
  }
  SimtConvArgs a;
  a.g = g;
  a.m = static_cast<int>(pl.m), a.n = static_cast<int>(pl.n), a.kred = static_cast<int>(pl.kred);
  a.a = static_cast<const float*>(t.w), a.b = static_cast<const float*>(fwd ? t.x : t.y);
  a.map.cols_pq = g.p * g.q, a.map.rows = a.m;
  run_gemm(a, fwd ? SimtConvDir::nchw_fwd : SimtConvDir::nchw_bwd_data, c, partial, static_cast<float*>(fwd ? t.y : t.x),
           fwd && p.bias ? static_cast<const float*>(t.bias) : nullptr, stream, context);
}

// A 1x1 geometry over `pixels` rows of `c` floats: the GEMM kernel's view of col, dcol or dy.
SimtConvGeom rows_geom(std::int64_t pixels, std::int64_t c, std::int64_t k) {
  SimtConvGeom g;
  g.imgs = 1, g.h = 1, g.w = static_cast<int>(pixels), g.c = static_cast<int>(c), g.k = static_cast<int>(k);
  g.r = g.s = 1, g.p = 1, g.q = g.w;
  return g;
}

// .col: the weight copy and im2col (fwd, wgrad) or the dcol GEMM and col2im (bwd-data); see the plan.
void run_col(const ConvProblem& p, const ConvTensors& t, const SimtConvPlan& pl, const SimtConvConfig& c,
             hipStream_t stream, const std::string& context) {
  unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
  float* const wcopy = reinterpret_cast<float*>(ws);
  float* const col = reinterpret_cast<float*>(ws + pl.col_w_bytes);
  float* const partial = reinterpret_cast<float*>(ws + simt_conv_partial_offset(pl, c));
  const SimtConvGeom g = simt_geom(p);
  const int ld = static_cast<int>(pl.col_ld), rsc = g.r * g.s * g.c;
  const std::int64_t pixels = static_cast<std::int64_t>(g.imgs) * g.p * g.q;
  if (p.dir != ConvDir::bwd_weights) {
    hipLaunchKernelGGL(simt_col_weights_kernel, dim3(grid_stride_blocks(static_cast<std::int64_t>(g.k) * ld, kSimtColBlock)),
                       dim3(kSimtColBlock), 0, stream, static_cast<const float*>(t.w), g.k, rsc, ld,
                       p.dir == ConvDir::bwd_data, wcopy);
    HIPRIM_CHECK_LAUNCH("simt_col_weights_kernel", context);
  }
  if (p.dir != ConvDir::bwd_data) {
    hipLaunchKernelGGL(simt_im2col_kernel, dim3(grid_stride_blocks(pixels * g.r * g.s, kSimtColBlock)),
                       dim3(kSimtColBlock), 0, stream, g, ld, static_cast<const float*>(t.x), col);
    HIPRIM_CHECK_LAUNCH("simt_im2col_kernel", context);
  }
  SimtConvArgs a;
  a.m = static_cast<int>(pl.col_m), a.n = static_cast<int>(pl.col_n), a.kred = static_cast<int>(pl.col_kred);
  if (p.dir == ConvDir::fwd) {  // y[j][k] = col[j][.] . w4[k][.]
    a.g = rows_geom(pixels, ld, g.k), a.a = col, a.b = wcopy;
    run_gemm(a, SimtConvDir::fwd, c, partial, static_cast<float*>(t.y), p.bias ? static_cast<const float*>(t.bias) : nullptr,
             stream, context);
  } else if (p.dir == ConvDir::bwd_weights) {  // dw[k][q] = sum_j dy[j][k] col[j][q]
    a.g = rows_geom(pixels, ld, g.k), a.a = static_cast<const float*>(t.y), a.b = col;
    run_gemm(a, SimtConvDir::wgrad, c, partial, static_cast<float*>(t.w), nullptr, stream, context);
  } else {  // dcol[j][q] = dy[j][.] . wt[q][.], then dx = col2im(dcol)
    a.g = rows_geom(pixels, g.k, ld), a.a = static_cast<const float*>(t.y), a.b = wcopy;
    run_gemm(a, SimtConvDir::fwd, c, partial, col, nullptr, stream, context);
    hipLaunchKernelGGL(simt_col2im_kernel, dim3(grid_stride_blocks(p.x_desc().elements(), kSimtColBlock)),
                       dim3(kSimtColBlock), 0, stream, g, ld, col, static_cast<float*>(t.x));
    HIPRIM_CHECK_LAUNCH("simt_col2im_kernel", context);
  }
}

void run_simt(const ConvProblem& p, const ConvTensors& t, const SimtConvPlan& pl, const SimtConvConfig& c) {
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const std::string context = std::string(kSimtName) + " " + c.str() + " " + to_string(p);
  if (c.col) return run_col(p, t, pl, c, stream, context);
  unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
  float* const partial = reinterpret_cast<float*>(ws + simt_conv_partial_offset(pl, c));
  if (pl.nchw_run) return run_nchw(p, t, pl, c, partial, stream, context);
  if (!pl.classes_run) {  // fwd, bwd-weights: one GEMM over p itself
    SimtConvArgs a;
    a.g = simt_geom(pl.relation);
    a.m = static_cast<int>(pl.m), a.n = static_cast<int>(pl.n), a.kred = static_cast<int>(pl.kred);
    const bool fwd = p.dir == ConvDir::fwd;
    a.a = static_cast<const float*>(fwd ? t.x : t.y), a.b = static_cast<const float*>(fwd ? t.w : t.x);
    run_gemm(a, fwd ? SimtConvDir::fwd : SimtConvDir::wgrad, c, partial, static_cast<float*>(fwd ? t.y : t.w),
             fwd && p.bias ? static_cast<const float*>(t.bias) : nullptr, stream, context);
    return;
  }
  const ConvGeom g = conv_geom(p);
  const Dims in = p.in;
  for (const SimtConvClass& z : pl.classes) {  // bwd-data: each sub-pixel class into its dx rows
    float* const wz = reinterpret_cast<float*>(ws + z.w_offset);
    if (z.kred > 0) {
      const TapSelection sel{z.taps_h, z.taps_w, z.r0, z.s0, z.step_h, z.step_w};
      hipLaunchKernelGGL((tap_weights_kernel<float>), dim3(grid_stride_blocks(z.kred * p.c, kWeightCopyBlock)),
                         dim3(kWeightCopyBlock), 0, stream, g, sel, static_cast<const float*>(t.w), wz);
      HIPRIM_CHECK_LAUNCH("tap_weights_kernel", context);
    }
    SimtConvArgs a;
    a.g = class_geom(p, z);
    a.m = static_cast<int>(z.m), a.n = static_cast<int>(p.c), a.kred = static_cast<int>(z.kred);
    a.a = static_cast<const float*>(t.y), a.b = wz;
    const bool strided = p.stride[0] > 1 || p.stride[1] > 1;
    a.map = SimtOutMap{strided, z.rows_h, z.rows_w, static_cast<int>(in[0]), static_cast<int>(in[1]),
                       static_cast<int>(p.stride[0]), static_cast<int>(p.stride[1]), z.a, z.b};
    SimtConvConfig cz = c;
    if (z.kred == 0) cz.splits = 1;  // a class without taps writes its zeros directly
    run_gemm(a, SimtConvDir::fwd, cz, partial, static_cast<float*>(t.x), nullptr, stream, context);
  }
}

class ConvIgemmSimt final : public ConvSolver {
 public:
  std::string name() const override { return kSimtName; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "2D NHWC fp32 implicit GEMM on the FMA units (no tf32): activations gathered in the kernel, "
           "128x128/128x64/64x128/64x64 tiles of 8x8 register blocks, two shared-memory stages; fwd and bwd-weights any "
           "stride/pad/dilation, bwd-data per sub-pixel class (stride-1 fwd convs of dy); C < 16 also through a column "
           "buffer (.col: im2col / col2im gather); NCHW 1x1 pad-0 fwd and stride-1 bwd-data read in place (y = W x[n], "
           "dx = W^T dy[n]); groups 1; deterministic split-K";
  }
  double accumulation_error_factor() const override { return 1.0; }  // fp32 FMA, round to nearest
  // Padding taps (fwd, bwd-weights) and dy's padding in a class's fwd view (bwd-data's border taps)
  // are zero-filled loads that meet the other operand; the classes never reach a stride hole. A .col
  // bwd-data gathers real taps only (col2im), so its border taps are skipped; the declaration
  // follows the problem's default config.
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override {
    const SimtConvPlan pl = plan_simt_conv(p);
    const bool col_bwd_data = p.dir == ConvDir::bwd_data && pl.refusal.empty() && simt_conv_default(pl).col;
    return {.padding = ZeroTerm::multiplied,
            .border_taps = col_bwd_data ? ZeroTerm::skipped : ZeroTerm::multiplied,
            .stride_holes = ZeroTerm::skipped};
  }
  Applicability applicable(const ConvProblem& p) const override {
    const SimtConvPlan pl = plan_simt_conv(p);
    return pl.refusal.empty() ? Applicability::yes() : Applicability::no(pl.refusal);
  }
  std::vector<std::string> perf_configs() const override {
    std::vector<std::string> out;
    for (const char* mode : {"", ".col"})
      for (int s = 1; s <= 512; s *= 2)
        for (const char* t : {"t128x128", "t128x64", "t64x128", "t64x64"})
          out.push_back(std::string(t) + ".sk" + std::to_string(s) + mode);
    return out;
  }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    std::vector<std::string> out;
    for (const SimtConvConfig& c : simt_conv_configs(plan_simt_conv(p))) out.push_back(c.str());
    return out;
  }
  std::string default_config_for(const ConvProblem& p) const override {
    const SimtConvPlan pl = plan_simt_conv(p);
    return pl.refusal.empty() ? simt_conv_default(pl).str() : std::string();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    const SimtConvPlan pl = plan_simt_conv(p);
    return pl.refusal.empty() ? simt_conv_workspace(pl, simt_conv_default(pl)) : 0;
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    if (config.empty()) return workspace_bytes(p);
    const SimtConvPlan pl = plan_simt_conv(p);
    const SimtConvConfig c = parse_simt_conv_config(config);
    for (const SimtConvConfig& ok : simt_conv_configs(pl))
      if (ok == c) return simt_conv_workspace(pl, c);
    throw InputError(std::string(kSimtName) + " config '" + config + "' cannot run " + to_string(p));
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const SimtConvPlan pl = plan_simt_conv(p);
    run_simt(p, t, pl, t.config.empty() ? simt_conv_default(pl) : parse_simt_conv_config(t.config));
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_igemm_simt() { return std::make_shared<ConvIgemmSimt>(); }

}  // namespace hiprim::gpu
