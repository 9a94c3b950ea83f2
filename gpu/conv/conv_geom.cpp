// The conv relation of a ConvProblem (gpu/conv/conv_geom.hpp): its operation per mode and direction,
// In/Out/W sizes and element strides as 5-entry [n, c, d, h, w] arrays (2D: depth 1, stride 0), and
// which of x, y, w plays In, Out and W.
#include "gpu/conv/conv_geom.hpp"

#include <string>


namespace hiprim::gpu {

ConvOp conv_op(const ConvProblem& p) {
  const bool conv = p.mode == ConvMode::conv;
  switch (p.dir) {
    case ConvDir::fwd: return conv ? ConvOp::out_from_in : ConvOp::in_from_out;
    case ConvDir::bwd_data: return conv ? ConvOp::in_from_out : ConvOp::out_from_in;
    case ConvDir::bwd_weights: return ConvOp::w_from_in_out;
  }
  return ConvOp::out_from_in;
}

namespace {

// Copies logical dims [a, b, spatial...] and their strides into 5-entry arrays (2D: depth 1, stride 0).
void to5(const TensorDesc& d, int* spatial, long long* strides) {
  const int skip = 3 - (static_cast<int>(d.dims.size()) - 2);
  strides[0] = d.strides[0];
  strides[1] = d.strides[1];
  for (int i = 0; i < 3; ++i) {
    spatial[i] = i < skip ? 1 : static_cast<int>(d.dims[2 + i - skip]);
    strides[2 + i] = i < skip ? 0 : d.strides[2 + i - skip];
  }
}

}  // namespace

ConvGeom conv_geom(const ConvProblem& p) {
  ConvGeom g;
  const bool conv = p.mode == ConvMode::conv;
  const TensorDesc x = p.x_desc(), y = p.y_desc(), w = p.w_desc();
  const TensorDesc& in = conv ? x : y;
  const TensorDesc& out = conv ? y : x;
  g.batch = static_cast<int>(p.n);
  g.groups = static_cast<int>(p.groups);
  g.in_ch = static_cast<int>(in.dims[1]);
  g.out_ch = static_cast<int>(out.dims[1]);
  to5(in, g.in_sz, g.in_str);
  to5(out, g.out_sz, g.out_str);
  to5(w, g.f_sz, g.w_str);
  const int skip = 3 - p.rank();
  for (int i = skip; i < 3; ++i) {
    g.stride[i] = static_cast<int>(p.stride[i - skip]);
    g.pad[i] = static_cast<int>(p.pad[i - skip]);
    g.dil[i] = static_cast<int>(p.dilation[i - skip]);
  }
  return g;
}

ConvOperands conv_operands(const ConvProblem& p, const ConvTensors& t) {
  if (p.mode == ConvMode::conv) return {t.x, t.y, t.w, t.bias};
  return {t.y, t.x, t.w, t.bias};
}

}  // namespace hiprim::gpu
