// Device helpers of the op speed sweep (tests/gpu/ops_speed_kernels.cu). NVIDIA only.
#pragma once
#include <cuda_runtime.h>

#include "core/dtype.hpp"

namespace hiprim::sweep {

// n elements of dtype dt at p: values in [0.5, 1.5) (timing data, not verified data).
void fill(void* p, DType dt, long long n, unsigned seed, cudaStream_t s);
// Adds to *dev_count the elements (elem_size bytes each) that are all 0xFF (the poison).
void count_poison(const void* p, long long elems, int elem_size, unsigned long long* dev_count, cudaStream_t s);
// bytes (a multiple of 16) from src to dst with the solvers' streaming loop: `unroll` 16-byte
// packs in flight per thread (1, 2, 4, 8), `block` threads per block, resident grid.
void copy_variant(const void* src, void* dst, long long bytes, int unroll, int block, cudaStream_t s);
// The same copy in one pass without a loop: `unroll` (1, 2, 4) packs per thread, a grid over all packs.
void copy_oneshot(const void* src, void* dst, long long bytes, int unroll, int block, cudaStream_t s);

}  // namespace hiprim::sweep
