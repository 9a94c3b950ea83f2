// All solvers of the non-convolution primitives: the GPU registry (gpu/ops_registry.hpp, when built
// with a GPU backend) followed by one host solver per op that has a reference, "ref.<op>" (the
// reference's values rounded to the dtype: it exercises the runner, fills and tolerances on
// machines without a GPU). Selection is by glob (verify/solvers.hpp's match_solvers, shared with the
// conv solvers); a comma-separated list of globs selects the union.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "core/op_solver.hpp"
#include "verify/solvers.hpp"  // glob_match, glob_list_match, match_solvers

namespace hiprim::verify {

const OpSolverList& op_solvers();
// Solvers whose name matches any of the comma-separated globs (list order kept); empty when none.
OpSolverList match_op_solvers(const std::string& globs);
// Same, limited to solvers of `op`.
OpSolverList match_op_solvers(const std::string& globs, std::string_view op);
// Every solver of every primitive as the runner takes it (one buffer per tensors() entry): the conv
// solvers (conv_solvers(), each through a ConvOpSolver that keeps it alive), then op_solvers().
const OpSolverList& all_solvers();
// A conv solver's ConvOpSolver view, holding the solver (all_solvers()' conv entries; a solver
// outside the registry, such as a test's, the same way).
std::shared_ptr<const OpSolver> conv_op_solver(std::shared_ptr<const ConvSolver> s);

// The host solver "ref.<op>" (registered reference, values rounded to the tensors' dtypes).
std::shared_ptr<const OpSolver> make_op_reference_solver(const std::string& op);

}  // namespace hiprim::verify
