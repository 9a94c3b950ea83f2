// Dropout problem: forward and backward with a counter-based mask (core/philox.hpp), so the CPU
// reference and every solver drop exactly the same elements.
//
// Math: element with logical index i (NCHW order, last dim fastest: the same element in every
// layout) is dropped iff dropout_word(seed, i) < threshold, threshold = floor(rate * 2^32);
// kept elements are scaled by scale = fl32(1 / (1 - rate)) (the fp32 value, shared by all sides):
//   fwd: y = keep(i) ? x * scale : 0        bwd: dx = keep(i) ? dy * scale : 0
// The backward recomputes the mask from (seed, i): no reserve space is needed.
// Tensors: fwd: x (in), y (out); bwd: dy (in), dx (out).
//
// Canonical string: dropout <fwd|bwd> <dtype> <layout> n<N> c<C> in<HxW> rate<r> seed<S>
//   e.g. "dropout fwd fp32 nchw n2 c3 in8x8 rate0.5 seed42"
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class DropoutDir { fwd, bwd };
std::string_view dropout_dir_name(DropoutDir d);

struct DropoutProblem {
  static constexpr std::string_view kOp = "dropout";
  DropoutDir dir = DropoutDir::fwd;
  OpShape shape;
  double rate = 0.5;  // probability of dropping, in [0, 1)
  std::uint64_t seed = 0;

  std::uint32_t threshold() const;  // floor(rate * 2^32)
  float scale() const;              // fl32(1 / (1 - rate))
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;
  bool operator==(const DropoutProblem&) const = default;
};

std::string to_string(const DropoutProblem& p);
DropoutProblem parse_dropout_problem_unchecked(std::string_view s);
DropoutProblem parse_dropout_problem(std::string_view s);

}  // namespace hiprim
