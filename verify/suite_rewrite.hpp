// The string rewrites of the generated suites (verify/suite.hpp): a problem string's tokens
// replaced, never its struct rebuilt, so any primitive's line is rewritten the same way.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace hiprim::verify {

inline constexpr std::int64_t kResnet50OpsBatch = 32;  // the batch resnet50_ops.txt is written at

// One line of a counted suite text (resnet50_ops.txt): the count and the problem string as written.
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
// The ops suite's expansion of one problem string: dtypes fp32, fp16, bf16 x {its layout, the other
// channel order}; a string without a dtype or layout token is not expanded in that respect.
std::vector<std::string> expand_dtype_layout(const std::string& problem);

}  // namespace hiprim::verify
