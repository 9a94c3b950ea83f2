// The plan of conv.igemm.simt (gpu/conv/igemm_simt.hip), host C++ (tested without a GPU): which
// problems it takes, the GEMM it runs (gpu/conv/igemm_simt_kernel.hpp), its perf configs and the
// heuristic default, and the workspace.
//
// Problems: fp32, NHWC, 2D, groups 1, mode conv; every direction with any stride, pad and dilation.
// NCHW: 1x1 pad-0 fwd (any stride) and stride-1 bwd-data, read in place: y[n] = W x[n] (columns =
// pixels), dx[n] = W^T dy[n]; the rest of NCHW runs as conv.igemm.simt.nchw (NHWC copies).
// bwd-data runs per sub-pixel class (a, b) (gpu/conv/subpixel_taps.hpp: rows h = i*str + a reached
// by the taps r = r0 + t*step at dy row i + add + t*tstep) as a stride-1 fwd conv of dy with the
// class's flipped, transposed sub-filter w'[c][t'][u'][k] = w[k][r0 + (T-1-t')*step][..][c],
// dilation e = -tstep and pad' = (T-1)*e - add (may be negative):
//   dx[i*str + a] = sum_t dy[i + add - t*e] w[r0 + t*step] = sum_t' dy[i - pad' + t'*e] w'[t'],
// its output rows written at (i*str + a, j*str + b) of dx. Stride 1 is one class, the flipped conv
// (pad' = dil*(R-1) - pad). A class no tap reaches runs with kred = 0: it writes its zeros. No MAC
// meets a stride hole; dy's border taps are zero-filled loads (multiplied).
// Column mode (few channels, C < 16: the ResNet stem, C = 3), config suffix ".col": the GEMMs run on
// col[j][q], j an output pixel (img, p, q), q = (r*S + s)*C + c (W's KRSC order), rows padded to
// ld = RSC rounded up to 4 with zeros (16-byte vector loads) (gpu/conv/igemm_simt_col.hpp):
//   fwd    col = im2col(x);  y[j][k] = sum_q col[j][q] w4[k][q]    (w4: W as [K][ld], zero-padded)
//   wgrad  col = im2col(x);  dw[k][q] = sum_j dy[j][k] col[j][q]
//   bwd-d  dcol[j][q] = sum_k dy[j][k] wt[q][k] (wt: W^T as [ld][K]); dx = col2im(dcol), a gather
//          over the taps that reach each dx element, ascending (r, s): no atomics.
// The direct bwd-data (GEMM columns = C) is refused for C < 16 on a large dx; there only .col runs.
// Configs: "t<BM>x<BN>.sk<S>[.col]", tile 128x128, 128x64, 64x128 or 64x64, S K slices in {1, 2, 4, ..., 512}
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
  bool col = false;  // column mode
  std::string str() const;
  bool operator==(const SimtConvConfig&) const = default;
};
// Parses "t128x64.sk4" or "t64x64.sk256.col"; InputError naming what is wrong for anything else.
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
  bool nchw_run = false;               // NCHW 1x1: M = Out's channels, N = pixels, kk = In's channels
  std::vector<SimtConvClass> classes;  // bwd-data, class a*str_w + b
  ConvProblem relation;   // fwd and bwd-weights: p itself
  std::int64_t m = 0, n = 0, kred = 0;  // GEMM sizes (bwd-data: the largest class's m and kred)
  std::size_t filter_bytes = 0;         // the sub-filters at the workspace's start
  std::string direct_refusal;           // "" when the direct (non-.col) configs run
  // Column mode (col_ok): its GEMM sizes, the col row pitch, and workspace pieces: the weight copy
  // (fwd w4, bwd-data wt; none for wgrad) then col (or dcol), each 256-byte aligned.
  bool col_ok = false;
  std::int64_t col_m = 0, col_n = 0, col_kred = 0, col_ld = 0;
  std::size_t col_w_bytes = 0, col_bytes = 0;
  bool col_preferred = false;           // the heuristic runs .col (C < 16 on a large x, or no direct)
};

SimtConvPlan plan_simt_conv(const ConvProblem& p);
// Every config that can run p (empty when refused); the first is never split.
std::vector<SimtConvConfig> simt_conv_configs(const SimtConvPlan& pl);
// The heuristic's pick: a wave model of the resident blocks plus the split reduction's traffic.
SimtConvConfig simt_conv_default(const SimtConvPlan& pl);
// kk per slice of a config (a multiple of 8, at least 8) for a reduction of kred.
std::int64_t simt_conv_chunk(std::int64_t kred, const SimtConvConfig& c);
// Workspace of a run with config c: the sub-filters (bwd-data; .col: the weight copy and col) then
// the partial sums (splits > 1; the classes run one after another and share them).
std::size_t simt_conv_workspace(const SimtConvPlan& pl, const SimtConvConfig& c);
// Where the split partial sums start: after the sub-filters, or after .col's weight copy and col.
inline std::size_t simt_conv_partial_offset(const SimtConvPlan& pl, const SimtConvConfig& c) {
  return c.col ? pl.col_w_bytes + pl.col_bytes : pl.filter_bytes;
}

}  // namespace hiprim::gpu
