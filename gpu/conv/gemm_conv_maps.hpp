// How convolution becomes GEMM: the operand maps and the workspace plan shared by conv.gemm.1x1 and
// conv.gemm.im2col (host code, no device code; tested on the host).
//
// Terms of gpu/conv/conv_index.hpp: In [N, CI, in...], Out [N, CO, out...], W [CO, CIg, f...],
// G groups, CIg = CI/G, COg = CO/G, F = taps, P = Out pixels. Per group g:
//   q = (ci, f): the reduction index over one group's filter, in W's memory order, so W[co][q] lives
//       at co*w_str[0] + q: NCHW-family W [CO][CIg][T][R][S] -> q = ci*F + f;
//       channels-last W [CO][T][R][S][CIg] -> q = f*CIg + ci.
//   j = (image i, pixel o) = i*P + o: a column over the images of one chunk (i counted from the
//       chunk's first image; the operand pointers start there).
//   col[g][q][j] = In[i, g*CIg+ci, o*stride - pad + f*dil] (0 in the padding): the im2col matrix.
//
//   operation (problem dirs)             M       N       K      A            B          C
//   out_from_in  (conv fwd, trans bwd-d) COg     imgs*P  CIg*F  W[co][q]     col[q][j]  Out[co][j] (+bias[co])
//   in_from_out  (conv bwd-d, trans fwd) CIg*F   imgs*P  COg    W^T[q][co]   Out[co][j] colgrad[q][j] (fp32),
//                                                               then In = col2im gather of colgrad (+bias[c])
//   w_from_in_out (bwd-weights)          COg     CIg*F   imgs*P Out[co][j]   col^T[j][q] W[co][q]
// batch = g in every GEMM. With a 1x1 filter, stride 1 and pad 0, col is In itself (q = ci, In and Out
// have the same pixels): conv.gemm.1x1 points B (or C) straight at In and needs no im2col buffer.
// w_from_in_out may run as deterministic split-K (few output tiles, long K; gemm_index.hpp).
// Spatial dims are packed in every layout, so pixel o of an image sits at o * (W-axis stride).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/conv_problem.hpp"
#include "core/host_device.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

// Column j = image*pixels + pixel of an activation tensor: plain when images are back to back.
inline DimMap image_pixel_map(std::int64_t pixels, std::int64_t pixel_stride, std::int64_t image_stride) {
  if (image_stride == pixels * pixel_stride) return DimMap::plain(pixel_stride);
  return DimMap::split(static_cast<std::int32_t>(pixels), pixel_stride, image_stride);
}

inline MatrixMap transposed(const MatrixMap& m) { return MatrixMap{m.cols, m.rows, m.batch}; }

// An activation tensor (strides [n, c, d, h, w]) as [channel in group][j] per group.
inline MatrixMap activation_channel_by_pixel(const long long* str, std::int64_t pixels, std::int64_t ch_per_group) {
  return MatrixMap{DimMap::plain(str[1]), image_pixel_map(pixels, str[4], str[0]), DimMap::plain(ch_per_group * str[1])};
}
inline MatrixMap out_channel_by_pixel(const ConvGeom& g) {
  return activation_channel_by_pixel(g.out_str, g.out_spatial(), g.out_per_group());
}
// In as [ci][j] over In's own pixels (the col matrix of a 1x1, stride-1, pad-0 convolution).
inline MatrixMap in_channel_by_pixel(const ConvGeom& g) {
  return activation_channel_by_pixel(g.in_str, g.in_spatial(), g.in_per_group());
}
// W as [co in group][q] per group (q in W's memory order, stride 1).
inline MatrixMap w_out_by_q(const ConvGeom& g) {
  return MatrixMap{DimMap::plain(g.w_str[0]), DimMap::plain(1), DimMap::plain(g.out_per_group() * g.w_str[0])};
}
// Bias of the channels a GEMM writes: bias[g*rows_per_group + m].
struct BiasMap {
  DimMap rows, batch;
};
inline BiasMap bias_per_channel(std::int64_t rows_per_group) {
  return BiasMap{DimMap::plain(1), DimMap::plain(rows_per_group)};
}

// The GEMM shape of w_from_in_out for `images` images (M = COg, N = CIg*F, K = images*P, batch G),
// and its deterministic split-K count (gemm_index.hpp): weight gradients have few output tiles.
inline GemmShape w_from_in_out_shape(const ConvGeom& g, std::int64_t images) {
  return GemmShape{g.out_per_group(), static_cast<std::int64_t>(g.in_per_group()) * g.taps(), images * g.out_spatial(),
                   g.groups};
}
inline std::int64_t w_from_in_out_splits(const ConvGeom& g, std::int64_t images) {
  return plan_split_k(w_from_in_out_shape(g, images), GemmTileDefault::BM, GemmTileDefault::BN);
}

// The im2col matrix of one chunk of images, col[g][q][j] with q < rows (= CIg*F), j < cols
// (= images*P), in one of two memory orders: q fastest for channels-last problems (im2col then reads
// In along its channels), j fastest otherwise (reads In along its pixels).
struct ColLayout {
  std::int64_t rows = 0, cols = 0, groups = 0;
  bool q_fastest = false;
  HIPRIM_HOST_DEVICE std::int64_t q_stride() const { return q_fastest ? 1 : cols; }
  HIPRIM_HOST_DEVICE std::int64_t j_stride() const { return q_fastest ? rows : 1; }
  HIPRIM_HOST_DEVICE std::int64_t group_stride() const { return rows * cols; }
  HIPRIM_HOST_DEVICE std::int64_t elements() const { return groups * rows * cols; }
  HIPRIM_HOST_DEVICE MatrixMap q_by_j() const {
    return MatrixMap{DimMap::plain(q_stride()), DimMap::plain(j_stride()), DimMap::plain(group_stride())};
  }
};

// Workspace of conv.gemm.im2col: images are processed in chunks so the column buffer stays within
// the limit. Buffer 0 (offset 0): the chunk's col (problem dtype; out_from_in, w_from_in_out) or
// colgrad (fp32; in_from_out). Buffer 1 (w_from_in_out with more than one chunk): W's fp32 partial
// sums over the chunks done so far, laid out like W. Buffer 2 (w_from_in_out with k_splits > 1):
// the split-K partial sums of one chunk's GEMM (the split count of the whole batch is used for every
// chunk; a smaller chunk only leaves some slices shorter or empty).
inline constexpr std::size_t kIm2colWorkspaceLimit = std::size_t{256} << 20;
inline constexpr std::size_t kWorkspaceAlign = 256;

struct Im2colPlan {
  ConvOp op = ConvOp::out_from_in;
  std::int64_t images_per_chunk = 0, chunks = 0;
  std::int64_t col_rows = 0, pixels = 0;  // CIg*F and P
  std::size_t col_element_bytes = 0;
  std::size_t col_bytes = 0;  // for a full chunk
  std::size_t partial_offset = 0, partial_bytes = 0;
  std::int64_t k_splits = 1;
  std::size_t split_offset = 0, split_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::string refusal;  // non-empty: one image does not fit (the plan is unusable)

  ColLayout col_layout(std::int64_t images, std::int64_t groups, bool channels_last) const {
    return ColLayout{col_rows, images * pixels, groups, channels_last};
  }
};

inline std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

inline Im2colPlan plan_im2col(const ConvProblem& p, std::size_t limit = kIm2colWorkspaceLimit) {
  const ConvGeom g = conv_geom(p);
  Im2colPlan pl;
  pl.op = conv_op(p);
  pl.col_rows = static_cast<std::int64_t>(g.in_per_group()) * g.taps();
  pl.pixels = g.out_spatial();
  pl.col_element_bytes = pl.op == ConvOp::in_from_out ? sizeof(float) : dtype_size(p.dtype);
  const std::size_t per_image = static_cast<std::size_t>(g.groups * pl.col_rows * pl.pixels) * pl.col_element_bytes;
  const std::int64_t n = g.batch;
  std::size_t partial = 0, split = 0;
  if (pl.op == ConvOp::w_from_in_out) {
    partial = static_cast<std::size_t>(g.w_elements()) * sizeof(float);
    pl.k_splits = w_from_in_out_splits(g, n);
    split = split_k_workspace_bytes(w_from_in_out_shape(g, n), pl.k_splits);
  }
  // Bytes kept free for a buffer placed after another at an aligned offset.
  auto reserve = [](std::size_t b) { return b ? align_up(b, kWorkspaceAlign) + kWorkspaceAlign : 0; };
  // (per_image <= limit first: per_image * n stays far from overflow then, as n < 2^31.)
  if (per_image <= limit && per_image * static_cast<std::size_t>(n) + reserve(split) <= limit) {
    pl.images_per_chunk = n;
  } else {
    const std::size_t reserved = reserve(partial) + reserve(split);
    const std::size_t room = limit > reserved ? limit - reserved : 0;
    pl.images_per_chunk = static_cast<std::int64_t>(room / per_image);
    if (pl.images_per_chunk < 1) {
      pl.refusal = "the im2col matrix of one image needs " + std::to_string(per_image) + " bytes" +
                   (partial ? " (+" + std::to_string(partial + split) + " bytes of fp32 weight partial sums)" : "") +
                   ", more than the workspace limit of " + std::to_string(limit) + " bytes";
      return pl;
    }
  }
  pl.chunks = (n + pl.images_per_chunk - 1) / pl.images_per_chunk;
  pl.col_bytes = per_image * static_cast<std::size_t>(pl.images_per_chunk);
  std::size_t end = pl.col_bytes;
  if (pl.chunks > 1 && partial > 0) {
    pl.partial_offset = align_up(end, kWorkspaceAlign);
    pl.partial_bytes = partial;
    end = pl.partial_offset + partial;
  }
  if (split > 0) {
    pl.split_offset = align_up(end, kWorkspaceAlign);
    pl.split_bytes = split;
    end = pl.split_offset + split;
  }
  pl.workspace_bytes = end;
  return pl;
}

}  // namespace hiprim::gpu
