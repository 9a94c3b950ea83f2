// Host emulation of the HIP layer (test only): replaces gpu/runtime/hip_compat.hpp when the tests'
// include path puts tests/gpu/emu first, so the kernel sources compile as plain C++ and run on the
// CPU. A launch runs the grid's blocks one after another; the threads of a block run as real
// threads meeting at __syncthreads() (a std::barrier), so shared-memory trees are exercised. Shared
// arrays are function statics (one block at a time). Device pointers are host pointers.
// Emulates: __global__/__device__/__host__/__forceinline__/__shared__, threadIdx/blockIdx/blockDim/
// gridDim (launch() walks x, y and z; launch_cooperative x only), warpSize (64: the AMD width, to catch 32-lane
// assumptions), __syncthreads, int min/max, __half and the bf16 type (RNE via core/dtype.hpp),
// uint4/make_uint4, float2, float4/make_float4, __align__, hipLaunchKernelGGL, hipStream_t, hipError_t, hipGetLastError/hipPeekAtLastError, the device
// attributes and occupancy query the launch shapes use (an emulated device of kEmuMultiprocessors
// multiprocessors, kEmuResidentBlocks resident blocks each), and for cooperative kernels
// (gpu/common/launch_grid.hpp) a launch that runs every block of the grid at once, each block with
// its own dynamic shared memory and barrier, plus the grid-wide barrier. A cooperative kernel must
// keep its shared data in dynamic shared memory (static __shared__ arrays are one per program here).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/dtype.hpp"

#define HIPRIM_PLATFORM_EMU 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

// Types live in namespace hiprim_emu (brought in by using-declarations) so that a test binary
// that also links the real CUDA build has no two definitions of one mangled name.
namespace hiprim_emu {
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
extern thread_local uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
void syncthreads();
// Runs body() for every thread of every block of the grid, one block after another (smem bytes of
// dynamic shared memory, reused by each block).
void launch(dim3 grid, dim3 block, std::size_t smem, const std::function<void()>& body);
// Runs body() for every thread of every block, all blocks at once (grid.x * block.x threads), each
// block with smem bytes of its own dynamic shared memory.
void launch_cooperative(dim3 grid, dim3 block, std::size_t smem, const std::function<void()>& body);
void grid_sync();
void yield_thread();  // std::this_thread::yield: a spinning emulated thread lets the others run
unsigned char* dynamic_smem();  // the calling thread's block's dynamic shared memory
inline constexpr int kEmuMultiprocessors = 2, kEmuResidentBlocks = 2;
inline constexpr int kEmuSharedOptin = 32 * 1024;  // small, so the tests reach the bnorm cache overflow
}  // namespace hiprim_emu

using hiprim_emu::dim3;
using hiprim_emu::uint3;
using hiprim_emu::blockDim;
using hiprim_emu::blockIdx;
using hiprim_emu::gridDim;
using hiprim_emu::threadIdx;
inline constexpr int warpSize = 64;
inline void __syncthreads() { hiprim_emu::syncthreads(); }
namespace hiprim_emu {
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
}  // namespace hiprim_emu
using hiprim_emu::max;
using hiprim_emu::min;

using hipError_t = int;
using hipStream_t = void*;
#define hipSuccess 0
inline hipError_t hipGetLastError() { return hipSuccess; }
inline hipError_t hipPeekAtLastError() { return hipSuccess; }
inline hipError_t hipGetDevice(int* d) {
  *d = 0;
  return hipSuccess;
}
enum hipDeviceAttribute_t { hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeSharedMemPerBlockOptin };
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int) {
  *v = a == hipDeviceAttributeMultiprocessorCount ? hiprim_emu::kEmuMultiprocessors : hiprim_emu::kEmuSharedOptin;
  return hipSuccess;
}
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize };
inline hipError_t hipFuncSetAttribute(const void*, hipFuncAttribute, int) { return hipSuccess; }
template <typename K>
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* n, K*, int, std::size_t smem) {
  *n = smem > static_cast<std::size_t>(hiprim_emu::kEmuSharedOptin) ? 0 : hiprim_emu::kEmuResidentBlocks;
  return hipSuccess;
}
inline void __threadfence() {}
// The 16-byte vector of four 32-bit words and its constructor (16-byte copies).
namespace hiprim_emu {
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
}  // namespace hiprim_emu
using hiprim_emu::make_uint4;
using hiprim_emu::uint4;
// Two and four floats, 8- and 16-byte aligned (shared-memory reads), and the four's constructor.
namespace hiprim_emu {
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
}  // namespace hiprim_emu
using hiprim_emu::float2;
using hiprim_emu::float4;
using hiprim_emu::make_float4;
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)   \
  hiprim_emu::launch((grid), (block), (shmem), [&] {                 \
    (void)(stream);                                                  \
    kernel(__VA_ARGS__);                                             \
  })

// 16-bit storage types with the host's round-to-nearest-even conversions.
namespace hiprim_emu {
struct __half {
  std::uint16_t bits;
};
inline float __half2float(__half h) { return hiprim::fp16_bits_to_float(h.bits); }
inline __half __float2half_rn(float f) { return __half{hiprim::float_to_fp16_bits(f)}; }
struct bf16 {
  std::uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float f) : bits(hiprim::float_to_bf16_bits(f)) {}
  explicit operator float() const { return hiprim::bf16_bits_to_float(bits); }
};
}  // namespace hiprim_emu
using hiprim_emu::__half;
using hiprim_emu::__half2float;
using hiprim_emu::__float2half_rn;
using hiprim_bf16_t = hiprim_emu::bf16;
