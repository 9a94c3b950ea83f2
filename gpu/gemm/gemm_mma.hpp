// The tensor-core GEMM kernel (device code; include from .hip files only): gemm_tiled_kernel's
// contract with fp16/bf16 operands on NVIDIA mma.sync (sm_80 and later).
//
//   C[b][m][n] = sum over k of A[b][m][k] * B[b][k][n]      (fp32 accumulation)
//
// A and B are __half or hiprim_bf16_t anywhere in memory as described by a MatrixMap (gemm_index.hpp);
// each in-range (slot, m, n) goes once to the epilogue ep(slot, m, n, acc), as in gemm_tile.hpp
// (slot = b, or b*splits + s for K slice s of split-K). Launch: grid (ceil(N/128), ceil(M/128),
// batch*splits) in GemmGridPlan slices, 256 threads (8 warps of 32). Layout and fragment maps:
// mma_fragment.hpp.
//
// Per K step of 32 the block stages A[128 x 32] and B[32 x 128] as raw 16-bit values, both
// k-contiguous ([m][k] and [n][k]), in one of two shared-memory buffers; the next step's global
// loads go to registers before the current step's mma instructions run, and are stored to the other
// buffer after them (one barrier per step). Elements past M, N or the K slice are staged as 0 (a
// +0.0 bit pattern in both dtypes). A vector of 8 elements is one 16-byte load when the operand's
// plan allows it and the vector lies wholly in range; otherwise its elements are read one by one
// through the maps.
// Numerics: the tensor core multiplies exactly and adds into fp32 with its own (fixed, possibly
// truncating) adder order: every run performs the same operations in the same order, so results
// are bitwise reproducible; no atomics. Split-K as in gemm_tile.hpp (fixed-order slice sums).
// HIP/AMD and NVIDIA before sm_80: the kernel body is a stub that is never launched (solvers refuse).
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "gpu/gemm/gemm_tile.hpp"
#include "gpu/gemm/mma_fragment.hpp"

#if defined(HIPRIM_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
#define HIPRIM_MMA_SM80 1
#endif
#endif

namespace hiprim::gpu {

// Whether T is an operand type of the mma kernel.
template <typename T>
inline constexpr bool kMmaOperand = std::is_same_v<T, __half> || std::is_same_v<T, hiprim_bf16_t>;

// One operand as the kernel stages it: rows are m (A) or n (B); element (b, r, k) of the batch in
// hand lives at ptr + batch_offset + r_map(r) + k_map(k).
struct MmaOperand {
  const std::uint16_t* ptr = nullptr;
  DimMap r_map, k_map, batch_map;
  MmaStagePlan plan;
};

#if HIPRIM_MMA_SM80
namespace mma_detail {

using Tile = GemmMmaTile;

// Global -> registers: the NV vectors of this thread (4 words each, element e in the low (even e)
// or high half of word e/2, i.e. memory order).
template <int NV, int ROWS>
__device__ __forceinline__ void load_vectors(const MmaOperand& op, long long batch_offset, int r0, int r_limit, int k0,
                                             int k_hi, int tid, std::uint32_t (&reg)[NV][4]) {
#pragma unroll
  for (int v = 0; v < NV; ++v) {
    const MmaStageCoord c = mma_stage_coord(tid + v * Tile::threads, ROWS, op.plan.along_k);
    const int r = r0 + c.r, k = k0 + c.k;
    const bool full = op.plan.along_k ? (r < r_limit && k + Tile::VEC <= k_hi) : (r + Tile::VEC <= r_limit && k < k_hi);
    if (op.plan.vector && full) {
      const uint4 q = *reinterpret_cast<const uint4*>(op.ptr + batch_offset + op.r_map(r) + op.k_map(k));
      reg[v][0] = q.x, reg[v][1] = q.y, reg[v][2] = q.z, reg[v][3] = q.w;
    } else {
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        std::uint32_t word = 0;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const MmaStageCoord x = mma_stage_element(MmaStageCoord{r, k}, op.plan.along_k, 2 * w + h);
          const std::uint32_t bits =
              (x.r < r_limit && x.k < k_hi) ? op.ptr[batch_offset + op.r_map(x.r) + op.k_map(x.k)] : 0u;
          word |= bits << (16 * h);
        }
        reg[v][w] = word;
      }
    }
  }
}

// Registers -> shared memory ([row][k], LDS elements per row).
template <int NV, int ROWS>
__device__ __forceinline__ void store_vectors(bool along_k, int tid, const std::uint32_t (&reg)[NV][4],
                                              std::uint16_t* smem) {
#pragma unroll
  for (int v = 0; v < NV; ++v) {
    const MmaStageCoord c = mma_stage_coord(tid + v * Tile::threads, ROWS, along_k);
    if (along_k) {
      *reinterpret_cast<uint4*>(smem + mma_smem_offset(c.r, c.k)) = make_uint4(reg[v][0], reg[v][1], reg[v][2], reg[v][3]);
    } else {  // element (e + q) % 8 at step e (mma_rotate_halves: fewer bank conflicts)
      const int q = (c.r / Tile::VEC) % Tile::VEC;
      std::uint32_t w[4] = {reg[v][0], reg[v][1], reg[v][2], reg[v][3]};
      mma_rotate_halves(w, q);
#pragma unroll
      for (int e = 0; e < Tile::VEC; ++e) {
        const MmaStageCoord x = mma_stage_element(c, false, (e + q) % Tile::VEC);
        smem[mma_smem_offset(x.r, x.k)] = static_cast<std::uint16_t>(w[e / 2] >> (16 * (e % 2)));
      }
    }
  }
}

template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// r[j] = lane's two 16-bit elements of 8x8 matrix j (row lane / 4, columns 2 (lane % 4) and + 1), J = 1, 2 or 4
// matrices; lane L gives the shared-memory address of row L % 8 of matrix L / 8 (16 bytes, 16-byte aligned;
// lanes from 8 J on: any valid address).
template <int J>
__device__ __forceinline__ void ldmatrix(std::uint32_t (&r)[J], const void* row) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row));
  if constexpr (J == 4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  else if constexpr (J == 2)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(a));
}

}  // namespace mma_detail
#endif

template <typename T, typename Epilogue>
__global__ void __launch_bounds__(GemmMmaTile::threads)
    gemm_mma_kernel(MmaOperand a, MmaOperand b, int M, int N, int K, int m_tile0, int batch0, int k_splits,
                    int k_chunk, Epilogue ep) {
#if HIPRIM_MMA_SM80
  using Tile = GemmMmaTile;
  using namespace mma_detail;
  __shared__ __align__(16) std::uint16_t a_tile[2][Tile::BM * Tile::LDS];
  __shared__ __align__(16) std::uint16_t b_tile[2][Tile::BN * Tile::LDS];

  const int tid = static_cast<int>(threadIdx.x);
  const int slot = batch0 + static_cast<int>(blockIdx.z);
  const GemmSlotRange range = gemm_slot_range(slot, k_splits, k_chunk, K);
  const int batch = range.batch, k_lo = range.k_lo, k_hi = range.k_hi;
  const int m0 = (m_tile0 + static_cast<int>(blockIdx.y)) * Tile::BM;
  const int n0 = static_cast<int>(blockIdx.x) * Tile::BN;
  const long long a_batch = a.batch_map(batch), b_batch = b.batch_map(batch);

  const int lane = tid % Tile::lanes;
  const MmaWarpOrigin wo = mma_warp_origin(tid / Tile::lanes);
  float acc[Tile::MI][Tile::NI][4];
#pragma unroll
  for (int i = 0; i < Tile::MI; ++i)
#pragma unroll
    for (int j = 0; j < Tile::NI; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[i][j][c] = 0.0f;

  if (k_lo < k_hi) {
    std::uint32_t a_reg[Tile::a_vecs][4], b_reg[Tile::b_vecs][4];
    load_vectors<Tile::a_vecs, Tile::BM>(a, a_batch, m0, M, k_lo, k_hi, tid, a_reg);
    load_vectors<Tile::b_vecs, Tile::BN>(b, b_batch, n0, N, k_lo, k_hi, tid, b_reg);
    store_vectors<Tile::a_vecs, Tile::BM>(a.plan.along_k, tid, a_reg, a_tile[0]);
    store_vectors<Tile::b_vecs, Tile::BN>(b.plan.along_k, tid, b_reg, b_tile[0]);
    __syncthreads();
    int buf = 0;
    for (int k0 = k_lo; k0 < k_hi; k0 += Tile::BK) {
      const bool more = k0 + Tile::BK < k_hi;
      if (more) {
        load_vectors<Tile::a_vecs, Tile::BM>(a, a_batch, m0, M, k0 + Tile::BK, k_hi, tid, a_reg);
        load_vectors<Tile::b_vecs, Tile::BN>(b, b_batch, n0, N, k0 + Tile::BK, k_hi, tid, b_reg);
      }
      const std::uint16_t* as = a_tile[buf];
      const std::uint16_t* bs = b_tile[buf];
#pragma unroll
      for (int kk = 0; kk < Tile::BK; kk += 16) {
        std::uint32_t af[Tile::MI][4], bf[Tile::NI][2];
#pragma unroll
        for (int i = 0; i < Tile::MI; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            af[i][j] = *reinterpret_cast<const std::uint32_t*>(as + mma_a_frag_offset(wo.m0, i, kk, lane, j));
#pragma unroll
        for (int i = 0; i < Tile::NI; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j)
            bf[i][j] = *reinterpret_cast<const std::uint32_t*>(bs + mma_b_frag_offset(wo.n0, i, kk, lane, j));
#pragma unroll
        for (int i = 0; i < Tile::MI; ++i)
#pragma unroll
          for (int j = 0; j < Tile::NI; ++j) mma_16816<T>(acc[i][j], af[i], bf[j]);
      }
      if (more) {
        store_vectors<Tile::a_vecs, Tile::BM>(a.plan.along_k, tid, a_reg, a_tile[buf ^ 1]);
        store_vectors<Tile::b_vecs, Tile::BN>(b.plan.along_k, tid, b_reg, b_tile[buf ^ 1]);
      }
      __syncthreads();
      buf ^= 1;
    }
  }

#pragma unroll
  for (int i = 0; i < Tile::MI; ++i)
#pragma unroll
    for (int j = 0; j < Tile::NI; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int m = m0 + wo.m0 + i * 16 + mma_c_row(lane, c);
        const int n = n0 + wo.n0 + j * 8 + mma_c_col(lane, c);
        if (m < M && n < N) ep(slot, m, n, acc[i][j][c]);
      }
#else
  // Never launched: the host side refuses (gemm_mma_unavailable); trap if it ever is.
  (void)a, (void)b, (void)M, (void)N, (void)K, (void)m_tile0, (void)batch0, (void)k_splits, (void)k_chunk, (void)ep;
#if defined(HIPRIM_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__)
  __trap();
#endif
#endif
}

// The operand of the mma kernel for A (rows m, columns k) or B (rows k, columns n: staged by n).
template <typename T>
MmaOperand mma_operand(const T* ptr, const MatrixMap& map, bool is_b) {
  MmaOperand op;
  op.ptr = reinterpret_cast<const std::uint16_t*>(ptr);
  op.r_map = is_b ? map.cols : map.rows;
  op.k_map = is_b ? map.rows : map.cols;
  op.batch_map = map.batch;
  op.plan = plan_mma_staging(op.r_map, op.k_map, op.batch_map, reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0);
  return op;
}

// gemm_tile.hpp's launch_gemm / launch_gemm_split_k with Tile = GemmMmaTile launch this kernel.
template <>
struct GemmKernel<GemmMmaTile> {
  template <typename T, typename Epilogue>
  static void launch(dim3 grid, hipStream_t stream, const GemmOperand<T>& a, const GemmOperand<T>& b, int M, int N,
                     int K, int m_tile0, int batch0, int k_splits, int k_chunk, const Epilogue& ep,
                     const std::string& context) {
    static_assert(kMmaOperand<T>, "the mma GEMM takes __half or bf16 operands");
    hipLaunchKernelGGL((gemm_mma_kernel<T, Epilogue>), grid, dim3(GemmMmaTile::threads), 0, stream,
                       mma_operand(a.ptr, a.map, false), mma_operand(b.ptr, b.map, true), M, N, K, m_tile0, batch0,
                       k_splits, k_chunk, ep);
    HIPRIM_CHECK_LAUNCH("gemm_mma_kernel", context);
  }
};

}  // namespace hiprim::gpu
