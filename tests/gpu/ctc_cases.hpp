// Shared by the CTC solver tests on the host emulation (test_ctc_emu.cpp) and on a GPU
// (test_ctc_gpu.cpp): the problems, and the data-rule check (a sequence that breaks one of MIOpen's
// rules gets NaN loss and gradients, the others are unchanged, and the host reference refuses the data).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/op_solver.hpp"
#include "reference/op_reference.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::test_ctc {

// Beyond smoke_ops/ops: sequences on more blocks than sequences per kind, C < a team, T = 1 with
// probabilities, a blank inside, fp16 probabilities, more states than the shared-memory rows hold.
inline const std::vector<const char*> kProblems = {
    "ctc fp32 t7 n9 c3 l4 blank2 softmax", "ctc fp16 t5 n6 c7 l3 blank3 probs", "ctc bf16 t1 n5 c3 l1 blank0 softmax",
    "ctc fp32 t33 n5 c2 l20 blank0 probs",  // C = 2: every label repeats its neighbour
    "ctc fp32 t25 n5 c70 l12 blank69 softmax",
    "ctc fp32 t700 n3 c6 l300 blank0 softmax",  // S up to 601: past the kernel's shared-memory rows (512)
};

// Runs a solver on host tensors (tensors() order) and returns every tensor after the run.
using RunFn = std::function<std::vector<HostTensor>(const OpProblem&, const OpSolver&, const std::vector<HostTensor>&)>;

// One broken sequence (b = 2) at a time: the solver's losses[2] and grads[:, 2, :] are NaN, every other
// sequence's outputs are bit-identical to the run on the intact data, and the reference throws
// InputError naming sequence 2.
inline void expect_data_rules_give_nan(const OpSolver& s, const RunFn& run) {
  const OpProblemPtr p = parse_op_problem("ctc fp32 t8 n4 c5 l3 blank0 softmax");
  const std::int64_t T = 8, N = 4, C = 5, L = 3, bad = 2;
  const auto clean_in = verify::op_fill(*p, 3);
  const auto clean = run(*p, s, clean_in);
  struct Break {
    const char* what;
    std::function<void(std::vector<HostTensor>&)> apply;
  };
  const std::vector<Break> breaks = {
      {"a label is the blank", [&](auto& in) { in[2].data[bad] = 2, in[1].data[bad * L] = 0, in[3].data[bad] = 8; }},
      {"a label id >= C", [&](auto& in) { in[2].data[bad] = 1, in[1].data[bad * L] = 5, in[3].data[bad] = 8; }},
      {"a label id not an integer", [&](auto& in) { in[2].data[bad] = 1, in[1].data[bad * L] = 1.5f, in[3].data[bad] = 8; }},
      {"label length > L", [&](auto& in) { in[2].data[bad] = 4, in[3].data[bad] = 8; }},
      {"label length < 0", [&](auto& in) { in[2].data[bad] = -1; }},
      {"input length 0", [&](auto& in) { in[3].data[bad] = 0; }},
      {"input length > T", [&](auto& in) { in[3].data[bad] = 9; }},
      {"input length NaN", [&](auto& in) { in[3].data[bad] = std::nanf(""); }},
      {"label length + repeats > input length",
       [&](auto& in) { in[2].data[bad] = 2, in[1].data[bad * L] = 1, in[1].data[bad * L + 1] = 1, in[3].data[bad] = 2; }},  // 2 + 1 > 2
  };
  for (const Break& br : breaks) {
    auto in = clean_in;
    br.apply(in);
    std::vector<const HostTensor*> ref_in = {&in[0], &in[1], &in[2], &in[3], nullptr, nullptr};
    try {
      ref::op_expected(*p, ref_in);
      ADD_FAILURE() << br.what << ": the reference accepted the data";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("sequence 2"), std::string::npos) << br.what << ": " << e.what();
    }
    const auto got = run(*p, s, in);
    EXPECT_TRUE(std::isnan(got[4].data[bad])) << br.what << ": loss " << got[4].data[bad];
    for (std::int64_t b = 0; b < N; ++b) {
      if (b != bad) EXPECT_EQ(std::memcmp(&got[4].data[b], &clean[4].data[b], sizeof(float)), 0) << br.what << ": loss of sequence " << b;
      for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t k = 0; k < C; ++k) {
          const std::size_t i = static_cast<std::size_t>((t * N + b) * C + k);
          if (b == bad) EXPECT_TRUE(std::isnan(got[5].data[i])) << br.what << ": grad t" << t << " k" << k;
          else EXPECT_EQ(std::memcmp(&got[5].data[i], &clean[5].data[i], sizeof(float)), 0) << br.what << ": grad of sequence " << b;
        }
    }
  }
}

}  // namespace hiprim::test_ctc
