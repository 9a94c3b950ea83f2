// Batch normalization problem: spatial or per-activation; forward training, forward inference,
// backward. No tuning knobs.
//
// Math (M = values per normalized group: N*D*H*W in spatial mode, N in per-activation mode; a
// group is a channel c (spatial) or a position (c, d, h, w) (per-activation)):
//   mean = sum x / M, var = sum (x - mean)^2 / M (biased), inv_std = 1 / sqrt(var + eps)
//   fwd-train: y = scale * (x - mean) * inv_std + bias; saved_mean = mean, saved_inv_std = inv_std;
//              running_mean <- (1 - momentum) * running_mean + momentum * mean
//              running_var  <- (1 - momentum) * running_var  + momentum * var * M / (M - 1)
//   fwd-infer: y = scale * (x - est_mean) / sqrt(est_var + eps) + bias
//   bwd (with the saved statistics; xhat = (x - saved_mean) * saved_inv_std):
//              dbias = sum dy, dscale = sum dy * xhat,
//              dx = scale * saved_inv_std / M * (M * dy - dbias - xhat * dscale)
// Tensors (in the order solvers receive them); x, y, dy, dx in the problem's dtype and layout; the
// per-group parameters [C] (spatial) or [1, C, (D,) H, W] in x's layout (per-activation): scale and
// bias in scale_dtype, the statistics (running, saved, estimated) and dscale, dbias in stats_dtype.
// Both default to fp32 (mixed precision); MIOpenDriver's bnormfp16 keeps them in fp16
// (BatchNormDriver<half, double, half>), bnormfp16fp32 has fp16 scale/bias and fp32 statistics.
//   fwd-train: x, scale, bias (in), running_mean, running_var (in_out), y, saved_mean, saved_inv_std (out)
//   fwd-infer: x, scale, bias, est_mean, est_var (in), y (out)
//   bwd:       x, dy, scale, saved_mean, saved_inv_std (in), dx, dscale, dbias (out)
//
// Canonical string (parse(print(p)) == p):
//   bnorm <fwd-train|fwd-infer|bwd> <spatial|per-act> <dtype> <layout> n<N> c<C> in<HxW> eps<e> [momentum<m>]
//         [scale=<dtype>] [stats=<dtype>]
//   e.g. "bnorm fwd-train spatial fp16 nhwc n8 c16 in7x7 eps1e-05 momentum0.1" (momentum: fwd-train only;
//   scale=/stats= printed only when not fp32)
// The parser accepts tokens in any order and omitted defaults (eps1e-05, momentum0.1, scale=fp32, stats=fp32).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class BnormDir { fwd_train, fwd_infer, bwd };
enum class BnormMode { spatial, per_activation };

std::string_view bnorm_dir_name(BnormDir d);    // "fwd-train", "fwd-infer", "bwd"
std::string_view bnorm_mode_name(BnormMode m);  // "spatial", "per-act"

inline constexpr double kBnormDefaultEpsilon = 1e-5;
inline constexpr double kBnormDefaultMomentum = 0.1;

struct BnormProblem {
  static constexpr std::string_view kOp = "bnorm";
  BnormDir dir = BnormDir::fwd_train;
  BnormMode mode = BnormMode::spatial;
  OpShape shape;  // x: dtype, layout, n, c, in
  double epsilon = kBnormDefaultEpsilon;
  std::optional<double> momentum = kBnormDefaultMomentum;  // fwd-train only (nullopt otherwise)
  DType scale_dtype = DType::fp32;  // scale, bias
  DType stats_dtype = DType::fp32;  // running/saved/estimated mean and variance, dscale, dbias

  std::int64_t group_size() const;  // M
  std::int64_t groups() const;      // C (spatial) or C*D*H*W (per-activation)
  TensorDesc param_desc(DType t = DType::fp32) const;  // [C] or [1, C, in...] in x's layout, dtype t
  TensorDesc scale_desc() const { return param_desc(scale_dtype); }
  TensorDesc stats_desc() const { return param_desc(stats_dtype); }
  bool fp32_parameters() const { return scale_dtype == DType::fp32 && stats_dtype == DType::fp32; }
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;
  bool operator==(const BnormProblem&) const = default;
};

std::string to_string(const BnormProblem& p);
BnormProblem parse_bnorm_problem_unchecked(std::string_view s);  // token errors only
BnormProblem parse_bnorm_problem(std::string_view s);            // and validation

}  // namespace hiprim
