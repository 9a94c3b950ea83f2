// GPU solvers of pooling, LRN, tensor ops and reduction against the CPU reference, through the op
// runner (guarded, NaN-poisoned buffers; every output compared with its per-element bound; max
// pooling and reduction indices compared exactly, which is the claim "ties and NaNs are broken the
// same way on CPU and GPU"; determinism re-run). Device tests GTEST_SKIP without a GPU.
#include <gtest/gtest.h>

#include <set>

#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "gpu/ops_registry.hpp"
#include "gpu/runtime/device.hpp"
#include "reference/op_reference.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "tests/gpu/op_device_run.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/pool_lrn_tensorop_reduce_cases.hpp"
#include "tests/gpu/skip_without_gpu.hpp"
#include "verify/runner.hpp"

namespace hiprim {
namespace {

// Every feature of the four primitives: modes, directions, 2D/3D, layouts, dtypes, sizes that hit
// and miss the vectorized solvers (C or the innermost dim a multiple of 4/8 or not), broadcasts,
// NaN modes and indices.
// Besides test_ops::kPoolLrnTensorOpReduceShared (pool_lrn_tensorop_reduce_cases.hpp):
const std::vector<const char*> kOwnProblems = {
    "pool bwd max fp16 nhwc n2 c16 in8x8 win3x3 pad1x1 str1x1",
    "pool fwd max fp32 ndhwc n1 c4 in4x5x6 win2x2x2 pad0x1x1 str1x2x2",
    "lrn fwd across bf16 ndhwc n1 c6 in3x4x5 size3 alpha1 beta0.75 k1",
    "tensorop mul bf16 a16 b16 alpha1=1 alpha2=1 beta=0",
    "reduce add fp32 nchw dims2x3x8x8 over2x3 nan_ignore",
    "reduce add bf16 nhwc dims2x3x8x8 over2x3 nan_ignore",
    "reduce max fp16 nhwc dims2x8x4x4 over1 nan_propagate indices",
    "reduce min bf16 dims5x7x9 over0x2 nan_ignore indices",
    "reduce amax fp32 ncdhw dims2x3x2x4x4 over0x2x4 nan_propagate indices",
    "reduce max fp32 dims6x50 over1 nan_ignore indices",
    "reduce max fp32 dims3x1000 over1 nan_propagate indices",
    "reduce min fp32 dims700x3 over0 nan_ignore indices",
    "reduce avg fp32 dims4x100 over1 nan_ignore",
    "reduce norm2 fp16 nchw dims2x4x6x6 over0x1 nan_ignore",
    "reduce add fp32 dims3000 over0 nan_ignore",
    "reduce add fp32 nchw dims8x4x64x64 over0x2x3 nan_ignore",
    "reduce max bf16 nhwc dims16x16x32x32 over0x2x3 nan_propagate indices",
    "reduce norm2 fp16 dims4x300000 over1 nan_ignore",
    "lrn bwd across bf16 nhwc n4 c96 in27x27 size5 alpha1e-04 beta0.75 k2",
    "lrn fwd across fp32 nchw n4 c96 in27x27 size5 alpha1e-04 beta0.75 k2",
};

TEST(PoolLrnTensorOpReduceGpu, EveryApplicableSolverPassesEveryProblem) {
  HIPRIM_SKIP_WITHOUT_GPU();
  verify::RunOptions o;
  o.seed = 7;
  const auto ran = test_ops::expect_solvers_pass(test_ops::op_problems(test_ops::with_shared(kOwnProblems)), gpu::gpu_op_solvers(), o);
  // Every solver of the four primitives was exercised (a refusal everywhere would hide it).
  for (const char* name : {"pool.global", "pool.direct", "pool.nhwc.vec", "lrn.across.tile", "lrn.direct", "tensorop.elementwise", "tensorop.vec",
                           "reduce.split", "reduce.blockwise", "reduce.threadwise"})
    EXPECT_TRUE(ran.count(name)) << name << " ran on no problem";
}

// All-equal inputs: every window / slice is one big tie; the GPU must pick what the reference
// picks (the first in-bounds window position, the first slice element).
TEST(PoolLrnTensorOpReduceGpu, AllTiedInputsGiveTheReferenceIndices) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const char* const problems[] = {
      "pool fwd max fp32 nchw n1 c2 in6x6 win3x3 pad1x1 str2x2",
      "pool fwd max fp16 nhwc n1 c8 in5x5 win3x3 pad2x2 str1x1",
      "reduce max fp32 nchw dims2x3x4x5 over1x3 nan_ignore indices",
      "reduce amax bf16 dims6x40 over1 nan_propagate indices",
  };
  int checked = 0;
  for (const char* s : problems) {
    const OpProblemPtr p = parse_op_problem(s);
    const auto ts = p->tensors();
    std::vector<HostTensor> in;
    for (const auto& t : ts) {
      HostTensor h(t.desc);
      for (auto& v : h.data) v = (t.name == "x" && std::string(s).find("amax") != std::string::npos) ? -2.0f : 2.0f;
      in.push_back(std::move(h));
    }
    std::vector<const HostTensor*> ref_in{&in[0], nullptr, nullptr};
    const auto want = ref::op_expected(*p, ref_in);
    for (const auto& solver : gpu::gpu_op_solvers()) {
      if (solver->op() != p->op() || !solver->applicable(*p)) continue;
      const auto got = gputest::run_op_on_device(*p, *solver, in);
      const HostTensor& idx = got.back();  // idx is the last tensor of both problems
      ASSERT_EQ(ts.back().name, "idx");
      for (std::size_t i = 0; i < idx.data.size(); ++i)
        ASSERT_EQ(idx.data[i], want.back().value[i]) << s << " on " << solver->name() << " at " << i;
      ++checked;
    }
  }
  EXPECT_GE(checked, 6);  // pool: direct (+ nhwc.vec for the nhwc case); reduce: both solvers twice
}

}  // namespace
}  // namespace hiprim
