// Softmax problem: softmax and log-softmax (MIOpen's algorithms fast, accurate, log), instance and
// channel modes, forward and backward.
//
// Rows: mode instance normalizes over C*(D*)H*W for each n; mode channel over C for each (n, d, h, w).
// Math over a row (m = max_j x_j; every algorithm here subtracts m, so "fast" is as stable as
// "accurate" and inputs of magnitude 1e4 give no Inf/NaN; fast and accurate are the same function):
//   softmax:     y_i = e^(x_i - m) / sum_j e^(x_j - m)
//   log-softmax: y_i = (x_i - m) - log(sum_j e^(x_j - m))
//   bwd softmax: dx_i = y_i * (dy_i - sum_j dy_j * y_j)
//   bwd log:     dx_i = dy_i - e^(y_i) * sum_j dy_j
// Tensors: fwd: x (in), y (out); bwd: y, dy (in), dx (out) (MIOpen's: the forward output y).
//
// Canonical string: softmax <fwd|bwd> <fast|accurate|log> <instance|channel> <dtype> <layout> n<N> c<C> in<HxW>
//   e.g. "softmax fwd log channel fp32 nhwc n2 c10 in4x4"
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"

namespace hiprim {

enum class SoftmaxDir { fwd, bwd };
enum class SoftmaxAlgo { fast, accurate, log };  // MIOpen's miopenSoftmaxAlgorithm_t order
enum class SoftmaxMode { instance, channel };     // MIOpen's miopenSoftmaxMode_t order

std::string_view softmax_dir_name(SoftmaxDir d);
std::string_view softmax_algo_name(SoftmaxAlgo a);  // "fast", "accurate", "log"
std::string_view softmax_mode_name(SoftmaxMode m);  // "instance", "channel"

struct SoftmaxProblem {
  static constexpr std::string_view kOp = "softmax";
  SoftmaxDir dir = SoftmaxDir::fwd;
  SoftmaxAlgo algo = SoftmaxAlgo::accurate;
  SoftmaxMode mode = SoftmaxMode::channel;
  OpShape shape;

  bool is_log() const { return algo == SoftmaxAlgo::log; }
  std::int64_t rows() const;        // N (instance) or N*D*H*W (channel)
  std::int64_t row_length() const;  // C*D*H*W (instance) or C (channel)
  std::vector<std::string> validate() const;
  std::vector<OpTensor> tensors() const;
  double flops() const;
  bool operator==(const SoftmaxProblem&) const = default;
};

std::string to_string(const SoftmaxProblem& p);
SoftmaxProblem parse_softmax_problem_unchecked(std::string_view s);
SoftmaxProblem parse_softmax_problem(std::string_view s);

}  // namespace hiprim
