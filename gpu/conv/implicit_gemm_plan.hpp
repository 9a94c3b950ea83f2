// conv.gemm.implicit: a 2D conv fwd as ONE batched GEMM over a zero-padded NHWC copy of x, no im2col
// (host code, no device code; tested on the host).
//
//   x_pad[img][hp][wp][c] = x[img][c][hp - pad_h][wp - pad_w], 0 in the border (Hp = H + 2*pad_h,
//   Wp = W + 2*pad_w); the workspace holds it (and W' below when w is not already [K][R][S][C]).
//   GEMM per image (batch = img): M = K_out, N = OH*OW, K = R*S*C,
//     y[img][k][n = oh*OW + ow] = sum_{kk = r*(S*C) + j} W'[k][kk] * x_pad[img][oh*str_h + r][ow*str_w*C + j],
//   j = s*C + c: with dilation 1 the (s, c) pairs of filter row r are contiguous in x_pad's row, so
//     B[kk][n] at  r*Wp*C + j                         (split(S*C, 1, Wp*C))
//                + oh*str_h*Wp*C + ow*str_w*C         (split(OW, str_w*C, str_h*Wp*C))
//                + img*Hp*Wp*C                        (plain)
//   A = W'[k][kk] (rows R*S*C apart), C = y[img][k][pixel] in y's own layout.
// With C % 8 == 0 every B offset step is a multiple of 8 and k runs in unit-stride runs of S*C, a
// multiple of 8: the tensor-core kernel stages B with 16-byte loads (mma_fragment.hpp's plan).
// bwd-data with stride 1 (dilation 1, pad <= filter - 1) runs as its fwd twin (implicit_flip_twin):
// dx is the fwd conv of dy with the flipped, transposed filter w'[c][r][s][k] = w[k][c][R-1-r][S-1-s]
// and padding R-1-pad (dx[h] = sum_r' dy[h - (R-1-pad) + r'] w'[r'], r' = R-1-r), so the same maps
// run it over a zero-padded copy of dy; w' is always a workspace copy (flip, transform_w).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "core/conv_problem.hpp"
#include "core/dtype.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

inline constexpr std::size_t kImplicitWorkspaceLimit = std::size_t{1} << 30;  // 1 GiB

struct ImplicitGemmPlan {
  std::string refusal;  // empty: the solver takes the problem
  std::int64_t images = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0;
  std::int64_t str_h = 1, str_w = 1, pad_h = 0, pad_w = 0, oh = 0, ow = 0, hp = 0, wp = 0;
  bool flip = false;                       // bwd-data run as implicit_flip_twin(p): In = dy, Out = dx
  bool transform_w = false;                // w is not [K][R][S][C] (or flip): W' is written into the workspace
  std::size_t w_offset = 0;                // bytes: where W' starts (x_pad's bytes, rounded up to 256)
  std::size_t workspace_bytes = 0;

  GemmShape shape() const { return GemmShape{k, oh * ow, r * s * c, images}; }
  std::int64_t xpad_elements() const { return images * hp * wp * c; }
  // x_pad's element (img, hp, wp, c), NHWC packed.
  std::int64_t xpad_offset(std::int64_t img, std::int64_t y, std::int64_t x, std::int64_t ch) const {
    return ((img * hp + y) * wp + x) * c + ch;
  }
  MatrixMap a_map() const { return MatrixMap{DimMap::plain(r * s * c), DimMap::plain(1), DimMap::plain(0)}; }
  // B[img][kk][n] over x_pad (see the header comment); rows = kk, cols = n.
  MatrixMap b_map() const {
    return MatrixMap{DimMap::split(static_cast<std::int32_t>(s * c), 1, wp * c),
                     DimMap::split(static_cast<std::int32_t>(ow), str_w * c, str_h * wp * c),
                     DimMap::plain(hp * wp * c)};
  }
};

// y's strides [n, k, h, w] (the problem's own y desc): C[img][k][pixel], pixel = oh*OW + ow.
inline MatrixMap implicit_out_map(const ConvProblem& p) {
  const TensorDesc y = p.y_desc();
  return MatrixMap{DimMap::plain(y.strides[1]), DimMap::plain(y.strides[3]), DimMap::plain(y.strides[0])};
}

// Whether w's desc is [K][R][S][C] packed (then A reads it in place).
inline bool w_is_krsc(const ConvProblem& p) {
  const TensorDesc w = p.w_desc();  // dims [K, C, R, S]
  const std::int64_t c = w.dims[1], r = w.dims[2], s = w.dims[3];
  return w.strides[1] == 1 && w.strides[3] == c && w.strides[2] == s * c && w.strides[0] == r * s * c;
}

// The fwd problem a stride-1 bwd-data problem p runs as (see the header): x = dy, y = dx.
inline ConvProblem implicit_flip_twin(const ConvProblem& p) {
  ConvProblem q = p;
  q.dir = ConvDir::fwd;
  q.c = p.k, q.k = p.c;
  q.in = p.out();
  for (int i = 0; i < 2; ++i) q.pad[static_cast<std::size_t>(i)] = p.filter[static_cast<std::size_t>(i)] - 1 - p.pad[static_cast<std::size_t>(i)];
  q.bias = false;
  return q;
}

inline ImplicitGemmPlan plan_implicit_gemm(const ConvProblem& p, std::size_t limit = kImplicitWorkspaceLimit) {
  ImplicitGemmPlan pl;
  auto no = [&](std::string why) {
    pl.refusal = std::move(why);
    return pl;
  };
  if (!p.valid()) return no("invalid problem");
  if (p.dir == ConvDir::bwd_weights) return no("direction bwd-weights (implicit GEMM covers conv fwd and stride-1 bwd-data)");
  if (p.mode != ConvMode::conv) return no("mode trans (implicit GEMM covers mode conv only)");
  if (p.rank() != 2) return no("not 2D (3D is left to conv.gemm.im2col)");
  if (p.groups != 1) return no("groups " + std::to_string(p.groups) + " > 1");
  if (p.dilation[0] != 1 || p.dilation[1] != 1)
    return no("dilation " + std::to_string(p.dilation[0]) + "x" + std::to_string(p.dilation[1]) +
              " (the (s, c) run of a filter row is contiguous only with dilation 1)");
  if (p.dir == ConvDir::bwd_data) {
    if (p.stride[0] != 1 || p.stride[1] != 1)
      return no("bwd-data with stride " + std::to_string(p.stride[0]) + "x" + std::to_string(p.stride[1]) +
                " (the flipped fwd conv needs stride 1; conv.gemm.im2col takes it)");
    if (p.pad[0] > p.filter[0] - 1 || p.pad[1] > p.filter[1] - 1)
      return no("bwd-data with pad " + std::to_string(p.pad[0]) + "x" + std::to_string(p.pad[1]) +
                " beyond filter - 1 (the flipped fwd conv would need negative padding)");
    pl = plan_implicit_gemm(implicit_flip_twin(p), limit);
    if (!pl.refusal.empty()) return pl;
    pl.flip = pl.transform_w = true;
    pl.workspace_bytes = pl.w_offset + static_cast<std::size_t>(pl.k * pl.shape().k) * dtype_size(p.dtype);
    if (pl.workspace_bytes > limit)
      return no("workspace " + std::to_string(pl.workspace_bytes) + " bytes exceeds the limit " + std::to_string(limit));
    return pl;
  }
  const Dims out = p.out();
  pl.images = p.n, pl.c = p.c, pl.h = p.in[0], pl.w = p.in[1], pl.k = p.k, pl.r = p.filter[0], pl.s = p.filter[1];
  pl.str_h = p.stride[0], pl.str_w = p.stride[1], pl.pad_h = p.pad[0], pl.pad_w = p.pad[1];
  pl.oh = out[0], pl.ow = out[1];
  pl.hp = pl.h + 2 * pl.pad_h, pl.wp = pl.w + 2 * pl.pad_w;
  const GemmShape sh = pl.shape();
  for (auto [what, v] : {std::pair{"K (output channels)", sh.m}, std::pair{"output pixels", sh.n},
                         std::pair{"R*S*C", sh.k}, std::pair{"images", sh.batch}})
    if (v > kGemmMaxSize)
      return no(std::string(what) + " = " + std::to_string(v) + " exceeds the GEMM dimension limit " +
                std::to_string(kGemmMaxSize));
  const std::size_t elem = dtype_size(p.dtype);
  const std::int64_t xpad = pl.xpad_elements();
  if (xpad > (std::int64_t{1} << 40)) return no("padded x has " + std::to_string(xpad) + " elements");
  pl.transform_w = !w_is_krsc(p);
  const std::size_t xpad_bytes = static_cast<std::size_t>(xpad) * elem;
  pl.w_offset = (xpad_bytes + 255) / 256 * 256;
  pl.workspace_bytes = pl.transform_w ? pl.w_offset + static_cast<std::size_t>(pl.k * sh.k) * elem : xpad_bytes;
  if (pl.workspace_bytes > limit)
    return no("workspace " + std::to_string(pl.workspace_bytes) + " bytes exceeds the limit " + std::to_string(limit));
  return pl;
}

}  // namespace hiprim::gpu
