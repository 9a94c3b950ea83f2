// Wide loads and stores: V consecutive elements of T as one aligned access, 16 bytes when
// V = kVec<T> = 16 / sizeof(T) (fp32 4 lanes, fp16/bf16 8), converted to and from fp32 lanes.
// The one wide-access helper of the op kernels: every kernel that streams a tensor moves it in
// Pack<T, kVec<T>> units where the layout and the pointers allow, else in Pack<T, 1> (scalars),
// chosen on the host with all_aligned().
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "gpu/common/numeric.hpp"

namespace hiprim::gpu {

template <typename T, int V>
struct alignas(sizeof(T) * V >= 16 ? 16 : sizeof(T) * V) Pack {
  T v[V];
};

// Lanes of a 16-byte pack of T.
template <typename T>
inline constexpr int kVec = static_cast<int>(16 / sizeof(T));

// The raw pack at element offset i of p (i a multiple of V, p aligned as Pack<T, V>).
template <typename T, int V>
__device__ __forceinline__ Pack<T, V> load_raw(const T* p, long long i) {
  return *reinterpret_cast<const Pack<T, V>*>(p + i);
}
template <typename T, int V>
__device__ __forceinline__ void store_raw(T* p, long long i, const Pack<T, V>& pk) {
  *reinterpret_cast<Pack<T, V>*>(p + i) = pk;
}

// fp32 lanes of a pack, and a pack from fp32 lanes (round to nearest even).
template <typename T, int V>
__device__ __forceinline__ void unpack(const Pack<T, V>& pk, float (&out)[V]) {
#pragma unroll
  for (int j = 0; j < V; ++j) out[j] = load_f(pk.v, j);
}
template <typename T, int V>
__device__ __forceinline__ Pack<T, V> pack_of(const float (&in)[V]) {
  Pack<T, V> pk;
#pragma unroll
  for (int j = 0; j < V; ++j) store_f(pk.v, j, in[j]);
  return pk;
}

// Lanes [0, V) of p[i .. i+V) as floats; i must be a multiple of V and p aligned as Pack.
template <typename T, int V>
__device__ __forceinline__ void load_pack(const T* p, long long i, float (&out)[V]) {
  unpack(load_raw<T, V>(p, i), out);
}
template <typename T, int V>
__device__ __forceinline__ void store_pack(T* p, long long i, const float (&in)[V]) {
  store_raw<T, V>(p, i, pack_of<T, V>(in));
}

// Whether a device pointer can be accessed as Pack<T, V> at offsets that are multiples of V.
template <typename T, int V>
inline bool aligned_for_pack(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Pack<T, V>) == 0;
}
// The same for every pointer of a list (null pointers, i.e. absent tensors, pass).
template <typename T, int V>
inline bool all_aligned(std::initializer_list<const void*> ptrs) {
  for (const void* p : ptrs)
    if (p && !aligned_for_pack<T, V>(p)) return false;
  return true;
}

}  // namespace hiprim::gpu
