// Local response normalization (MIOpen's LRN): within-channel and across-channel, forward and
// backward, 2D and 3D.
//
//   y = x * s^-beta,   s = k + (alpha / A) * sum_{j in W(i)} x_j^2
//   across: W(i) = channels c-(n-1)/2 .. c+(n-1)/2 at the same position (clipped to [0, C)), A = n
//   within: W(i) = the n x n (x n in 3D) spatial box centred on i in the same channel (clipped to
//           the input; padding counts as 0), A = n^rank
// (MIOpen's alphaoverarea: alpha/n across, alpha/(n*n) within, as MIOpenDriver's host check
// computes it: A stays n^rank at the borders.) 3D is this definition with a cubic window (MIOpen's
// LRN is 4-D only). n must be odd so that W(i) is centred; k > 0 and alpha >= 0 keep s >= k > 0.
// Backward (W is symmetric: j in W(i) <=> i in W(j)):
//   dx_i = dy_i * s_i^-beta - (2*alpha*beta/A) * x_i * sum_{j in W(i)} dy_j * x_j * s_j^(-beta-1)
// Scalars: solvers compute with alpha, beta, k rounded to fp32; the reference uses the same values.
// Tensors in the order solvers receive them:
//   fwd: x (in), y (out)          bwd: x (in), dy (in), dx (out)
// (MIOpen's backward also takes y and a saved scale; here both are recomputed from x.)
//
// Canonical string (one per problem; parse(print(p)) == p):
//   lrn <fwd|bwd> <within|across> <dtype> <layout> n<N> c<C> in<HxW> size<n> alpha<a> beta<b> k<k>
//   e.g. "lrn fwd across fp32 nchw n2 c16 in8x8 size5 alpha1e-04 beta0.75 k1"
// Omitted size/alpha/beta/k take MIOpenDriver's defaults (5, 0.001, 0.75, 1).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class LrnDir { fwd, bwd };
enum class LrnMode { within, across };

std::string_view lrn_dir_name(LrnDir d);    // "fwd", "bwd"
std::string_view lrn_mode_name(LrnMode m);  // "within", "across"

struct LrnProblem {
  static constexpr std::string_view kOp = "lrn";
  LrnDir dir = LrnDir::fwd;
  LrnMode mode = LrnMode::across;
  OpShape shape;
  std::int64_t size = 5;  // n: the window's extent (channels, or spatial positions per dim)
  double alpha = 0.001, beta = 0.75, k = 1.0;

  // Window positions: n (across) or n^rank (within); MIOpen's "area".
  std::int64_t area() const;
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;
  bool operator==(const LrnProblem&) const = default;
};

std::string to_string(const LrnProblem& p);
LrnProblem parse_lrn_problem(std::string_view s);
LrnProblem parse_lrn_problem_unchecked(std::string_view s);

}  // namespace hiprim
