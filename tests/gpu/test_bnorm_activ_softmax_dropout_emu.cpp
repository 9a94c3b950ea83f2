// The bnorm, activ, softmax and dropout GPU solvers, their kernel sources compiled for the host
// emulation of the HIP layer (tests/gpu/emu: every thread of a block is a CPU thread meeting the
// others at __syncthreads(), warpSize 64), through the runner against the CPU reference: group
// and row index math in both layouts, the 4-wide packs and tails, the shared-memory trees, the
// Philox mask on the "device" side. Every smoke_ops problem of these ops plus shapes that cross
// block and pack boundaries (few rows/groups: every block costs the emulation 256 CPU threads
// meeting at each barrier). (Timing, coalescing and the real compilers' math libraries are the
// device run's business; tests/gpu/test_ops_math.cpp checks the activation formulas' error model.)
#include <gtest/gtest.h>

#include "emu/emulated_solver.hpp"
#include "emu/misaligned.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "verify/runner.hpp"

namespace hiprim::gpu_emu {  // the emulated build of hiprim::gpu (compiled with -Dgpu=gpu_emu)
OpSolverList bnorm_solvers();
OpSolverList activ_solvers();
OpSolverList softmax_solvers();
OpSolverList dropout_solvers();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

// The solvers (of `op`) on the host emulation over the suite's problems of that op and `extra`:
// each passes or refuses (test_ops::expect_solvers_pass), and at least one problem ran.
void run_emulated(const std::string& op, const OpSolverList& solvers, const std::vector<const char*>& extra,
                  const char* suite = "smoke_ops") {
  std::vector<OpProblemPtr> problems;
  for (auto& p : test_ops::op_problems(extra, suite))
    if (p->op() == op) problems.push_back(p);
  OpSolverList emulated;
  for (const auto& s : solvers) emulated.push_back(std::make_shared<EmulatedOpSolver>(s));
  int ran = 0;
  for (const auto& [name, n] : test_ops::expect_solvers_pass(problems, emulated)) ran += n;
  EXPECT_GT(ran, 0);
}

}  // namespace

TEST(GpuOpsEmulated, Bnorm) {
  run_emulated("bnorm", gpu_emu::bnorm_solvers(),
               {"bnorm fwd-train spatial fp32 nhwc n3 c5 in11x13 eps1e-05 momentum0.1",   // M = 429 > 256 threads
                "bnorm bwd spatial fp16 nchw n2 c3 in15x17 eps1e-05", "bnorm fwd-infer per-act bf16 nhwc n3 c2 in2x3 eps1e-05",
                "bnorm fwd-train per-act fp32 ncdhw n4 c1 in2x2x2 eps0.01 momentum1"});
}

// The registered solver of that name (the test fails when there is none).
std::shared_ptr<const OpSolver> solver_named(const OpSolverList& all, const std::string& name) {
  for (const auto& s : all)
    if (s->name() == name) return s;
  ADD_FAILURE() << "no solver " << name;
  return nullptr;
}

// bnorm.spatial.persistent: the ops suite and shapes that reach every branch
// of its cooperative kernels on the emulated device (2 multiprocessors x 2 resident blocks of 128
// threads, 32 KiB of shared memory per block): packs beyond the shared-memory cache re-read from
// memory (overflow), channel tiles with idle lanes, several items per block (channels first with
// C > grid), 16-, 8-byte and scalar packs, 3D.
TEST(GpuOpsEmulated, BnormPersistent) {
  const auto persistent = solver_named(gpu_emu::bnorm_solvers(), "bnorm.spatial.persistent");
  ASSERT_TRUE(persistent);
  run_emulated("bnorm", {persistent},
               {"bnorm fwd-train spatial bf16 nhwc n4 c64 in24x24 eps1e-05 momentum0.1",  // V = 8, 36 visits > cache
                "bnorm bwd spatial fp16 nhwc n3 c40 in20x20 eps1e-05",                    // tile of 8 lanes (5 used), overflow
                "bnorm fwd-train spatial fp32 nchw n5 c9 in16x16 eps1e-05 momentum0.5",    // 9 channels over 4 blocks
                "bnorm bwd spatial bf16 nchw n6 c3 in14x14 eps1e-05",                     // S % 8 = 4: 8-byte packs
                "bnorm fwd-infer spatial bf16 nhwc n2 c24 in9x9 eps1e-05",
                "bnorm fwd-train spatial fp16 nchw n2 c2 in7x7 eps1e-05 momentum0.1",     // S = 49: scalars
                "bnorm bwd spatial fp32 nhwc n8 c4 in16x16 eps1e-05",                     // one pack per row, tx = 1
                "bnorm fwd-train spatial bf16 ndhwc n2 c16 in4x8x8 eps1e-05 momentum0.1",
                "bnorm fwd-infer spatial fp32 nchw n3 c5 in6x10 eps1e-05"},
               "ops");
}

// bnorm.spatial.tile: fewer rows than threads, several rows per thread with a short last one,
// 16-byte, 8-byte (C % 8 = 4) and scalar packs, 3D, both layouts; the emulated device's 32 KiB of
// shared memory refuses a tile that does not fit (bwd holds x and dy).
TEST(GpuOpsEmulated, BnormTile) {
  const auto tile = solver_named(gpu_emu::bnorm_solvers(), "bnorm.spatial.tile");
  ASSERT_TRUE(tile);
  run_emulated("bnorm", {tile},
               {"bnorm fwd-train spatial bf16 nhwc n4 c16 in7x7 eps1e-05 momentum0.1",  // M = 196 < 256
                "bnorm bwd spatial fp16 nhwc n3 c24 in20x20 eps1e-05",                 // M = 1200: 5 rows per thread, 176 in the last
                "bnorm fwd-train spatial fp32 nhwc n2 c12 in9x9 eps1e-05 momentum0.5",  // fp32: 4 lanes
                "bnorm bwd spatial bf16 nhwc n2 c20 in5x5 eps1e-05",                   // 8-byte packs
                "bnorm fwd-train spatial fp16 nhwc n2 c7 in6x6 eps1e-05 momentum0.1",   // scalars
                "bnorm fwd-train spatial bf16 ndhwc n2 c16 in3x4x5 eps1e-05 momentum0.1",
                // channels first: 16-byte packs along the planes (S = 64), 8-byte (S = 36, bf16), scalars (S = 49), 3D
                "bnorm fwd-train spatial bf16 nchw n3 c5 in8x8 eps1e-05 momentum0.1",
                "bnorm bwd spatial bf16 nchw n4 c3 in6x6 eps1e-05",
                "bnorm bwd spatial fp32 nchw n9 c4 in7x7 eps1e-05",                     // 441 scalars: 2 per thread
                "bnorm fwd-train spatial fp16 ncdhw n2 c3 in2x4x8 eps1e-05 momentum0.1"},
               "ops");
  const Applicability big = tile->applicable(*parse_op_problem("bnorm bwd spatial bf16 nhwc n2 c8 in24x24 eps1e-05"));
  EXPECT_FALSE(big);
  EXPECT_NE(big.reason.find("bytes of shared memory"), std::string::npos) << big.reason;
  EXPECT_FALSE(tile->applicable(*parse_op_problem("bnorm bwd spatial fp32 nchw n2 c8 in64x64 eps1e-05")));  // 2 x 32 KiB of one channel
  EXPECT_TRUE(tile->applicable(*parse_op_problem("bnorm fwd-train spatial bf16 nhwc n2 c8 in24x24 eps1e-05 momentum0.1")));  // x alone fits
}

// Channels-first fwd-train and bwd with more than 4 channels per resident block are refused with
// the reason (the emulated device keeps 4 blocks resident: C = 16 runs, 17 does not); channels last
// and fwd-infer are not affected.
TEST(GpuOpsEmulated, BnormPersistentRefusesManyChannelsPerBlock) {
  const auto persistent = solver_named(gpu_emu::bnorm_solvers(), "bnorm.spatial.persistent");
  ASSERT_TRUE(persistent);
  EXPECT_TRUE(persistent->applicable(*parse_op_problem("bnorm fwd-train spatial fp32 nchw n2 c16 in4x4 eps1e-05 momentum0.1")));
  for (const char* s : {"bnorm fwd-train spatial fp32 nchw n2 c17 in4x4 eps1e-05 momentum0.1", "bnorm bwd spatial bf16 nchw n2 c40 in3x3 eps1e-05"}) {
    const Applicability a = persistent->applicable(*parse_op_problem(s));
    EXPECT_FALSE(a) << s;
    EXPECT_NE(a.reason.find("resident blocks"), std::string::npos) << a.reason;
  }
  EXPECT_TRUE(persistent->applicable(*parse_op_problem("bnorm bwd spatial fp32 nhwc n2 c64 in4x4 eps1e-05")));
  EXPECT_TRUE(persistent->applicable(*parse_op_problem("bnorm fwd-infer spatial fp32 nchw n2 c40 in4x4 eps1e-05")));
}

// bnorm.spatial.multiblock on the ops suite and on shapes whose channels span several slices
// (slice tails), with 8-, 4- and 1-wide packs in both layouts, planes shorter and longer than a
// block (channels-first), and channel tiles with idle lanes (channels-last).
TEST(GpuOpsEmulated, BnormMultiblock) {
  const auto multiblock = solver_named(gpu_emu::bnorm_solvers(), "bnorm.spatial.multiblock");
  ASSERT_TRUE(multiblock);
  run_emulated("bnorm", {multiblock},
               {"bnorm fwd-train spatial bf16 nhwc n4 c24 in33x31 eps1e-05 momentum0.1",  // V = 8, 8 row slices
                "bnorm bwd spatial fp16 nhwc n3 c20 in30x30 eps1e-05",                    // V = 4, tile of 8 lanes (5 used)
                "bnorm fwd-infer spatial fp32 nhwc n2 c7 in9x9 eps0.001",                 // V = 1
                "bnorm fwd-train spatial fp32 nchw n5 c2 in45x50 eps1e-05 momentum0.5",    // V = 1, planes > a block, 6 slices
                "bnorm bwd spatial bf16 nchw n64 c3 in7x7 eps1e-05",                      // V = 1, planes < a block, 2 slices
                "bnorm fwd-train spatial fp16 nchw n200 c2 in6x10 eps1e-05 momentum0.1",  // V = 4, 2 slices
                "bnorm bwd spatial bf16 ncdhw n3 c2 in4x8x16 eps1e-05",                   // V = 8
                "bnorm fwd-infer spatial bf16 nchw n2 c3 in5x8 eps1e-05"},
               "ops");
}

// bnorm.spatial.infer_stream (fwd-infer only; the emulated device keeps 2 x 2 blocks of 256 threads
// resident): channel-stationary grids (q = C / gcd(C, 256 V) = 1, and q = 3 with a grid of 3 blocks), the
// per-pack coefficients where no stationary grid fits (q = 5 or 9 > 4 resident blocks)
// and in channels-first planes (16-, 8-byte and scalar packs), steps past the unrolled loop, tails.
TEST(GpuOpsEmulated, BnormInferStream) {
  const auto stream = solver_named(gpu_emu::bnorm_solvers(), "bnorm.spatial.infer_stream");
  ASSERT_TRUE(stream);
  run_emulated("bnorm", {stream},
               {"bnorm fwd-infer spatial bf16 nhwc n4 c64 in24x24 eps1e-05",   // V = 8, q = 1, 4 steps of 4 packs
                "bnorm fwd-infer spatial fp32 nhwc n3 c3 in17x19 eps1e-05",    // V = 1, q = 3
                "bnorm fwd-infer spatial fp16 nhwc n2 c40 in9x9 eps0.001",     // V = 8, q = 5: per-pack coefficients
                "bnorm fwd-infer spatial fp32 nhwc n2 c36 in5x7 eps1e-05",     // V = 4, q = 9: per-pack coefficients
                "bnorm fwd-infer spatial fp32 nhwc n2 c12 in7x9 eps1e-05",     // V = 4, q = 3: a grid of 3 blocks
                "bnorm fwd-infer spatial bf16 nchw n6 c3 in14x14 eps1e-05",    // S % 8 = 4: 8-byte packs
                "bnorm fwd-infer spatial fp16 nchw n3 c5 in7x7 eps1e-05",      // S = 49: scalars
                "bnorm fwd-infer spatial fp32 nchw n9 c7 in32x32 eps1e-05",    // 16-byte packs, 2 steps
                "bnorm fwd-infer spatial bf16 ndhwc n2 c16 in4x8x8 eps1e-05",
                "bnorm fwd-train spatial fp32 nhwc n2 c8 in4x4 eps1e-05 momentum0.1"},  // refused: not fwd-infer
               "ops");
  // Shifted by one element (2 bytes): the scalar kernel.
  expect_same_when_misaligned(parse_op_problem("bnorm fwd-infer spatial bf16 nhwc n2 c16 in9x9 eps1e-05"), EmulatedOpSolver(stream), 2);
}

// Sizes past the streaming loop's unrolled steps on the emulated grid (4 blocks x 256 threads x
// 4 packs of 8) with a scalar tail, and the scalar kernel for unaligned buffers.
TEST(GpuOpsEmulated, Activ) {
  run_emulated("activ", gpu_emu::activ_solvers(),
               {"activ fwd gelu fp16 nhwc n3 c5 in7x9", "activ bwd silu bf16 nchw n2 c8 in16x16",
                "activ bwd tanh fp32 nchw n1 c1 in1x3 alpha2 beta0.5", "activ fwd power bf16 nchw n1 c3 in5x7 alpha2 beta-0.5 gamma0.5",
                "activ fwd relu bf16 nchw n3 c7 in61x67", "activ bwd relu fp32 nhwc n2 c9 in61x67",
                "activ bwd elu fp16 nchw n1 c5 in101x103 alpha0.5"});
  const auto solvers = gpu_emu::activ_solvers();
  // Shifted by one element: 2 bytes (bf16), 4 bytes (fp32).
  expect_same_when_misaligned(parse_op_problem("activ fwd relu bf16 nchw n3 c7 in61x67"), EmulatedOpSolver(solvers.front()), 2);
  expect_same_when_misaligned(parse_op_problem("activ bwd leakyrelu fp32 nchw n2 c3 in9x11 alpha0.1"), EmulatedOpSolver(solvers.front()), 4);
}

TEST(GpuOpsEmulated, Softmax) {
  run_emulated("softmax", gpu_emu::softmax_solvers(),
               {"softmax fwd accurate channel bf16 nhwc n2 c600 in1x2",  // rows longer than a block
                "softmax bwd log instance fp16 nchw n3 c33 in3x3", "softmax fwd log channel fp32 nchw n1 c5 in3x5",
                "softmax fwd log channel bf16 nchw n33 c1000 in1x1",       // team_row: 32 lanes x 4 packs, 8 teams a block
                "softmax bwd accurate instance fp32 nhwc n3 c300 in3x3",   // 675 packs: a 256-thread team
                "softmax fwd accurate channel fp16 nhwc n3 c6 in3x5",      // scalars, one thread per row
                "softmax bwd log channel bf16 nchw n3 c5000 in1x1",        // smem_row: y and dy in shared memory
                "softmax fwd fast instance fp32 nchw n2 c9000 in1x1"});    // a 1024-thread team
}

// Every path: linear packs (channels first, and channels last with H*W = 1), four rows x 16 bytes
// (channels last, H*W % 4 == 0, C % lanes == 0), single elements (channels last otherwise), sizes
// past the unrolled steps, and unaligned buffers.
TEST(GpuOpsEmulated, Dropout) {
  run_emulated("dropout", gpu_emu::dropout_solvers(),
               {"dropout fwd fp16 nhwc n3 c5 in7x9 rate0.5 seed9", "dropout bwd bf16 nchw n2 c8 in16x15 rate0.75 seed10",
                "dropout fwd fp32 nchw n1 c1 in1x3 rate0.5 seed11", "dropout fwd bf16 nhwc n4 c2048 in1x1 rate0.5 seed1",
                "dropout bwd bf16 nhwc n2 c16 in12x10 rate0.3 seed5", "dropout fwd fp32 nhwc n3 c8 in4x6 rate0.6 seed6",
                "dropout fwd fp16 nchw n3 c7 in61x67 rate0.5 seed7", "dropout bwd fp32 nhwc n2 c12 in40x40 rate0.25 seed8"});
  const auto solvers = gpu_emu::dropout_solvers();
  for (const char* s : {"dropout fwd fp16 nchw n3 c7 in61x67 rate0.5 seed7", "dropout bwd bf16 nhwc n2 c16 in12x10 rate0.3 seed5"})
    expect_same_when_misaligned(parse_op_problem(s), EmulatedOpSolver(solvers.front()), 2);
}

}  // namespace hiprim
