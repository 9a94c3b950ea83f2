// Device-side element types and conversions: storage type per dtype, load as float, store from float
// with round-to-nearest-even (the same rounding as core/dtype.hpp on the host).
#pragma once
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

template <typename T>
__device__ __forceinline__ float load_f(const T* p, long long i);
template <typename T>
__device__ __forceinline__ void store_f(T* p, long long i, float v);

template <>
__device__ __forceinline__ float load_f<float>(const float* p, long long i) { return p[i]; }
template <>
__device__ __forceinline__ void store_f<float>(float* p, long long i, float v) { p[i] = v; }

template <>
__device__ __forceinline__ float load_f<__half>(const __half* p, long long i) { return __half2float(p[i]); }
template <>
__device__ __forceinline__ void store_f<__half>(__half* p, long long i, float v) { p[i] = __float2half_rn(v); }

#if HIPRIM_PLATFORM_NVIDIA
template <>
__device__ __forceinline__ float load_f<hiprim_bf16_t>(const hiprim_bf16_t* p, long long i) { return __bfloat162float(p[i]); }
template <>
__device__ __forceinline__ void store_f<hiprim_bf16_t>(hiprim_bf16_t* p, long long i, float v) { p[i] = __float2bfloat16_rn(v); }
#else
// hip_bfloat16 (ROCm 5.2): explicit conversions; its float constructor rounds to nearest even.
template <>
__device__ __forceinline__ float load_f<hiprim_bf16_t>(const hiprim_bf16_t* p, long long i) { return static_cast<float>(p[i]); }
template <>
__device__ __forceinline__ void store_f<hiprim_bf16_t>(hiprim_bf16_t* p, long long i, float v) { p[i] = hiprim_bf16_t(v); }
#endif

}  // namespace hiprim::gpu

// Host-side dispatch on DType: calls f.template operator()<T>() with the storage type.
#include "core/dtype.hpp"
namespace hiprim::gpu {
template <typename F>
void dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::fp32: f.template operator()<float>(); break;
    case DType::fp16: f.template operator()<__half>(); break;
    case DType::bf16: f.template operator()<hiprim_bf16_t>(); break;
  }
}
}  // namespace hiprim::gpu
