// The list of GPU op solvers: gpu::<name>_solvers() (declared in gpu/<name>/solvers.hpp, fastest
// first within the primitive) for every row of core/primitives.def, in table order.
#include "gpu/ops_registry.hpp"

namespace hiprim::gpu {

#define HIPRIM_PRIMITIVE(name, fill) OpSolverList name##_solvers();
#include "core/primitives.def"

const OpSolverList& gpu_op_solvers() {
  static const OpSolverList solvers = [] {
    OpSolverList l;
    for (const OpSolverList& part : {
#define HIPRIM_PRIMITIVE(name, fill) name##_solvers(),
#include "core/primitives.def"
         })
      l.insert(l.end(), part.begin(), part.end());
    return l;
  }();
  return solvers;
}

}  // namespace hiprim::gpu
