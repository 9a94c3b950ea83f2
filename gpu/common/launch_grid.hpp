// Launch shapes of the op kernels, sized to the machine: the multiprocessor count and a kernel's
// resident blocks per multiprocessor (queried once per device, kernel, block size and dynamic
// shared memory, then cached), the grid of a grid-stride kernel (the blocks the device keeps
// resident at once, fewer when the work is small), cooperative launches whose blocks may meet at
// grid_sync() (every block resident: the grid comes from the same occupancy query), the dynamic
// shared memory declaration, counted arrivals between blocks, and a launch check that builds its message only on failure.
// None of these synchronizes the host or allocates, so a solver's run() stays capturable into a
// CUDA graph (the queries are device attributes, not stream work).
#pragma once
#include <algorithm>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gpu/runtime/check.hpp"

#if HIPRIM_PLATFORM_NVIDIA
#include <cooperative_groups.h>
#elif HIPRIM_PLATFORM_AMD
#include <hip/hip_cooperative_groups.h>
#endif

// HIPRIM_DYNAMIC_SMEM(name): `unsigned char* name` = the block's dynamic shared memory (16-byte
// aligned; its size is the launch's smem argument).
#if HIPRIM_PLATFORM_EMU
#define HIPRIM_DYNAMIC_SMEM(name) unsigned char* name = ::hiprim_emu::dynamic_smem()
#else
#define HIPRIM_DYNAMIC_SMEM(name) extern __shared__ __attribute__((aligned(16))) unsigned char name[]
#endif

namespace hiprim::gpu {

// Every thread of a cooperatively launched grid waits here until all have arrived; memory written
// before it is visible to every thread after it.
__device__ __forceinline__ void grid_sync() {
#if HIPRIM_PLATFORM_EMU
  ::hiprim_emu::grid_sync();
#else
  cooperative_groups::this_grid().sync();
#endif
}

// Counted arrivals between the blocks of one cooperative launch (every block resident), where a block
// waits for some blocks only: grid_arrive adds 1 to *counter once the whole block's writes before it are
// done (block barrier, fence, then the add by thread 0: release); grid_wait_for returns once *counter
// >= target (thread 0 spins on acquire loads, then the block barrier), and the writes of the arrivals
// it counted are visible to every thread of the block after it. Counters start at zero (the host
// clears them before the launch) and only grow.
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
#if HIPRIM_PLATFORM_NVIDIA
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}
__device__ __forceinline__ void grid_arrive(unsigned* counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
#if HIPRIM_PLATFORM_EMU
    __atomic_fetch_add(counter, 1u, __ATOMIC_RELEASE);
#else
    __threadfence();
    atomicAdd(counter, 1u);
#endif
  }
}
__device__ __forceinline__ void grid_wait_for(const unsigned* counter, unsigned target) {
  if (threadIdx.x == 0)
    while (load_acquire(counter) < target) {
#if HIPRIM_PLATFORM_EMU
      ::hiprim_emu::yield_thread();  // the emulated blocks are OS threads on few cores
#endif
    }
  __syncthreads();
}

namespace detail {
inline int current_device() {
  int d = 0;
  HIPRIM_CHECK(hipGetDevice(&d), "querying the current device");
  return d;
}
}  // namespace detail

// Multiprocessors (NVIDIA SMs, AMD CUs) of the current device.
inline int multiprocessors() {
  static std::mutex m;
  static std::map<int, int> cache;
  const int dev = detail::current_device();
  std::lock_guard lock(m);
  auto it = cache.find(dev);
  if (it != cache.end()) return it->second;
  int n = 0;
  HIPRIM_CHECK(hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, dev), "querying the multiprocessor count");
  return cache[dev] = std::max(n, 1);
}

// The most dynamic shared memory one block may use on the current device (opt-in limit).
inline std::size_t max_dynamic_smem() {
  static std::mutex m;
  static std::map<int, std::size_t> cache;
  const int dev = detail::current_device();
  std::lock_guard lock(m);
  auto it = cache.find(dev);
  if (it != cache.end()) return it->second;
  int n = 0;
  HIPRIM_CHECK(hipDeviceGetAttribute(&n, hipDeviceAttributeSharedMemPerBlockOptin, dev), "querying the shared memory limit");
  return cache[dev] = static_cast<std::size_t>(std::max(n, 0));
}

// max_dynamic_smem(), or without a device (listings, the fuzzer's domain probe on a machine without
// a GPU: applicability must still answer) the 48 KiB every device offers.
inline std::size_t max_dynamic_smem_or_portable() {
  try {
    return max_dynamic_smem();
  } catch (const std::exception&) {
    return 48 * 1024;
  }
}

// Blocks of `kernel` with `block` threads and `smem` bytes of dynamic shared memory that one
// multiprocessor keeps resident (0 when it cannot launch so). When smem > 48 KiB it first raises
// the kernel's dynamic shared memory limit to the device's opt-in maximum (not to smem: a later
// launch of the same kernel with more shared memory must find the limit already high enough).
template <typename K>
int resident_per_mp(K* kernel, int block, std::size_t smem) {
  static std::mutex m;
  static std::map<std::tuple<int, const void*, int, std::size_t>, int> cache;
  const auto key = std::make_tuple(detail::current_device(), reinterpret_cast<const void*>(kernel), block, smem);
  const std::size_t limit = smem > 48 * 1024 ? max_dynamic_smem() : 0;  // its own lock, taken before ours
  std::lock_guard lock(m);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (smem > 48 * 1024)
    HIPRIM_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(limit)),
                 "raising a kernel's dynamic shared memory limit to " + std::to_string(limit) + " bytes");
  int n = 0;
  HIPRIM_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block, smem), "querying a kernel's occupancy");
  return cache[key] = n;
}

// Grid of a grid-stride kernel over `threads_needed` thread-steps of work: every resident block of
// the device, or fewer when ceil(threads_needed / block) is smaller; at least 1.
template <typename K>
unsigned stream_grid(K* kernel, int block, long long threads_needed, std::size_t smem = 0) {
  const long long resident = static_cast<long long>(std::max(resident_per_mp(kernel, block, smem), 1)) * multiprocessors();
  const long long need = (threads_needed + block - 1) / block;
  return static_cast<unsigned>(std::clamp<long long>(need, 1, resident));
}

// Grid of a stream_chunks kernel over `items` items, U per thread, `block` threads per block: one
// block per chunk of U*block items (at least 1, at most 2^24 blocks; the kernel loops past that).
inline unsigned chunk_grid(long long items, int unroll, int block) {
  const long long chunk = static_cast<long long>(unroll) * block;
  return static_cast<unsigned>(std::clamp<long long>((items + chunk - 1) / chunk, 1, 1LL << 24));
}

// The one-pass walks' perf configs (U and B): gpu/common/chunk_shape.hpp.

// After a launch: throws like HIPRIM_CHECK_LAUNCH, building the context string only on failure.
template <typename F>
void check_launch_lazy(const char* kernel, F&& context) {
  if (hipPeekAtLastError() != hipSuccess) check_launch(kernel, std::string(context()));
}

// kernel(args...) launched cooperatively: grid must not exceed the resident blocks
// (resident_per_mp(kernel, block, smem) * multiprocessors()); the kernel may call grid_sync().
template <typename... P, typename... A>
void launch_cooperative(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t smem, hipStream_t stream, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch_cooperative: one argument per kernel parameter");
#if HIPRIM_PLATFORM_EMU
  (void)stream;
  ::hiprim_emu::launch_cooperative(grid, block, smem, [&] { kernel(args...); });
#else
  std::tuple<std::decay_t<P>...> values(std::forward<A>(args)...);
  std::apply(
      [&](auto&... v) {
        void* ptrs[] = {static_cast<void*>(&v)...};
        const hipError_t e = hipLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, block, ptrs,
                                                        static_cast<unsigned>(smem), stream);
        if (e != hipSuccess) check_result(e, "hipLaunchCooperativeKernel", "a cooperative op kernel launch");
      },
      values);
#endif
}

}  // namespace hiprim::gpu
