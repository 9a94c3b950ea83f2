// The GPU op solvers (gpu/ops_registry.hpp) through the runner: every solver on every smoke_ops
// problem of its op (and a few larger shapes) must pass against the CPU reference, or be refused by
// its own applicable(). Device tests GTEST_SKIP without a GPU; the registry checks run anywhere.
#include <gtest/gtest.h>

#include <set>

#include "gpu/ops_registry.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/skip_without_gpu.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;

TEST(GpuOpRegistry, NamesAreUniqueAndPrefixedByTheirOp) {
  std::set<std::string> names;
  for (const auto& s : gpu::gpu_op_solvers()) {
    EXPECT_TRUE(names.insert(s->name()).second) << s->name();
    EXPECT_EQ(s->name().rfind(s->op() + ".", 0), 0u) << s->name();
    EXPECT_EQ(s->backend(), Backend::device) << s->name();
  }
  for (const char* op : {"bnorm", "activ", "softmax", "dropout"}) {
    bool found = false;
    for (const auto& s : gpu::gpu_op_solvers()) found = found || s->op() == op;
    EXPECT_TRUE(found) << op;
  }
}

TEST(GpuOpRegistry, RefusesOtherOpsWithAReason) {
  const auto relu = parse_op_problem("activ fwd relu fp32 nchw n1 c1 in2x2");
  for (const auto& s : gpu::gpu_op_solvers()) {
    if (s->op() == "activ") continue;
    const auto a = s->applicable(*relu);
    EXPECT_FALSE(a.ok) << s->name();
    EXPECT_FALSE(a.reason.empty()) << s->name();
  }
}

namespace {

// Every GPU solver on the problems of `op`: each passes or refuses (test_ops::expect_solvers_pass).
void run_all(const std::vector<OpProblemPtr>& problems, const std::string& op) {
  std::vector<OpProblemPtr> of_op;
  for (const auto& p : problems)
    if (p->op() == op) of_op.push_back(p);
  test_ops::expect_solvers_pass(of_op, gpu::gpu_op_solvers());
}

std::vector<OpProblemPtr> smoke_plus(const std::vector<const char*>& extra) { return test_ops::op_problems(extra, "smoke_ops"); }

}  // namespace

TEST(GpuOps, Bnorm) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_all(smoke_plus({"bnorm fwd-train spatial fp32 nhwc n8 c33 in9x7 eps1e-05 momentum0.1",
                      "bnorm bwd spatial fp16 nchw n8 c3 in31x33 eps1e-05", "bnorm fwd-train per-act bf16 nhwc n7 c5 in9x9 eps1e-05 momentum0.9"}),
          "bnorm");
}

// ResNet-50-like shapes at small batch: many slices per channel for bnorm.spatial.multiblock
// (channel tiles of 32 packs, planes longer and shorter than a block, 16-byte packs), and two at
// batch 32 that overflow bnorm.spatial.persistent's shared-memory cache (x re-read in the later passes).
TEST(GpuOps, BnormLargeSpatial) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::vector<OpProblemPtr> v;
  for (const char* s : {"bnorm fwd-train spatial bf16 nhwc n4 c256 in56x56 eps1e-05 momentum0.1",
                        "bnorm bwd spatial bf16 nhwc n4 c64 in56x56 eps1e-05",
                        "bnorm fwd-train spatial fp32 nchw n4 c64 in56x56 eps1e-05 momentum0.1",
                        "bnorm bwd spatial fp16 nchw n8 c512 in7x7 eps1e-05",
                        "bnorm fwd-infer spatial bf16 nhwc n4 c2048 in7x7 eps1e-05",
                        "bnorm fwd-train spatial fp16 ndhwc n2 c24 in8x30x30 eps1e-05 momentum0.1",
                        "bnorm fwd-train spatial fp32 nhwc n32 c64 in112x112 eps1e-05 momentum0.1",
                        "bnorm bwd spatial bf16 nchw n32 c64 in112x112 eps1e-05"})
    v.push_back(parse_op_problem(s));
  run_all(v, "bnorm");
}

TEST(GpuOps, Activ) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_all(smoke_plus({"activ fwd gelu fp16 nhwc n3 c5 in7x9", "activ bwd silu bf16 nchw n2 c8 in16x16",
                      "activ bwd tanh fp32 nchw n1 c1 in1x3 alpha2 beta0.5"}),
          "activ");
}

TEST(GpuOps, Softmax) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_all(smoke_plus({"softmax fwd accurate channel bf16 nhwc n2 c1500 in2x2", "softmax bwd log instance fp16 nchw n3 c33 in9x9",
                      "softmax fwd log channel bf16 nchw n32 c1000 in1x1", "softmax bwd accurate instance fp32 nchw n4 c30000 in1x1",
                      "softmax fwd accurate instance bf16 nchw n4 c100000 in1x1"}),
          "softmax");
}

TEST(GpuOps, Dropout) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_all(smoke_plus({"dropout fwd fp16 nhwc n3 c5 in7x9 rate0.5 seed9", "dropout bwd bf16 nchw n2 c8 in16x15 rate0.75 seed10"}),
          "dropout");
}
