// The oracle proper: plain loops over every term of the convolution's bilinear form
//   <y, conv(x, w)> = sum over terms x[xi] * w[wi] * y[yi]
// enumerated straight from the definitions in conv.hpp. Each direction sums the product of the two
// tensors it reads into the element of the third: fwd y[yi] += x*w, bwd-data x[xi] += y*w,
// bwd-weights w[wi] += x*y, so the three directions are exact adjoints by construction.
// Cost: one pass over the p.macs() terms; meant for small problems (conv() switches to conv_fast).
#include <cmath>

#include "reference/conv_common.hpp"

namespace hiprim::ref {

using detail::I64;
using detail::Vec3;

namespace {

using Strides5 = std::array<I64, 5>;

template <class F>
void for_each_pos(const Vec3& extent, F&& f) {
  for (I64 d = 0; d < extent[0]; ++d)
    for (I64 h = 0; h < extent[1]; ++h)
      for (I64 w = 0; w < extent[2]; ++w) f(Vec3{d, h, w});
}

I64 offset5(const Strides5& s, I64 a, I64 b, const Vec3& pos) {
  return a * s[0] + b * s[1] + pos[0] * s[2] + pos[1] * s[3] + pos[2] * s[4];
}

bool inside(const Vec3& pos, const Vec3& extent) {
  for (int i = 0; i < 3; ++i)
    if (pos[i] < 0 || pos[i] >= extent[i]) return false;
  return true;
}

// Calls term(x_offset, w_offset, y_offset) for every term of the bilinear form.
template <class F>
void for_each_term(const ConvProblem& p, const detail::Geom3& g, const Strides5& xs, const Strides5& ws,
                   const Strides5& ys, F&& term) {
  const I64 cg = g.cg(), kg = g.kg();
  for (I64 n = 0; n < g.n; ++n)
    for (I64 grp = 0; grp < g.groups; ++grp)
      for (I64 cc = 0; cc < cg; ++cc)
        for (I64 kk = 0; kk < kg; ++kk) {
          const I64 c = grp * cg + cc, k = grp * kg + kk;
          if (p.mode == ConvMode::conv) {
            // y[n, k, o] += x[n, c, o*stride - pad + f*dil] * w[k, cc, f]
            for_each_pos(g.out, [&](const Vec3& o) {
              for_each_pos(g.filter, [&](const Vec3& f) {
                Vec3 i;
                for (int a = 0; a < 3; ++a) i[a] = o[a] * g.stride[a] - g.pad[a] + f[a] * g.dil[a];
                if (inside(i, g.in)) term(offset5(xs, n, c, i), offset5(ws, k, cc, f), offset5(ys, n, k, o));
              });
            });
          } else {
            // y[n, k, i*stride - pad + f*dil] += x[n, c, i] * w[c, kk, f]
            for_each_pos(g.in, [&](const Vec3& i) {
              for_each_pos(g.filter, [&](const Vec3& f) {
                Vec3 o;
                for (int a = 0; a < 3; ++a) o[a] = i[a] * g.stride[a] - g.pad[a] + f[a] * g.dil[a];
                if (inside(o, g.out)) term(offset5(xs, n, c, i), offset5(ws, c, kk, f), offset5(ys, n, k, o));
              });
            });
          }
        }
}

}  // namespace

ConvOutput conv_naive(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum, const TensorDesc* out_desc) {
  ConvOutput out;
  out.desc = detail::check_conv_call(p, in, out_desc);
  const auto n_out = static_cast<std::size_t>(out.desc.storage_elements());
  out.value.assign(n_out, 0.0);
  if (with_abs_sum) out.abs_sum.assign(n_out, 0.0);
  const detail::Role role = detail::output_role(p.dir);
  auto strides_of = [&](detail::Role r, const HostTensor* t) {
    return detail::strides5(r == role ? out.desc : t->desc);
  };
  auto values_of = [&](detail::Role r, const HostTensor* t) {
    return r == role ? std::vector<float>{} : detail::rounded_storage(*t, p.dtype);
  };
  const Strides5 xs = strides_of(detail::Role::x, in.x), ws = strides_of(detail::Role::w, in.w),
                 ys = strides_of(detail::Role::y, in.y);
  const std::vector<float> xv = values_of(detail::Role::x, in.x), wv = values_of(detail::Role::w, in.w),
                           yv = values_of(detail::Role::y, in.y);
  // The output element gets a += b*c for the two inputs b, c of the direction.
  auto add = [&](I64 o, double b, double c) {
    const double t = b * c;
    out.value[static_cast<std::size_t>(o)] += t;
    if (with_abs_sum) out.abs_sum[static_cast<std::size_t>(o)] += std::fabs(t);
  };
  const detail::Geom3 g = detail::geom3(p);
  switch (p.dir) {
    case ConvDir::fwd:
      for_each_term(p, g, xs, ws, ys, [&](I64 xo, I64 wo, I64 yo) { add(yo, xv[xo], wv[wo]); });
      break;
    case ConvDir::bwd_data:
      for_each_term(p, g, xs, ws, ys, [&](I64 xo, I64 wo, I64 yo) { add(xo, yv[yo], wv[wo]); });
      break;
    case ConvDir::bwd_weights:
      for_each_term(p, g, xs, ws, ys, [&](I64 xo, I64 wo, I64 yo) { add(wo, xv[xo], yv[yo]); });
      break;
  }
  if (p.dir == ConvDir::fwd && p.bias) {
    const std::vector<float> bv = detail::rounded_storage(*in.bias, p.dtype);
    const I64 bstride = in.bias->desc.strides[0];
    for (I64 n = 0; n < g.n; ++n)
      for (I64 k = 0; k < g.k; ++k)
        for_each_pos(g.out, [&](const Vec3& o) { add(offset5(ys, n, k, o), bv[k * bstride], 1.0); });
  }
  return out;
}

ConvOutput conv(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum, const TensorDesc* out_desc) {
  if (p.valid() && p.macs() >= kFastThresholdMacs) return conv_fast(p, in, with_abs_sum, out_desc);
  return conv_naive(p, in, with_abs_sum, out_desc);
}

}  // namespace hiprim::ref
