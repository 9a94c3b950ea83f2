// Host-side plan of conv.winograd.tc.*'s bwd-weights GEMM (gpu/conv/winograd.hip), for callers that model its order
// without device code (the emulation tests, the accuracy tool):
//   M[b](k, c) = sum over the T = N * tiles terms of D[b](p, k) V[b](p, c),  m = K/G, n = C/G, K = T, batch = a^2 G,
// its K split as gemm_index.hpp's plan_split_k picks for the engine's tile.
#pragma once
#include <cstdint>

#include "core/conv_problem.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

inline GemmShape winograd_tc_wgrad_shape(const ConvProblem& p, int m) {
  const Dims out = p.out();
  const std::int64_t terms = p.n * ((out[0] + m - 1) / m) * ((out[1] + m - 1) / m);
  return GemmShape{p.k / p.groups, p.c / p.groups, terms, 1LL * (m + 2) * (m + 2) * p.groups};
}

// The tile sum's run length on Tile (ref::winograd_wgrad_fp32's chunk): 0 when the sum is not split.
template <typename Tile>
std::int64_t winograd_tc_wgrad_run_length(const ConvProblem& p, int m) {
  const GemmShape s = winograd_tc_wgrad_shape(p, m);
  const std::int64_t splits = plan_split_k(s, Tile::BM, Tile::BN);
  return splits > 1 ? split_k_chunk(s.k, splits, Tile::BK) : 0;
}

}  // namespace hiprim::gpu
