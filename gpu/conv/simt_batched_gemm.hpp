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
//   (the NHWC 1x1 bwd-weights relation: U = dy, V = x). A split of the reduction (config ".sk<S>"):
//   slice s sums p in [s*chunk, (s+1)*chunk) (one fmaf chain from 0, p ascending) into
//   partial[s][z][K][C], then acc = 0, acc += partial[s] for s ascending (igemm_simt_launch.hpp's
//   reduction): many more blocks when K x C is small; chunk = simt_batched_gemm_split().
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
  float* partial = nullptr;  // wgrad split: simt_batched_gemm_partial_floats() floats
};

// The tiles, "t<BM>x<BN>" over the kernel's (M, N): (P, K) channels-last, (K, P) else, (K, C) wgrad.
const std::vector<std::string>& simt_batched_gemm_tiles();
// The configs of g: the tiles; wgrad: each tile with ".sk<S>", S in 1, 2, 4, ..., 32 slices asked.
std::vector<std::string> simt_batched_gemm_configs(const SimtBatchedGemm& g);
// The largest tile that wastes at most a fifth of its area on rows / columns past the matrix and
// still gives 264 blocks (two per SM of a 132-SM part; wgrad: 256 and 32768 threads, unsplit); else t64x64, or for
// wgrad the largest such tile split into the fewest slices (power of two, at least 128 terms each)
// that reach 65536 threads. A function of the sizes only.
std::string simt_batched_gemm_default(const SimtBatchedGemm& g);
// A config's reduction split: terms per slice (a multiple of 8, >= 8) and slices = ceil(P / chunk);
// unsplit (slices 1, chunk >= the reduction: P, or C without wgrad) for every non-wgrad config and ".sk1".
struct SimtBatchedSplit {
  std::int64_t chunk = 0, slices = 1;
};
SimtBatchedSplit simt_batched_gemm_split(const SimtBatchedGemm& g, const std::string& config);
// The floats of g.partial a run with config needs (0 unsplit).
std::int64_t simt_batched_gemm_partial_floats(const SimtBatchedGemm& g, const std::string& config);
// Enqueues the GEMMs with `config` (one of simt_batched_gemm_configs(g)); InputError for a size past
// int, an unknown config or a split without g.partial, RuntimeError when a launch fails.
void launch_simt_batched_gemm(const SimtBatchedGemm& g, const std::string& config, hipStream_t stream,
                              const std::string& context);

}  // namespace hiprim::gpu
