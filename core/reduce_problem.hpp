// Reduction (MIOpen's miopenReduceTensor): y = reduce_op over the dims in `over` of x; y keeps x's
// rank with the reduced dims set to 1 (and x's layout). Tensors of rank 1..5, packed; ranks 4 and 5
// may be channels last.
//   add: sum   mul: product   min, max   amax: max |x|   avg: sum / L   norm1: sum |x|
//   norm2: sqrt(sum x^2)        (L = elements reduced into one output)
// Indices (min, max, amax only): per output, the position of the chosen element in its reduced
// slice, flattened over the reduced dims in logical order (the last reduced dim fastest), stored
// as fp32 integers (exact: L <= 2^24 is required), as tensor "idx" with y's dims.
// Choice and ties (identical on CPU and GPU): the element with the best key wins (max: largest x;
// min: smallest x; amax: largest |x|), equal keys -> the lowest index (so -0 and +0 tie). NaN:
//   nan_propagate: a NaN beats every number (the first NaN is chosen: y = NaN);
//   nan_ignore:    a NaN loses to every number; an all-NaN slice gives NaN with index 0.
// For add, mul, avg, norm1, norm2 a NaN input makes the output NaN in both modes (arithmetic).
// Tensors in the order solvers receive them: x (in), y (out), [idx (out)].
//
// Canonical string (one per problem; parse(print(p)) == p):
//   reduce <add|mul|min|max|amax|avg|norm1|norm2> <dtype> [<layout>] dims<..> over<i x j ..>
//          <nan_propagate|nan_ignore> [indices]
//   e.g. "reduce max fp32 nchw dims2x16x8x8 over2x3 nan_ignore indices"
// over<..> lists the reduced dims, increasing, joined by 'x' like sizes ("over0", "over1x3").
// Omitted: layout channels first, nan_ignore, no indices.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class ReduceOp { add, mul, min, max, amax, avg, norm1, norm2 };
std::string_view reduce_op_name(ReduceOp o);
// min, max, amax: the ops that choose an element (and can report its index).
bool reduce_op_selects(ReduceOp o);

struct ReduceProblem {
  static constexpr std::string_view kOp = "reduce";
  ReduceOp op = ReduceOp::add;
  DType dtype = DType::fp32;
  bool channels_last = false;  // ranks 4 and 5 only
  Dims dims{1, 1, 1, 1};       // x's dims
  Dims over{0};                // reduced dims, strictly increasing
  bool propagate_nan = false;
  bool indices = false;

  int rank() const { return static_cast<int>(dims.size()); }
  std::string layout_name() const;  // "" for ranks other than 4 and 5
  Dims out_dims() const;            // dims with the reduced ones set to 1
  std::int64_t reduced_length() const;  // L = product of the reduced dims
  TensorDesc x_desc() const;
  TensorDesc y_desc() const;
  TensorDesc idx_desc() const;  // fp32, y's dims
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;  // one op per input element
  bool operator==(const ReduceProblem&) const = default;
};

std::string to_string(const ReduceProblem& p);
ReduceProblem parse_reduce_problem(std::string_view s);
ReduceProblem parse_reduce_problem_unchecked(std::string_view s);

}  // namespace hiprim
