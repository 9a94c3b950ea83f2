// Deliberately broken convolution solvers (test-only "mutants") that prove the fuzzer bites.
// Each is a plain host direct convolution (fp32 accumulation, stores rounded to the dtype) with one
// realistic kernel bug switched on; Bug::none is the same loops without a bug (the control, which
// must pass every case the fuzzer draws, special values included).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"

namespace hiprim::fuzz_test {

enum class Bug {
  none,
  pad_off_by_one,   // the zero-padding test on the width uses <= instead of <: reads the element past the row
  bwd_data_stride,  // bwd-data divides by the height's stride on the width too (right when they are equal)
  dropped_tail,     // the output's innermost dim is covered in tiles of 4; the remainder is never written
  bf16_truncation,  // bf16 stores truncate the fp32 accumulator instead of rounding to nearest even
  dw_overwrite,     // bwd-weights writes each image's partial sum instead of adding it (only the last image stays)
  group_offset,     // the input-channel base of a group is computed as (out channel % groups) * per-group
  // Not in all_bugs() (a run-to-run bug, not a wrong answer): fwd/bwd-data sum three partials (terms
  // split by reduction channel % 3) starting at partial (call count % 3), the host twin of
  // conv.igemm.wgmma's splitk_order GPU mutant; only the runner's repeat-run determinism check sees it.
  varying_order,
};

std::string bug_name(Bug b);         // "none", "pad_off_by_one", ...
std::string bug_description(Bug b);  // one line: the bug as a kernel would have it
std::vector<Bug> all_bugs();         // none and varying_order excluded

// Solver "mutant.<bug name>" (host backend, every valid problem).
std::shared_ptr<const ConvSolver> make_host_mutant(Bug b);

// "test.ftz": Bug::none with subnormal outputs flushed to zero; only special subnormal data shows it.
std::shared_ptr<const ConvSolver> make_flush_to_zero_solver();

}  // namespace hiprim::fuzz_test
