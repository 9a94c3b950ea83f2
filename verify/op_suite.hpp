// Suites with op problems. Built in (embedded from verify/suites/, see verify/CMakeLists.txt):
//   smoke_ops: verify/suites/smoke_ops.txt, small op problems covering every primitive's features,
//              taken as written.
//   ops:       verify/suites/ops.txt, per-primitive cases, each line crossed with the dtypes fp32,
//              fp16, bf16 and both layouts (its own and the other channel order of the same rank),
//              by replacing the dtype and layout tokens; duplicates dropped.
// `smoke` means conv's smoke suite plus smoke_ops. A suite file (any other name) may mix conv lines
// and op lines; the first token decides.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/op_problem.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {

struct SuiteProblems {
  std::vector<ConvProblem> conv;
  std::vector<OpProblemPtr> ops;
  std::size_t size() const { return conv.size() + ops.size(); }
};

std::vector<std::string> op_suite_names();  // {"smoke_ops", "ops"}
// Every built-in suite name: conv's then the op suites.
std::vector<std::string> all_suite_names();
// Parses every line of a suite text (conv or op, by first token); InputError "<source>:<line>: ...".
SuiteProblems parse_mixed_suite(std::string_view text, const std::string& source_name);
// The ops suite's expansion of one problem string: dtypes fp32, fp16, bf16 x {its layout, the other
// channel order}; a string without a dtype or layout token is not expanded in that respect.
std::vector<std::string> expand_dtype_layout(const std::string& problem);
// A built-in name (conv's, smoke = conv smoke + smoke_ops, smoke_ops, ops) or a suite file.
SuiteProblems load_any_suite(const std::string& name_or_path, const SuiteOptions& opts);

}  // namespace hiprim::verify
