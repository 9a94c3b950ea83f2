// The kernel source compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp).
#include "gpu/conv/winograd_fused.hip"
