// The built-in ops' references: one line per primitive (see core/op_problem.hpp, "Adding a primitive").
#include "reference/activ.hpp"
#include "reference/bnorm.hpp"
#include "reference/dropout.hpp"
#include "reference/lrn.hpp"
#include "reference/op_reference.hpp"
#include "reference/pool.hpp"
#include "reference/reduce.hpp"
#include "reference/softmax.hpp"
#include "reference/tensorop.hpp"

namespace hiprim::ref {

void register_builtin_op_references() {
  register_op_reference("bnorm", bnorm_expected);
  register_op_reference("activ", activ_expected);
  register_op_reference("softmax", softmax_expected);
  register_op_reference("dropout", dropout_expected);
  register_op_reference("pool", pool_expected);
  register_op_reference("lrn", lrn_expected);
  register_op_reference("tensorop", tensorop_expected);
  register_op_reference("reduce", reduce_expected);
}

}  // namespace hiprim::ref
