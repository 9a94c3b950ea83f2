// CPU oracle for convolution: every direction (fwd, bwd-data, bwd-weights) of conv and transposed
// conv, 2D and 3D, groups, dilation, stride, pad, output padding, bias, any layout or strides.
//
// Math (Cg = C/G, Kg = K/G, positions are spatial vectors, "zero outside" = the term is absent):
//   mode conv:  y[n, k, o] = sum_{cc, f} x[n, g*Cg+cc, o*stride - pad + f*dil] * w[k, cc, f],  g = k / Kg
//   mode trans: y[n, g*Kg+kk, o] += x[n, g*Cg+cc, i] * w[g*Cg+cc, kk, f],  o = i*stride - pad + f*dil
//               (the adjoint of conv; output padding only enlarges y)
//   bwd-data and bwd-weights are the exact adjoints of fwd: the same terms x*w*y, summed into dx or dw.
//   fwd with bias adds bias[k] to every y[n, k, ...].
// Inputs are read through round_to(p.dtype, v) (values become what the dtype holds); sums are in double
// and the result stays double (the comparator rounds it to the dtype).
#pragma once
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::ref {

// The oracle's output: one double per element of the output tensor, indexed by the output desc's
// storage offset (size desc.storage_elements(); gaps of non-packed strides hold 0), and the sum of
// |terms| of each element's dot product (for error bounds; includes |bias|). abs_sum is empty when
// it was not asked for.
struct ConvOutput {
  TensorDesc desc;
  std::vector<double> value;
  std::vector<double> abs_sum;
};

// Inputs per direction (MIOpen roles): fwd uses x, w (+bias when p.bias); bwd-data uses y (=dy), w;
// bwd-weights uses x, y (=dy). Tensors may have any non-negative strides; their desc dims must match
// the problem's logical dims (InputError otherwise). Tensors a direction does not use are ignored.
struct ConvInputs {
  const HostTensor* x = nullptr;
  const HostTensor* w = nullptr;
  const HostTensor* y = nullptr;
  const HostTensor* bias = nullptr;
};

// out_desc: where to lay out the result (nullptr: the problem's packed desc of the output role: y for
// fwd, x for bwd-data, w for bwd-weights). Its dims must be the output role's logical dims and no two
// elements may share a storage offset.
// conv_naive: plain loops over every term (the oracle proper; use for small problems).
ConvOutput conv_naive(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum = true,
                      const TensorDesc* out_desc = nullptr);
// conv_fast: tiled im2col + Eigen GEMM in double over std::threads (threads = 0: hardware concurrency).
// The result does not depend on the thread count.
ConvOutput conv_fast(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum = true,
                     const TensorDesc* out_desc = nullptr, int threads = 0);

// conv() uses conv_naive below kFastThresholdMacs multiply-accumulates (p.macs()), conv_fast above.
inline constexpr double kFastThresholdMacs = 2e7;
ConvOutput conv(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum = true,
                const TensorDesc* out_desc = nullptr);

}  // namespace hiprim::ref
