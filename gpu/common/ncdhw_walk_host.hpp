// Host side of the storage-order walks (gpu/common/ncdhw_walk.hpp): the Nc3Extent and the element
// strides (n, c, d, h, w) of a [N, C, (D,) H, W] tensor descriptor; 2D gets depth 1, stride 0.
#pragma once
#include "core/tensor.hpp"
#include "gpu/common/ncdhw_walk.hpp"

namespace hiprim::gpu {

inline Nc3Strides nc3_strides(const TensorDesc& t) {
  const auto& s = t.strides;
  const bool three = s.size() == 5;
  return Nc3Strides{{s[0], s[1], three ? s[2] : 0, s[three ? 3 : 2], s[three ? 4 : 3]}};
}

// lanes > 1: c counts groups of `lanes` channels (C must be a multiple).
inline Nc3Extent nc3_extent(const TensorDesc& t, bool channels_last, int lanes = 1) {
  const auto& d = t.dims;
  const bool three = d.size() == 5;
  return Nc3Extent{static_cast<int>(d[0]),
                   static_cast<int>(d[1] / lanes),
                   {three ? static_cast<int>(d[2]) : 1, static_cast<int>(d[three ? 3 : 2]), static_cast<int>(d[three ? 4 : 3])},
                   channels_last};
}

}  // namespace hiprim::gpu
