// The Winograd emu tests' bitwise check (test_winograd_emu.cpp, test_winograd_fused_emu.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/winograd_transforms.hpp"
#include "reference/winograd.hpp"
#include "emu/emulated_solver.hpp"

namespace hiprim {

// Outputs of the emulated conv.winograd solver s, run with `config` on p's inputs `in`, whose bits differ from
// reference/winograd.hpp's fp32 evaluation with F(m x m, 3 x 3) (bwd-weights: the tile sum in runs of `chunk`
// terms, 0 for one run; 16-bit outputs: that value rounded to the dtype once; operands: the dtype U and V (D and V)
// are stored in before the GEMM, conv.winograd.tc.*'s bf16). bwd-data reads dy, writes dx.
inline int winograd_bits_differing(const ConvSolver& s, const ConvProblem& p, const ref::ConvInputs& in, int m,
                                   const std::string& config, std::int64_t chunk, DType operands = DType::fp32) {
  const bool fwd = p.dir == ConvDir::fwd, wgrad = p.dir == ConvDir::bwd_weights;
  HostTensor want(fwd ? p.y_desc() : wgrad ? p.w_desc() : p.x_desc());
  want.data = wgrad ? ref::winograd_wgrad_fp32(p, winograd_f3(m), *in.x, *in.y, chunk, operands)
                    : ref::winograd_conv_fp32(p, winograd_f3(m), fwd ? *in.x : *in.y, *in.w, operands);
  return differing_elements(want.to_bytes(), run_emulated_conv(s, p, in, config), dtype_size(p.dtype));
}

}  // namespace hiprim
