// conv.igemm.simt (gpu/conv/igemm_simt.hip) compiled for the host emulation
// (tests/gpu/emu/gpu/runtime/hip_compat.hpp): hiprim::gpu_emu::make_conv_igemm_simt().
#include "gpu/conv/igemm_simt.hip"
