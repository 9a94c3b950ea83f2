// The built-in ops' references: ref::<name>_expected (reference/<name>.cpp) for every row of
// core/primitives.def.
#include "reference/op_reference.hpp"

namespace hiprim::ref {

#define HIPRIM_PRIMITIVE(name, fill) \
  std::vector<OpExpected> name##_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);
#include "core/primitives.def"

std::vector<OpExpected> fusion_expected_with(const OpProblem& p, const std::vector<const HostTensor*>& inputs,
                                             const OpReferenceOptions& o);

void register_builtin_op_references() {
#define HIPRIM_PRIMITIVE(name, fill) register_op_reference(#name, OpReferenceFn(name##_expected));
#include "core/primitives.def"
  // fusion's conv bound scales with the solver's accumulation factor (tensor-core adds: 2).
  register_op_reference("fusion", OpReferenceWithOptionsFn(fusion_expected_with));
}

}  // namespace hiprim::ref
