// The built-in ops' fills: verify::<name>_fill (verify/<name>_fill.cpp) for every row of
// core/primitives.def marked own_fill; the rows marked default_fill get default_op_fill.
#include "verify/op_fill.hpp"

namespace hiprim::verify {

// A row's declaration and registration, chosen by its fill column.
#define HIPRIM_FILL_DECLARE_own_fill(name) std::vector<HostTensor> name##_fill(const OpProblem& p, std::uint64_t seed);
#define HIPRIM_FILL_DECLARE_default_fill(name)
#define HIPRIM_FILL_REGISTER_own_fill(name) register_op_fill(#name, name##_fill);
#define HIPRIM_FILL_REGISTER_default_fill(name)

#define HIPRIM_PRIMITIVE(name, fill) HIPRIM_FILL_DECLARE_##fill(name)
#include "core/primitives.def"

void register_builtin_op_fills() {
#define HIPRIM_PRIMITIVE(name, fill) HIPRIM_FILL_REGISTER_##fill(name)
#include "core/primitives.def"
}

}  // namespace hiprim::verify
