// The plan of conv.igemm.simt (gpu/conv/igemm_simt.hip), host C++ (tested without a GPU): which
// problems it takes, the GEMM it runs (gpu/conv/igemm_simt_kernel.hpp), its perf configs and the
// heuristic default, and the workspace.
//
// Problems: fp32, NHWC, 2D, groups 1, mode conv; fwd and bwd-weights with any stride, pad and
// dilation; bwd-data with stride 1 and pad <= dil*(R-1) per axis, run as the fwd conv of dy with
// the flipped, transposed filter w'[c][r][s][k] = w[k][R-1-r][S-1-s][c] and pad' = dil*(R-1) - pad:
//   dx[h] = sum_r dy[h + pad - r*dil] w[r] = sum_r' dy[h - pad' + r'*dil] w'[r'],  r' = R-1-r.
// Configs: "t<BM>x<BN>.sk<S>", tile 128x128, 128x64 or 64x64, S K slices in {1, 2, 4, ..., 512}
// with at least 8 kk per slice and the S x M x N partial sums within 512 MiB; S > 1 writes fp32 partial sums to the workspace and a second kernel
// adds them in ascending slice order (deterministic).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"

namespace hiprim::gpu {

struct SimtConvConfig {
  int bm = 128, bn = 128, splits = 1;
  std::string str() const;
  bool operator==(const SimtConvConfig&) const = default;
};
// Parses "t128x64.sk4"; InputError naming what is wrong for anything else.
SimtConvConfig parse_simt_conv_config(const std::string& s);

struct SimtConvPlan {
  std::string refusal;    // "" when the solver takes the problem
  bool wgrad = false;     // bwd-weights (else the fwd relation: fwd, or bwd-data flipped)
  bool flip = false;      // bwd-data: In = dy, W = the flipped copy in the workspace, Out = dx
  ConvProblem relation;   // the fwd problem the fwd relation runs (flip: the twin); p itself for wgrad
  std::int64_t m = 0, n = 0, kred = 0;  // GEMM sizes
  std::size_t flip_bytes = 0;           // w' at the workspace's start (256-byte rounded)
};

SimtConvPlan plan_simt_conv(const ConvProblem& p);
// Every config that can run p (empty when refused); the first is never split.
std::vector<SimtConvConfig> simt_conv_configs(const SimtConvPlan& pl);
// The heuristic's pick: a wave model of the resident blocks plus the split reduction's traffic.
SimtConvConfig simt_conv_default(const SimtConvPlan& pl);
// kk per slice of a config (a multiple of 8).
std::int64_t simt_conv_chunk(const SimtConvPlan& pl, const SimtConvConfig& c);
// Workspace of a run with config c: w' (flip) then the partial sums (splits > 1).
std::size_t simt_conv_workspace(const SimtConvPlan& pl, const SimtConvConfig& c);
inline std::size_t simt_conv_partial_offset(const SimtConvPlan& pl) { return pl.flip_bytes; }

}  // namespace hiprim::gpu
