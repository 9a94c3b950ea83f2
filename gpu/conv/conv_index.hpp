// Convolution index math, callable on the host (tested there) and on the device.
//
// Every convolution here is one relation between an "In" tensor, an "Out" tensor and the filter W:
//   Out[n, co, o] = sum_{ci, f} In[n, g*CIg + ci, o*stride - pad + f*dil] * W[co, ci, f],  g = co / COg
// per spatial axis (depth, height, width; 2D problems have depth 1). The problem's modes map onto it:
//   mode conv:  In = x [N,C,in],  Out = y [N,K,out],  W = w [K, C/G, f]    (CIg = C/G, COg = K/G)
//   mode trans: In = y [N,K,out], Out = x [N,C,in],   W = w [C, K/G, f]    (CIg = K/G, COg = C/G)
// and the three directions onto three operations on it:
//   out_from_in  (Out = In (*) W):  conv fwd,          trans bwd-data
//   in_from_out  (In  = Out (*) W): conv bwd-data,     trans fwd  (gathers over o with divisibility)
//   w_from_in_out (W  = In x Out):  conv bwd-weights,  trans bwd-weights
// Bias (fwd only) adds bias[k] to y: Out in mode conv, In in mode trans.
#pragma once

#include "core/host_device.hpp"

namespace hiprim::gpu {

// Floor division and the matching non-negative remainder, for b > 0 and any sign of a.
HIPRIM_HOST_DEVICE constexpr long long floor_div(long long a, long long b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
HIPRIM_HOST_DEVICE constexpr long long floor_mod(long long a, long long b) { return a - floor_div(a, b) * b; }
HIPRIM_HOST_DEVICE constexpr long long ceil_div(long long a, long long b) { return -floor_div(-a, b); }

// One spatial axis: the In position read by Out position o through tap f.
HIPRIM_HOST_DEVICE constexpr long long in_pos(long long o, long long f, long long stride, long long pad,
                                              long long dil) {
  return o * stride - pad + f * dil;
}

// The Out position o in [0, out_size) with in_pos(o, f) == i, or -1 when there is none.
HIPRIM_HOST_DEVICE constexpr long long out_pos(long long i, long long f, long long stride, long long pad, long long dil,
                                               long long out_size) {
  const long long t = i + pad - f * dil;  // = o * stride
  if (t < 0 || t % stride != 0) return -1;
  const long long o = t / stride;
  return o < out_size ? o : -1;
}

// Half-open range of positions.
struct IndexRange {
  long long lo = 0, hi = 0;
};

// In positions read by the Out tile [o_lo, o_lo + tile) through taps [0, taps): unclamped (it may
// reach into the padding). Its length is in_span(tile, taps, stride, dil).
HIPRIM_HOST_DEVICE constexpr IndexRange in_range_of_out_tile(long long o_lo, long long tile, long long taps,
                                                             long long stride, long long pad, long long dil) {
  return {in_pos(o_lo, 0, stride, pad, dil), in_pos(o_lo + tile - 1, taps - 1, stride, pad, dil) + 1};
}
HIPRIM_HOST_DEVICE constexpr long long in_span(long long tile, long long taps, long long stride, long long dil) {
  return (tile - 1) * stride + (taps - 1) * dil + 1;
}

// Out positions o (unclamped) that read some In position of [i_lo, i_lo + tile) through some tap in
// [0, taps): o*stride in [i_lo + pad - (taps-1)*dil, i_lo + tile - 1 + pad]. May be empty (hi <= lo).
HIPRIM_HOST_DEVICE constexpr IndexRange out_range_of_in_tile(long long i_lo, long long tile, long long taps,
                                                             long long stride, long long pad, long long dil) {
  return {ceil_div(i_lo + pad - (taps - 1) * dil, stride), floor_div(i_lo + tile - 1 + pad, stride) + 1};
}
// Upper bound of that range's length for any i_lo: floor((tile - 1 + (taps-1)*dil) / stride) + 1.
HIPRIM_HOST_DEVICE constexpr long long out_span_bound(long long tile, long long taps, long long stride, long long dil) {
  return (tile - 1 + (taps - 1) * dil) / stride + 1;
}

// Tiles staged in shared memory (conv.direct.tiled):
// fwd stages In positions [in_pos(o_lo, 0), +in_span): Out position o_lo + j reads, through tap f,
// the staged entry j*stride + f*dil.
HIPRIM_HOST_DEVICE constexpr long long staged_in_index(long long j, long long f, long long stride, long long dil) {
  return j * stride + f * dil;
}
// bwd-data stages Out positions [o_lo, o_lo + out_span_bound) with o_lo = out_range_of_in_tile().lo:
// In position i gets tap f from the staged entry returned (the o with in_pos(o, f) == i, minus
// o_lo), or -1 when i + pad - f*dil is not a multiple of stride (no o). The entry may lie outside
// [0, out_size) of the whole tensor; the staging holds zeros there.
HIPRIM_HOST_DEVICE constexpr long long staged_out_index(long long i, long long f, long long stride, long long pad,
                                                        long long dil, long long o_lo) {
  const long long t = i + pad - f * dil;  // = o * stride
  return floor_mod(t, stride) != 0 ? -1 : floor_div(t, stride) - o_lo;
}

// The relation's sizes and memory strides. Spatial arrays are [depth, height, width]; tensor
// strides are in elements, [n, c, d, h, w] for In/Out and [co, ci, t, r, s] for W (2D: the depth
// entries are size 1, stride 0).
struct ConvGeom {
  int batch = 1, groups = 1;
  int in_ch = 1, out_ch = 1;  // full channel counts of In and Out
  int in_sz[3] = {1, 1, 1}, out_sz[3] = {1, 1, 1}, f_sz[3] = {1, 1, 1};
  int stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  long long in_str[5] = {}, out_str[5] = {}, w_str[5] = {};

  HIPRIM_HOST_DEVICE constexpr int in_per_group() const { return in_ch / groups; }
  HIPRIM_HOST_DEVICE constexpr int out_per_group() const { return out_ch / groups; }
  HIPRIM_HOST_DEVICE constexpr long long in_spatial() const { return 1LL * in_sz[0] * in_sz[1] * in_sz[2]; }
  HIPRIM_HOST_DEVICE constexpr long long out_spatial() const { return 1LL * out_sz[0] * out_sz[1] * out_sz[2]; }
  HIPRIM_HOST_DEVICE constexpr long long taps() const { return 1LL * f_sz[0] * f_sz[1] * f_sz[2]; }
  HIPRIM_HOST_DEVICE constexpr long long in_elements() const { return 1LL * batch * in_ch * in_spatial(); }
  HIPRIM_HOST_DEVICE constexpr long long out_elements() const { return 1LL * batch * out_ch * out_spatial(); }
  HIPRIM_HOST_DEVICE constexpr long long w_elements() const { return 1LL * out_ch * in_per_group() * taps(); }

  HIPRIM_HOST_DEVICE constexpr long long in_offset(long long n, long long c, long long d, long long h,
                                                   long long w) const {
    return n * in_str[0] + c * in_str[1] + d * in_str[2] + h * in_str[3] + w * in_str[4];
  }
  HIPRIM_HOST_DEVICE constexpr long long out_offset(long long n, long long c, long long d, long long h,
                                                    long long w) const {
    return n * out_str[0] + c * out_str[1] + d * out_str[2] + h * out_str[3] + w * out_str[4];
  }
  HIPRIM_HOST_DEVICE constexpr long long w_offset(long long co, long long ci, long long t, long long r,
                                                  long long s) const {
    return co * w_str[0] + ci * w_str[1] + t * w_str[2] + r * w_str[3] + s * w_str[4];
  }
};

// Logical coordinates of a linear index over dims [d0, d1, d2, d3, d4] (d4 fastest).
struct Coord5 {
  long long i[5];
};
HIPRIM_HOST_DEVICE constexpr Coord5 unravel5(long long idx, long long d0, long long d1, long long d2, long long d3,
                                             long long d4) {
  Coord5 c{};
  c.i[4] = idx % d4;
  idx /= d4;
  c.i[3] = idx % d3;
  idx /= d3;
  c.i[2] = idx % d2;
  idx /= d2;
  c.i[1] = idx % d1;
  c.i[0] = idx / d1;
  (void)d0;
  return c;
}

}  // namespace hiprim::gpu
