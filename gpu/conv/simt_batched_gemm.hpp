// Batched fp32 GEMMs on conv.igemm.simt's kernel (gpu/conv/igemm_simt_kernel.hpp: 8 x 8 outputs per
// thread, two shared-memory stages, 16-byte vector loads where the sizes allow), as 1x1 convolutions:
//
//   out_z[i][j] = sum_{c ascending} V_z[i][c] * U_z[j][c]     for z < batch, i < P, j < K, c < C
//
// one fmaf chain per entry (the same bits whatever the tile), unsplit. Layouts, packed, batch-major:
//   channels_last:  V_z [P][C], U_z [K][C], out_z [P][K]   (the NHWC 1x1 fwd relation, rows = P)
//   else:           V_z [C][P], U_z [K][C], out_z [K][P]   (the NCHW 1x1 fwd relation, rows = K)
// or, with wgrad, the reduction over P:
//   out_z[i][j] = sum_{p ascending} U_z[p][i] * V_z[p][j]:  U_z [P][K], V_z [P][C], out_z [K][C]
//   (the NHWC 1x1 bwd-weights relation: U = dy, V = x), unsplit, so few blocks when K x C is small.
// conv.winograd's transformed-domain GEMMs (V: the input transforms, U: the filter transforms, or
// for bwd-weights the dy transforms).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

struct SimtBatchedGemm {
  const float* v = nullptr;
  const float* u = nullptr;
  float* out = nullptr;
  std::int64_t p = 0, c = 0, k = 0, batch = 0;
  bool channels_last = true;
  bool wgrad = false;  // the reduction over P (channels_last layouts)
};

// The tiles, "t<BM>x<BN>" over the kernel's (M, N): (P, K) channels-last, (K, P) else, (K, C) wgrad.
const std::vector<std::string>& simt_batched_gemm_tiles();
// The largest tile that wastes at most a fifth of its area on rows / columns past the matrix and
// still gives 264 blocks (two per SM of a 132-SM part); else t64x64. A function of the sizes only.
std::string simt_batched_gemm_default(const SimtBatchedGemm& g);
// Enqueues the GEMMs with `tile` (one of simt_batched_gemm_tiles()); InputError for a size past int
// or an unknown tile, RuntimeError when a launch fails.
void launch_simt_batched_gemm(const SimtBatchedGemm& g, const std::string& tile, hipStream_t stream,
                              const std::string& context);

}  // namespace hiprim::gpu
