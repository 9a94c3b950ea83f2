// The plan of conv.igemm.simt (gpu/conv/igemm_simt.hip), host C++ (tested without a GPU): which
// problems it takes, the GEMM it runs (gpu/conv/igemm_simt_kernel.hpp), its perf configs and the
// heuristic default, and the workspace.
//
// Problems: fp32, NHWC, 2D, groups 1, mode conv; every direction with any stride, pad and dilation.
// bwd-data runs per sub-pixel class (a, b) (gpu/conv/subpixel_taps.hpp: rows h = i*str + a reached
// by the taps r = r0 + t*step at dy row i + add + t*tstep) as a stride-1 fwd conv of dy with the
// class's flipped, transposed sub-filter w'[c][t'][u'][k] = w[k][r0 + (T-1-t')*step][..][c],
// dilation e = -tstep and pad' = (T-1)*e - add (may be negative):
//   dx[i*str + a] = sum_t dy[i + add - t*e] w[r0 + t*step] = sum_t' dy[i - pad' + t'*e] w'[t'],
// its output rows written at (i*str + a, j*str + b) of dx. Stride 1 is one class, the flipped conv
// (pad' = dil*(R-1) - pad). A class no tap reaches runs with kred = 0: it writes its zeros. No MAC
// meets a stride hole; dy's border taps are zero-filled loads (multiplied).
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

// One bwd-data sub-pixel class as a stride-1 fwd conv over dy (per axis h, w).
struct SimtConvClass {
  int a = 0, b = 0;                  // dx rows i*str_h + a, columns j*str_w + b
  int rows_h = 0, rows_w = 0;        // its output grid
  int taps_h = 0, taps_w = 0;        // sub-filter taps (0: no tap reaches the class)
  int r0 = 0, s0 = 0, step_h = 1, step_w = 1;  // filter taps r0 + t*step
  int pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;  // the stride-1 conv over dy
  std::int64_t m = 0, kred = 0;      // GEMM rows (pixels of the class) and reduction (taps x K)
  std::size_t w_offset = 0;          // its sub-filter in the workspace (bytes)
};

struct SimtConvPlan {
  std::string refusal;    // "" when the solver takes the problem
  bool wgrad = false;     // bwd-weights (else the fwd relation: fwd, or bwd-data's classes)
  bool classes_run = false;            // bwd-data: In = dy, W = the class sub-filters, Out = dx
  std::vector<SimtConvClass> classes;  // bwd-data, class a*str_w + b
  ConvProblem relation;   // fwd and bwd-weights: p itself
  std::int64_t m = 0, n = 0, kred = 0;  // GEMM sizes (bwd-data: the largest class's m and kred)
  std::size_t filter_bytes = 0;         // the sub-filters at the workspace's start
};

SimtConvPlan plan_simt_conv(const ConvProblem& p);
// Every config that can run p (empty when refused); the first is never split.
std::vector<SimtConvConfig> simt_conv_configs(const SimtConvPlan& pl);
// The heuristic's pick: a wave model of the resident blocks plus the split reduction's traffic.
SimtConvConfig simt_conv_default(const SimtConvPlan& pl);
// kk per slice of a config (a multiple of 8, at least 8) for a reduction of kred.
std::int64_t simt_conv_chunk(std::int64_t kred, const SimtConvConfig& c);
// Workspace of a run with config c: the sub-filters (bwd-data) then the partial sums (splits > 1;
// the classes run one after another and share them).
std::size_t simt_conv_workspace(const SimtConvPlan& pl, const SimtConvConfig& c);
inline std::size_t simt_conv_partial_offset(const SimtConvPlan& pl) { return pl.filter_bytes; }

}  // namespace hiprim::gpu
