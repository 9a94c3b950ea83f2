// Activation problem: MIOpen's modes with MIOpen's alpha/beta/gamma meaning, plus GELU (erf and
// tanh forms) and SiLU; forward and backward. Elementwise, so the layout only changes strides.
//
// Math, y = f(x):
//   passthru    x                          logistic   1 / (1 + e^-x)
//   tanh        beta * tanh(alpha * x)     relu       max(0, x)
//   softrelu    log(1 + e^x)               abs        |x|
//   power       (alpha + beta * x)^gamma   clippedrelu min(alpha, max(0, x))
//   leakyrelu   x > 0 ? x : alpha * x      elu        x > 0 ? x : alpha * (e^x - 1)
//   gelu        x/2 * (1 + erf(x / sqrt 2))
//   gelu_tanh   x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
//   silu        x / (1 + e^-x)
// Backward: dx = dy * f'(x) (from x, not from y: the derivative is exact math on the stored input).
// At kinks the derivative takes the right-hand side's value except at 0 itself: relu, clippedrelu
// f'(0) = 0, abs f'(0) = 0, leakyrelu/elu f'(0) = the x <= 0 branch.
// Tensors: fwd: x (in), y (out); bwd: x, dy (in), dx (out); all in the dtype and layout.
//
// Canonical string: activ <fwd|bwd> <mode> <dtype> <layout> n<N> c<C> in<HxW> [alpha<a>] [beta<b>] [gamma<g>]
//   with exactly the coefficients the mode uses (tanh: alpha beta; power: alpha beta gamma;
//   clippedrelu, leakyrelu, elu: alpha), e.g. "activ fwd elu bf16 nchw n2 c3 in8x8 alpha1"
// Unused coefficients stay at their defaults (1) and are not printed.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class ActivDir { fwd, bwd };
// The first ten in MIOpen's miopenActivationMode_t order (0..9).
enum class ActivMode { passthru, logistic, tanh, relu, softrelu, abs, power, clippedrelu, leakyrelu, elu, gelu, gelu_tanh, silu };
inline constexpr int kActivModeCount = 13;

std::string_view activ_dir_name(ActivDir d);    // "fwd", "bwd"
std::string_view activ_mode_name(ActivMode m);  // "passthru", ..., "gelu_tanh", "silu"
std::optional<ActivMode> parse_activ_mode(std::string_view s);
// Which coefficients the mode uses.
bool activ_uses_alpha(ActivMode m);
bool activ_uses_beta(ActivMode m);
bool activ_uses_gamma(ActivMode m);

struct ActivProblem {
  static constexpr std::string_view kOp = "activ";
  ActivDir dir = ActivDir::fwd;
  ActivMode mode = ActivMode::relu;
  OpShape shape;
  double alpha = 1.0, beta = 1.0, gamma = 1.0;

  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;  // elements (one evaluation each)
  bool operator==(const ActivProblem&) const = default;
};

std::string to_string(const ActivProblem& p);
ActivProblem parse_activ_problem_unchecked(std::string_view s);
ActivProblem parse_activ_problem(std::string_view s);

}  // namespace hiprim
