#include "fuzz/conv_implicit_zero.hpp"

#include <cmath>

#include "reference/conv_common.hpp"

namespace hiprim::fuzz {

namespace {

using ref::detail::I64;
using ref::detail::Role;
using ref::detail::Vec3;
using Strides5 = std::array<I64, 5>;

I64 offset5(const Strides5& s, I64 a, I64 b, const Vec3& pos) {
  return a * s[0] + b * s[1] + pos[0] * s[2] + pos[1] * s[3] + pos[2] * s[4];
}

bool inside(const Vec3& pos, const Vec3& extent) {
  for (int i = 0; i < 3; ++i)
    if (pos[i] < 0 || pos[i] >= extent[i]) return false;
  return true;
}

template <class F>
void for_each_pos(const Vec3& extent, F&& f) {
  for (I64 d = 0; d < extent[0]; ++d)
    for (I64 h = 0; h < extent[1]; ++h)
      for (I64 w = 0; w < extent[2]; ++w) f(Vec3{d, h, w});
}

}  // namespace

std::vector<std::uint8_t> implicit_zero_nan_mask(const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc& out_desc) {
  const ref::detail::Geom3 g = ref::detail::geom3(p);
  const Role out_role = ref::detail::output_role(p.dir);
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(out_desc.storage_elements()), 0);
  const bool trans = p.mode == ConvMode::trans;
  const Role P = trans ? Role::y : Role::x, Q = trans ? Role::x : Role::y;
  const Vec3 p_ext = trans ? g.out : g.in, q_ext = trans ? g.in : g.out;
  auto tensor = [&](Role r) { return r == Role::x ? in.x : r == Role::w ? in.w : in.y; };
  auto strides = [&](Role r) { return ref::detail::strides5(r == out_role ? out_desc : tensor(r)->desc); };
  const Strides5 ps = strides(P), qs = strides(Q), ws = strides(Role::w);
  auto nonfinite = [&](Role r, I64 off) { return !std::isfinite(tensor(r)->data[static_cast<std::size_t>(off)]); };
  auto mark = [&](I64 off) { mask[static_cast<std::size_t>(off)] = 1; };

  for (I64 n = 0; n < g.n; ++n)
    for (I64 grp = 0; grp < g.groups; ++grp)
      for (I64 cc = 0; cc < g.cg(); ++cc)
        for (I64 kk = 0; kk < g.kg(); ++kk) {
          const I64 c = grp * g.cg() + cc, k = grp * g.kg() + kk;
          const I64 p_ch = trans ? k : c, q_ch = trans ? c : k;
          auto w_off = [&](const Vec3& f) { return trans ? offset5(ws, c, kk, f) : offset5(ws, k, cc, f); };
          if (out_role != P) {
            // Padding of P reached from a real Q position.
            for_each_pos(q_ext, [&](const Vec3& q) {
              for_each_pos(g.filter, [&](const Vec3& f) {
                Vec3 at;
                for (int a = 0; a < 3; ++a) at[a] = q[a] * g.stride[a] - g.pad[a] + f[a] * g.dil[a];
                if (inside(at, p_ext)) return;
                if (out_role == Q && nonfinite(Role::w, w_off(f))) mark(offset5(qs, n, q_ch, q));
                if (out_role == Role::w && nonfinite(Q, offset5(qs, n, q_ch, q))) mark(w_off(f));
              });
            });
          } else {
            // Taps of a real P position that no Q position reaches.
            for_each_pos(p_ext, [&](const Vec3& at) {
              for_each_pos(g.filter, [&](const Vec3& f) {
                bool reached = true;
                for (int a = 0; a < 3 && reached; ++a) {
                  const I64 t = at[a] + g.pad[a] - f[a] * g.dil[a];  // = q * stride
                  reached = t >= 0 && t % g.stride[a] == 0 && t / g.stride[a] < q_ext[a];
                }
                if (!reached && nonfinite(Role::w, w_off(f))) mark(offset5(ps, n, p_ch, at));
              });
            });
          }
        }
  return mask;
}

}  // namespace hiprim::fuzz
