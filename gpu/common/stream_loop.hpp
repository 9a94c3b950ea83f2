// The streaming loop of the elementwise kernels: a grid-stride walk over n items (packs) in which
// each thread issues the loads of U items before it computes and stores any of them, so U
// independent wide loads per tensor are in flight per thread (the bytes in flight that a
// bandwidth-bound kernel needs: with 16-byte packs, U = 4 and 256-thread blocks resident 8 per
// SM, 128 KiB per SM and tensor).
//   step k of thread t (T = grid threads): items t + (k*U + u)*T, u = 0..U-1, while the last of
//   them is < n; then the rest one at a time (t + j*T < n). Consecutive threads take consecutive
//   items, so each warp access is one contiguous segment.
// Op: Loaded load(long long i) const (issue the loads of item i), void finish(long long i, const
// Loaded&) const (compute and store item i). Also compiled for the host emulation.
#pragma once
#include "gpu/common/block_reduce.hpp"  // grid_thread(s)

namespace hiprim::gpu {

template <int U, typename Op>
__device__ __forceinline__ void stream_items(long long n, const Op& op) {
  const long long stride = grid_threads();
  long long i = grid_thread();
  for (; i + (U - 1) * stride < n; i += U * stride) {
    decltype(op.load(i)) v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = op.load(i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) op.finish(i + u * stride, v[u]);
  }
  for (; i < n; i += stride) op.finish(i, op.load(i));
}

// The same walk for an Op whose finishes need per-thread values: State prepare() const runs once
// per thread, after the loads of its first step are issued (so what it fetches, e.g. per-channel
// coefficients, is in flight with them) and before any finish, also for a thread without items;
// finish(i, loaded, state) gets its result.
template <int U, typename Op>
__device__ __forceinline__ void stream_items_prepared(long long n, const Op& op) {
  const long long stride = grid_threads();
  long long i = grid_thread();
  decltype(op.prepare()) state{};
  bool ready = false;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    decltype(op.load(i)) v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = op.load(i + u * stride);
    if (!ready) state = op.prepare(), ready = true;
#pragma unroll
    for (int u = 0; u < U; ++u) op.finish(i + u * stride, v[u], state);
  }
  if (!ready) state = op.prepare();
  for (; i < n; i += stride) op.finish(i, op.load(i), state);
}

// The one-pass walk (the shape of PyTorch's vectorized elementwise kernels): block b's step covers
// the U*B consecutive items from (b + k*G)*U*B (B threads per block, G blocks); thread t takes items
// base + u*B, base = that start + t, u = 0..U-1 (each warp access one contiguous segment), all U
// loads issued before any finish. Launched with chunk_grid (a grid over all the chunks) every block
// makes one step and the loop is only the fallback for grids past its cap. On the H100 the copy in
// this shape ran 3023-3051 GB/s against 2871-2903 GB/s for stream_items' resident grid
// (reports/h200/s19-2026-12-06). Same Op interface as stream_items.
template <int U, typename Op>
__device__ __forceinline__ void stream_chunks(long long n, const Op& op) {
  const long long block = blockDim.x;
  const long long step = static_cast<long long>(gridDim.x) * U * block;
  for (long long base = blockIdx.x * U * block + threadIdx.x; base < n; base += step) {
    decltype(op.load(base)) v[U]{};
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * block < n) v[u] = op.load(base + u * block);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * block < n) op.finish(base + u * block, v[u]);
  }
}

}  // namespace hiprim::gpu
