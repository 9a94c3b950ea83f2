#include "fuzz/conv_implicit_zero.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "reference/conv_common.hpp"
#include "reference/winograd.hpp"

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

I64 floor_div(I64 a, I64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0

template <class F>
void for_each_pos(const Vec3& extent, F&& f) {
  for (I64 d = 0; d < extent[0]; ++d)
    for (I64 h = 0; h < extent[1]; ++h)
      for (I64 w = 0; w < extent[2]; ++w) f(Vec3{d, h, w});
}

}  // namespace

std::vector<std::uint8_t> implicit_zero_kinds(const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc& out_desc) {
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
  auto mark = [&](I64 off, std::uint8_t kind) { mask[static_cast<std::size_t>(off)] |= kind; };

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
                if (out_role == Q && nonfinite(Role::w, w_off(f))) mark(offset5(qs, n, q_ch, q), kZeroPadding);
                if (out_role == Role::w && nonfinite(Q, offset5(qs, n, q_ch, q))) mark(w_off(f), kZeroPadding);
              });
            });
          } else {
            // Taps of a real P position that no Q position reaches: border taps (q an integer outside
            // Q on some axis) and stride holes (q not an integer on some axis).
            for_each_pos(p_ext, [&](const Vec3& at) {
              for_each_pos(g.filter, [&](const Vec3& f) {
                bool exact = true, reached = true;
                for (int a = 0; a < 3; ++a) {
                  const I64 t = at[a] + g.pad[a] - f[a] * g.dil[a];  // = q * stride
                  const bool divides = t % g.stride[a] == 0;
                  exact = exact && divides;
                  reached = reached && divides && t >= 0 && t / g.stride[a] < q_ext[a];
                }
                if (!reached && nonfinite(Role::w, w_off(f))) mark(offset5(ps, n, p_ch, at), exact ? kZeroBorderTap : kZeroStrideHole);
              });
            });
          }
        }
  return mask;
}

std::uint8_t multiplied_kinds(const ImplicitZeros& z) {
  auto bit = [](ZeroTerm t, std::uint8_t b) { return t == ZeroTerm::multiplied ? b : std::uint8_t{0}; };
  return static_cast<std::uint8_t>(bit(z.padding, kZeroPadding) | bit(z.border_taps, kZeroBorderTap) | bit(z.stride_holes, kZeroStrideHole));
}

std::optional<std::string> undeclared_kind(const ImplicitZeros& z, std::uint8_t kinds) {
  if ((kinds & kZeroPadding) && z.padding == ZeroTerm::undeclared) return "padding";
  if ((kinds & kZeroBorderTap) && z.border_taps == ZeroTerm::undeclared) return "border_taps";
  if ((kinds & kZeroStrideHole) && z.stride_holes == ZeroTerm::undeclared) return "stride_holes";
  return std::nullopt;
}

ref::ConvOutput nan_where(const ref::ConvOutput& reference, const std::vector<std::uint8_t>& mask) {
  if (mask.size() != reference.value.size())
    throw InputError("nan_where: " + std::to_string(mask.size()) + " flags for " + std::to_string(reference.value.size()) +
                     " output values");
  ref::ConvOutput out = reference;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.value[i] = std::numeric_limits<double>::quiet_NaN();
  return out;
}

ref::ConvOutput solver_expected(const ref::ConvOutput& reference, const std::vector<std::uint8_t>& kinds, const ImplicitZeros& z) {
  const std::uint8_t multiplied = multiplied_kinds(z);
  std::vector<std::uint8_t> mask(kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i) mask[i] = (kinds[i] & multiplied) ? 1 : 0;
  return nan_where(reference, mask);
}

namespace {
// bwd-weights (reference/winograd.hpp): a non-finite x in channel c inside a tile's a x a window makes
// that tile's V[c] non-finite in every entry, so M[k][c] for every k of the group, so all of dw[k][c]
// (each row of G^T has a zero: 0 * (Inf or NaN) = NaN); a non-finite dy in channel k (every dy element
// is in one tile) all of dw[k][c] for every c of the group.
std::vector<std::uint8_t> winograd_wgrad_nonfinite(const ConvProblem& p, int m, const ref::ConvInputs& in, const TensorDesc& out_desc) {
  const I64 a = m + 2, G = p.groups, cg = p.c / G, kg = p.k / G;
  const Dims out = p.out();
  const I64 th_n = (out[0] + m - 1) / m, tw_n = (out[1] + m - 1) / m;
  std::vector<std::uint8_t> bad_k(static_cast<std::size_t>(p.k), 0), bad_c(static_cast<std::size_t>(p.c), 0);
  for_each_index(in.y->desc.dims, [&](const Dims& i) { bad_k[static_cast<std::size_t>(i[1])] |= !std::isfinite(in.y->at(i)); });
  for_each_index(in.x->desc.dims, [&](const Dims& i) {
    if (std::isfinite(in.x->at(i))) return;
    // a tile t along an axis holds position v when t*m - pad <= v < t*m - pad + a
    auto held = [&](I64 v, I64 pad, I64 count) {
      const I64 lo = std::max<I64>(0, -floor_div(-(v + pad - a + 1), m)), hi = std::min<I64>(count - 1, floor_div(v + pad, m));
      return lo <= hi;
    };
    if (held(i[2], p.pad[0], th_n) && held(i[3], p.pad[1], tw_n)) bad_c[static_cast<std::size_t>(i[1])] = 1;
  });
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(out_desc.storage_elements()), 0);
  for_each_index(out_desc.dims, [&](const Dims& o) {  // o = [k][c in group][r][s]
    const I64 k = o[0], c = k / kg * cg + o[1];
    if (bad_k[static_cast<std::size_t>(k)] || bad_c[static_cast<std::size_t>(c)]) mask[static_cast<std::size_t>(out_desc.offset(o))] = 1;
  });
  return mask;
}
}  // namespace

namespace {
// 2D fwd by tiles of step_h x step_w outputs, tile (th, tw) reading the win_h x win_w window of x from
// (th*step_h - pad_h, tw*step_w - pad_w) in every channel of its group: a non-finite x makes every output
// of each tile (and group) whose window holds it NaN, a non-finite w every output of its output channel.
std::vector<std::uint8_t> tile_window_nonfinite(const ConvProblem& p, I64 step_h, I64 step_w, I64 win_h, I64 win_w,
                                                const ref::ConvInputs& in, const TensorDesc& out_desc) {
  const I64 G = p.groups, cg = p.c / G, kg = p.k / G;
  const Dims out = p.out();
  const I64 th_n = (out[0] + step_h - 1) / step_h, tw_n = (out[1] + step_w - 1) / step_w;
  std::vector<std::uint8_t> bad_k(static_cast<std::size_t>(p.k), 0);
  for_each_index(in.w->desc.dims, [&](const Dims& i) { bad_k[static_cast<std::size_t>(i[0])] |= !std::isfinite(in.w->at(i)); });
  // Tiles along one axis whose window [t*step - pad, t*step - pad + win) holds position v: t in [lo, hi].
  auto tiles_holding = [&](I64 v, I64 pad, I64 step, I64 win, I64 count, I64& lo, I64& hi) {
    lo = std::max<I64>(0, -floor_div(-(v + pad - win + 1), step));
    hi = std::min<I64>(count - 1, floor_div(v + pad, step));
  };
  std::vector<std::uint8_t> bad_tile(static_cast<std::size_t>(p.n * G * th_n * tw_n), 0);  // [n][group][th][tw]
  for_each_index(in.x->desc.dims, [&](const Dims& i) {
    if (std::isfinite(in.x->at(i))) return;
    I64 h_lo, h_hi, w_lo, w_hi;
    tiles_holding(i[2], p.pad[0], step_h, win_h, th_n, h_lo, h_hi);
    tiles_holding(i[3], p.pad[1], step_w, win_w, tw_n, w_lo, w_hi);
    for (I64 th = h_lo; th <= h_hi; ++th)
      for (I64 tw = w_lo; tw <= w_hi; ++tw) bad_tile[static_cast<std::size_t>(((i[0] * G + i[1] / cg) * th_n + th) * tw_n + tw)] = 1;
  });
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(out_desc.storage_elements()), 0);
  for_each_index(out_desc.dims, [&](const Dims& o) {
    const I64 k = o[1], tile = ((o[0] * G + k / kg) * th_n + o[2] / step_h) * tw_n + o[3] / step_w;
    if (bad_k[static_cast<std::size_t>(k)] || bad_tile[static_cast<std::size_t>(tile)]) mask[static_cast<std::size_t>(out_desc.offset(o))] = 1;
  });
  return mask;
}
}  // namespace

std::vector<std::uint8_t> winograd_nonfinite_outputs(const ConvProblem& p, int m, const ref::ConvInputs& in, const TensorDesc& out_desc) {
  if (p.dir == ConvDir::bwd_data && p.mode == ConvMode::conv) {  // as its fwd equivalent: dy by the flipped, swapped filter
    const ConvProblem q = winograd_fwd_equivalent(p);
    if (q.dir != ConvDir::fwd) throw InputError("winograd_nonfinite_outputs: no fwd equivalent of " + to_string(p));
    const HostTensor w = ref::winograd_equivalent_filter(p, *in.w);
    return winograd_nonfinite_outputs(q, m, {in.y, &w, nullptr, nullptr}, out_desc);
  }
  if (p.rank() != 2 || p.dir == ConvDir::bwd_data || p.mode != ConvMode::conv || m < 1)
    throw InputError("winograd_nonfinite_outputs: a 2D fwd, bwd-data or bwd-weights convolution and m >= 1, not " + to_string(p));
  if (p.dir == ConvDir::bwd_weights) return winograd_wgrad_nonfinite(p, m, in, out_desc);
  return tile_window_nonfinite(p, m, m, m + 2, m + 2, in, out_desc);
}

std::vector<std::uint8_t> fft_nonfinite_outputs(const ConvProblem& p, int t, const ref::ConvInputs& in, const TensorDesc& out_desc) {
  if (p.dir == ConvDir::bwd_data && p.mode == ConvMode::conv) {  // as its fwd equivalent: dy by the flipped, swapped filter
    const ConvProblem q = winograd_fwd_equivalent(p);
    if (q.dir != ConvDir::fwd) throw InputError("fft_nonfinite_outputs: no fwd equivalent of " + to_string(p));
    const HostTensor w = ref::winograd_equivalent_filter(p, *in.w);
    return fft_nonfinite_outputs(q, t, {in.y, &w, nullptr, nullptr}, out_desc);
  }
  if (p.rank() != 2 || p.dir != ConvDir::fwd || p.mode != ConvMode::conv || p.filter[0] > t || p.filter[1] > t)
    throw InputError("fft_nonfinite_outputs: a 2D fwd convolution with a filter within " + std::to_string(t) + "x" + std::to_string(t) +
                     ", not " + to_string(p));
  return tile_window_nonfinite(p, t - p.filter[0] + 1, t - p.filter[1] + 1, t, t, in, out_desc);
}

}  // namespace hiprim::fuzz
