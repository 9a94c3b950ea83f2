// Problems of the op bench (`hiprim bench --op ...`): the built-in suite resnet50_ops
// (verify/suites/resnet50_ops.txt: "<count> <canonical problem string>" per line, written at batch
// kResnet50OpsBatch, fp32, nchw) and the string rewrites that scale a problem's batch and swap its
// dtype and layout tokens.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {

// One op problem and how often it occurs in the network (the weight of the suite totals).
struct OpBenchProblem {
  OpProblemPtr problem;
  std::int64_t count = 1;
};

inline constexpr std::int64_t kResnet50OpsBatch = 32;  // the batch resnet50_ops.txt is written at

// One line of resnet50_ops.txt: the count and the problem string as written.
struct CountedLine {
  std::int64_t count = 1;
  std::string problem;
  int line = 0;
};
// The data lines of a counted suite text; InputError "<source>:<line>: ..." when a line does not
// start with a non-negative integer count followed by a problem string.
std::vector<CountedLine> counted_lines(std::string_view text, const std::string& source);

// The problem string with batch `from` replaced by `to`: the token n<from>, and a leading dim equal
// to `from` of the tokens a<..>, b<..> and dims<..> (tensorop, reduce; a broadcast b1x.. stays).
std::string rebatch_problem(const std::string& problem, std::int64_t from, std::int64_t to);
// The problem string with its dtype token replaced by dtype and its layout token (nchw/nhwc, or
// ncdhw/ndhwc for the 3-D one) by the channel order of channels_last; tokens it lacks stay absent.
std::string with_dtype_layout(const std::string& problem, DType dtype, bool channels_last);
// The batch of an op problem: dim 0 of its first tensor.
std::int64_t op_problem_batch(const OpProblem& p);
// p at batch min(batch, its own) (rebatch_problem on its string, parsed and validated).
OpProblemPtr op_problem_at_batch(const OpProblem& p, std::int64_t batch);

// resnet50_ops at opts.batch, for every opts.dtypes x opts.channels_last (outermost first), lines in
// file order. InputError for batch < 1 or empty lists.
std::vector<OpBenchProblem> resnet50_ops_suite(const SuiteOptions& opts);
// Whether `--op token` selects p: token is "all", p's op, or a token of p's string before its dtype
// ("relu" selects "activ fwd relu ...", "max" max pooling and max reductions, "bwd" every backward).
bool op_selected_by(const OpProblem& p, const std::string& token);
// Built-in op bench suite names: {"resnet50_ops"}.
std::vector<std::string> op_bench_suite_names();

}  // namespace hiprim::verify
