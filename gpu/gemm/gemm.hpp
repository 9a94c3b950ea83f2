// Host entry point of the project's tiled GEMM (no device code here, so host-only code and tests
// can include it):
//
//   C[b][m][n] = round_c( sum_{k ascending} A[b][m][k] * B[b][k][n] )   for b < batch, m < M, n < N
//
// A and B hold ab_dtype, C holds c_dtype (fp32, or ab_dtype rounded to nearest even); the sum is in
// fp32 in a fixed order (bitwise reproducible). Every operand is a pointer plus a MatrixMap (element
// offsets per row, column and batch index; gemm_index.hpp), so transposes and strided views need no copy.
// Kernels that need their own epilogue (bias, NCHW/NHWC scatter, partial sums) use launch_gemm in
// gemm_tile.hpp directly.
#pragma once
#include <string>

#include "core/dtype.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

// Which kernel runs the GEMM: the SIMT tiled kernel (gemm_tile.hpp; every dtype) or the tensor-core
// kernel (gemm_mma.hpp; fp16/bf16 operands, NVIDIA sm_80 and later; fp32 accumulation in the
// tensor core's own fixed adder order, bitwise reproducible, not the SIMT kernel's bits).
enum class GemmEngine { simt, mma };

// Empty when the mma engine can run on the current device, else why not (HIP/AMD build: no MFMA
// path yet; no device; a device below sm_80). Never throws.
std::string gemm_mma_unavailable();

struct GemmCall {
  GemmEngine engine = GemmEngine::simt;
  GemmShape shape;
  DType ab_dtype = DType::fp32;
  DType c_dtype = DType::fp32;  // fp32 or ab_dtype
  const void* a = nullptr;
  MatrixMap a_map;  // rows m, columns k
  const void* b = nullptr;
  MatrixMap b_map;  // rows k, columns n
  void* c = nullptr;
  MatrixMap c_map;  // rows m, columns n
  void* stream = nullptr;  // hipStream_t; nullptr: the default stream
  // > 1: deterministic split-K with this many K slices (gemm_index.hpp), at most kSplitKMaxSplits;
  // the fp32 slice sums go to `workspace`, gemm_workspace_bytes(call) bytes.
  std::int64_t k_splits = 1;
  void* workspace = nullptr;
};

inline std::size_t gemm_workspace_bytes(const GemmCall& call) {
  return split_k_workspace_bytes(call.shape, call.k_splits);
}

// Enqueues the GEMM (asynchronous). Throws InputError naming the bad field (size out of range, null
// pointer with a non-empty shape, c_dtype neither fp32 nor ab_dtype, k_splits outside [1, 64] or
// without a workspace, engine mma with fp32 operands or where gemm_mma_unavailable() says why not),
// RuntimeError on a failed launch.
void gemm(const GemmCall& call);

}  // namespace hiprim::gpu
