// The built-in ops' references: ref::<name>_expected (reference/<name>.cpp) for every row of
// core/primitives.def.
#include "reference/op_reference.hpp"

namespace hiprim::ref {

#define HIPRIM_PRIMITIVE(name, fill) \
  std::vector<OpExpected> name##_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);
#include "core/primitives.def"

void register_builtin_op_references() {
#define HIPRIM_PRIMITIVE(name, fill) register_op_reference(#name, name##_expected);
#include "core/primitives.def"
}

}  // namespace hiprim::ref
