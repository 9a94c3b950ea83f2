// Host side of the conv relation (gpu/conv/conv_index.hpp): which operation a problem's direction
// is, its ConvGeom, and which of the solver's buffers play In, Out and W.
#pragma once
#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "gpu/conv/conv_index.hpp"

namespace hiprim::gpu {

enum class ConvOp { out_from_in, in_from_out, w_from_in_out };

ConvOp conv_op(const ConvProblem& p);
// Sizes and strides of p (valid) as the relation In/Out/W; 2D problems get depth 1, stride 0.
ConvGeom conv_geom(const ConvProblem& p);

struct ConvOperands {
  void* in = nullptr;
  void* out = nullptr;
  void* w = nullptr;
  const void* bias = nullptr;  // added to y, which is Out (mode conv) or In (mode trans)
};
ConvOperands conv_operands(const ConvProblem& p, const ConvTensors& t);

}  // namespace hiprim::gpu
