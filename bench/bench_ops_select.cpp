#include "bench/bench_ops_select.hpp"

#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "verify/suite_rewrite.hpp"

namespace hiprim::verify {

std::int64_t op_problem_batch(const OpProblem& p) {
  const auto ts = p.tensors();
  if (ts.empty() || ts.front().desc.dims.empty()) throw InputError("op problem " + p.str() + " has no tensor to take a batch from");
  return ts.front().desc.dims.front();
}

OpProblemPtr op_problem_at_batch(const OpProblem& p, std::int64_t batch) {
  const std::int64_t n = op_problem_batch(p);
  if (batch >= n) return p.clone();
  return parse_op_problem(rebatch_problem(p.str(), n, batch));
}

bool op_selected_by(const OpProblem& p, const std::string& token) {
  if (token == "all" || token == p.op()) return true;
  std::istringstream is(p.str());
  std::string t;
  is >> t;  // the op
  while (is >> t && !parse_dtype(t))
    if (t == token) return true;
  return false;
}

}  // namespace hiprim::verify
