// Micro-tests of the warpgroup-MMA layer (host interface; kernels in wgmma_probe.hip, sm_90a): one
// warpgroup stages A[64 x K] and B[64 x K] (row-major bit patterns, [row][k]) into shared memory in
// one layout, runs the wgmma instructions over K and writes D[64 x 64] = A * B^T (fp32) through
// the accumulator fragment map. Each kind isolates one piece:
//   interleave_k16   K = 16, unswizzled K-major core matrices (one instruction, no swizzle)
//   kmajor_b128      K = 64, both K-major 128B swizzle (four k16 steps: descriptor advance)
//   kmajor_a_mn_b    K = 64, A K-major, B MN-major 128B swizzle (imm-trans-b 1)
//   mnmajor_b128     K = 64, both MN-major (imm-trans-a 1, imm-trans-b 1)
//   mn_b_n128        K = 64, B MN-major with N = 128: two 64-wide atoms, so the descriptor's LBO
//                    (the stride between MN atoms) matters; D is 64 x 128
// plus a plain reference GEMM on the device for the pipelined kernels' tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace hiprim::gpu::sm90 {

enum class WgmmaProbeKind { interleave_k16, kmajor_b128, kmajor_a_mn_b, mnmajor_b128, mn_b_n128 };
const char* probe_kind_name(WgmmaProbeKind k);
inline int probe_k(WgmmaProbeKind k) { return k == WgmmaProbeKind::interleave_k16 ? 16 : 64; }
inline int probe_n(WgmmaProbeKind k) { return k == WgmmaProbeKind::mn_b_n128 ? 128 : 64; }

// dtype fp16 or bf16; a.size() == 64 * probe_k(kind), b.size() == probe_n(kind) * probe_k(kind);
// returns d (64 x probe_n(kind), [m][n]).
// Throws RuntimeError on a device failure, InputError on bad sizes or dtype.
std::vector<float> wgmma_probe(WgmmaProbeKind kind, DType dtype, const std::vector<std::uint16_t>& a,
                               const std::vector<std::uint16_t>& b);

// c[m*N + n] = sum_k a[m*sam + k*sak] * b[n*sbn + k*sbk] (fp32 sums of 16-bit inputs, k ascending),
// device pointers, synchronous.
void reference_gemm_device(DType dtype, int M, int N, int K, const void* a, long long sam, long long sak,
                           const void* b, long long sbn, long long sbk, float* c);

}  // namespace hiprim::gpu::sm90
