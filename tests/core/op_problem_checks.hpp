// Checks shared by the op problem tests: the validation messages in one string, and the canonical
// string round trip every op problem promises.
#pragma once
#include <rapidcheck.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/op_problem.hpp"

namespace hiprim::test_op {

// Every message of validate(), one a line ("" when valid).
inline std::string all_errors(const std::vector<std::string>& v) {
  std::string s;
  for (auto& e : v) s += e + "\n";
  return s;
}

// Inside a RapidCheck property: p is valid, parse(to_string(p)) == p and prints the same string
// again, and the registry (parse_op_problem) reads the string to the same problem.
template <typename P>
void check_round_trip(const P& p, P (*parse)(std::string_view)) {
  RC_ASSERT(p.validate().empty());
  const std::string s = to_string(p);
  const P q = parse(s);
  RC_ASSERT(q == p);
  RC_ASSERT(to_string(q) == s);
  const OpProblemPtr op = parse_op_problem(s);
  RC_ASSERT(op->str() == s);
  RC_ASSERT(op->equals(*make_op_problem(p)));
}

}  // namespace hiprim::test_op
