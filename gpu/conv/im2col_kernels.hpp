// im2col and its adjoint, col2im, for one chunk of images (device code; conv.gemm.im2col).
// Terms and the col layout: gpu/conv/gemm_conv_maps.hpp.
//
//   im2col:  col[g][q][j] = In[n0+i, g*CIg+ci, o*stride - pad + f*dil], 0 where that is padding
//            (an exact copy of the element, in the problem's dtype), q = (ci, f), j = i*P + o.
//   col2im:  In[n0+i, c, x] = round( sum_{f ascending} colgrad[g][q(c%CIg, f)][i*P + o(x, f)] (+bias[c]) )
//            over the taps f with an Out position o such that o*stride - pad + f*dil = x per axis:
//            a gather, so each In element is written once by one thread, in a fixed order, no atomics.
// Launch: 1D grid-stride loops of kIm2colBlock threads over 64-bit linear indices, enumerated in the
// memory order of the tensor written (coalesced stores).
#pragma once
#include "gpu/common/numeric.hpp"
#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/gemm_conv_maps.hpp"

namespace hiprim::gpu {

inline constexpr int kIm2colBlock = 256;

// q -> (ci, linear tap f) in W's memory order (see gemm_conv_maps.hpp).
struct QIndex {
  int ci, f;
};
__device__ __forceinline__ QIndex decode_q(long long q, int cig, long long taps, bool channels_last) {
  if (channels_last) return {static_cast<int>(q % cig), static_cast<int>(q / cig)};
  return {static_cast<int>(q / taps), static_cast<int>(q % taps)};
}
__device__ __forceinline__ long long encode_q(int ci, long long f, int cig, long long taps, bool channels_last) {
  return channels_last ? f * cig + ci : ci * taps + f;
}

template <typename T>
__global__ void __launch_bounds__(kIm2colBlock)
    im2col_kernel(ConvGeom g, ColLayout col_layout, bool channels_last, const T* __restrict__ in, T* __restrict__ col) {
  const long long total = col_layout.elements();
  const long long rows = col_layout.rows, cols = col_layout.cols;
  const long long pixels = g.out_spatial(), taps = g.taps();
  const int cig = g.in_per_group();
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    // e is the col offset itself: [g][j][q] (q fastest) or [g][q][j].
    const long long grp = e / (rows * cols), rem = e % (rows * cols);
    const long long q = col_layout.q_fastest ? rem % rows : rem / cols;
    const long long j = col_layout.q_fastest ? rem / rows : rem % cols;
    const QIndex qi = decode_q(q, cig, taps, channels_last);
    const Coord5 tap = unravel5(qi.f, 1, 1, g.f_sz[0], g.f_sz[1], g.f_sz[2]);
    const long long image = j / pixels;
    const Coord5 pix = unravel5(j % pixels, 1, 1, g.out_sz[0], g.out_sz[1], g.out_sz[2]);
    const long long id = in_pos(pix.i[2], tap.i[2], g.stride[0], g.pad[0], g.dil[0]);
    const long long ih = in_pos(pix.i[3], tap.i[3], g.stride[1], g.pad[1], g.dil[1]);
    const long long iw = in_pos(pix.i[4], tap.i[4], g.stride[2], g.pad[2], g.dil[2]);
    const bool inside = id >= 0 && id < g.in_sz[0] && ih >= 0 && ih < g.in_sz[1] && iw >= 0 && iw < g.in_sz[2];
    if (inside)
      col[e] = in[g.in_offset(image, grp * cig + qi.ci, id, ih, iw)];
    else
      store_f(col, e, 0.0f);
  }
}

template <typename T>
__global__ void __launch_bounds__(kIm2colBlock)
    col2im_kernel(ConvGeom g, ColLayout col_layout, bool channels_last, int images, const float* __restrict__ colgrad,
                  const T* __restrict__ bias, T* __restrict__ in) {
  const long long spatial = g.in_spatial();
  const long long total = 1LL * images * g.in_ch * spatial;
  const long long pixels = g.out_spatial(), taps = g.taps();
  const int cig = g.in_per_group();
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    // (image, c, x) in In's memory order: [i][x][c] (channels last) or [i][c][x].
    const long long image = e / (g.in_ch * spatial), rem = e % (g.in_ch * spatial);
    const int c = static_cast<int>(channels_last ? rem % g.in_ch : rem / spatial);
    const long long x = channels_last ? rem / g.in_ch : rem % spatial;
    const Coord5 pos = unravel5(x, 1, 1, g.in_sz[0], g.in_sz[1], g.in_sz[2]);
    const int grp = c / cig, ci = c % cig;
    const float* gcol = colgrad + grp * col_layout.group_stride() + image * pixels * col_layout.j_stride();
    float acc = 0.0f;
    for (int t = 0; t < g.f_sz[0]; ++t) {
      const long long od = out_pos(pos.i[2], t, g.stride[0], g.pad[0], g.dil[0], g.out_sz[0]);
      if (od < 0) continue;
      for (int r = 0; r < g.f_sz[1]; ++r) {
        const long long oh = out_pos(pos.i[3], r, g.stride[1], g.pad[1], g.dil[1], g.out_sz[1]);
        if (oh < 0) continue;
        for (int s = 0; s < g.f_sz[2]; ++s) {
          const long long ow = out_pos(pos.i[4], s, g.stride[2], g.pad[2], g.dil[2], g.out_sz[2]);
          if (ow < 0) continue;
          const long long f = (1LL * t * g.f_sz[1] + r) * g.f_sz[2] + s;
          const long long o = (od * g.out_sz[1] + oh) * g.out_sz[2] + ow;
          const long long q = encode_q(ci, f, cig, taps, channels_last);
          acc += gcol[q * col_layout.q_stride() + o * col_layout.j_stride()];
        }
      }
    }
    if (bias != nullptr) acc += load_f(bias, c);
    store_f(in, g.in_offset(image, c, pos.i[2], pos.i[3], pos.i[4]), acc);
  }
}

}  // namespace hiprim::gpu
