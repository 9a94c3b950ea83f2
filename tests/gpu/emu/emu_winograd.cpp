// The kernel source compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp).
#include "gpu/conv/winograd.hip"

// The emulation has no tensor cores: conv.winograd.tc.* list their "simt" config only.
namespace hiprim::gpu {
std::string gemm_mma_unavailable() { return "host emulation: no tensor cores"; }
}  // namespace hiprim::gpu
