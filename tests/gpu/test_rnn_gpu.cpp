// The rnn.gemm and rnn.mma solvers on the GPU against the CPU reference through the op runner (guarded,
// poisoned buffers; every output element within the derived bound of reference/rnn_bound.hpp;
// inputs unchanged; determinism re-run): the emulation's problems (tests/gpu/rnn_cases.hpp) and the
// launch-limit shapes (batch x seq > 65,536 rows, fp16 batches > 100). GTEST_SKIP without a GPU.
#include <gtest/gtest.h>

#include "gpu/ops_registry.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/rnn_cases.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

namespace hiprim {
namespace {

TEST(RnnGpu, EverySolverWithinTheBound) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::vector<const char*> lines(std::begin(test_rnn::kProblems), std::end(test_rnn::kProblems));
  lines.push_back("rnn fwd lstm fp32 layers1 hidden8 input8 seq72 n1024 uni bias");      // 73,728 rows
  lines.push_back("rnn bwd-data gru fp16 layers1 hidden8 input5 seq80 n1000 bidir bias");  // 80,000 rows, fp16
  lines.push_back("rnn bwd-weights lstm fp16 layers2 hidden8 input8 seq4 n200 bidir bias");
  lines.push_back("rnn bwd-data lstm bf16 layers1 hidden8 input8 seq72 n1024 uni bias");  // 73,728 rows, bf16 (rnn.mma)
  OpSolverList rnn;
  for (const auto& s : gpu::gpu_op_solvers())
    if (s->op() == "rnn") rnn.push_back(s);
  ASSERT_EQ(rnn.size(), 6u);
  const auto ran = test_ops::expect_solvers_pass(test_ops::op_problems(lines), rnn);
  for (const char* name : {"rnn.gemm.fwd", "rnn.gemm.bwd_data", "rnn.gemm.bwd_weights", "rnn.mma.fwd", "rnn.mma.bwd_data",
                           "rnn.mma.bwd_weights"})
    EXPECT_GT(ran.count(name) ? ran.at(name) : 0, 0) << name;
}

}  // namespace
}  // namespace hiprim
