// conv.direct.grouped (gpu/conv/direct_grouped.hip) compiled for the host emulation
// (tests/gpu/emu/gpu/runtime/hip_compat.hpp): hiprim::gpu_emu::make_conv_direct_grouped().
#include "gpu/conv/direct_grouped.hip"
