// The built-in ops' fills: one line per primitive that shapes its data (see core/op_problem.hpp,
// "Adding a primitive"); ops without a line get default_op_fill. The fill functions live in
// verify/<prim>_fill.cpp.
#include "verify/op_fill.hpp"

namespace hiprim::verify {

std::vector<HostTensor> bnorm_fill(const OpProblem& p, std::uint64_t seed);    // verify/bnorm_fill.cpp
std::vector<HostTensor> activ_fill(const OpProblem& p, std::uint64_t seed);    // verify/activ_fill.cpp
std::vector<HostTensor> softmax_fill(const OpProblem& p, std::uint64_t seed);  // verify/softmax_fill.cpp
std::vector<HostTensor> dropout_fill(const OpProblem& p, std::uint64_t seed);  // verify/dropout_fill.cpp
std::vector<HostTensor> pool_fill(const OpProblem& p, std::uint64_t seed);     // verify/pool_fill.cpp
std::vector<HostTensor> reduce_fill(const OpProblem& p, std::uint64_t seed);   // verify/reduce_fill.cpp

void register_builtin_op_fills() {
  register_op_fill("bnorm", bnorm_fill);
  register_op_fill("activ", activ_fill);
  register_op_fill("softmax", softmax_fill);
  register_op_fill("dropout", dropout_fill);
  register_op_fill("pool", pool_fill);
  register_op_fill("reduce", reduce_fill);
}

}  // namespace hiprim::verify
