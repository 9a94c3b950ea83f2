// Test-only mutant op solvers: the CPU reference with one planted bug each (host backend), to
// prove that the op fuzzer (fuzz/op_primitive.hpp) finds and shrinks real kinds of kernel bugs. Every
// mutant accepts every valid problem of its op and is correct outside its bug's reach (it runs the
// reference there), so a catch is the bug's.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/op_solver.hpp"

namespace hiprim::fuzz_test {

enum class OpBug {
  softmax_no_max,            // softmax fwd: e^x / sum e^x without subtracting the row maximum (overflow at |x| ~ 1e4)
  pool_edge_window,          // pool fwd: a window crossing the input's end stops one position early
  bnorm_biased_running_var,  // bnorm fwd-train: running_var updated with the biased variance (no M/(M-1))
  reduce_drop_last,          // reduce: the last element of each slice dropped when L is not a multiple of 4
  tensorop_wrong_bcast,      // tensorop: B's broadcast of the last two dims swapped
  lrn_window_short,          // lrn across fwd: the channel window ends one channel early
  fusion_activ_before_add,   // fusion: the activation applied before the residual add
  fusion_bias_twice,         // fusion: the bias added twice
};

std::vector<OpBug> all_op_bugs();
std::string op_bug_op(OpBug b);           // the op it belongs to: "softmax", ...
std::string op_bug_description(OpBug b);  // one line
// Host solver "mutant.<op>.<bug>".
std::shared_ptr<const OpSolver> make_op_mutant(OpBug b);

}  // namespace hiprim::fuzz_test
