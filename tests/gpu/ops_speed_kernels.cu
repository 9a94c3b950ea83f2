// Device helpers of the op speed sweep (tests/gpu/ops_speed_sweep.cpp; NVIDIA only, like the sweep):
// timing data fills, the poison count of the full-size written check, and copy kernels on the
// solvers' own streaming loop (gpu/common/stream_loop.hpp) with a choice of unroll depth and block
// size, so the sweep shows what the loop itself reaches beside cudaMemcpy.
#include "tests/gpu/ops_speed_kernels.hpp"

#include "gpu/common/launch_grid.hpp"
#include "gpu/common/stream_loop.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::sweep {
namespace {

// Values in [0.5, 1.5) from a hash of the index: finite, positive (bnorm variances), not integers
// (a pooling index buffer filled this way names no window position).
template <typename T>
__global__ void fill_kernel(T* p, long long n, unsigned seed) {
  for (long long i = gpu::grid_thread(); i < n; i += gpu::grid_threads()) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    gpu::store_f(p, i, 0.5f + static_cast<float>(h >> 8) * (1.0f / 16777216.0f));
  }
}

__global__ void count_poison_kernel(const unsigned char* p, long long elems, int elem_size, unsigned long long* count) {
  unsigned long long local = 0;
  for (long long i = gpu::grid_thread(); i < elems; i += gpu::grid_threads()) {
    bool all = true;
    for (int b = 0; b < elem_size; ++b) all = all && p[i * elem_size + b] == 0xFF;
    local += all ? 1 : 0;
  }
  if (local) atomicAdd(count, local);
}

template <int U>
struct CopyPacks {
  const float4* __restrict__ src;
  float4* __restrict__ dst;
  __device__ __forceinline__ float4 load(long long i) const { return src[i]; }
  __device__ __forceinline__ void finish(long long i, const float4& v) const { dst[i] = v; }
};

template <int U>
__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, long long n) {
  gpu::stream_items<U>(n, CopyPacks<U>{src, dst});
}

template <int U>
void copy_u(const void* src, void* dst, long long packs, int block, cudaStream_t s) {
  const auto kernel = &copy_kernel<U>;
  const unsigned grid = gpu::stream_grid(kernel, block, (packs + U - 1) / U);
  kernel<<<grid, block, 0, s>>>(static_cast<const float4*>(src), static_cast<float4*>(dst), packs);
}

// One pass, no loop: thread t of block b copies packs (b * U + u) * block + t for u < U, a grid of
// ceil(n / (U * block)) blocks (the shape of PyTorch's vectorized elementwise kernels), to compare
// with the solvers' resident-grid loop.
template <int U>
__global__ void copy_oneshot_kernel(const float4* __restrict__ src, float4* __restrict__ dst, long long n) {
  const long long base = static_cast<long long>(blockIdx.x) * U * blockDim.x + threadIdx.x;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (base + u * blockDim.x < n) v[u] = src[base + u * blockDim.x];
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (base + u * blockDim.x < n) dst[base + u * blockDim.x] = v[u];
}

template <int U>
void copy_oneshot_u(const void* src, void* dst, long long packs, int block, cudaStream_t s) {
  const long long per_block = static_cast<long long>(U) * block;
  copy_oneshot_kernel<U><<<static_cast<unsigned>((packs + per_block - 1) / per_block), block, 0, s>>>(
      static_cast<const float4*>(src), static_cast<float4*>(dst), packs);
}

}  // namespace

void fill(void* p, DType dt, long long n, unsigned seed, cudaStream_t s) {
  const unsigned grid = 132 * 8, block = 256;
  switch (dt) {
    case DType::fp32: fill_kernel<<<grid, block, 0, s>>>(static_cast<float*>(p), n, seed); break;
    case DType::fp16: fill_kernel<<<grid, block, 0, s>>>(static_cast<__half*>(p), n, seed); break;
    case DType::bf16: fill_kernel<<<grid, block, 0, s>>>(static_cast<hiprim_bf16_t*>(p), n, seed); break;
  }
}

void count_poison(const void* p, long long elems, int elem_size, unsigned long long* dev_count, cudaStream_t s) {
  count_poison_kernel<<<132 * 4, 256, 0, s>>>(static_cast<const unsigned char*>(p), elems, elem_size, dev_count);
}

void copy_variant(const void* src, void* dst, long long bytes, int unroll, int block, cudaStream_t s) {
  const long long packs = bytes / 16;
  switch (unroll) {
    case 1: return copy_u<1>(src, dst, packs, block, s);
    case 2: return copy_u<2>(src, dst, packs, block, s);
    case 4: return copy_u<4>(src, dst, packs, block, s);
    default: return copy_u<8>(src, dst, packs, block, s);
  }
}


void copy_oneshot(const void* src, void* dst, long long bytes, int unroll, int block, cudaStream_t s) {
  const long long packs = bytes / 16;
  switch (unroll) {
    case 1: return copy_oneshot_u<1>(src, dst, packs, block, s);
    case 2: return copy_oneshot_u<2>(src, dst, packs, block, s);
    default: return copy_oneshot_u<4>(src, dst, packs, block, s);
  }
}

}  // namespace hiprim::sweep
