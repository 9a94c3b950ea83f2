// The sub-pixel classes of a strided bwd-data convolution, one axis (host code, shared by the
// solvers that run bwd-data as stride-1 GEMMs: conv.igemm.wgmma, conv.igemm.simt).
// dx[h] = sum over (r, o) with o*str - pad + r*dil = h of dy[o] w[r]. Output rows h = i*str + a
// (class a in [0, str), i < rows = ceil((in_size - a) / str)) are reached by the taps
// r = r0 + t*step, t < n (step = str / g, g = gcd(dil, str); r0 the least r with
// r*dil == a + pad (mod str)), at o = i + add + t*tstep (add = (a + pad - r0*dil) / str, exact;
// tstep = -(dil / g)). A class no tap reaches has n = 0 (its rows are zeros). Stride 1: one class,
// r0 = 0, n = taps, add = pad, tstep = -dil.
#pragma once
#include <numeric>

namespace hiprim::gpu {

struct AxisTaps {
  int r0 = 0, n = 0, step = 1, add = 0, tstep = 0, rows = 0;
};

inline AxisTaps axis_taps(int a, int str, int pad, int dil, int taps, int in_size) {
  AxisTaps t;
  const int g = std::gcd(dil, str);
  t.step = str / g;
  t.tstep = -(dil / g);
  t.rows = a < in_size ? (in_size - a + str - 1) / str : 0;
  if ((a + pad) % g != 0) return t;  // no tap reaches this class
  t.r0 = -1;
  for (int r = 0; r < t.step; ++r)
    if (((static_cast<long long>(r) * dil - a - pad) % str + str) % str == 0) {
      t.r0 = r;
      break;
    }
  if (t.r0 < 0 || t.r0 >= taps) {
    t.r0 = 0;
    return t;
  }
  t.n = (taps - t.r0 + t.step - 1) / t.step;
  t.add = (a + pad - t.r0 * dil) / str;  // exact: r0*dil == a + pad (mod str)
  return t;
}

}  // namespace hiprim::gpu
