// Pooling problem descriptor: max, average including padding, average excluding padding; 2D and 3D;
// forward and backward. No tuning knobs.
//
// Tensors (logical dims; the layout only changes strides):
//   x [N, C, in...]   y [N, C, out...]   out_i = (in_i + 2*pad_i - win_i) / str_i + 1  (floor)
//   Window o covers input positions o*str - pad + k, k in [0, win) per spatial dim. Every window lies
//   inside the padded input (floor mode), so avg_incl divides by prod(win); avg_excl divides by the
//   number of window positions inside the input (>= 1 because pad < win).
// Max pooling saves, per output, the index of the chosen input inside its window, k flattened in
// scan order ((kd*win_h + kh)*win_w + kw; depth absent in 2D), as an fp32 tensor "idx" with y's
// dims (integers < 2^24 are exact in fp32). Ties: the FIRST maximum in scan order wins; a NaN
// beats every number (the first NaN wins). CPU reference and GPU follow the same rule, so idx is
// compared exactly.
// Directions (tensors in the order solvers receive them):
//   fwd max:  x (in), y (out), idx (out)        fwd avg:  x (in), y (out)
//   bwd max:  dy (in), idx (in), dx (out)       bwd avg:  dy (in), dx (out)
//   bwd: dx[i] = sum over windows o containing i of dy[o] * (max: [i is o's saved index]; avg: 1/count(o)).
//
// Canonical string (one per problem; parse(print(p)) == p):
//   pool <fwd|bwd> <max|avg_incl|avg_excl> <dtype> <layout> n<N> c<C> in<HxW> win<RxS> pad<..> str<..>
//   e.g. "pool fwd max fp32 nchw n2 c16 in32x32 win3x3 pad1x1 str2x2"
// The parser also accepts tokens in any order and omitted defaults (pad0, str1).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim {

enum class PoolDir { fwd, bwd };
enum class PoolMode { max, avg_incl, avg_excl };

std::string_view pool_dir_name(PoolDir d);    // "fwd", "bwd"
std::string_view pool_mode_name(PoolMode m);  // "max", "avg_incl", "avg_excl"

struct PoolProblem {
  static constexpr std::string_view kOp = "pool";
  PoolDir dir = PoolDir::fwd;
  PoolMode mode = PoolMode::max;
  OpShape shape;  // dtype, layout, n, c, in (the input x)
  Dims window{1, 1};
  Dims pad{0, 0};
  Dims stride{1, 1};

  int rank() const { return shape.rank(); }
  Dims out() const;                      // spatial output sizes (may be <= 0 for invalid problems)
  std::int64_t window_elements() const;  // prod(window)

  // Every violated rule, each naming the quantities that break it; empty when valid.
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;  // see the table above
  double flops() const;                   // one compare or add per window position per output

  TensorDesc x_desc() const;    // [N, C, in...] in dtype
  TensorDesc y_desc() const;    // [N, C, out...] in dtype
  TensorDesc idx_desc() const;  // [N, C, out...] fp32 holding window indices (max mode only)

  bool operator==(const PoolProblem&) const = default;
};

std::string to_string(const PoolProblem& p);
// Throws InputError naming the bad token (its position and text) and the rule; validates too.
PoolProblem parse_pool_problem(std::string_view s);
// Parse without validation (for tests of validate()); still rejects malformed tokens.
PoolProblem parse_pool_problem_unchecked(std::string_view s);

}  // namespace hiprim
