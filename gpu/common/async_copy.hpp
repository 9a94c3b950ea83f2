// Global -> shared copies that do not pass through registers where the hardware has them (NVIDIA
// sm_80+: cp.async, 4/8/16 bytes; 16 bytes bypass L1), so a thread can put many packs in flight at
// once; elsewhere (AMD, the emulation, other sizes) a plain load and store. async_copy_wait() makes
// the calling thread's own copies visible to it (other threads need a barrier after their wait).
#pragma once
#include <cstdint>

#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

#if HIPRIM_PLATFORM_NVIDIA && !HIPRIM_PLATFORM_EMU && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HIPRIM_HAS_CP_ASYNC 1
#else
#define HIPRIM_HAS_CP_ASYNC 0
#endif

// *dst = *src for a trivially copyable P of 4, 8 or 16 bytes (dst in shared memory, both aligned to sizeof(P)).
template <typename P>
__device__ __forceinline__ void async_copy(P* dst, const P* src) {
#if HIPRIM_HAS_CP_ASYNC
  constexpr int bytes = static_cast<int>(sizeof(P));
  if constexpr (bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), "l"(src)
                 : "memory");
    return;
  } else if constexpr (bytes == 8 || bytes == 4) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), "l"(src),
                 "n"(bytes)
                 : "memory");
    return;
  }
#endif
  *dst = *src;
}

__device__ __forceinline__ void async_copy_wait() {
#if HIPRIM_HAS_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace hiprim::gpu
