// The GPU convolution solvers, ordered fastest first; conv.naive (always applicable) is last.
// Names are append-only: a solver keeps its name for good.
#pragma once
#include "core/conv_solver.hpp"

namespace hiprim::gpu {

const ConvSolverList& gpu_conv_solvers();

}  // namespace hiprim::gpu
