// The built-in parsers: conv's (parse_conv_problem, its own messages) and one per row of
// core/primitives.def; and the table's names.
#include <algorithm>

#include "core/op_problem.hpp"
#include "core/primitives.hpp"
// The primitives' structs and parsers (a validating parser needs the complete struct): one include
// per row of core/primitives.def.
#include "core/activ_problem.hpp"
#include "core/bnorm_problem.hpp"
#include "core/conv_problem.hpp"
#include "core/ctc_problem.hpp"
#include "core/dropout_problem.hpp"
#include "core/fusion_problem.hpp"
#include "core/lrn_problem.hpp"
#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "core/rnn_problem.hpp"
#include "core/softmax_problem.hpp"
#include "core/tensorop_problem.hpp"

namespace hiprim {

void register_builtin_op_parsers() {
  register_op_parser(std::string(ConvProblem::kOp), [](std::string_view s) { return make_op_problem(parse_conv_problem(s)); });
#define HIPRIM_PRIMITIVE(name, fill) register_op_parser(#name, validating_op_parser(&parse_##name##_problem_unchecked));
#include "core/primitives.def"
}

const std::vector<std::string>& primitive_names() {
  static const std::vector<std::string> names = {
#define HIPRIM_PRIMITIVE(name, fill) #name,
#include "core/primitives.def"
  };
  return names;
}

bool is_primitive(std::string_view name) {
  const auto& n = primitive_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

}  // namespace hiprim
