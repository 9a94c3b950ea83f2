// The fused epilogue of conv.igemm.wgmma (fusion.igemm.wgmma's chains: bias, bnorm-infer, add,
// activation on each fp32 sum, one rounding), device code for igemm_sm90_kernel.hpp (sm_90a only):
// the tile's sums staged in fp32 through shared memory, then 16-byte pieces of 8 channels per thread.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu/activ/activ_math.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "gpu/gemm/sm90/wgmma_ops.hpp"

namespace hiprim::gpu::sm90 {
#if HIPRIM_SM90A

// Two floats rounded to T (RNE) as one 32-bit word, and back.
template <typename T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  std::uint32_t u;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    memcpy(&u, &h, 4);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    memcpy(&u, &h, 4);
  }
  return u;
}
template <typename T>
__device__ __forceinline__ float2 unpack2(std::uint32_t u) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    memcpy(&h, &u, 4);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    memcpy(&h, &u, 4);
    return __bfloat1622float2(h);
  }
}

// The per-channel part of the fused chain for the 8 channels of one piece, loaded once per thread
// (a thread's piece keeps its columns for every row it stores).
struct FusedChannels {
  float bias[8], mean[8], a[8], shift[8];
};

// Rows per thread of the fused epilogue's walk: thread t takes piece t % (BN/8) of rows
// t / (BN/8) + i * kFusedRowStep<BN>, i < kFusedRows<BN>.
template <int BN>
inline constexpr int kFusedRowStep = 128 / (BN / 8);
template <int BN>
inline constexpr int kFusedRows = 64 / kFusedRowStep<BN>;

// Rows of consumer warpgroup c's staged fp32 tile through the chain (see igemm_fused_epilogue); MODE:
// the activation as a constant (kActRelu, ...), -1 none, -2 p.ep.activ_mode at run time. res_words:
// the residual's 8 values of rows i < PF (prefetched; zeros without a residual or past the rows);
// rows i >= PF load theirs here.
template <typename T, int BN, int MODE, int PF>
__device__ __forceinline__ void igemm_fused_rows(const IgemmParams& p, const IgemmClass& cl, const unsigned char* tile, int c,
                                                 int t, int m0, int col, const FusedChannels& ch,
                                                 const uint4 (&res_words)[PF > 0 ? PF : 1], T* out) {
  constexpr int PITCH = BN * 4 + 32, PIECES = BN / 8, ROW_STEP = kFusedRowStep<BN>;
  const IgemmEpilogue& ep = p.ep;
  const ActivCoeffs k{ep.activ_alpha, ep.activ_beta, ep.activ_gamma};
  const bool has_res = ep.residual != nullptr;
  const int piece = t % PIECES;
  constexpr int UNROLL = PF > 0 ? kFusedRows<BN> : 1;  // (prefetched words stay in registers; else no unrolling)
#pragma unroll UNROLL
  for (int i = 0; i < kFusedRows<BN>; ++i) {
    const int r = t / PIECES + i * ROW_STEP, row = m0 + 64 * c + r;
    if (row >= cl.m) continue;  // (predicated: the loop is unrolled so res_words stays in registers)
    const long long off = out_row_offset(cl.out, row, p.n_cols) + col;
    const float4 lo = *reinterpret_cast<const float4*>(tile + r * PITCH + 32 * piece);
    const float4 hi = *reinterpret_cast<const float4*>(tile + r * PITCH + 32 * piece + 16);
    float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    uint4 rw = make_uint4(0, 0, 0, 0);
    if constexpr (PF > 0) {
      if (i < PF) rw = res_words[i < PF ? i : 0];
    }
    if (i >= PF && has_res) rw = __ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(ep.residual) + off));
    const std::uint32_t rword[4] = {rw.x, rw.y, rw.z, rw.w};
    std::uint32_t o[4];
#pragma unroll
    for (int j = 0; j < 8; j += 2) {
      const float2 rv = unpack2<T>(rword[j / 2]);
      float x[2] = {v[j] + ch.bias[j], v[j + 1] + ch.bias[j + 1]};
      const float rr[2] = {rv.x, rv.y};
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (ep.bn_a != nullptr) x[e] = (x[e] - ch.mean[j + e]) * ch.a[j + e] + ch.shift[j + e];
        if (has_res) x[e] = ep.add_alpha * x[e] + ep.add_beta * rr[e];
        if constexpr (MODE == -2) x[e] = activ_fwd(ep.activ_mode, x[e], k);
        else if constexpr (MODE >= 0) x[e] = activ_fwd(MODE, x[e], k);
      }
      o[j / 2] = pack2<T>(x[0], x[1]);
    }
    *reinterpret_cast<uint4*>(out + off) = make_uint4(o[0], o[1], o[2], o[3]);
  }
}

// The fused epilogue (fwd, splitk 1, p.ep.fused) of consumer warpgroup c: after every consumer's
// last wgmma (named barrier 1) the warpgroup writes its 64 x BN fp32 sums into its own region of the
// stage memory, rows BN*4 + 32 bytes apart (a half-warp's float2 stores hit 32 distinct banks), then
// (named barrier 2 + c) thread t takes 8-channel piece t % (BN/8) of rows t / (BN/8) + i * (128 /
// (BN/8)): two 16-byte reads of its sums, the chain on each value (the piece's bias and bnorm
// factors held in registers) and one 16-byte store. The residual's 16-byte pieces of all its rows are
// loaded before barrier 2 + c (the accumulators are in shared memory by then), so they are all in
// flight at once instead of one row's load per round trip.
// PF: the rows whose residual is prefetched (kFusedRows<BN>: all; the persistent kernels, whose loop
// state stays live, take half: with all of them m128n128's spilled 4 bytes).
template <typename T, int BN, int CONSUMERS, int PF = kFusedRows<BN>>
__device__ __forceinline__ void igemm_fused_epilogue(const IgemmParams& p, const IgemmClass& cl, const float (&acc)[BN / 2],
                                                     int c, int t, int m0, int n0, T* out, const T* bias,
                                                     unsigned char* smem) {
  constexpr int PITCH = BN * 4 + 32, PIECES = BN / 8;
  unsigned char* tile = smem + c * 64 * PITCH;
  named_barrier(1, CONSUMERS * 128);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = acc_row(t, 2 * half);
#pragma unroll
    for (int jn = 0; jn < BN / 8; ++jn)
      *reinterpret_cast<float2*>(tile + r * PITCH + 4 * acc_col(t, 4 * jn)) =
          make_float2(acc[4 * jn + 2 * half], acc[4 * jn + 2 * half + 1]);
  }
  const int col = n0 + 8 * (t % PIECES);
  const T* res = static_cast<const T*>(p.ep.residual);
  uint4 res_words[PF > 0 ? PF : 1];
#pragma unroll
  for (int i = 0; i < PF; ++i) {
    const int row = m0 + 64 * c + t / PIECES + i * kFusedRowStep<BN>;
    res_words[i] = make_uint4(0, 0, 0, 0);
    if (res != nullptr && col < p.n_cols && row < cl.m)
      res_words[i] = __ldg(reinterpret_cast<const uint4*>(res + out_row_offset(cl.out, row, p.n_cols) + col));
  }
  named_barrier(2 + c, 128);
  if (col >= p.n_cols) return;
  FusedChannels ch;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    ch.bias[j] = bias != nullptr ? load_f(bias, col + j) : 0.0f;
    const bool bn = p.ep.bn_a != nullptr;
    ch.mean[j] = bn ? p.ep.bn_mean[col + j] : 0.0f;
    ch.a[j] = bn ? p.ep.bn_a[col + j] : 1.0f;
    ch.shift[j] = bn ? p.ep.bn_shift[col + j] : 0.0f;
  }
  switch (p.ep.activ_mode) {  // the common modes with their function inlined as a constant
    case -1: igemm_fused_rows<T, BN, -1, PF>(p, cl, tile, c, t, m0, col, ch, res_words, out); break;
    case kActRelu: igemm_fused_rows<T, BN, kActRelu, PF>(p, cl, tile, c, t, m0, col, ch, res_words, out); break;
    default: igemm_fused_rows<T, BN, -2, PF>(p, cl, tile, c, t, m0, col, ch, res_words, out); break;
  }
}

#endif  // HIPRIM_SM90A
}  // namespace hiprim::gpu::sm90
