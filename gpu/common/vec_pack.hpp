// Wide loads and stores of V consecutive elements (16 bytes per access when V*sizeof(T) is a
// multiple of 16 and the address is aligned to it), converted to/from float lanes. Host code checks
// alignment before choosing V > 1 (aligned_for_pack).
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpu/common/numeric.hpp"

namespace hiprim::gpu {

template <typename T, int V>
struct alignas(sizeof(T) * V >= 16 ? 16 : sizeof(T) * V) Pack {
  T v[V];
};

// Lanes [0, V) of p[i .. i+V) as floats; i must be a multiple of V and p aligned as Pack.
template <typename T, int V>
__device__ __forceinline__ void load_pack(const T* p, long long i, float (&out)[V]) {
  const Pack<T, V> pk = *reinterpret_cast<const Pack<T, V>*>(p + i);
#pragma unroll
  for (int j = 0; j < V; ++j) out[j] = load_f(pk.v, j);
}

template <typename T, int V>
__device__ __forceinline__ void store_pack(T* p, long long i, const float (&in)[V]) {
  Pack<T, V> pk;
#pragma unroll
  for (int j = 0; j < V; ++j) store_f(pk.v, j, in[j]);
  *reinterpret_cast<Pack<T, V>*>(p + i) = pk;
}

// Whether a device pointer can be accessed as Pack<T, V> at offsets that are multiples of V.
template <typename T, int V>
inline bool aligned_for_pack(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Pack<T, V>) == 0;
}

}  // namespace hiprim::gpu
