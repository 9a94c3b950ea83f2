// The list of GPU op solvers. Each primitive declares its factories in gpu/<prim>/solvers.hpp and
// appends them here (one include, one block), fastest first within the primitive.
#include "gpu/ops_registry.hpp"

#include "gpu/activ/solvers.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/dropout/solvers.hpp"
#include "gpu/lrn/solvers.hpp"
#include "gpu/pool/solvers.hpp"
#include "gpu/reduce/solvers.hpp"
#include "gpu/softmax/solvers.hpp"
#include "gpu/tensorop/solvers.hpp"

namespace hiprim::gpu {

const OpSolverList& gpu_op_solvers() {
  static const OpSolverList solvers = [] {
    OpSolverList l;
    for (const OpSolverList& part : {bnorm_solvers(), activ_solvers(), softmax_solvers(), dropout_solvers(),
                                     pool_solvers(), lrn_solvers(), tensorop_solvers(), reduce_solvers()})
      l.insert(l.end(), part.begin(), part.end());
    return l;
  }();
  return solvers;
}

}  // namespace hiprim::gpu
