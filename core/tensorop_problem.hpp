// Tensor ops (MIOpen's miopenOpTensor): C = op(alpha1 * A, alpha2 * B) + beta * C for op in
// add, mul, min, max, with B broadcast: every dim of B equals A's or is 1. A and C have the same
// dims; tensors of rank 1..5, packed; ranks 4 and 5 may be channels last (nhwc / ndhwc, C innermost).
// Scalars: solvers compute with alpha1, alpha2, beta rounded to fp32 (as MIOpen passes them); the
// reference uses the same values. With beta = 0, C is an output (never read, as in MIOpen: a NaN
// in C does not leak); otherwise C is read and updated in place.
// Tensors in the order solvers receive them: a (in), b (in), c (out, or in_out when beta != 0).
//
// Canonical string (one per problem; parse(print(p)) == p):
//   tensorop <add|mul|min|max> <dtype> [<layout>] a<dims> b<dims> alpha1=<r> alpha2=<r> beta=<r>
//   e.g. "tensorop add fp32 nchw a2x3x8x8 b1x3x1x1 alpha1=1 alpha2=1 beta=0"
// The layout token appears for ranks 4 (nchw|nhwc) and 5 (ncdhw|ndhwc) only. The scalars are
// written "name=value" because alpha1/alpha2 end in digits. Omitted: b = a, alpha1 = alpha2 = 1,
// beta = 0, layout channels first.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class TensorOpKind { add, mul, min, max };
std::string_view tensorop_kind_name(TensorOpKind k);  // "add", "mul", "min", "max"

struct TensorOpProblem {
  static constexpr std::string_view kOp = "tensorop";
  TensorOpKind op = TensorOpKind::add;
  DType dtype = DType::fp32;
  bool channels_last = false;  // ranks 4 and 5 only
  Dims a{1, 1, 1, 1};          // A's (and C's) dims
  Dims b{1, 1, 1, 1};          // B's dims: a[i] or 1 each
  double alpha1 = 1, alpha2 = 1, beta = 0;

  int rank() const { return static_cast<int>(a.size()); }
  std::string layout_name() const;  // "" for ranks other than 4 and 5
  TensorDesc a_desc() const;
  TensorDesc b_desc() const;
  TensorDesc c_desc() const;
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;  // 2 scalings, the op, and with beta the multiply-add: per element of C
  bool operator==(const TensorOpProblem&) const = default;
};

std::string to_string(const TensorOpProblem& p);
TensorOpProblem parse_tensorop_problem(std::string_view s);
TensorOpProblem parse_tensorop_problem_unchecked(std::string_view s);

// Layout names shared with reduce: "" for ranks other than 4/5, else nchw/nhwc/ncdhw/ndhwc.
std::string nd_layout_name(int rank, bool channels_last);
// channels_last of an optional layout token, checked against the tensor rank (InputError naming
// the token when a 4-D layout meets a 5-D tensor, say); false when absent.
bool nd_channels_last(const std::optional<OpTokens::Layout>& layout, std::size_t rank);

}  // namespace hiprim
