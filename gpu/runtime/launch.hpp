// Launch-shape helpers shared by the kernels' host code.
#pragma once
#include <algorithm>

namespace hiprim::gpu {

// Blocks for a grid-stride loop over `total` items with `block` threads each: enough to cover
// `total` in one pass, at most `max_blocks` (the loop does the rest), at least 1.
inline unsigned grid_stride_blocks(long long total, int block, long long max_blocks = 65536) {
  const long long need = (total + block - 1) / block;
  return static_cast<unsigned>(std::clamp<long long>(need, 1, max_blocks));
}

}  // namespace hiprim::gpu
