// Filter copies for the GEMM solvers (device code; include from .hip files only): grid-stride
// loops over the destination in its memory order (coalesced stores), exact copies.
#pragma once
#include "gpu/conv/conv_index.hpp"
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

inline constexpr int kWeightCopyBlock = 256;

// W'[e], e = ((k*R + r)*S + s)*C + c, from w in its own layout (an exact copy).
template <typename T>
__global__ void __launch_bounds__(kWeightCopyBlock) krsc_weights_kernel(ConvGeom g, const T* __restrict__ w, T* __restrict__ wt) {
  const long long c_sz = g.in_ch, r_sz = g.f_sz[1], s_sz = g.f_sz[2];
  const long long total = static_cast<long long>(g.out_ch) * r_sz * s_sz * c_sz;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    const long long c = e % c_sz, s = (e / c_sz) % s_sz, r = (e / (c_sz * s_sz)) % r_sz;
    const long long k = e / (c_sz * s_sz * r_sz);
    wt[e] = w[g.w_offset(k, c, 0, r, s)];
  }
}

// A flipped, transposed selection of filter taps (g: the bwd-data problem's own geometry):
//   W'[e], e = ((c*TR + t)*TS + u)*K + k,  = w[k][c][r0 + (TR-1-t)*step_r][s0 + (TS-1-u)*step_s].
// All taps, step 1 (TapSelection::all) is the flipped filter w'[c][r][s][k] = w[k][c][R-1-r][S-1-s].
struct TapSelection {
  int taps_r = 0, taps_s = 0, r0 = 0, s0 = 0, step_r = 1, step_s = 1;
  static TapSelection all(const ConvGeom& g) { return {g.f_sz[1], g.f_sz[2], 0, 0, 1, 1}; }
};
template <typename T>
__global__ void __launch_bounds__(kWeightCopyBlock)
    tap_weights_kernel(ConvGeom g, TapSelection sel, const T* __restrict__ w, T* __restrict__ wt) {
  const long long k_sz = g.out_ch, r_sz = sel.taps_r, s_sz = sel.taps_s;
  const long long total = static_cast<long long>(g.in_ch) * r_sz * s_sz * k_sz;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total; e += step) {
    const long long k = e % k_sz, u = (e / k_sz) % s_sz, t = (e / (k_sz * s_sz)) % r_sz;
    const long long c = e / (k_sz * s_sz * r_sz);
    wt[e] = w[g.w_offset(k, c, 0, sel.r0 + (r_sz - 1 - t) * sel.step_r, sel.s0 + (s_sz - 1 - u) * sel.step_s)];
  }
}

}  // namespace hiprim::gpu
