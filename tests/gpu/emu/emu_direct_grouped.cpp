// conv.direct.grouped (gpu/conv/direct_grouped.hip) compiled for the host emulation
// (tests/gpu/emu/gpu/runtime/hip_compat.hpp): hiprim::gpu_emu::make_conv_direct_grouped().
#include "gpu/conv/direct_grouped.hip"

// Test hooks into the rows plan (gpu/conv/depthwise_rows.hpp), in hiprim::gpu_emu (-Dgpu=gpu_emu).
namespace hiprim::gpu {
std::string direct_grouped_rows_refusal(const ConvProblem& p) { return rows_refusal(p); }
int direct_grouped_rows_per_thread(const ConvProblem& p, const std::string& config) {
  if (p.dir == ConvDir::bwd_weights) return rows_wgrad_geom(p).rows;
  const int v = pow2_dividing(p.c, 16 / static_cast<int>(dtype_size(p.dtype)));  // the aligned buffers' pack
  return rows_geom(p, v, rows_qt(config)).rows;
}
}  // namespace hiprim::gpu
