// Deterministic block-wide reductions for the op kernels, independent of the warp size: no warp
// shuffles, only shared memory and __syncthreads(), so the same code is correct for 32 (NVIDIA) and
// 64 (AMD) lanes. The combination order is fixed by the thread index (a pairwise tree over
// blockDim.x slots), so a result is bitwise reproducible for a given launch shape.
//
// Usage: every thread of the block calls it (it synchronizes); `scratch` holds blockDim.x values of
// T in shared memory; the result is returned to every thread; scratch may be reused after return.
#pragma once
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

struct SumOp {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};

struct MaxOp {
  // NaN wins (propagates), so a NaN input is visible in the result.
  __device__ __forceinline__ float operator()(float a, float b) const { return (a != a || a > b) ? a : b; }
};

// Two fp32 partial sums reduced together (e.g. bnorm backward's sum dy and sum dy*xhat).
struct Float2Sum {
  float a, b;
  __device__ __forceinline__ Float2Sum operator+(const Float2Sum& o) const { return {a + o.a, b + o.b}; }
};

// Pairwise tree: slot i combines with slot i + s for s = P/2, P/4, ..., 1, P the power of two
// >= blockDim.x (missing slots skipped).
template <typename T, typename Op>
__device__ T block_reduce(T v, T* scratch, Op op) {
  const unsigned tid = threadIdx.x, n = blockDim.x;
  scratch[tid] = v;
  __syncthreads();
  unsigned p = 1;
  while (p < n) p <<= 1;
  for (unsigned s = p >> 1; s > 0; s >>= 1) {
    if (tid < s && tid + s < n) scratch[tid] = op(scratch[tid], scratch[tid + s]);
    __syncthreads();
  }
  const T r = scratch[0];
  __syncthreads();  // scratch may be overwritten by the caller after this
  return r;
}

// The same tree inside teams of `size` threads (a power of two dividing blockDim.x; team q is
// threads [q*size, (q+1)*size)): each team's result goes to its own threads. Every thread of the
// block calls it (it synchronizes); scratch holds blockDim.x values of T.
template <typename T, typename Op>
__device__ T team_reduce(T v, T* scratch, int size, Op op) {
  const unsigned tid = threadIdx.x, lane = tid % static_cast<unsigned>(size);
  scratch[tid] = v;
  __syncthreads();
  for (unsigned s = static_cast<unsigned>(size) >> 1; s > 0; s >>= 1) {
    if (lane < s) scratch[tid] = op(scratch[tid], scratch[tid + s]);
    __syncthreads();
  }
  const T r = scratch[tid - lane];
  __syncthreads();
  return r;
}

// Block-wide sums of W values per thread in two levels, with four barriers for any block size
// (the pairwise trees above take two per level): group g < G = min(kSumGroups, blockDim.x) adds
// the slots g, g + G, g + 2G, ... in increasing order; then thread j < W adds element j of the G
// group sums in increasing g. Fixed order for a given blockDim.x; the result goes to every thread.
// scratch: (blockDim.x + kSumGroups + 1) * W values of A; reusable after return. Needs blockDim.x >= W.
inline constexpr int kSumGroups = 16;
template <int W, typename A>
__device__ void block_sum_2level(A (&v)[W], A* scratch) {
  const int t = static_cast<int>(threadIdx.x), n = static_cast<int>(blockDim.x);
  const int groups = n < kSumGroups ? n : kSumGroups;
  A* group = scratch + n * W;
  A* total = group + kSumGroups * W;
#pragma unroll
  for (int j = 0; j < W; ++j) scratch[t * W + j] = v[j];
  __syncthreads();
  if (t < groups) {
    A s[W];
#pragma unroll
    for (int j = 0; j < W; ++j) s[j] = A{};
    for (int i = t; i < n; i += groups)
#pragma unroll
      for (int j = 0; j < W; ++j) s[j] = s[j] + scratch[i * W + j];
#pragma unroll
    for (int j = 0; j < W; ++j) group[t * W + j] = s[j];
  }
  __syncthreads();
  if (t < W) {
    A s = A{};
    for (int g = 0; g < groups; ++g) s = s + group[g * W + t];
    total[t] = s;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < W; ++j) v[j] = total[j];
  __syncthreads();
}

// Column trees of a block seen as ty rows of tx threads (thread t = row * tx + col): each thread
// holds W values; combines them over the rows of its column in a fixed pairwise order (rows r
// and r + s for s = P/2, ..., 1, P the power of two >= ty; missing rows skipped) and returns the
// result to the threads of row 0. Every thread calls it (it synchronizes); scratch holds
// (blockDim.x / 2 + tx) * W values of A.
template <int W, typename A, typename Op>
__device__ void column_reduce(int tx, int ty, A (&v)[W], A* scratch, Op op) {
  const int t = static_cast<int>(threadIdx.x), row = t / tx, col = t % tx;
  int p = 1;
  while (p < ty) p <<= 1;
  for (int s = p >> 1; s > 0; s >>= 1) {
    // Rows [s, 2s) hand their values to rows [0, s) (those with a partner below ty).
    if (row >= s && row < 2 * s)
#pragma unroll
      for (int j = 0; j < W; ++j) scratch[((row - s) * tx + col) * W + j] = v[j];
    __syncthreads();
    if (row < s && row + s < ty)
#pragma unroll
      for (int j = 0; j < W; ++j) v[j] = op(v[j], scratch[(row * tx + col) * W + j]);
    __syncthreads();
  }
}

template <typename T>
__device__ T block_sum(T v, T* scratch) {
  return block_reduce(v, scratch, SumOp{});
}

__device__ __forceinline__ float block_max(float v, float* scratch) { return block_reduce(v, scratch, MaxOp{}); }

// A team working on one row or group: a whole block (lane = threadIdx.x; its reductions need
// blockDim.x Float2Sum of shared memory at smem, which also serve the float ones) or one thread.
// Every lane of a block team must make the same calls (they synchronize).
struct BlockTeam {
  float* smem;
  __device__ int lane() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  __device__ float sum(float v) const { return block_sum(v, smem); }
  __device__ Float2Sum sum(Float2Sum v) const { return block_sum(v, reinterpret_cast<Float2Sum*>(smem)); }
  __device__ float max(float v) const { return block_max(v, smem); }
};
struct SoloTeam {
  __device__ int lane() const { return 0; }
  __device__ int size() const { return 1; }
  template <typename V>
  __device__ V sum(V v) const { return v; }
  __device__ float max(float v) const { return v; }
};

__device__ __forceinline__ long long grid_thread() { return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ long long grid_threads() { return static_cast<long long>(gridDim.x) * blockDim.x; }

}  // namespace hiprim::gpu
