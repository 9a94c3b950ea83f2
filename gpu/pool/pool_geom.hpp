// The pooling kernels' shared geometry and rules (math, index and tie rules: core/pool_problem.hpp):
// the problem in 3-D form (2D: depth 1, window 1, pad 0, stride 1), the max tie rule, the windows
// containing a position, and avg's divisor. Used by pool_direct.hip and pool_band.hip, so every
// pooling solver walks windows and breaks ties the same way.
#pragma once
#include <cstdint>

#include "core/pool_problem.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/ncdhw_walk_host.hpp"

namespace hiprim::gpu {

struct PoolGeom {
  Nc3FastExtent x_ext, y_ext;  // channel counts in groups of V
  Nc3FastExtent t_ext;         // pool_bwd_tile: x_ext with h and w counted in tiles
  Nc3Strides xs, ys;           // x (and dx) / y (and dy, idx) element strides
  int in[3], out[3], win[3], pad[3], str[3];
  FastDiv str_div[3];  // division by str[d]
  int mode;            // 0 max, 1 avg_incl, 2 avg_excl
};

// Max's rule in scan order: v replaces the best so far when it is larger, or a NaN over a number
// (the first maximum, the first NaN, is kept).
__device__ __forceinline__ bool beats(float v, float best) { return (v != v && best == best) || v > best; }

// Windows containing position p along dim d: [lo, hi] (empty when lo > hi).
__device__ __forceinline__ void windows_of(const PoolGeom& g, int d, int p, int& lo, int& hi) {
  const int a = p + g.pad[d] - g.win[d] + 1;  // first window with o*str >= a
  lo = a <= 0 ? 0 : static_cast<int>(g.str_div[d].div(static_cast<std::uint32_t>(a + g.str[d] - 1)));
  hi = min(g.out[d] - 1, static_cast<int>(g.str_div[d].div(static_cast<std::uint32_t>(p + g.pad[d]))));
}

// avg's divisor of the window starting at (sd, sh, sw): prod(win) (avg_incl) or its taps inside the input (avg_excl).
__device__ __forceinline__ float window_divisor(const PoolGeom& g, int sd, int sh, int sw) {
  if (g.mode == 1) return static_cast<float>(g.win[0] * g.win[1] * g.win[2]);
  const int st[3] = {sd, sh, sw};
  int count = 1;
  for (int d = 0; d < 3; ++d) count *= min(st[d] + g.win[d], g.in[d]) - max(st[d], 0);
  return static_cast<float>(count);
}

// Extent of a window loop: the template constant when > 0, else the run-time value.
template <int K>
__device__ __forceinline__ int trips(int runtime) { return K > 0 ? K : runtime; }

// Calls f.template operator()<KH, KW>() with the h x w trip counts the kernels unroll: fwd the
// window, bwd the most windows containing a position along h and w, ceil(win/str). 3x3, 2x2 and
// (bwd) 1x1 are compile-time; anything else passes 0, 0 (run-time loops).
template <typename F>
void with_window_trips(PoolDir dir, const PoolGeom& g, F&& f) {
  int kh = g.win[1], kw = g.win[2];
  if (dir == PoolDir::bwd) kh = (g.win[1] + g.str[1] - 1) / g.str[1], kw = (g.win[2] + g.str[2] - 1) / g.str[2];
  if (kh == 3 && kw == 3) return f.template operator()<3, 3>();
  if (kh == 2 && kw == 2) return f.template operator()<2, 2>();
  if (kh == 1 && kw == 1 && dir == PoolDir::bwd) return f.template operator()<1, 1>();
  f.template operator()<0, 0>();
}

// The geometry of p with channels counted in groups of v.
inline PoolGeom pool_geom(const PoolProblem& p, int v) {
  PoolGeom g{};
  const Dims o = p.out();
  const int r = p.rank();
  g.x_ext = nc3_fast(nc3_extent(p.x_desc(), p.shape.channels_last, v));
  g.y_ext = nc3_fast(nc3_extent(p.y_desc(), p.shape.channels_last, v));
  g.xs = nc3_strides(p.x_desc());
  g.ys = nc3_strides(p.y_desc());
  for (int i = 0; i < 3; ++i) {
    const int s = i - (3 - r);
    g.in[i] = s < 0 ? 1 : static_cast<int>(p.shape.in[s]);
    g.out[i] = s < 0 ? 1 : static_cast<int>(o[s]);
    g.win[i] = s < 0 ? 1 : static_cast<int>(p.window[s]);
    g.pad[i] = s < 0 ? 0 : static_cast<int>(p.pad[s]);
    g.str[i] = s < 0 ? 1 : static_cast<int>(p.stride[s]);
    g.str_div[i] = FastDiv(static_cast<std::uint32_t>(g.str[i]));
  }
  g.mode = p.mode == PoolMode::max ? 0 : p.mode == PoolMode::avg_incl ? 1 : 2;
  return g;
}

}  // namespace hiprim::gpu
