// The GPU convolution solver list (gpu/conv/registry.hpp): fastest first, conv.naive last.
#include "gpu/conv/registry.hpp"

#include "gpu/conv/solvers.hpp"

namespace hiprim::gpu {

const ConvSolverList& gpu_conv_solvers() {
  static const ConvSolverList solvers = {
      // GEMM-based solvers (gpu/conv/gemm_*) go here, fastest first, before conv.direct.tiled.
      make_conv_igemm_wgmma(),      // warpgroup MMA: 2D NHWC fp16/bf16, all directions, sm_90a only
      make_conv_nchw_via_nhwc(make_conv_igemm_wgmma()),  // conv.igemm.wgmma.nchw: the same on NHWC copies
      make_conv_igemm_simt(),       // fp32 NHWC implicit GEMM on the FMA units (bwd-data: stride 1)
      make_conv_nchw_via_nhwc(make_conv_igemm_simt()),  // conv.igemm.simt.nchw: the same on NHWC copies
      make_conv_direct_grouped(),   // grouped/depthwise NHWC with C/G, K/G <= 32 (memory-bound: no GEMM)
      make_conv_gemm_1x1_mma(),     // tensor cores: fp16/bf16 on sm_80+
      make_conv_gemm_1x1(),
      make_conv_gemm_implicit_mma(),  // tensor cores: 2D conv fwd, fp16/bf16 on sm_80+
      make_conv_gemm_implicit(),
      make_conv_gemm_im2col_mma(),  // tensor cores: fp16/bf16 on sm_80+
      make_conv_gemm_im2col(),
      make_conv_winograd_f4x3(),  // 3x3 stride-1 fwd; inexact transforms: picked by Find until measured faster
      make_conv_winograd_f2x3(),
      make_conv_winograd_f6x3(),
      make_conv_winograd_f5x3(),  // 14x14 (ResNet/VGG): 3 tiles of 5 a side where F(4) needs 4 and F(6) wastes 4 of 18
      make_conv_winograd_fused_f4x3(),  // few input channels per group (shared-memory limit)
      make_conv_winograd_fused_f2x3(),
      make_conv_winograd_tc_f4x3(),  // fp16/bf16: bf16 transformed operands, GEMMs on tensor cores (sm_80+; else SIMT)
      make_conv_winograd_tc_f2x3(),
      make_conv_winograd_tc_f6x3(),
      make_conv_winograd_tc_f5x3(),
      make_conv_fft_t32(), make_conv_fft_t16(), make_conv_fft_t64(),  // fp32 fwd/bwd-data, filters >= 2, stride 1; normwise bound
      make_conv_direct_tiled(),
      make_conv_naive(),  // the always-correct baseline stays last
  };
  return solvers;
}

}  // namespace hiprim::gpu
