// conv.igemm.simt's column mode (device code; include from .hip files only): the copies around its
// GEMMs for few-channel problems (the plan and the GEMMs: igemm_simt_plan.hpp). NHWC, 2D, fp32, exact
// copies; 32-bit indices (the plan keeps col under 2^31 elements). g: the problem's fwd geometry.
// Not gpu/conv/im2col_kernels.hpp's pair: those decode every element of any layout and group count
// with 64-bit divisions and have no row pitch; here a thread copies one tap's C channels, and col2im
// walks only the taps that reach its element.
//
//   col[j][q]  j = (img*P + p)*Q + q an output pixel, q = (r*S + s)*C + c, row pitch ld >= R*S*C:
//              x[img][p*str - pad + r*dil][..][c], 0 in the padding and at q >= R*S*C.
//   col2im     dx[img][h][w][c] = sum over (r ascending, s ascending) with h = oh*str_h - pad_h + r*dil_h,
//              w likewise, 0 <= oh < P, 0 <= ow < Q, of dcol[(img*P + oh)*Q + ow][(r*S + s)*C + c]:
//              a gather, each dx element written once by one thread, in a fixed order.
//   w4 / wt    W [K][RSC] (KRSC rows) as [K][ld] or transposed [ld][K], zeros at q >= RSC.
#pragma once
#include "gpu/conv/igemm_simt_kernel.hpp"

namespace hiprim::gpu {

inline constexpr int kSimtColBlock = 256;

// One thread per (pixel j, tap t): the C channels of that tap (and, for t == 0, the row's zero pad).
__global__ void __launch_bounds__(kSimtColBlock)
    simt_im2col_kernel(SimtConvGeom g, int ld, const float* __restrict__ x, float* __restrict__ col) {
  const int taps = g.r * g.s, pq = g.p * g.q, total = g.imgs * pq * taps;
  const int step = static_cast<int>(gridDim.x * blockDim.x);
  for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < total; e += step) {
    const int j = e / taps, t = e - j * taps;
    const int img = j / pq, rem = j - img * pq, pp = rem / g.q, qq = rem - pp * g.q, rr = t / g.s, ss = t - rr * g.s;
    const int hh = pp * g.str_h - g.pad_h + rr * g.dil_h, ww = qq * g.str_w - g.pad_w + ss * g.dil_w;
    const long long src = hh >= 0 && hh < g.h && ww >= 0 && ww < g.w
                              ? ((static_cast<long long>(img) * g.h + hh) * g.w + ww) * g.c
                              : -1;
    float* const row = col + static_cast<long long>(j) * ld;
    for (int c = 0; c < g.c; ++c) row[t * g.c + c] = src >= 0 ? x[src + c] : 0.0f;
    if (t == 0)
      for (int z = taps * g.c; z < ld; ++z) row[z] = 0.0f;
  }
}

// One thread per dx element, in dx's memory order (coalesced stores).
__global__ void __launch_bounds__(kSimtColBlock)
    simt_col2im_kernel(SimtConvGeom g, int ld, const float* __restrict__ dcol, float* __restrict__ dx) {
  const int total = g.imgs * g.h * g.w * g.c;
  const int step = static_cast<int>(gridDim.x * blockDim.x);
  for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < total; e += step) {
    const int c = e % g.c, pix = e / g.c, ww = pix % g.w, hw = pix / g.w, hh = hw % g.h, img = hw / g.h;
    float acc = 0.0f;
    for (int r = 0; r < g.r; ++r) {
      const int th = hh + g.pad_h - r * g.dil_h;  // = oh * str_h; decreasing in r
      if (th < 0) break;
      if (th % g.str_h != 0 || th / g.str_h >= g.p) continue;
      const long long row0 = (static_cast<long long>(img) * g.p + th / g.str_h) * g.q;
      for (int s = 0; s < g.s; ++s) {
        const int tw = ww + g.pad_w - s * g.dil_w;
        if (tw < 0) break;
        if (tw % g.str_w != 0 || tw / g.str_w >= g.q) continue;
        acc += dcol[(row0 + tw / g.str_w) * ld + (r * g.s + s) * g.c + c];
      }
    }
    dx[e] = acc;
  }
}

// dst[e] over [0, K*ld): W as [K][ld] (transposed = false) or [ld][K] (true), zeros at q >= rsc.
__global__ void __launch_bounds__(kSimtColBlock) simt_col_weights_kernel(const float* __restrict__ w, int k, int rsc,
                                                                           int ld, bool transposed,
                                                                           float* __restrict__ dst) {
  const int total = k * ld, step = static_cast<int>(gridDim.x * blockDim.x);
  for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < total; e += step) {
    const int kk = transposed ? e % k : e / ld, q = transposed ? e / k : e % ld;
    dst[e] = q < rsc ? w[static_cast<long long>(kk) * rsc + q] : 0.0f;
  }
}

}  // namespace hiprim::gpu
