// conv.igemm.simt (gpu/conv/igemm_simt.hip) and its NCHW wrapper (gpu/conv/nchw_via_nhwc.hip: the
// transposed copies) compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp):
// hiprim::gpu_emu::make_conv_igemm_simt(), make_conv_nchw_via_nhwc().
#include "gpu/conv/igemm_simt.hip"
#include "gpu/conv/nchw_via_nhwc.hip"
