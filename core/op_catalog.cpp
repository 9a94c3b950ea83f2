// The built-in ops' parsers: one line per primitive (see core/op_problem.hpp, "Adding a primitive").
#include "core/activ_problem.hpp"
#include "core/bnorm_problem.hpp"
#include "core/dropout_problem.hpp"
#include "core/lrn_problem.hpp"
#include "core/op_problem.hpp"
#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "core/softmax_problem.hpp"
#include "core/tensorop_problem.hpp"

namespace hiprim {

void register_builtin_op_parsers() {
  register_op_parser("bnorm", validating_op_parser(&parse_bnorm_problem_unchecked));
  register_op_parser("activ", validating_op_parser(&parse_activ_problem_unchecked));
  register_op_parser("softmax", validating_op_parser(&parse_softmax_problem_unchecked));
  register_op_parser("dropout", validating_op_parser(&parse_dropout_problem_unchecked));
  register_op_parser("pool", validating_op_parser(&parse_pool_problem_unchecked));
  register_op_parser("lrn", validating_op_parser(&parse_lrn_problem_unchecked));
  register_op_parser("tensorop", validating_op_parser(&parse_tensorop_problem_unchecked));
  register_op_parser("reduce", validating_op_parser(&parse_reduce_problem_unchecked));
}

}  // namespace hiprim
