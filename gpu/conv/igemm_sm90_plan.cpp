// conv.igemm.wgmma's plan, configs and heuristic (host code; see igemm_sm90_plan.hpp).
#include "gpu/conv/igemm_sm90_plan.hpp"

#include "gpu/conv/subpixel_taps.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

namespace hiprim::gpu::sm90 {
namespace {

constexpr long long kIndexLimit = std::numeric_limits<int>::max();

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

// Strided bwd-data as fwd over per-class sub-filters (the header's B'): the same classes, A gathers
// and output rows; B dense K-major with rows z*C.. for class z and row length ld = the largest kred;
// A by TMA only where the one class with taps reads dy as a dense [N*P*Q][K] matrix (1x1, pad 0).
void plan_subpixel_flip(const ConvProblem& p, IgemmPlan& pl) {
  if (pl.kred_max == 0) return;  // no class has taps
  IgemmPlan f;
  f.params = pl.params;
  f.kblock = pl.kblock;
  IgemmParams& q = f.params;
  q.dir = IgemmDir::fwd;
  q.a_ld = static_cast<int>(pl.kred_max);  // a multiple of K, so of 8 (16-byte TMA rows)
  // Classes with more taps first: their tiles take longest, and the grid starts them first (z is
  // launched in order), so the light ones fill the tail. Each class keeps its own rows and taps.
  std::stable_sort(q.cls, q.cls + q.classes, [](const IgemmClass& a, const IgemmClass& b) { return a.kred > b.kred; });
  int with_taps = 0;
  bool dense = true;
  for (int z = 0; z < q.classes; ++z) {
    IgemmClass& cl = q.cls[z];
    cl.b_row0 = z * q.n_cols;
    if (cl.kred == 0) continue;
    ++with_taps;
    const ActGather& g = cl.act;
    dense = dense && z == 0 && g.nr == 1 && g.ns == 1 && g.ry_add == 0 && g.rx_add == 0 && g.rh == g.sh && g.rw == g.sw;
  }
  q.a_dense = with_taps == 1 && dense;
  q.a_im2col = false;  // the classes' taps step backwards through dy
  f.gemm_m_max = pl.gemm_m_max;
  f.kred_max = pl.kred_max;
  f.flops = pl.flops;
  f.min_bytes = pl.min_bytes;
  const long long elements = static_cast<long long>(q.classes) * q.n_cols * q.a_ld;
  if (elements > kIndexLimit) return;  // B' offsets are 32-bit
  pl.flip_w_bytes = static_cast<std::size_t>(elements) * dtype_size(p.dtype);
  pl.flip = std::make_shared<const IgemmPlan>(std::move(f));
  pl.flip_subpixel = true;
}

int default_stages(int bm, int bn) { return (bm == 128 && bn == 128) ? 3 : 4; }

// The config without its lowering (.flip / .col2im / .im2col): what runs the sub-plan.
IgemmConfig without_lowering(IgemmConfig c) {
  c.flip = c.col2im = c.im2col = false;
  return c;
}

constexpr int kColMaxRow = 256;                   // R*S*C of the col lowerings
constexpr std::size_t kColMaxBytes = 256u << 20;  // bytes of the dcol / col workspace

// The .col2im sub-plan of a bwd-data problem (see the header), or nothing.
// bwd-weights' B gather of p: x[img][p*str - pad + r*dil][q*str - pad + s*dil][c] by (pixel, r, s, c).
PixelGather pixel_gather(const ConvProblem& p) {
  const Dims out = p.out();
  return PixelGather{static_cast<int>(p.in[0]),     static_cast<int>(p.in[1]),     static_cast<int>(p.c),
                     static_cast<int>(out[0]),      static_cast<int>(out[1]),      static_cast<int>(p.filter[0]),
                     static_cast<int>(p.filter[1]), static_cast<int>(p.stride[0]), static_cast<int>(p.stride[1]),
                     static_cast<int>(p.pad[0]),    static_cast<int>(p.pad[1]),    static_cast<int>(p.dilation[0]),
                     static_cast<int>(p.dilation[1]), static_cast<int>(p.n * out[0] * out[1])};
}

// The .im2col sub-plan of a bwd-weights problem (see the header), or nothing.
void plan_im2col(const ConvProblem& p, IgemmPlan& pl) {
  if (p.dir != ConvDir::bwd_weights) return;
  const long long j = p.filter[0] * p.filter[1] * p.c, jp = (j + 7) / 8 * 8;
  const bool plain = p.filter[0] == 1 && p.filter[1] == 1 && p.stride[0] == 1 && p.stride[1] == 1 && p.pad[0] == 0 &&
                     p.pad[1] == 0 && p.c % 8 == 0;  // col would be x itself
  const Dims out = p.out();
  const long long pixels = p.n * out[0] * out[1];
  if (plain || j > kColMaxRow || static_cast<double>(pixels) * jp * 2 > static_cast<double>(kColMaxBytes)) return;
  ConvProblem g = p;  // dw' = the 1x1 bwd-weights of col [N][P][Q][Jp] and dy
  g.c = jp, g.in = out, g.filter = {1, 1}, g.pad = {0, 0}, g.stride = {1, 1}, g.dilation = {1, 1};
  IgemmPlan gp = plan_igemm(g);
  if (!gp.refusal.empty()) return;
  pl.im2col = std::make_shared<const IgemmPlan>(std::move(gp));
  pl.im2col_geom = Im2col{pixel_gather(p), static_cast<int>(j), static_cast<int>(jp)};
  pl.col_bytes = static_cast<std::size_t>(pixels * jp) * dtype_size(p.dtype);
  pl.dwp_bytes = static_cast<std::size_t>(p.k * jp) * dtype_size(p.dtype);
}

void plan_col2im(const ConvProblem& p, IgemmPlan& pl) {
  if (p.dir != ConvDir::bwd_data) return;
  const long long j = p.filter[0] * p.filter[1] * p.c, jp = (j + 7) / 8 * 8;
  const Dims out = p.out();
  const long long pixels = p.n * out[0] * out[1];
  if (j > kColMaxRow || pixels % 8 != 0 || static_cast<double>(pixels) * jp * 4 > static_cast<double>(kColMaxBytes))
    return;
  ConvProblem g;  // dcol [Jp][pixels] = w^T [Jp][K] x dy^T: a fwd 1x1 convolution of w^T with dy as its filter
  g.dir = ConvDir::fwd, g.dtype = p.dtype, g.channels_last = true, g.n = 1, g.c = p.k, g.k = pixels;
  g.in = {jp, 1}, g.filter = {1, 1}, g.pad = {0, 0}, g.stride = {1, 1}, g.dilation = {1, 1}, g.out_pad = {0, 0};
  IgemmPlan gp = plan_igemm(g);
  if (!gp.refusal.empty()) return;
  pl.col2im = std::make_shared<const IgemmPlan>(std::move(gp));
  pl.col2im_geom = Col2im{static_cast<int>(p.n), static_cast<int>(p.in[0]), static_cast<int>(p.in[1]), static_cast<int>(p.c),
                          static_cast<int>(out[0]), static_cast<int>(out[1]), static_cast<int>(p.filter[0]),
                          static_cast<int>(p.filter[1]), static_cast<int>(jp), static_cast<int>(p.stride[0]),
                          static_cast<int>(p.stride[1]), static_cast<int>(p.pad[0]), static_cast<int>(p.pad[1]),
                          static_cast<int>(p.dilation[0]), static_cast<int>(p.dilation[1]), pixels};
  Col2im& cg = pl.col2im_geom;
  const int gh = std::gcd(cg.dil_h, cg.str_h), gw = std::gcd(cg.dil_w, cg.str_w);
  cg.step_h = cg.str_h / gh, cg.dp_h = cg.dil_h / gh, cg.step_w = cg.str_w / gw, cg.dp_w = cg.dil_w / gw;
  pl.dcol_bytes = static_cast<std::size_t>(pixels * jp) * sizeof(float);
  pl.wt_bytes = static_cast<std::size_t>(jp * p.k) * dtype_size(p.dtype);
}

// The native bwd-data kernel (B MN-major by cp.async) took 1.32-1.43x the time of the fwd kernel on
// the same GEMM for ResNet-50's stride-1 3x3 layers (H200, reports/h200/s4-2026-12-01): its
// efficiency prior relative to fwd's.
constexpr double kBwdDataEfficiency = 1.0 / 1.35;
// bwd-weights with both operands by TMA (1x1, stride 1, pad 0) took 0.45-0.59x the time of the best
// cp.async config on ResNet-50's twelve such layers (reports/h200/s5-2026-12-01/sweep_bwd_weights_h200.csv).
constexpr double kAllTmaBwdWeightsEfficiency = 1.9;
// fwd with both operands by TMA (B tiled; A tiled where dense, else im2col mode) took 0.5-0.9x the
// time of the best cp.async config on ResNet-50's layers with at least 4 k-blocks, and tied or lost
// with fewer (reports/h200/s6-2026-12-01/sweep_fwd_bwd_data_h200.csv).
constexpr double kAllTmaFwdEfficiency = 1.4;
constexpr int kAllTmaFwdMinKBlocks = 4;
constexpr int kTmaDefaultStages = 6;  // the stage count of most of those winners
constexpr double kCopyRate = 3.0e12;       // bytes/s, a conservative copy rate
constexpr double kExtraLaunch = 2e-6;      // seconds: one more kernel in a graph

// The splits of a class of kred reduction terms under split-K with kps k-blocks (of kblock elements)
// per split: each split owns kps of its k-blocks (the last fewer), at least one split; splitk 1: one.
long long class_splits(long long kred, long long kps, int splitk, int kblock) {
  return splitk > 1 ? std::max<long long>(1, cdiv(cdiv(kred, kblock), kps)) : 1;
}

double tile_efficiency(int bm, int bn) {  // a rough prior; the H200 sweep (NOTES_sm90.md) replaces it
  const int area = bm * bn;
  return area >= 32768 ? 1.0 : area >= 16384 ? 0.85 : area >= 8192 ? 0.62 : 0.45;
}

}  // namespace

IgemmPlan plan_igemm(const ConvProblem& p) {
  IgemmPlan pl;
  auto no = [&](std::string why) {
    pl.refusal = std::move(why);
    return pl;
  };
  if (auto errors = p.validate(); !errors.empty()) return no("invalid problem: " + errors.front());
  const bool tf32 = p.dtype == DType::fp32 && p.math == ConvMath::tf32;
  if (p.dtype == DType::fp32 && !tf32)
    return no("fp32 without math=tf32 runs on the FMA path (exact fp32 products; the tensor cores would read "
              "its inputs as TF32: opt in with the problem token math=tf32)");
  if (tf32) {  // wgmma .tf32 takes K-major operands only (PTX ISA: no transpose for .tf32)
    if (p.dir == ConvDir::bwd_weights)
      return no("math=tf32 bwd-weights: its GEMM reduces over pixels, so both operands are MN-major in shared "
                "memory, and wgmma .tf32 takes K-major operands only (no transpose)");
    if (p.c % 8 != 0)
      return no("math=tf32 with C = " + std::to_string(p.c) + " not a multiple of 8 (the channel-padding copies are 16-bit only)");
    pl.kblock = kTf32KBlock;
  }
  if (!p.channels_last) return no("layout " + p.layout_name() + ": this solver reads NHWC only (NCHW: not yet)");
  if (p.rank() != 2) return no("3D convolution (this solver is 2D)");
  if (p.mode != ConvMode::conv) return no("mode trans (not mapped onto this solver yet)");
  if (p.groups != 1)
    return no("groups " + std::to_string(p.groups) + " > 1 (grouped and depthwise convolutions are left to a direct kernel)");
  if (p.k % 8 != 0)
    return no("K = " + std::to_string(p.k) + " is not a multiple of 8 (16-byte channel runs of dy and y)");
  if (p.c % 8 != 0) {  // plan the channel-padded problem; the solver pads and cuts in the workspace
    ConvProblem q = p;
    q.c = (p.c + 7) / 8 * 8;
    IgemmPlan padded = plan_igemm(q);
    if (!padded.refusal.empty()) return padded;
    const std::size_t e = dtype_size(p.dtype);
    padded.c_real = static_cast<int>(p.c);
    padded.c_pad = static_cast<int>(q.c);
    padded.act_pad_bytes = static_cast<std::size_t>(q.x_desc().elements()) * e;
    padded.w_pad_bytes = static_cast<std::size_t>(q.w_desc().elements()) * e;
    padded.flops = static_cast<std::int64_t>(p.flops());
    padded.min_bytes = static_cast<std::int64_t>(e) * (p.x_desc().elements() + p.w_desc().elements() + p.y_desc().elements());
    padded.flip = nullptr, padded.flip_w_bytes = 0, padded.flip_subpixel = false;  // no flipped filter of padded channels
    padded.col2im = nullptr, padded.im2col = nullptr;
    plan_col2im(p, padded);  // the col lowerings need no padded channels: planned on p itself
    plan_im2col(p, padded);
    return padded;
  }
  const Dims out = p.out();
  const long long n = p.n, c = p.c, k = p.k, h = p.in[0], w = p.in[1], r = p.filter[0], s = p.filter[1];
  const long long oh = out[0], ow = out[1];
  for (auto [what, v] : {std::pair{"x elements", n * c * h * w}, std::pair{"y elements", n * k * oh * ow},
                         std::pair{"w elements", k * c * r * s}})
    if (v > kIndexLimit)
      return no(std::string(what) + " = " + std::to_string(v) + " exceeds the 32-bit index limit");
  const int sh = static_cast<int>(p.stride[0]), sw = static_cast<int>(p.stride[1]);
  const int ph = static_cast<int>(p.pad[0]), pw = static_cast<int>(p.pad[1]);
  const int dh = static_cast<int>(p.dilation[0]), dw = static_cast<int>(p.dilation[1]);
  IgemmParams& q = pl.params;
  q.classes = 1;
  switch (p.dir) {
    case ConvDir::fwd: {
      q.dir = IgemmDir::fwd;
      q.n_cols = static_cast<int>(k);
      IgemmClass& cl = q.cls[0];
      cl.m = static_cast<int>(n * oh * ow);
      cl.kred = static_cast<int>(r * s * c);
      cl.act = ActGather{static_cast<int>(h), static_cast<int>(w), static_cast<int>(c), static_cast<int>(oh),
                         static_cast<int>(ow), sh, -ph, sw, -pw, static_cast<int>(r), static_cast<int>(s), dh, dw};
      q.a_ld = cl.kred;  // B = w rows [k][r][s][c]
      q.a_dense = r == 1 && s == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;  // A = x [N*H*W][C]
      q.a_im2col = !q.a_dense && im2col_tma_refusal(cl.act).empty();
      break;
    }
    case ConvDir::bwd_data: {
      q.dir = IgemmDir::bwd_data;
      q.n_cols = static_cast<int>(c);
      if (sh * sw > kMaxClasses)
        return no("stride " + std::to_string(sh) + "x" + std::to_string(sw) + ": more than " +
                  std::to_string(kMaxClasses) + " sub-pixel classes");
      q.classes = sh * sw;
      for (int a = 0; a < sh; ++a)
        for (int b = 0; b < sw; ++b) {
          const AxisTaps ty = axis_taps(a, sh, ph, dh, static_cast<int>(r), static_cast<int>(h));
          const AxisTaps tx = axis_taps(b, sw, pw, dw, static_cast<int>(s), static_cast<int>(w));
          IgemmClass& cl = q.cls[a * sw + b];
          cl.m = static_cast<int>(n * ty.rows * tx.rows);
          cl.kred = static_cast<int>(static_cast<long long>(ty.n) * tx.n * k);
          cl.act = ActGather{static_cast<int>(oh), static_cast<int>(ow), static_cast<int>(k), ty.rows, tx.rows, 1,
                             ty.add, 1, tx.add, ty.n, tx.n, ty.tstep, tx.tstep};
          const int S = static_cast<int>(s), C = static_cast<int>(c);
          cl.wt = WeightTaps{static_cast<int>(k), tx.n,  static_cast<int>(r) * S * C, (ty.r0 * S + tx.r0) * C,
                             ty.step * S * C, tx.step * C, ty.r0, tx.r0, ty.step, tx.step};
          if (sh * sw > 1)
            cl.out = OutRows{false, ty.rows, tx.rows, static_cast<int>(h), static_cast<int>(w), a, b, sh, sw};
        }
      // 1x1, stride 1, pad 0: A is dy as a dense [N*H*W][K] matrix and B is w as a dense [K][C] one
      // (MN-major), both TMA-able (.ws.tma without .flip: no filter copy)
      q.a_dense = r == 1 && s == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
      std::string why;
      const ConvProblem f = flip_problem(p, &why);
      if (why.empty()) {
        IgemmPlan fp = plan_igemm(f);
        if (fp.refusal.empty()) {
          pl.flip = std::make_shared<const IgemmPlan>(std::move(fp));
          pl.flip_w_bytes = static_cast<std::size_t>(p.w_desc().elements()) * dtype_size(p.dtype);
        }
      }
      break;
    }
    case ConvDir::bwd_weights: {
      q.dir = IgemmDir::bwd_weights;
      q.n_cols = static_cast<int>(r * s * c);
      IgemmClass& cl = q.cls[0];
      cl.m = static_cast<int>(k);
      if (n * oh * ow > kIndexLimit) return no("N*P*Q exceeds the 32-bit index limit");
      cl.kred = static_cast<int>(n * oh * ow);
      q.pix = pixel_gather(p);
      q.a_ld = static_cast<int>(k);
      q.b_dense = r == 1 && s == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;  // B = x [N*H*W][C]
      q.b_im2col = !q.b_dense && im2col_tma_refusal(act_gather_of(q.pix)).empty();
      break;
    }
  }
  for (int i = 0; i < q.classes; ++i) {
    pl.gemm_m_max = std::max<long long>(pl.gemm_m_max, q.cls[i].m);
    pl.kred_max = std::max<long long>(pl.kred_max, q.cls[i].kred);
  }
  pl.flops = static_cast<std::int64_t>(p.flops());
  pl.min_bytes = static_cast<std::int64_t>(dtype_size(p.dtype)) *
                 (p.x_desc().elements() + p.w_desc().elements() + p.y_desc().elements());
  if (q.dir == IgemmDir::bwd_data && q.classes > 1) plan_subpixel_flip(p, pl);
  if (tf32) {  // .col2im's fp32 dcol GEMM and .im2col are 16-bit paths; bwd-data runs as fwd (.flip) only
    if (q.dir == IgemmDir::bwd_data && !pl.flip)
      return no("math=tf32 bwd-data runs only as fwd over a filter copy (.flip: C % 8 == 0; stride 1 with "
                "pad <= dil*(R-1), or strided with some taps): the native kernel's B is MN-major, which wgmma .tf32 cannot read");
    return pl;
  }
  plan_col2im(p, pl);
  plan_im2col(p, pl);
  return pl;
}

std::string im2col_tma_refusal(const ActGather& g) {
  if (g.sc % kTileK != 0) return "C = " + std::to_string(g.sc) + " is not a multiple of 64 (a k-block must be one tap)";
  if (g.ry_mul > 8 || g.rx_mul > 8) return "stride above 8 (the im2col traversal stride)";
  const Im2colCorners b = im2col_corners(g);
  for (int v : {b.lower_x, b.lower_y, b.upper_x, b.upper_y})
    if (v < -128 || v > 127) return "a bounding-box corner outside [-128, 127] (pad or (R-1)*dil too large)";
  if ((g.nr - 1) * g.ty_step > 127 || (g.ns - 1) * g.tx_step > 127) return "tap offset (R-1)*dil above 127";
  return "";
}

ConvProblem flip_problem(const ConvProblem& p, std::string* why) {
  auto no = [&](std::string reason) {
    *why = std::move(reason);
    return p;
  };
  if (p.dir != ConvDir::bwd_data) return no("not bwd-data");
  if (p.mode != ConvMode::conv || p.rank() != 2) return no("not a 2D convolution (mode conv)");
  if (p.groups != 1) return no("groups > 1");
  if (p.c % 8 != 0) return no("C = " + std::to_string(p.c) + " is not a multiple of 8 (it becomes the fwd K)");
  ConvProblem f = p;
  f.dir = ConvDir::fwd;
  f.c = p.k;
  f.k = p.c;
  f.in = p.out();
  f.bias = false;
  for (int i = 0; i < 2; ++i) {
    if (p.stride[i] != 1) return no("stride " + std::to_string(p.stride[i]) + " (the flip takes stride 1)");
    const std::int64_t pad = p.dilation[i] * (p.filter[i] - 1) - p.pad[i];
    if (pad < 0) return no("pad " + std::to_string(p.pad[i]) + " > dil*(R-1) (a negative fwd padding)");
    f.pad[i] = pad;
  }
  why->clear();
  return f;
}

std::string igemm_config_refusal(const IgemmPlan& pl, const IgemmConfig& c) {
  if (!pl.refusal.empty()) return pl.refusal;
  if (std::string why = igemm_config_space_refusal(c); !why.empty()) return why;
  if (c.kb != pl.kblock)
    return "k-blocks of " + std::to_string(c.kb) + " elements: this problem's are " + std::to_string(pl.kblock) +
           " (k64: fp16/bf16; k32: fp32 with math=tf32)";
  if (pl.kblock == kTf32KBlock && pl.params.dir == IgemmDir::bwd_data && !c.flip)
    return "math=tf32 bwd-data runs as fwd only (.flip): the native kernel's B is MN-major, which wgmma .tf32 cannot read";
  if (c.flip) {
    if (!pl.flip)
      return "the fwd lowering (.flip) takes bwd-data with C % 8 == 0, and stride 1 only with pad <= dil*(R-1)";
    return igemm_config_refusal(*pl.flip, without_lowering(c));
  }
  if (c.col2im) {
    if (!pl.col2im)
      return ".col2im takes bwd-data with R*S*C <= " + std::to_string(kColMaxRow) + " and dcol within " +
             std::to_string(kColMaxBytes >> 20) + " MiB only";
    return igemm_config_refusal(*pl.col2im, without_lowering(c));
  }
  if (c.im2col) {
    if (!pl.im2col)
      return ".im2col takes bwd-weights with R*S*C <= " + std::to_string(kColMaxRow) +
             " (not a plain 1x1) and col within " + std::to_string(kColMaxBytes >> 20) + " MiB only";
    return igemm_config_refusal(*pl.im2col, without_lowering(c));
  }
  if (c.persist && (pl.params.dir == IgemmDir::bwd_weights || pl.params.classes > 1))
    return "the persistent grid (.p) takes fwd and stride-1 bwd-data (one class) only";
  if (c.tma && pl.params.dir == IgemmDir::bwd_data && !pl.params.a_dense)
    return "the TMA producer feeds bwd-data directly only for 1x1, stride 1, pad 0 (other bwd-data takes it through .flip)";
  const long long kb = cdiv(pl.kred_max, pl.kblock);
  if (c.splitk > 1 && c.splitk > kb) return "splitk " + std::to_string(c.splitk) + " exceeds the k-blocks " + std::to_string(kb);
  if (cdiv(pl.gemm_m_max, c.bm) * cdiv(pl.params.n_cols, c.bn) > kIndexLimit) return "more tiles than gridDim.x takes";
  return "";
}

IgemmLaunch make_igemm_launch(const IgemmPlan& pl, const IgemmConfig& c) {
  if (c.flip && pl.flip) {  // the fwd plan's launch, then w' after its workspace
    IgemmLaunch L = make_igemm_launch(*pl.flip, without_lowering(c));
    L.w_flip_offset = (L.workspace_bytes + 255) / 256 * 256;
    L.workspace_bytes = L.w_flip_offset + (pl.flip_w_bytes + 255) / 256 * 256;
    return L;
  }
  if (c.col2im && pl.col2im) {  // the dcol GEMM's launch: fp32 out to dcol at 0, then w^T
    IgemmLaunch L = make_igemm_launch(*pl.col2im, without_lowering(c));
    L.params.fp32_out = true;
    L.wt_offset = (pl.dcol_bytes + 255) / 256 * 256;
    L.workspace_bytes = L.wt_offset + (pl.wt_bytes + 255) / 256 * 256;
    return L;
  }
  if (c.im2col && pl.im2col) {  // the 1x1 GEMM's launch (split partials at 0), then col, then dw'
    IgemmLaunch L = make_igemm_launch(*pl.im2col, without_lowering(c));
    L.col_offset = (L.workspace_bytes + 255) / 256 * 256;
    L.dwp_offset = L.col_offset + (pl.col_bytes + 255) / 256 * 256;
    L.workspace_bytes = L.dwp_offset + (pl.dwp_bytes + 255) / 256 * 256;
    return L;
  }
  IgemmLaunch L;
  L.params = pl.params;
  IgemmParams& q = L.params;
  const long long kb = cdiv(pl.kred_max, pl.kblock);
  q.splitk = c.splitk;
  q.staged_epilogue = c.se;
  q.kb_per_split = static_cast<int>(c.splitk > 1 ? cdiv(kb, c.splitk) : kb);
  q.m_tiles = static_cast<int>(std::max<long long>(1, cdiv(pl.gemm_m_max, c.bm)));
  q.n_tiles = static_cast<int>(cdiv(q.n_cols, c.bn));
  L.grid_x = static_cast<unsigned>(static_cast<long long>(q.m_tiles) * q.n_tiles);
  L.grid_y = 1;
  // Each class's splits (the heavy sub-pixel classes split, the light ones may not), their z range
  // and partials; z runs through the classes in order (the heaviest first).
  long long z = 0, partial_floats = 0;
  for (int i = 0; i < q.classes; ++i) {
    IgemmClass& cl = q.cls[i];
    cl.splits = static_cast<int>(class_splits(cl.kred, q.kb_per_split, c.splitk, pl.kblock));
    cl.z0 = static_cast<int>(z);
    z += cl.splits;
    cl.partial_off = cl.splits > 1 ? partial_floats : 0;
    if (cl.splits > 1) partial_floats += static_cast<long long>(cl.splits) * cl.m * q.n_cols;
  }
  L.grid_z = static_cast<unsigned>(z);
  L.threads = igemm_threads(c);
  L.smem = igemm_smem_bytes(c);
  auto align = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const std::size_t partial = static_cast<std::size_t>(partial_floats) * sizeof(float);
  L.act_pad_offset = align(partial);
  L.w_pad_offset = L.act_pad_offset + align(pl.act_pad_bytes);
  L.workspace_bytes = pl.c_pad > 0 ? L.w_pad_offset + align(pl.w_pad_bytes) : partial;
  return L;
}

double igemm_cost(const IgemmPlan& pl, const IgemmConfig& c) {
  if (c.flip && pl.flip)  // the fwd plan's time, plus writing and reading w' and the transform's launch
    return igemm_cost(*pl.flip, without_lowering(c)) + 2.0 * static_cast<double>(pl.flip_w_bytes) / kCopyRate + kExtraLaunch;
  if (c.col2im && pl.col2im)  // plus dcol written in fp32 and read back, dx written, two more launches
    return igemm_cost(*pl.col2im, without_lowering(c)) +
           (2.0 * static_cast<double>(pl.dcol_bytes) + static_cast<double>(pl.min_bytes)) / kCopyRate + 2 * kExtraLaunch;
  if (c.im2col && pl.im2col)  // plus col written and x read, dw' written and cut, two more launches
    return igemm_cost(*pl.im2col, without_lowering(c)) +
           (static_cast<double>(pl.col_bytes + 2 * pl.dwp_bytes) + static_cast<double>(pl.min_bytes)) / kCopyRate +
           2 * kExtraLaunch;
  const double mac_rate = 790e12 / 2 / kNumSms;  // per SM, MAC/s at the measured bf16 ceiling
  const double bw = kCopyRate;
  const int threads = igemm_threads(c);
  const int regs = std::min(255, c.bn / 2 + 48);
  const int occ = std::max(1, std::min({(228 * 1024) / (igemm_smem_bytes(c) + 1024), 2048 / threads,
                                        65536 / (threads * regs)}));
  const bool all_tma_weights = c.tma && pl.params.dir == IgemmDir::bwd_weights && (pl.params.b_dense || pl.params.b_im2col);
  const bool all_tma_fwd = c.tma && pl.params.dir == IgemmDir::fwd && (pl.params.a_dense || pl.params.a_im2col) &&
                           cdiv(pl.kred_max, pl.kblock) >= kAllTmaFwdMinKBlocks;
  const double eff = tile_efficiency(c.bm, c.bn) * (occ >= 2 ? 1.15 : 1.0) *
                     (pl.params.dir == IgemmDir::bwd_data ? kBwdDataEfficiency : 1.0) *
                     (all_tma_weights ? kAllTmaBwdWeightsEfficiency : 1.0) * (all_tma_fwd ? kAllTmaFwdEfficiency : 1.0);
  // Tiles of each class; a class without taps (Kred 0) only stores zeros. k-blocks count in the plan's
  // k-block (64 16-bit or 32 fp32 elements): a tf32 k-block takes a 16-bit one's time (4 instructions
  // of 32 bytes of k each; tf32's MAC rate is half bf16's), so t_tile below stays in kTileK units.
  // A class splits into ceil(its k-blocks / kps) pieces (make_igemm_launch), so light classes split less.
  double tile_units = 0;  // the longest tile's k-blocks + 1.5 for prologue/epilogue, in rounds of kNumSms
  long long tiles = 0;
  double zero_bytes = 0, part = 0;
  const long long kb_max = cdiv(pl.kred_max, pl.kblock), kps = c.splitk > 1 ? cdiv(kb_max, c.splitk) : kb_max;
  for (int i = 0; i < pl.params.classes; ++i) {
    const IgemmClass& cl = pl.params.cls[i];
    if (cl.kred == 0) {
      zero_bytes += 2.0 * cl.m * pl.params.n_cols;
      continue;
    }
    const long long kb = cdiv(cl.kred, pl.kblock), splits = class_splits(cl.kred, kps, c.splitk, pl.kblock);
    tiles += cdiv(cl.m, c.bm) * cdiv(pl.params.n_cols, c.bn) * splits;
    tile_units = std::max(tile_units, static_cast<double>(std::min(kb, kps)) + 1.5);
    if (splits > 1) part += static_cast<double>(cl.m) * pl.params.n_cols * 4.0 * static_cast<double>(splits);
  }
  const double t_tile = static_cast<double>(c.bm) * c.bn * kTileK * tile_units / (eff * mac_rate);
  // Compute and memory overlap; the smaller term still counts a little, so configs that all sit at the
  // memory floor are ranked by their compute time.
  const double tc = static_cast<double>(cdiv(tiles, kNumSms)) * t_tile, tm = static_cast<double>(pl.min_bytes) / bw;
  double t = std::max(tc, tm) + 0.2 * std::min(tc, tm);
  t += zero_bytes / bw;
  t += 2.0 * static_cast<double>(pl.act_pad_bytes + pl.w_pad_bytes) / bw;  // channel padding copies
  if (part > 0) {
    t += 2.0 * part / bw + 3e-6;  // partials written and read back, plus the second launch
  }
  return t;
}

IgemmConfig igemm_default_config(const IgemmPlan& pl) {
  IgemmConfig best;
  double best_cost = std::numeric_limits<double>::infinity();
  const long long kb = cdiv(pl.kred_max, pl.kblock);
  // Where both operands can come by TMA the all-TMA variant is weighed too (bwd-weights: it was the
  // only variant ahead in the sweeps; fwd: ahead with >= 4 k-blocks; elsewhere cp.async won or tied).
  const bool tma_too = pl.params.dir == IgemmDir::bwd_weights ? pl.params.b_dense || pl.params.b_im2col
                                                              : pl.params.dir == IgemmDir::fwd && (pl.params.a_dense || pl.params.a_im2col);
  for (int tma = 0; tma <= (tma_too ? 1 : 0); ++tma) {
    for (const IgemmTile& t : kTiles) {
      for (int sp : kSplits) {
        IgemmConfig c{t.bm, t.bn, tma ? kTmaDefaultStages : default_stages(t.bm, t.bn), sp, tma == 1, tma == 1};
        c.kb = pl.kblock;
        if (!igemm_config_refusal(pl, c).empty()) continue;
        if (sp > 1 && kb / sp < 4) continue;  // at least 4 k-blocks per split
        // Split-K over sub-pixel classes lost to split 1 on every strided layer of the tenth
        // session's sweep (reports/h200/s10-2026-12-02/call3_nchw_sweep): a tuning candidate only.
        if (sp > 1 && pl.params.classes > 1) continue;
        if (make_igemm_launch(pl, c).workspace_bytes > (std::size_t{256} << 20)) continue;
        const double cost = igemm_cost(pl, c);
        if (cost < best_cost * 0.999) best_cost = cost, best = c;
      }
    }
  }
  if (pl.flip) {  // the fwd plan's own pick, run flipped, when the model says it is faster
    IgemmConfig f = igemm_default_config(*pl.flip);
    f.flip = true;
    if (const double cost = igemm_cost(pl, f); cost < best_cost * 0.999) best_cost = cost, best = f;
  }
  if (pl.col2im) {  // the dcol GEMM's pick (split 1)
    IgemmConfig g = igemm_default_config(*pl.col2im);
    g.splitk = 1, g.se = false, g.col2im = true;
    if (igemm_config_refusal(pl, g).empty())
      if (const double cost = igemm_cost(pl, g); cost < best_cost * 0.999) best_cost = cost, best = g;
  }
  if (pl.im2col) {  // the 1x1 GEMM's pick
    IgemmConfig g = igemm_default_config(*pl.im2col);
    g.im2col = true;
    if (igemm_config_refusal(pl, g).empty() && igemm_cost(pl, g) < best_cost * 0.999) best = g;
  }
  return best;
}

}  // namespace hiprim::gpu::sm90
