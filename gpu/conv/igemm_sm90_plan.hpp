// conv.igemm.wgmma: the plan of a 2D NHWC convolution as an implicit GEMM on Hopper's warpgroup MMA
// (host code plus host/device index functions; tested on the host: tests/gpu/test_igemm_sm90_plan.cpp).
//
//   C[m][n] = sum_kk A[m][kk] * B[n][kk]      (fp32 accumulation, one GEMM per "class", below)
//
//   direction     M (rows)         N (cols)   Kred            A (smem major)              B (smem major)
//   fwd           pixels N*P*Q     K          R*S*C           x gathered, K-major          w[k][r][s][c], K-major
//   bwd-data      dx pixels of a   C          taps(class)*K   dy gathered, K-major          w[k][r][s][c] by (tap,k)
//                 class (below)                                                             rows: MN-major (c contiguous)
//   bwd-weights   K                R*S*C      N*P*Q           dy[pixel][k]: MN-major        x gathered: MN-major
// kk orders: fwd (r, s, c), c fastest; bwd-data (tr, ts, k), k fastest; bwd-weights pixel (img, p, q).
// Activation gathers (fwd A, bwd-data A) read source element [img][y][x][ch] of an NHWC tensor
// [img][SH][SW][SC] with, for row m = (img*RH + i)*RW + j and kk = (tr*NS + ts)*SC + ch,
//   y = i*ry_mul + ry_add + tr*ty_step,  x = j*rx_mul + rx_add + ts*tx_step   (zero outside the tensor)
//   fwd:      RH,RW = P,Q; ry_mul = str_h, ry_add = -pad_h, ty_step = dil_h (same along x).
//   bwd-data: sub-pixel classes (a, b) in [0,str_h) x [0,str_w): the dx pixels h = a + i*str_h,
//             w = b + j*str_w. Tap r reaches h iff (h + pad_h - r*dil_h) % str_h == 0, i.e.
//             r*dil_h == a + pad_h (mod str_h): with g = gcd(dil_h, str_h) the taps are
//             r = r0 + tr*(str_h/g), r0 the least solution (none when (a + pad_h) % g != 0), and
//             oh = (h + pad_h - r*dil_h)/str_h = i + (a + pad_h - r0*dil_h)/str_h - tr*(dil_h/g):
//             ry_mul = 1, ry_add = (a + pad_h - r0*dil_h)/str_h, ty_step = -(dil_h/g). No MAC ever
//             touches an inserted zero; a class with no taps (Kred = 0) writes zeros. Stride 1: one
//             class, r0 = 0, ry_add = pad_h, ty_step = -dil_h.
// The kernel multiplies real zeros: padding, out-of-range rows and the K tail are zero-filled loads.
// C % 8 != 0: the same GEMM over workspace copies with C padded to a multiple of 8 (IgemmPlan).
// bwd-data with stride 1 also runs as fwd (config suffix ".flip", flip_problem below): dx is the fwd
// convolution of dy with the flipped, transposed filter w'[c][r][s][k] = w[k][R-1-r][S-1-s][c] and
// padding dil*(R-1) - pad (p = h + pad - r*dil with r = R-1-r' is h - pad' + r'*dil), so the fwd
// kernels (dense B, TMA, dense A for 1x1 pad 0) run it; w' is a workspace copy made first.
// Strided bwd-data runs as fwd too (".flip" again, IgemmPlan::flip_subpixel): the classes and their
// A gathers stay, B becomes a dense K-major matrix of per-class sub-filters in the workspace,
//   B'[z*C + c][kk] = w[weight_offset(cls[z].wt, kk, c)] for kk < kred_z, 0 for kred_z <= kk < ld
// (ld = the largest kred, one TMA map over all classes; class z reads rows from b_row0 = z*C; the
// classes ordered by falling kred, the heaviest launched first), so no
// MAC touches an inserted zero and the fwd kernels' dense-B loads (and TMA) feed every class.
// bwd-data with a short filter row J = R*S*C <= 256 (the 3-channel stem; config suffix ".col2im"):
// dcol[j][pixel] = sum_k w[k][j] * dy[pixel][k] as a dense fwd 1x1 GEMM (M = Jp rows of A = w^T
// [Jp][K], Jp = J rounded up to 8 with zero rows past J; N = N*P*Q columns from B = dy [pixels][K]
// by TMA where asked) with fp32 output into the workspace, then col2im: dx[n][h][w][c] = the fp32 sum
// over the taps (r, s) that reach (h, w), r and s ascending, of dcol[(r*S + s)*C + c][(n*P + p)*Q + q],
// rounded once. dcol is pixel-contiguous so the gather's lanes (consecutive w of one stride class)
// read consecutive floats. No MAC touches a padded channel or an inserted zero; taps outside dy are
// skipped, not multiplied.
// bwd-weights with a short filter row J = R*S*C <= 256 (config suffix ".im2col"): col[pixel][j] =
// x[n][p*str - pad + r*dil][q*str - pad + s*dil][c] (j = (r*S + s)*C + c; 0 in the padding and for
// J <= j < Jp), a bf16/fp16 copy in the workspace, then dw'[k][j] = the 1x1 bwd-weights GEMM of dy and
// col (C' = Jp: 152 columns for the stem instead of 7*7*8 = 392 with padded channels), cut to dw.
// fp32 with math=tf32 (the opt-in TF32 mode): the same GEMMs on fp32 operands read by wgmma .tf32 as
// TF32, k-blocks of 32 fp32 (the same 128 bytes per row), config strings "k32"; K-major operands only
// (the PTX ISA gives .tf32 no transpose): fwd, and bwd-data through .flip (its fwd form); bwd-weights
// (MN-major operands) and the native bwd-data kernel (B MN-major) refuse it, as do C % 8 != 0 (the
// channel-padding copies are 16-bit), .col2im / .im2col, .se, .p and the fused epilogue (16-bit
// staging); tiles kTf32Tiles only. Each input errs by < 2^-10 relative (truncation to TF32), the
// solver's ConvErrorModel::input_unit = kUnitTf32Truncated.
// Perf configs (canonical strings): "m<BM>n<BN>k<64|32>.s<stages>.splitk<S>[.ws[.tma]][.se][.p][.flip]"; tiles kTiles, stages 3..8
// within the shared memory, split-K (deterministic: fp32 partials in the workspace summed in split
// order by a second kernel) only where every class is one (dense output rows).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HIPRIM_IG_HD __host__ __device__
#else
#define HIPRIM_IG_HD
#endif

namespace hiprim::gpu::sm90 {

enum class IgemmDir : int { fwd = 0, bwd_data = 1, bwd_weights = 2 };

inline constexpr int kMaxClasses = 16;       // bwd-data str_h * str_w
inline constexpr int kSmemLimit = 232448;    // H100/H200 opt-in shared memory per block (227 KiB)
inline constexpr int kSmemAlignSlack = 1024; // dynamic shared memory is aligned up to 1024 in the kernel
inline constexpr int kNumSms = 132;          // the heuristic's machine (H200); the plan never depends on the device

// ---- index math shared by host tests and the kernel loaders ----

// Activation gather of one class (see the header). kred = NR*NS*SC.
struct ActGather {
  int sh = 0, sw = 0, sc = 0;  // source spatial dims and channels
  int rh = 0, rw = 0;          // row grid per image
  int ry_mul = 1, ry_add = 0, rx_mul = 1, rx_add = 0;
  int nr = 0, ns = 0;          // taps per axis
  int ty_step = 0, tx_step = 0;
};

// One GEMM row's gather base: element offset of its image, y/x base, and whether the row exists.
struct ActRow {
  int img_off = 0;  // every tensor has < 2^31 elements (plan_igemm refuses larger ones)
  int yb = 0, xb = 0;
  bool valid = false;
};
HIPRIM_IG_HD inline ActRow act_row(const ActGather& g, int m, int rows) {
  ActRow r;
  if (m >= rows) return r;
  const int per_img = g.rh * g.rw;
  const int img = m / per_img, rem = m - img * per_img;
  const int i = rem / g.rw, j = rem - (rem / g.rw) * g.rw;
  r.img_off = img * g.sh * g.sw * g.sc;
  r.yb = i * g.ry_mul + g.ry_add;
  r.xb = j * g.rx_mul + g.rx_add;
  r.valid = true;
  return r;
}
// kk -> (tr, ts, ch): ch fastest over sc, then ts over ns.
struct Tap {
  int tr = 0, ts = 0, ch = 0;
};
HIPRIM_IG_HD inline Tap tap_of(int kk, int sc, int ns) {
  const int t = kk / sc;
  return Tap{t / ns, t - (t / ns) * ns, kk - t * sc};
}
// Element offset of A[m][kk] in the source, or -1 for a zero (padding, missing row, kk >= kred).
HIPRIM_IG_HD inline long long act_offset(const ActGather& g, const ActRow& r, const Tap& t, bool kk_valid) {
  if (!r.valid || !kk_valid) return -1;
  const int y = r.yb + t.tr * g.ty_step, x = r.xb + t.ts * g.tx_step;
  if (y < 0 || y >= g.sh || x < 0 || x >= g.sw) return -1;
  return r.img_off + (y * g.sw + x) * g.sc + t.ch;
}

// fwd A by TMA in im2col mode (IgemmParams::a_im2col; C % 64 == 0, so a k-block is the 64 channels
// c0.. of one tap): the map covers x as {C, W, H, N} with the bounding box of the base positions
// (output position * stride - pad) from `lower` to dim - 1 + `upper` per axis, traversed with the
// stride, so its pixels are the GEMM rows in order (q fastest, then p, then the image); the box of
// the tile at row m0 and k-block k0 starts at row m0's base pixel and reads each pixel at base +
// (s*dil_w, r*dil_h), the tap of k0.
struct Im2colBox {
  int c0 = 0, x = 0, y = 0, img = 0, off_x = 0, off_y = 0;
};
HIPRIM_IG_HD inline Im2colBox im2col_box(const ActGather& g, int m0, int k0) {
  const int per_img = g.rh * g.rw;
  const int img = m0 / per_img, rem = m0 - img * per_img;
  const int i = rem / g.rw, j = rem - (rem / g.rw) * g.rw;
  const Tap t = tap_of(k0, g.sc, g.ns);
  return Im2colBox{t.ch, j * g.rx_mul + g.rx_add, i * g.ry_mul + g.ry_add, img, t.ts * g.tx_step, t.tr * g.ty_step};
}
struct Im2colCorners {
  int lower_x = 0, lower_y = 0, upper_x = 0, upper_y = 0;  // lower = -pad, upper = pad - (taps - 1) * dil
};
inline Im2colCorners im2col_corners(const ActGather& g) {
  return Im2colCorners{g.rx_add, g.ry_add, -g.rx_add - (g.ns - 1) * g.tx_step, -g.ry_add - (g.nr - 1) * g.ty_step};
}
// Why fwd's A of class g (rows = its M) cannot come by TMA im2col ("" when it can): C % 64, the
// stride (<= 8), the corners (signed 8 bits for a 4D map) and the tap offsets (<= 127 here).
std::string im2col_tma_refusal(const ActGather& g);

// bwd-data B: B[n = c][kk = (tr, ts, k)] = w[k][r0 + tr*rstep][s0 + ts*sstep][c] (w is [K][R][S][C]),
// at  k*R*S*C + (r0*S + s0)*C + tr*(rstep*S*C) + ts*(sstep*C) + c  (the strides the kernel keeps).
struct WeightTaps {
  int k = 0, ns = 0;                // kk = (tr*ns + ts)*k_count + k
  int rsc = 0, base = 0, tr_stride = 0, ts_stride = 0;
  int r0 = 0, s0 = 0, rstep = 1, sstep = 1;  // the taps themselves (for tests and notes)
};
HIPRIM_IG_HD inline long long weight_offset(const WeightTaps& w, int kk, int c) {
  const Tap t = tap_of(kk, w.k, w.ns);  // ch here is the output channel k
  return t.ch * w.rsc + w.base + t.tr * w.tr_stride + t.ts * w.ts_stride + c;
}

// bwd-weights B: B[n = (r, s, c)][kk = pixel (img, p, q)] = x[img][p*str - pad + r*dil][...][c].
struct PixelGather {
  int h = 0, w = 0, c = 0, p = 0, q = 0, r = 0, s = 0;
  int str_h = 1, str_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
  int pixels = 0;  // N*P*Q
};
struct FilterCol {  // n = (r*S + s)*C + c
  int r = 0, s = 0, c = 0;
  bool valid = false;
};
HIPRIM_IG_HD inline FilterCol filter_col(const PixelGather& g, int n, int cols) {
  FilterCol f;
  if (n >= cols) return f;
  const int t = n / g.c;
  f.c = n - t * g.c;
  f.r = t / g.s;
  f.s = t - f.r * g.s;
  f.valid = true;
  return f;
}
HIPRIM_IG_HD inline long long pixel_offset(const PixelGather& g, const FilterCol& f, int pix) {
  if (!f.valid || pix >= g.pixels) return -1;
  const int pq = g.p * g.q;
  const int img = pix / pq, rem = pix - img * pq;
  const int op = rem / g.q, oq = rem - (rem / g.q) * g.q;
  const int y = op * g.str_h - g.pad_h + f.r * g.dil_h, x = oq * g.str_w - g.pad_w + f.s * g.dil_w;
  if (y < 0 || y >= g.h || x < 0 || x >= g.w) return -1;
  return ((img * g.h + y) * g.w + x) * g.c + f.c;
}

// bwd-weights' B[n = (r, s, c)][kk = pixel] is fwd's A transposed (row = pixel, kk = n): the same
// gather, so x comes by the same im2col boxes (one per 64 columns of the B tile, MN-major atom columns).
HIPRIM_IG_HD inline ActGather act_gather_of(const PixelGather& g) {
  return ActGather{g.h, g.w, g.c, g.p, g.q, g.str_h, -g.pad_h, g.str_w, -g.pad_w, g.r, g.s, g.dil_h, g.dil_w};
}
// .im2col: col[pixel][j] is bwd-weights' own B gather (the filter column j = (r*S + s)*C + c of
// pixel), zero for J <= j < Jp: its source in x, or -1 for a zero.
struct Im2col {
  PixelGather pix;  // of the problem itself
  int j = 0, jp = 0;
};
// Split for the copy kernel (one warp per row of output pixels, walking its Q pixels; lanes over j):
// column j = (r*S + s)*C + c has input offsets dy = r*dil_h, dx = s*dil_w and the element offset
// delta = (dy*W + dx)*C + c from a window's corner; row (img, op) has the corner row y0 = op*str_h - pad_h
// and base = ((img*H + y0)*W)*C; pixel oq's corner column is x0 = oq*str_w - pad_w, so the source
// is base + x0*C + delta where 0 <= y0 + dy < H and 0 <= x0 + dx < W.
struct Im2colColumn {
  int dy = 0, dx = 0, delta = 0;
  bool valid = false;  // false for J <= j < Jp
};
struct Im2colRow {
  long long base = 0;
  int y0 = 0;
};
HIPRIM_IG_HD inline Im2colColumn im2col_column(const Im2col& g, int j) {
  const FilterCol f = filter_col(g.pix, j, g.j);
  const int dy = f.r * g.pix.dil_h, dx = f.s * g.pix.dil_w;
  return {dy, dx, (dy * g.pix.w + dx) * g.pix.c + f.c, f.valid};
}
HIPRIM_IG_HD inline Im2colRow im2col_row(const Im2col& g, long long row) {  // row = img*P + op
  const long long img = row / g.pix.p;
  const int y0 = static_cast<int>(row - img * g.pix.p) * g.pix.str_h - g.pix.pad_h;
  return {(img * g.pix.h + y0) * g.pix.w * g.pix.c, y0};
}
HIPRIM_IG_HD inline long long im2col_source(const Im2col& g, const Im2colRow& r, const Im2colColumn& col, int oq) {
  const int x0 = oq * g.pix.str_w - g.pix.pad_w;
  if (!col.valid || static_cast<unsigned>(r.y0 + col.dy) >= static_cast<unsigned>(g.pix.h) ||
      static_cast<unsigned>(x0 + col.dx) >= static_cast<unsigned>(g.pix.w))
    return -1;
  return r.base + static_cast<long long>(x0) * g.pix.c + col.delta;
}
HIPRIM_IG_HD inline long long im2col_source(const Im2col& g, long long pixel, int j) {
  if (pixel < 0 || pixel >= g.pix.pixels) return -1;
  return im2col_source(g, im2col_row(g, pixel / g.pix.q), im2col_column(g, j), static_cast<int>(pixel % g.pix.q));
}

// Output row map: dense (row m at m*N) or a class's pixels (h = a + i*sy, w = b + j*sx).
struct OutRows {
  bool dense = true;
  int rh = 0, rw = 0, oh = 0, ow = 0, a = 0, b = 0, sy = 1, sx = 1;
};
HIPRIM_IG_HD inline long long out_row_offset(const OutRows& o, int m, int n_cols) {
  if (o.dense) return static_cast<long long>(m) * n_cols;
  const int per_img = o.rh * o.rw;
  const int img = m / per_img, rem = m - img * per_img;
  const int i = rem / o.rw, j = rem - (rem / o.rw) * o.rw;
  const int h = o.a + i * o.sy, w = o.b + j * o.sx;
  return ((static_cast<long long>(img) * o.oh + h) * o.ow + w) * n_cols;
}

// .col2im geometry: dx [n][h][w][c] gathers dcol [jp][pixels] at row j = (r*S + s)*C + c, column
// (n*P + p)*Q + q, over the taps with h + pad_h - r*dil_h = p*str_h, 0 <= p < P (same along w).
struct Col2im {
  int n = 0, h = 0, w = 0, c = 0, p = 0, q = 0, r = 0, s = 0, jp = 0;
  int str_h = 1, str_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
  long long pixels = 0;  // N*P*Q, dcol's row length
  int step_h = 1, step_w = 1, dp_h = 1, dp_w = 1;  // str / gcd(dil, str) and dil / gcd(dil, str) per axis
};
// The taps of one axis that reach coordinate y: r = r0, r0 + step, ... (step = str / gcd(dil, str)),
// each at p = (y + pad - r*dil) / str, which falls by dil / gcd per step; first() finds r0 with at
// most `step` divisibility tests, so a thread divides a few times, not once per tap.
struct AxisReach {
  int r = 0, p = 0;  // the first tap and its output position (r >= taps: none)
};
HIPRIM_IG_HD inline AxisReach first_reach(int y, int pad, int dil, int str, int step, int taps) {
  for (int r = 0; r < step && r < taps; ++r) {
    const int num = y + pad - r * dil;
    if (num >= 0 && num % str == 0) return AxisReach{r, num / str};
    if (num < 0) break;  // larger r only lowers num
  }
  return AxisReach{taps, 0};
}
// dx[img][y][x][ch] as the fp32 sum of its dcol terms, taps in ascending (r, s). conv.gemm.im2col's
// col2im_kernel (gpu/conv/im2col_kernels.hpp) is the same gather, general (3D, groups, NCHW) but with
// one division per tap: the stem took 510 us that way and 291 us stepping (H200 sweeps,
// reports/h200/s5-2026-12-01). Moving the stepping into that kernel and using it here is the next
// step (it needs a GPU run of both solvers).
HIPRIM_IG_HD inline float col2im_sum(const Col2im& g, const float* dcol, int img, int y, int x, int ch) {
  float sum = 0.0f;
  const AxisReach ry = first_reach(y, g.pad_h, g.dil_h, g.str_h, g.step_h, g.r);
  const AxisReach rx = first_reach(x, g.pad_w, g.dil_w, g.str_w, g.step_w, g.s);
  const long long img_col = static_cast<long long>(img) * g.p;
  for (int r = ry.r, py = ry.p; r < g.r && py >= 0; r += g.step_h, py -= g.dp_h) {
    if (py >= g.p) continue;
    for (int s = rx.r, qx = rx.p; s < g.s && qx >= 0; s += g.step_w, qx -= g.dp_w) {
      if (qx >= g.q) continue;
      sum += dcol[((r * g.s + s) * g.c + ch) * g.pixels + (img_col + py) * g.q + qx];
    }
  }
  return sum;
}
// The gather's thread order: t = (((img*H + y)*C + ch)*str_w + b)*jw + j with x = b + j*str_w,
// jw = ceil(W / str_w), so consecutive threads take consecutive x of one class (x >= W: no element).
HIPRIM_IG_HD inline long long col2im_threads(const Col2im& g) {
  return static_cast<long long>(g.n) * g.h * g.c * g.str_w * ((g.w + g.str_w - 1) / g.str_w);
}
struct Col2imElement {
  int img = 0, y = 0, x = 0, ch = 0;
  bool valid = false;
};
HIPRIM_IG_HD inline Col2imElement col2im_element(const Col2im& g, long long t) {
  const int jw = (g.w + g.str_w - 1) / g.str_w;
  Col2imElement e;
  const int j = static_cast<int>(t % jw);
  t /= jw;
  const int b = static_cast<int>(t % g.str_w);
  t /= g.str_w;
  e.ch = static_cast<int>(t % g.c);
  t /= g.c;
  e.y = static_cast<int>(t % g.h);
  e.img = static_cast<int>(t / g.h);
  e.x = b + j * g.str_w;
  e.valid = e.x < g.w;
  return e;
}

// One GEMM of a launch (a bwd-data class, or the whole problem).
struct IgemmClass {
  int m = 0, kred = 0;
  ActGather act;   // fwd / bwd-data A
  WeightTaps wt;   // bwd-data B
  OutRows out;
  int b_row0 = 0;  // fwd B: the class's first row of the dense B [classes * N][a_ld] (strided .flip)
  // Split-K (set by the launch): the class's splits of kb_per_split k-blocks each (ceil(its
  // k-blocks / kb_per_split), at least 1), blockIdx.z from z0 on; with splits > 1 its fp32 partials
  // [split][m][n] start at float partial_off of the workspace (classes with one split store directly).
  int splits = 1, z0 = 0;
  long long partial_off = 0;
};

// The fused fwd epilogue (fusion.igemm.wgmma; `fused` false for the plain solver), applied in fp32
// to each output sum v of element e (channel n) after the bias, one rounding to T at the end:
//   bnorm-infer  v = (v - bn_mean[n]) * bn_a[n] + bn_shift[n]   (bn_a = scale / sqrt(var + eps), fp32)
//   add          v = add_alpha * v + add_beta * residual[e]     (residual: T, y's layout)
//   activ        v = activ_fwd(activ_mode, v, activ coefficients)   (gpu/activ/activ_math.hpp)
// A null pointer (activ_mode < 0) skips its step. Device pointers, set per run.
struct IgemmEpilogue {
  bool fused = false;
  const float* bn_mean = nullptr;
  const float* bn_a = nullptr;
  const float* bn_shift = nullptr;
  const void* residual = nullptr;
  float add_alpha = 1.0f, add_beta = 1.0f;
  int activ_mode = -1;
  float activ_alpha = 0.0f, activ_beta = 0.0f, activ_gamma = 0.0f;
};

// Everything the kernel needs; a plain value passed by value to the kernel.
struct IgemmParams {
  IgemmDir dir = IgemmDir::fwd;
  int n_cols = 0;                  // GEMM N (also the output row length)
  int classes = 1;
  IgemmClass cls[kMaxClasses];
  PixelGather pix;                 // bwd-weights B
  int a_ld = 0;                    // bwd-weights A: dy row length (K); fwd B: w row length (Kred)
  bool a_dense = false;            // fwd / bwd-data 1x1, stride 1, pad 0: A is x (dy) as a dense [M][C] ([M][K]) matrix
                                   // (TMA-able; bwd-data's B is then w as a dense MN-major [K][C] one)
  bool a_im2col = false;           // fwd otherwise, im2col_tma_refusal "": A by TMA im2col (Im2colBox)
  bool b_dense = false;            // bwd-weights 1x1, stride 1, pad 0: B is x as a dense [pixels][C] matrix
  bool b_im2col = false;           // bwd-weights otherwise, im2col_tma_refusal(act_gather_of(pix)) "": B by TMA im2col
  int splitk = 1, kb_per_split = 0;  // the config's split (an upper bound per class: IgemmClass::splits)
  bool staged_epilogue = false;    // the config's .se
  bool fp32_out = false;           // .col2im: every tile writes fp32 sums to partial[0][m][n] (no rounding)
  int m_tiles = 0, n_tiles = 0;    // gridDim.x = m_tiles * n_tiles, n fastest (max m tiles over classes):
                                   // neighbouring CTAs share the activation tile, the big operand
  IgemmEpilogue ep;                // fused fwd epilogue (splitk 1: staged in fp32 through shared memory;
                                   // splitk > 1: applied by the reduction); set by the launch
};
static_assert(sizeof(IgemmParams) <= 4000, "kernel parameters stay within the classic 4 KiB limit");

// ---- perf configs ----
struct IgemmTile {
  int bm, bn;
};
inline constexpr IgemmTile kTiles[] = {{128, 128}, {128, 256}, {256, 128}, {128, 64}, {64, 128}, {64, 64}};
// The tiles with fp32 (tf32, k32) kernels: a subset, to bound the fwd build (igemm_sm90_fwd_tf32.hip).
inline constexpr IgemmTile kTf32Tiles[] = {{128, 128}, {128, 256}, {64, 128}, {64, 64}};
inline constexpr int kTf32KBlock = 32;  // kblock_elems(4)
// Whether a kernel of tile bm x bn for k-blocks of kb elements is built (kb 64: kTiles; 32: kTf32Tiles).
constexpr bool igemm_tile_instantiated(int kb, int bm, int bn) {
  if (kb == kTileK) {
    for (const IgemmTile& t : kTiles)
      if (t.bm == bm && t.bn == bn) return true;
  } else if (kb == kTf32KBlock) {
    for (const IgemmTile& t : kTf32Tiles)
      if (t.bm == bm && t.bn == bn) return true;
  }
  return false;
}
inline constexpr int kMinStages = 3, kMaxStages = 8;
inline constexpr int kSplits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};

// ws: warp-specialised (a producer warpgroup and mbarriers, suffix ".ws"); else every thread both
// produces and consumes. tma (with ws, fwd and bwd-weights, suffix ".tma"): the dense operand comes
// by TMA (cp.async.bulk.tensor, 128B swizzle) instead of cp.async: fwd's weights B (K-major), and A
// where it is dense (IgemmParams::a_dense: 1x1, stride 1, pad 0) or else in im2col mode
// (IgemmParams::a_im2col: C % 64 == 0, see Im2colBox); bwd-weights' dy A (MN-major, one
// box per 64 rows of M), and B where it is dense (b_dense) or else by im2col boxes of 64 pixels
// (b_im2col, C % 64 == 0). bwd-data takes TMA through .flip, and directly where it is 1x1, stride 1,
// pad 0 (a_dense): A = dy [M][K] K-major boxes, B = w [K][C] MN-major boxes (no filter copy).
// se (suffix ".se", splitk 1): the epilogue stages the rounded tile in shared memory and writes
// 16-byte row pieces (coalesced) instead of 4-byte pairs straight from the accumulators.
// flip (suffix ".flip", stride-1 bwd-data only): the problem runs as flip_problem(p), a fwd
// convolution, with the rest of the config applied to that fwd plan (so ".ws.tma" is open to it).
// col2im (suffix ".col2im", bwd-data with R*S*C <= 256, splitk 1, no .se): the dcol GEMM with the
// rest of the config, then the col2im gather (see the header). im2col (suffix ".im2col",
// bwd-weights with R*S*C <= 256): the col copy, then the 1x1 GEMM with the rest of the config.
struct IgemmConfig {
  int bm = 128, bn = 128, stages = 4, splitk = 1;
  bool ws = false, tma = false, se = false, flip = false, col2im = false, im2col = false;
  bool persist = false;  // .p: a grid of at most the resident CTAs walking the tiles (igemm_sm90_kernel)
  int kb = kTileK;       // k elements per k-block ("k64": fp16/bf16; "k32": fp32 as TF32)
  bool operator==(const IgemmConfig&) const = default;
};
std::string to_string(const IgemmConfig& c);
// Parses "m128n128k64.s4.splitk1" (or k32, the tf32 configs) with the optional suffixes ".ws", ".ws.tma", then ".se", then ".p",
// then ".flip", ".col2im" or ".im2col" (e.g. "m128n128k64.s4.splitk1.ws.tma.se.flip"); nullopt on any other text.
std::optional<IgemmConfig> parse_igemm_config(std::string_view s);
inline int igemm_threads(const IgemmConfig& c) { return c.bm / 64 * 128 + (c.ws ? 128 : 0); }
// Stages, the alignment slack, the barriers (.ws) and .p's epilogue staging: BM rows of BN*2 + 16 bytes
// (the 16-bit tile), or of BN*4 + 32 (fused_fp32: the fused epilogue's fp32 tile).
inline int igemm_smem_bytes(const IgemmConfig& c, bool fused_fp32 = false) {
  const int row = fused_fp32 ? 4 * c.bn + 32 : 2 * c.bn + 16;
  return c.stages * (c.bm + c.bn) * 128 + kSmemAlignSlack + (c.ws ? 256 : 0) + (c.persist ? c.bm * row : 0);
}
// The tiles with a persistent (.p) instantiation.
constexpr bool igemm_persist_tile(int bm, int bn) {
  return (bm == 128 && (bn == 256 || bn == 128)) || (bm == 64 && (bn == 128 || bn == 64));
}
// The persistent tiles whose kernels also run the fused epilogue (m128n128, m64n64: no spills by
// ptxas; m64n128's spilled 84 bytes, in its plain .p path too; m128n256's fp32 tile does not fit).
constexpr bool igemm_fused_persist_tile(int bm, int bn) { return (bm == 128 && bn == 128) || (bm == 64 && bn == 64); }

// The plan of a problem (config independent).
struct IgemmPlan {
  std::string refusal;  // empty: taken
  int kblock = kTileK;  // k elements per k-block: 64 (fp16/bf16), kTf32KBlock (fp32 with math=tf32)
  IgemmParams params;   // with splitk/kb_per_split/m_tiles unset
  long long gemm_m_max = 0;  // largest class M
  long long kred_max = 0;
  std::int64_t flops = 0;
  std::int64_t min_bytes = 0;  // x + w + y: what any algorithm reads and writes at least once
  // C % 8 != 0 (the 3-channel stem): the GEMM runs on copies with C padded to c_pad (zero channels)
  // in the workspace: act_pad (x, or dx for bwd-data) and w_pad (w, or dw for bwd-weights); inputs
  // are padded before the GEMM, a padded output is cut back to c_real after it. 0: no padding.
  int c_real = 0, c_pad = 0;
  std::size_t act_pad_bytes = 0, w_pad_bytes = 0;
  // bwd-data that .flip configs can run (stride 1, pad <= dil*(R-1) per axis, C % 8 == 0): the plan
  // of flip_problem(p), and the bytes of the flipped filter w' (a workspace copy); null otherwise.
  std::shared_ptr<const IgemmPlan> flip;
  std::size_t flip_w_bytes = 0;
  // Strided bwd-data (C % 8 == 0): flip is the fwd plan over the per-class sub-filters B' (see the
  // header; flip_w_bytes their bytes), built by subpixel_filters() instead of the flipped copy.
  bool flip_subpixel = false;
  // bwd-data that .col2im configs can run (R*S*C <= 256, N*P*Q % 8 == 0, dcol within 256 MiB): the
  // plan of the dcol GEMM (a fwd 1x1 over w^T with dy as its filter), its geometry, and the bytes of
  // dcol (fp32) and w^T; else null.
  std::shared_ptr<const IgemmPlan> col2im;
  Col2im col2im_geom;
  std::size_t dcol_bytes = 0, wt_bytes = 0;
  // bwd-weights that .im2col configs can run (R*S*C <= 256, not a plain 1x1, col within 256 MiB):
  // the plan of the 1x1 GEMM over col (C' = Jp), its geometry, the bytes of col and of dw' [K][Jp].
  std::shared_ptr<const IgemmPlan> im2col;
  Im2col im2col_geom;
  std::size_t col_bytes = 0, dwp_bytes = 0;
};
IgemmPlan plan_igemm(const ConvProblem& p);
// The fwd problem a stride-1 bwd-data problem p equals (see the header): dy as x (C' = K, H' x W' =
// P x Q), K' = C, the same filter size and dilation, pad' = dil*(R-1) - pad, stride 1, no bias; its
// output is dx. "" in *why when p qualifies, else the reason (and the returned problem is p).
ConvProblem flip_problem(const ConvProblem& p, std::string* why);

// Why the config is outside the space no matter the problem ("" when inside): unknown tile, the
// suffix rules, stages, smem, the split list.
std::string igemm_config_space_refusal(const IgemmConfig& c);
// Why the config cannot run the plan ("" when it can): the space's rules, then the plan's (tma fwd
// only, split-K without sub-pixel classes and within the k-blocks, the grid limit).
std::string igemm_config_refusal(const IgemmPlan& pl, const IgemmConfig& c);
// The fused epilogue (fusion.igemm.wgmma's staged chains: fwd, split 1) stages the tile's fp32 sums:
// in the stage memory, or with .p in .p's own region (igemm_smem_bytes(c, true)). Why c cannot hold
// that tile ("" when it can; the config's other rules are igemm_config_refusal's).
std::string igemm_fused_staging_refusal(const IgemmConfig& c);
// The fused epilogue's config from the conv's pick c: .se dropped unless .p needs it; .p kept on the
// tile whose .p kernel runs the fused epilogue (igemm_fused_persist_tile), else .p moved to that tile
// where pl takes it, else no .p.
IgemmConfig igemm_fused_config(const IgemmPlan& pl, IgemmConfig c);
// The launch: params with the config's split, grid dims.
struct IgemmLaunch {
  IgemmParams params;
  unsigned grid_x = 0, grid_y = 0, grid_z = 0;
  int threads = 0, smem = 0;
  std::size_t workspace_bytes = 0;  // [split-K fp32 partials][act_pad][w_pad] or [..][w_flip], each 256-aligned
  std::size_t act_pad_offset = 0, w_pad_offset = 0;
  std::size_t w_flip_offset = 0;    // .flip: where w' goes (params are then the fwd plan's)
  std::size_t wt_offset = 0;        // .col2im: where w^T goes (dcol at offset 0; params: the dcol GEMM's)
  std::size_t col_offset = 0, dwp_offset = 0;  // .im2col: col and dw' after the GEMM's split partials
};
IgemmLaunch make_igemm_launch(const IgemmPlan& pl, const IgemmConfig& c);
// The device buffers of a launch.
struct IgemmBuffers {
  const void* a = nullptr;    // fwd: x, bwd-data: dy, bwd-weights: dy
  const void* b = nullptr;    // fwd: w, bwd-data: w,  bwd-weights: x
  void* out = nullptr;        // fwd: y, bwd-data: dx, bwd-weights: dw
  const void* bias = nullptr; // fwd only, or null
  void* workspace = nullptr;  // split-K partials (workspace_bytes)
  IgemmEpilogue ep;           // fwd only: the fused epilogue (copied into the kernel's params)
};
// Enqueues the config's kernels on `stream` (a hipStream_t) for element type T (__half or bf16):
// defined in igemm_sm90_launch.hpp, instantiated by igemm_sm90_{fwd,bwd_data,bwd_weights}.hip.
template <typename T, IgemmDir DIR>
void igemm_sm90_launch(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, void* stream,
                       const std::string& context);
// One-time host setup of every kernel of (T, DIR): the dynamic shared-memory limits and the TMA
// encoder lookup, so that no later run (possibly inside a graph capture) makes those calls.
template <typename T, IgemmDir DIR>
void igemm_sm90_prepare();

// The whole space (every config some problem can run, all instantiated), in a fixed order; every
// config that can run the plan (the space's order kept), and the heuristic's pick.
std::vector<IgemmConfig> igemm_config_space();
std::vector<IgemmConfig> igemm_configs(const IgemmPlan& pl);
IgemmConfig igemm_default_config(const IgemmPlan& pl);
// The default run() uses (igemm_sm90_tuned.cpp): the sweeps' (bf16/fp16) or the tune's (fp32 math=tf32)
// fastest verified config for the problems they timed (igemm_tuned_config; nullopt for others or when the
// plan refuses that config), else igemm_default_config(pl).
std::optional<IgemmConfig> igemm_tuned_config(const ConvProblem& p, const IgemmPlan& pl);
IgemmConfig igemm_default_config(const ConvProblem& p, const IgemmPlan& pl);
// The heuristic's time model (arbitrary units, lower is better), exposed for tests and notes.
double igemm_cost(const IgemmPlan& pl, const IgemmConfig& c);

}  // namespace hiprim::gpu::sm90
