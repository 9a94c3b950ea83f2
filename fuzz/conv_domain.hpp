// The generation domain of a convolution solver: which directions, dtypes, layouts and features the
// generator may produce so that the solver is fuzzed inside its applicability domain (constrained
// generation) instead of drawing mostly refused problems.
//
// Found by probing the solver's applicable(): an anchor problem it accepts (a small 2D 1x1 problem,
// trying channel counts 1..64, each dtype, layout and direction; failing every one, the same with a
// 3x3 filter and pad 1, and then the filter is fixed at 3), then the anchor with one feature
// switched on at a time (each direction, dtype, layout, 3D, transposed, groups, depthwise, filter > 1,
// padding, stride, dilation, bias), each tried in every accepted direction. A feature is in the
// domain when some probe with it is accepted. What the probes cannot see (refusals of feature
// combinations, size limits such as shared-memory budgets) shows up as discards, which campaigns count.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "fuzz/conv_special.hpp"

namespace hiprim::fuzz {

struct ConvDomain {
  std::vector<ConvDir> dirs{ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights};
  std::vector<DType> dtypes{DType::fp32, DType::fp16, DType::bf16};  // fp32 first: shrinking prefers it
  std::vector<bool> channels_last{false, true};                      // channels first preferred
  bool rank3 = true, trans = true, groups = true, depthwise = true, bias = true;
  bool filter_gt1 = true, pad = true, stride = true, dilation = true;
  // 0: any filter; else every spatial filter extent is this (the anchor had to be a 3x3 problem:
  // solvers of one filter size, e.g. conv.winograd.*, accept no 1x1 anchor).
  std::int64_t fixed_filter = 0;
  // > 1: every spatial filter extent is at least this (a 3x3 anchor, 1x1 refused, 5x5 taken too:
  // e.g. conv.fft.*, which takes 2 up to its tile minus one).
  std::int64_t min_filter = 1;
  // Special-value kinds drawn (none always included); campaigns drop a kind once it failed.
  std::vector<Special> specials = all_specials();
  std::int64_t channel_multiple = 1;  // c and k per group are multiples of this (the anchor's smallest accepted)
  // fp32 taken only with math=tf32 (conv.igemm.wgmma's TF32 path), in the directions tf32_dirs: the
  // generator puts the token on such a solver's fp32 cases, and gives an fp32 case of another
  // direction the domain's first 16-bit dtype instead (no case is drawn only to be refused).
  bool fp32_needs_tf32 = false;
  std::vector<ConvDir> tf32_dirs;
  bool found_anchor = true;           // false: no probe was accepted (the domain is the full one)
  std::string describe() const;       // one line: "dirs fwd,bwd-data; fp32,fp16; nchw,nhwc; 2D; trans; groups; ..."
  bool operator==(const ConvDomain&) const = default;
};

// Every valid problem.
ConvDomain full_conv_domain();
ConvDomain probe_conv_domain(const ConvSolver& s);

}  // namespace hiprim::fuzz
