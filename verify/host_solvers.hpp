// Host solvers: CPU implementations wrapped as solvers. "ref.conv.fast" is the fast reference
// (im2col + Eigen GEMM in double, rounded once to the dtype). It is the solver under test on
// machines without a GPU, checked against the naive reference.
#pragma once
#include <memory>

#include "core/conv_solver.hpp"

namespace hiprim::verify {

std::shared_ptr<const ConvSolver> make_fast_reference_solver();
inline constexpr const char* kFastReferenceSolverName = "ref.conv.fast";

}  // namespace hiprim::verify
