// One output element of each operation of the conv relation (gpu/conv/conv_index.hpp), summed in
// fp32 in a fixed order. Memory is read through functors `float load(long long storage_offset)`,
// so conv.naive's kernels (device loads of fp32/fp16/bf16) and the host tests (which check this
// index math against the CPU reference without a GPU) run the same code.
//   out_from_in:   Out[n,co,o] = sum_{ci, f} In[n, g*CIg+ci, o*s-p+f*d] * W[co,ci,f]        g = co / COg
//   in_from_out:   In[n,c,i]   = sum_{k<COg, f, o: o*s-p+f*d = i} Out[n, g*COg+k, o] * W[g*COg+k, c%CIg, f]   g = c / CIg
//   w_from_in_out: W[co,ci,f]  = sum_{n, o} Out[n,co,o] * In[n, g*CIg+ci, o*s-p+f*d]
// Coordinates are logical: (n, channel, d, h, w) of the element computed, (co, ci, t, r, s) for W.
#pragma once
#include "core/host_device.hpp"
#include "gpu/conv/conv_index.hpp"

namespace hiprim::gpu {

template <class InLoad, class WLoad>
HIPRIM_HOST_DEVICE float gather_out_from_in(const ConvGeom& g, const Coord5& e, const InLoad& in, const WLoad& w) {
  const long long n = e.i[0], co = e.i[1];
  const int cig = g.in_per_group();
  const long long c_first = (co / g.out_per_group()) * cig;
  float acc = 0.0f;
  for (int ci = 0; ci < cig; ++ci)
    for (int t = 0; t < g.f_sz[0]; ++t) {
      const long long id = in_pos(e.i[2], t, g.stride[0], g.pad[0], g.dil[0]);
      if (id < 0 || id >= g.in_sz[0]) continue;
      for (int r = 0; r < g.f_sz[1]; ++r) {
        const long long ih = in_pos(e.i[3], r, g.stride[1], g.pad[1], g.dil[1]);
        if (ih < 0 || ih >= g.in_sz[1]) continue;
        for (int s = 0; s < g.f_sz[2]; ++s) {
          const long long iw = in_pos(e.i[4], s, g.stride[2], g.pad[2], g.dil[2]);
          if (iw < 0 || iw >= g.in_sz[2]) continue;
          acc += in(g.in_offset(n, c_first + ci, id, ih, iw)) * w(g.w_offset(co, ci, t, r, s));
        }
      }
    }
  return acc;
}

template <class OutLoad, class WLoad>
HIPRIM_HOST_DEVICE float gather_in_from_out(const ConvGeom& g, const Coord5& e, const OutLoad& out, const WLoad& w) {
  const long long n = e.i[0], c = e.i[1];
  const int cig = g.in_per_group(), cog = g.out_per_group();
  const long long ci = c % cig, co_first = (c / cig) * cog;
  float acc = 0.0f;
  for (int k = 0; k < cog; ++k)
    for (int t = 0; t < g.f_sz[0]; ++t) {
      const long long od = out_pos(e.i[2], t, g.stride[0], g.pad[0], g.dil[0], g.out_sz[0]);
      if (od < 0) continue;
      for (int r = 0; r < g.f_sz[1]; ++r) {
        const long long oh = out_pos(e.i[3], r, g.stride[1], g.pad[1], g.dil[1], g.out_sz[1]);
        if (oh < 0) continue;
        for (int s = 0; s < g.f_sz[2]; ++s) {
          const long long ow = out_pos(e.i[4], s, g.stride[2], g.pad[2], g.dil[2], g.out_sz[2]);
          if (ow < 0) continue;
          acc += out(g.out_offset(n, co_first + k, od, oh, ow)) * w(g.w_offset(co_first + k, ci, t, r, s));
        }
      }
    }
  return acc;
}

template <class InLoad, class OutLoad>
HIPRIM_HOST_DEVICE float gather_w_from_in_out(const ConvGeom& g, const Coord5& e, const InLoad& in,
                                              const OutLoad& out) {
  const long long co = e.i[0], cin = (co / g.out_per_group()) * g.in_per_group() + e.i[1];
  float acc = 0.0f;
  for (int n = 0; n < g.batch; ++n)
    for (int od = 0; od < g.out_sz[0]; ++od) {
      const long long id = in_pos(od, e.i[2], g.stride[0], g.pad[0], g.dil[0]);
      if (id < 0 || id >= g.in_sz[0]) continue;
      for (int oh = 0; oh < g.out_sz[1]; ++oh) {
        const long long ih = in_pos(oh, e.i[3], g.stride[1], g.pad[1], g.dil[1]);
        if (ih < 0 || ih >= g.in_sz[1]) continue;
        for (int ow = 0; ow < g.out_sz[2]; ++ow) {
          const long long iw = in_pos(ow, e.i[4], g.stride[2], g.pad[2], g.dil[2]);
          if (iw < 0 || iw >= g.in_sz[2]) continue;
          acc += out(g.out_offset(n, co, od, oh, ow)) * in(g.in_offset(n, cin, id, ih, iw));
        }
      }
    }
  return acc;
}

}  // namespace hiprim::gpu
