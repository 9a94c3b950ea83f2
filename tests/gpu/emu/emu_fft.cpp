// The kernel source compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp):
// conv.fft.t16 / .t32 / .t64 (its batched GEMM comes from hiprim_emu_winograd's emu_simt_batched_gemm.cpp).
#include "gpu/conv/fft.hip"
