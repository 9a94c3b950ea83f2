// Fused inference chain (issue #14): a forward convolution followed by optional per-channel and
// elementwise steps, in this order, each at most once:
//   v0 = conv(x, w)                                   (core/conv_problem.hpp: fwd, mode conv, no bias of its own)
//   v1 = v0 + bias[k]                                 bias
//   v2 = (v1 - mean[k]) * scale[k] / sqrt(var[k] + eps) + shift[k]      bnorm-infer (spatial, per output channel)
//   v3 = alpha * v2 + beta * residual                 add (residual has y's dims and layout)
//   y  = f(v3)                                        activ (any mode of core/activ_problem.hpp, its alpha/beta/gamma)
// Rounding models (what a solver's intermediates are, reference/fusion.hpp derives the bounds):
//   fused   intermediates in fp32, one rounding to the dtype at the end (one kernel with an epilogue)
//   unfused every step's result rounded to the dtype (each step its own kernel, intermediates stored)
//
// Tensors (the order solvers receive them), all packed in the problem's layout:
//   x [N, C, H, W] input, dtype        w [K, C/G, R, S] input, dtype
//   bias [K] input, dtype (bias)
//   bn_scale, bn_shift, bn_mean, bn_var [K] input, fp32 (bnorm-infer; estimated statistics)
//   residual [N, K, P, Q] input, dtype (add)
//   y [N, K, P, Q] output, dtype
//
// Canonical string (parse(print(p)) == p):
//   fusion fwd <dtype> <layout> conv(n<N> c<C> k<K> in<HxW> f<RxS> pad<..> str<..> dil<..> g<G>) [bias]
//          [bnorm-infer(eps<e>)] [add(alpha<a> beta<b>)] [activ(<mode> [alpha<a>] [beta<b>] [gamma<g>])]
//          [rounding=unfused]
//   e.g. "fusion fwd bf16 nhwc conv(n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1) bias bnorm-infer(eps1e-05)
//         add(alpha1 beta1) activ(relu)"
// A step with parameters is one group "name(...)" that may span several whitespace-separated tokens;
// inside conv(...) the conv grammar applies (the shared token reader; defaults pad0 str1 dil1 g1),
// inside activ(...) the activ coefficients (only those the mode uses are printed). Accepted on input:
// bare "bnorm-infer" (eps1e-05), bare "add" (alpha1 beta1), rounding=fused (the default, not printed).
// The header tokens (fwd, dtype, layout, rounding=) may stand anywhere; the steps keep their order,
// so validate() can name a chain out of order or a step given twice.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/activ_problem.hpp"
#include "core/bnorm_problem.hpp"
#include "core/conv_problem.hpp"
#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

// In chain order.
enum class FusionOp { conv, bias, bnorm_infer, add, activ };
enum class FusionRounding { fused, unfused };

std::string_view fusion_op_name(FusionOp o);              // "conv", "bias", "bnorm-infer", "add", "activ"
std::string_view fusion_rounding_name(FusionRounding r);  // "fused", "unfused"

// One step of the chain; only the fields of its op are meaningful (the others keep their defaults).
struct FusionStep {
  FusionOp op = FusionOp::conv;
  ConvProblem conv;                     // conv: geometry (dtype and layout are the fusion's)
  double epsilon = 1e-5;                // bnorm-infer
  double alpha = 1, beta = 1;           // add: alpha * v + beta * residual
  ActivMode mode = ActivMode::relu;     // activ, with activ's alpha/beta/gamma:
  double activ_alpha = 1, activ_beta = 1, activ_gamma = 1;
  bool operator==(const FusionStep&) const = default;
};

// A step of kind op with every other field at its default.
inline FusionStep fusion_step(FusionOp op) {
  FusionStep s;
  s.op = op;
  return s;
}

struct FusionProblem {
  static constexpr std::string_view kOp = "fusion";
  DType dtype = DType::fp32;
  bool channels_last = false;
  std::vector<FusionStep> steps;  // steps[0] is conv in a valid problem
  FusionRounding rounding = FusionRounding::fused;

  // The first step of op o, or nullptr.
  const FusionStep* step(FusionOp o) const;
  bool has(FusionOp o) const { return step(o) != nullptr; }
  // The conv step's problem with the fusion's dtype and layout (default ConvProblem when absent).
  ConvProblem conv() const;
  // The activation as an ActivProblem fwd over y's shape (activ step required).
  ActivProblem activ() const;
  // y's shape (N, K, P, Q) as an OpShape of the dtype and layout.
  OpShape y_shape() const;
  TensorDesc y_desc() const;
  TensorDesc channel_desc(DType t) const;  // [K] packed

  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;  // conv's 2*MACs plus per element of y: bias 1, bnorm-infer 2, add 3, activ 1
  bool operator==(const FusionProblem&) const = default;
};

std::string to_string(const FusionProblem& p);
// The bnorm problem of a bnorm-infer step: spatial inference over y's shape with the step's epsilon,
// the data in `dtype` (the reference's intermediate type, or the fusion's own).
BnormProblem fusion_bnorm_problem(const FusionProblem& p, const FusionStep& st, DType dtype);
FusionProblem parse_fusion_problem_unchecked(std::string_view s);
FusionProblem parse_fusion_problem(std::string_view s);

}  // namespace hiprim
