// The GPU solvers of the non-convolution primitives, one list for all ops: every row of
// core/primitives.def contributes gpu::<name>_solvers() (fastest first per op). Names are append-only.
#pragma once
#include "core/op_solver.hpp"

namespace hiprim::gpu {

const OpSolverList& gpu_op_solvers();

}  // namespace hiprim::gpu
