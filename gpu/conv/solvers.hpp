// Factories of the GPU convolution solvers (one per solver source file); the registry orders them.
#pragma once
#include <cstddef>
#include <memory>

#include "core/conv_solver.hpp"

namespace hiprim::gpu {

std::shared_ptr<const ConvSolver> make_conv_naive();         // gpu/conv/naive.hip
std::shared_ptr<const ConvSolver> make_conv_direct_tiled();  // gpu/conv/direct_tiled.hip
// conv.direct.grouped: grouped/depthwise 2D NHWC, C/G and K/G <= 32 (gpu/conv/direct_grouped.hip).
std::shared_ptr<const ConvSolver> make_conv_direct_grouped();
// GEMM-based solvers (gpu/conv/gemm_*): declare their factories here.
std::shared_ptr<const ConvSolver> make_conv_gemm_1x1();     // gpu/conv/gemm_1x1.hip
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col();  // gpu/conv/gemm_im2col.hip (256 MiB workspace limit)
// Same solver with another workspace limit (tests use a small one to exercise chunking).
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col(std::size_t workspace_limit_bytes);
// The same two solvers on the tensor-core GEMM (fp16/bf16, NVIDIA sm_80+): conv.gemm.1x1.mma and
// conv.gemm.im2col.mma (gpu/conv/gemm_conv_engine.hpp).
std::shared_ptr<const ConvSolver> make_conv_gemm_1x1_mma();     // gpu/conv/gemm_1x1.hip
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col_mma();  // gpu/conv/gemm_im2col.hip
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col_mma(std::size_t workspace_limit_bytes);
// 2D conv fwd as one GEMM over a zero-padded NHWC copy of x (no im2col): conv.gemm.implicit and
// conv.gemm.implicit.mma (gpu/conv/gemm_implicit.hip).
std::shared_ptr<const ConvSolver> make_conv_gemm_implicit();
std::shared_ptr<const ConvSolver> make_conv_gemm_implicit_mma();
// 2D NHWC fp32 implicit GEMM on the FMA units, all three directions (bwd-data stride 1): conv.igemm.simt
// (gpu/conv/igemm_simt.hip; plan and perf configs: gpu/conv/igemm_simt_plan.hpp).
std::shared_ptr<const ConvSolver> make_conv_igemm_simt();
// 2D NHWC fp16/bf16 implicit GEMM on Hopper warpgroup MMA, all three directions (sm_90a only):
// conv.igemm.wgmma (gpu/conv/igemm_sm90.hip; perf configs: gpu/conv/igemm_sm90.hpp).
std::shared_ptr<const ConvSolver> make_conv_igemm_wgmma();
// conv.<inner>.nchw: an NCHW/NCDHW problem run by `inner` (a channels-last solver) on transposed
// workspace copies (gpu/conv/nchw_via_nhwc.hip; plan: gpu/conv/nchw_via_nhwc.hpp).
std::shared_ptr<const ConvSolver> make_conv_nchw_via_nhwc(std::shared_ptr<const ConvSolver> inner);
// Winograd F(2x2, 3x3), F(4x4, 3x3), F(5x5, 3x3) and F(6x6, 3x3), fp32/fp16/bf16: 2D fwd, 3x3, stride 1,
// non-fused (gpu/conv/winograd.hip), judged by the derived bound of reference/winograd.hpp.
std::shared_ptr<const ConvSolver> make_conv_winograd_f2x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_f4x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_f5x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_f6x3();
// The same for fp16/bf16 data with U and V stored in bf16 and the GEMMs on tensor cores (mma.sync, sm_80+;
// config "simt" elsewhere), judged with the operands' rounding in the bound (gpu/conv/winograd.hip).
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f2x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f4x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f5x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_tc_f6x3();
// The same transforms for few input channels per group, the transformed data kept on chip: fwd and bwd-data
// in one kernel (U in shared memory), bwd-weights by runs of tiles (gpu/conv/winograd_fused.hip).
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f2x3();
std::shared_ptr<const ConvSolver> make_conv_winograd_fused_f4x3();
// FFT convolution, tiled overlap-save with 16x16, 32x32, 64x64 transforms: fp32 2D fwd and bwd-data, groups 1,
// stride 1, filters 2..T-1 (gpu/conv/fft.hip), judged by the derived bound of reference/fft_conv.hpp.
std::shared_ptr<const ConvSolver> make_conv_fft_t16();
std::shared_ptr<const ConvSolver> make_conv_fft_t32();
std::shared_ptr<const ConvSolver> make_conv_fft_t64();

}  // namespace hiprim::gpu
