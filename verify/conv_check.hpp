// Conv's part of the one runner (verify/case_check.hpp) and the conv view of a PreparedCase.
// Fill: the tier asked for, else exact when exact_fill_range(p) > 0, else bounded; tensor tags
// kTagX (x, dx), kTagW (w, dw), kTagY (y, dy), kTagBias (verify/fill.hpp). Oracle: ref::conv (naive
// below kFastThresholdMacs, fast above), the naive loops for a solver that needs_independent_oracle(),
// or the hooks' oracle. Judge: compare() with tolerance_for(p, tier, s.accumulation_error_factor()),
// or the hooks' judge / judge_bytes; a solver declaring the Winograd model (ConvSolver::error_model)
// is judged by the bounded rule with L = ref::winograd_depth and S = ref::winograd_conv_double's abs
// sum in place of the direct one, whatever the fill tier (reference/winograd.hpp); one declaring the
// FFT model likewise with L = ref::fft_conv_depth and S = ref::fft_conv_abs_sum (reference/fft_conv.hpp).
#pragma once
#include <cstdint>
#include <string_view>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify {

// The fill tag of a conv tensor by its tensors() name (its conv_slot, core/conv_solver.hpp): x and
// dx kTagX, w and dw kTagW, y and dy kTagY, bias kTagBias (InputError otherwise).
std::uint64_t conv_fill_tag(std::string_view tensor_name);

// The conv view of a case whose problem is a convolution (InputError otherwise).
const ConvProblem& conv_problem(const PreparedCase& c);
// The filled inputs of the problem's direction (the others null).
ref::ConvInputs conv_inputs(const PreparedCase& c);
// The oracle's answer (computed on first use and kept): ref::conv, or with naive_only the naive
// loops; the hooks' oracle, when given, replaces both.
const ref::ConvOutput& conv_expected(const PreparedCase& c, bool naive_only);
// algorithm_factor: the solver's accumulation_error_factor() (compare.hpp).
Tolerance conv_tolerance(const PreparedCase& c, double algorithm_factor = 1.0);
// The bounded rule of a Winograd F(m x m, 3 x 3) solver on p: tolerance_for(p, bounded) with the
// reduction length L = ref::winograd_depth (used with S, the algorithm on absolute values, as abs_sum),
// the solver's accumulation factor, and with 16-bit transformed operands (operands != fp32) their unit
// roundoff as the input unit (reference/winograd.hpp).
Tolerance winograd_tolerance(const ConvProblem& p, int m, double algorithm_factor = 1.0, DType operands = DType::fp32);
// The bounded rule of an FFT solver with T x T tiles on p: tolerance_for(p, bounded) with L =
// ref::fft_conv_depth(p, T) (used with S = ref::fft_conv_abs_sum as abs_sum: reference/fft_conv.hpp).
Tolerance fft_tolerance(const ConvProblem& p, int t);

}  // namespace hiprim::verify
