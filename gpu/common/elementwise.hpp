// Wide loads for elementwise kernels: four consecutive elements as one aligned 16-byte (fp32) or
// 8-byte (fp16/bf16) access, so a warp/wavefront reads a contiguous, fully used segment.
// Kernels loop over packs with a grid-stride loop and finish the n % 4 tail (or every element, when
// a pointer is not aligned to a pack) with scalar accesses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

template <typename T>
struct alignas(4 * sizeof(T)) Pack4 {
  T v[4];
};

// Whether every pointer is aligned for Pack4<T> accesses.
template <typename T>
inline bool pack4_aligned(std::initializer_list<const void*> ptrs) {
  for (const void* p : ptrs)
    if (reinterpret_cast<std::uintptr_t>(p) % sizeof(Pack4<T>) != 0) return false;
  return true;
}

}  // namespace hiprim::gpu
