// The pooling, LRN, tensor-op and reduction GPU solvers, their kernel sources compiled for the host
// emulation of the HIP layer (tests/gpu/emu: every thread of every block runs on the CPU, 64-lane
// warpSize, real barriers), through the runner against the CPU reference: index math, layouts,
// 16-byte packs, the shared-memory trees and the tie/NaN rules are checked on machines without a
// GPU: a fixed list of problems (with the determinism re-run) and random problems (tensor ops
// broadcasting over any dims of rank <= 5, reductions over any set of dims, any pooling geometry).
// (Timing, memory coalescing and the real compilers' code are the device run's business.)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <set>

#include "core/op_solver.hpp"
#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "emu/emulated_solver.hpp"
#include "emu/misaligned.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/pool_lrn_tensorop_reduce_cases.hpp"
#include "verify/runner.hpp"

namespace hiprim::gpu_emu {  // the emulated build of hiprim::gpu (compiled with -Dgpu=gpu_emu)
OpSolverList pool_solvers();
OpSolverList lrn_solvers();
OpSolverList tensorop_solvers();
OpSolverList reduce_solvers();
}  // namespace hiprim::gpu_emu

namespace hiprim {
namespace {

OpSolverList emulated_solvers() {
  OpSolverList l;
  for (const auto& part : {gpu_emu::pool_solvers(), gpu_emu::lrn_solvers(), gpu_emu::tensorop_solvers(),
                           gpu_emu::reduce_solvers()})
    for (const auto& s : part) l.push_back(std::make_shared<EmulatedOpSolver>(s));
  return l;
}

// Small problems (the emulation runs 256 CPU threads per block) covering the same features as the
// device test (tests/gpu/test_pool_lrn_tensorop_reduce_gpu.cpp): modes, directions, 2D/3D,
// layouts, dtypes, the packed and scalar paths, broadcasts, NaN modes, indices, slices longer than
// a block.
// Besides test_ops::kPoolLrnTensorOpReduceShared (pool_lrn_tensorop_reduce_cases.hpp):
const std::vector<const char*> kOwnProblems = {
    "pool bwd max fp16 nhwc n1 c16 in6x6 win3x3 pad1x1 str1x1",
    // bwd's trip bounds ceil(win/str) along h x w: 1 x 1, 2 x 2, 3 x 3 (a 5x5 window), run time (4 x 4).
    "pool bwd max fp32 nchw n2 c3 in8x8 win2x2 pad0x0 str2x2",
    "pool bwd avg_excl fp32 nchw n1 c3 in11x7 win3x2 pad1x1 str2x1",
    "pool bwd max bf16 nchw n1 c2 in13x13 win5x5 pad2x2 str2x2",
    "pool bwd avg_incl fp16 nhwc n1 c8 in9x9 win4x4 pad1x1 str1x1",
    // pool.nchw.band with several bands per plane (about 1024 outputs / positions a band), spans starting
    // off a 16-byte boundary (odd widths), and bwd bands that no window covers (stride 2 > window 1, one-row bands).
    "pool fwd max fp32 nchw n1 c2 in70x70 win3x3 pad1x1 str2x2",
    "pool fwd avg_excl bf16 nchw n1 c2 in37x45 win3x3 pad1x1 str1x1",
    "pool bwd max bf16 nchw n1 c2 in40x40 win3x3 pad1x1 str2x2",
    "pool bwd avg_excl fp16 nchw n1 c2 in37x45 win3x3 pad1x1 str1x1",
    "pool bwd max fp32 nchw n1 c2 in3x1100 win1x1 pad0x0 str2x2",
    "pool fwd avg_incl fp16 nchw n2 c1 in33x51 win5x4 pad2x1 str3x2",
    "lrn fwd across bf16 nchw n2 c6 in5x9 size5 alpha1 beta0.75 k2",
    "lrn bwd across fp16 nhwc n1 c12 in5x7 size5 alpha0.5 beta0.75 k1",
    "lrn bwd across fp32 nchw n2 c3 in5x9 size7 alpha2 beta1.5 k1",
    "lrn fwd across fp32 ndhwc n1 c5 in3x4x5 size3 alpha1 beta0.75 k1",
    "tensorop add bf16 nchw a3x8x40x41 b3x8x40x41 alpha1=1 alpha2=1 beta=0",
    "tensorop max fp16 nhwc a4x16x24x24 b1x16x1x1 alpha1=1 alpha2=1 beta=0.5",
    // tensorop.vec's row of b (collapsed [R, P], b {0, 1}) on a stationary grid: q = P / gcd(P, 256 V) = 1 and 3
    // blocks, then q = 5 > 4 resident blocks (the decode path), and a row of C*H*W (channels first).
    "tensorop add fp32 nhwc a5x12x9x7 b1x12x1x1 alpha1=1 alpha2=1 beta=0",
    "tensorop mul bf16 nhwc a2x40x3x5 b1x40x1x1 alpha1=1 alpha2=0.5 beta=0.5",
    "tensorop add bf16 nhwc a8x64x12x12 b1x64x1x1 alpha1=1 alpha2=-1 beta=0",
    "tensorop min fp32 nchw a3x4x6x8 b1x4x6x8 alpha1=2 alpha2=1 beta=0",
    "reduce add fp32 nchw dims2x3x4x4 over2x3 nan_ignore",
    "reduce add bf16 nhwc dims2x3x4x4 over0x2 nan_ignore",
    "reduce max fp16 nhwc dims2x8x2x2 over1 nan_propagate indices",
    "reduce min bf16 dims3x7x5 over0x2 nan_ignore indices",
    "reduce amax fp32 ncdhw dims2x3x2x2x4 over0x2x4 nan_propagate indices",
    "reduce max fp32 dims2x600 over1 nan_ignore indices",
    "reduce avg fp32 dims3x100 over1 nan_ignore",
    "reduce norm2 fp16 nchw dims2x4x3x3 over0x1 nan_ignore",
    "reduce add fp32 nchw dims4x8x16x16 over0x2x3 nan_ignore",
    "reduce add bf16 nhwc dims4x16x12x12 over0x2x3 nan_ignore",
    "reduce max fp16 nhwc dims2x16x9x9 over1x2 nan_propagate indices",
    "reduce amax bf16 dims2x8000 over1 nan_ignore indices",
    "reduce add fp32 nchw dims8x2x32x32 over0x2x3 nan_ignore",
    "reduce max fp32 nhwc dims8x4x16x16 over0x2x3 nan_propagate indices",
    "reduce norm2 fp32 nchw dims6x5x7x9 over0x3 nan_ignore",
    "reduce min fp32 ncdhw dims2x24x3x4x5 over0x2x3x4 nan_ignore indices",
};

// pool.global's chunk path (channels first, S < 384: P planes staged in shared memory, one thread
// scanning each): S = 1, 2, 9, 25, 49, 64 (even: padded stride), 169, 383 (the largest); N*C off a
// multiple of P (with the emulation's 2 multiprocessors: 32 planes a chunk, 128 for N*C = 1000, 224
// and 256 for the largest), more chunks than blocks (the block-stride loop), 3D, x off 16 bytes;
// max's fill has ties and NaNs. 384 is the team path.
const std::vector<const char*> kGlobalChunkProblems = {
    "pool fwd max fp32 nchw n4 c50 in7x7 win7x7 pad0x0 str1x1",
    "pool fwd avg_incl bf16 nchw n3 c37 in7x7 win7x7 pad0x0 str1x1",
    "pool fwd avg_excl fp16 nchw n2 c45 in5x5 win5x5 pad0x0 str1x1",
    "pool fwd max fp16 nchw n5 c41 in8x8 win8x8 pad0x0 str1x1",
    "pool fwd avg_incl fp32 nchw n3 c29 in8x8 win8x8 pad0x0 str1x1",
    "pool fwd max bf16 nchw n2 c33 in1x2 win1x2 pad0x0 str1x1",
    "pool fwd avg_incl fp16 nchw n3 c23 in1x1 win1x1 pad0x0 str1x1",
    "pool fwd max fp32 nchw n1 c1000 in3x3 win3x3 pad0x0 str1x1",
    "pool fwd avg_excl fp32 nchw n2 c2500 in1x1 win1x1 pad0x0 str1x1",
    "pool fwd max bf16 nchw n1 c4000 in7x7 win7x7 pad0x0 str1x1",
    "pool fwd max fp16 nchw n2 c37 in13x13 win13x13 pad0x0 str1x1",
    "pool fwd avg_incl bf16 nchw n1 c40 in13x13 win13x13 pad0x0 str1x1",
    "pool fwd max fp32 ncdhw n2 c35 in2x3x5 win2x3x5 pad0x0x0 str1x1x1",
    "pool fwd avg_incl bf16 ncdhw n3 c13 in3x4x4 win3x4x4 pad0x0x0 str1x1x1",
    "pool fwd avg_excl fp16 ncdhw n1 c40 in1x7x7 win1x7x7 pad0x0x0 str1x1x1",
    "pool fwd avg_incl fp32 nchw n1 c40 in1x383 win1x383 pad0x0 str1x1",
    "pool fwd max bf16 nchw n1 c33 in1x383 win1x383 pad0x0 str1x1",
    "pool fwd avg_incl fp32 nchw n1 c3 in1x384 win1x384 pad0x0 str1x1",
};

TEST(PoolLrnTensorOpReduceEmulated, EveryApplicableSolverPassesEveryProblem) {
  verify::RunOptions o;
  o.seed = 5;
  std::vector<const char*> lines = test_ops::with_shared(kOwnProblems);
  lines.insert(lines.end(), kGlobalChunkProblems.begin(), kGlobalChunkProblems.end());
  const auto ran = test_ops::expect_solvers_pass(test_ops::op_problems(lines), emulated_solvers(), o);
  // Every solver of the four primitives was exercised (a refusal everywhere would hide it).
  for (const char* name : {"pool.global", "pool.direct", "pool.nhwc.vec", "pool.nchw.band", "lrn.across.tile", "lrn.direct", "tensorop.elementwise", "tensorop.vec",
                           "reduce.split", "reduce.blockwise", "reduce.threadwise"})
    EXPECT_TRUE(ran.count(name)) << name << " ran on no problem";
}


// The emulated solver of that name (std::runtime_error when there is none).
const OpSolver& named(const std::string& n) {
  static const OpSolverList solvers = emulated_solvers();
  for (const auto& s : solvers)
    if (s->name() == n) return *s;
  throw std::runtime_error("no solver " + n);
}

// The 16-byte solvers' scalar fallbacks for unaligned buffers give the packed paths' bits.
TEST(PoolLrnTensorOpReduceEmulated, PackedSolversAgreeOnUnalignedBuffers) {
  expect_same_when_misaligned(parse_op_problem("tensorop add bf16 nchw a3x8x40x40 b3x8x40x40 alpha1=1 alpha2=1 beta=0"),
                              named("tensorop.vec"), 2);
  expect_same_when_misaligned(parse_op_problem("tensorop mul fp32 nchw a2x8x6x8 b1x8x1x1 alpha1=0.5 alpha2=2 beta=1"),
                              named("tensorop.vec"), 4);
  expect_same_when_misaligned(parse_op_problem("pool fwd max fp16 nhwc n2 c16 in9x9 win3x3 pad1x1 str2x2"), named("pool.nhwc.vec"), 4);
  expect_same_when_misaligned(parse_op_problem("pool bwd avg_excl fp32 nhwc n2 c8 in7x7 win2x2 pad0x0 str2x2"),
                              named("pool.nhwc.vec"), 4);
  expect_same_when_misaligned(parse_op_problem("pool fwd max bf16 nchw n1 c2 in40x41 win3x3 pad1x1 str2x2"), named("pool.nchw.band"), 2);
  expect_same_when_misaligned(parse_op_problem("pool bwd max fp16 nchw n1 c2 in40x41 win3x3 pad1x1 str2x2"), named("pool.nchw.band"), 2);
}

// pool.nchw.band walks windows as pool.direct does (same taps in the same order, same tie rule):
// the same bits, also for the avg sums the comparator only bounds.
TEST(PoolLrnTensorOpReduceEmulated, NchwBandWritesPoolDirectsBits) {
  for (const char* line : {"pool fwd avg_incl fp32 nchw n1 c2 in70x70 win3x3 pad1x1 str2x2", "pool fwd max bf16 nchw n2 c1 in19x23 win3x2 pad1x0 str1x2",
                           "pool bwd avg_excl fp32 nchw n1 c2 in40x40 win3x3 pad1x1 str2x2", "pool bwd avg_incl bf16 nchw n1 c2 in37x45 win4x3 pad2x1 str3x1",
                           "pool bwd max fp32 nchw n1 c3 in21x17 win3x3 pad1x1 str1x1"})
    expect_same_outputs(parse_op_problem(line), named("pool.nchw.band"), named("pool.direct"));
}

// pool.global's chunk path scans each plane as pool.direct does (s in order, fp32 sum from the first
// value, the first maximum): the same bits, avg sums included (the team path's tree sums differ);
// and x off a 16-byte boundary (scalar staging) gives the 16-byte staging's bits.
TEST(PoolLrnTensorOpReduceEmulated, GlobalChunkWritesPoolDirectsBits) {
  for (const char* line : kGlobalChunkProblems) {
    const OpProblemPtr p = parse_op_problem(line);
    if (std::string(line).find("1x384") != std::string::npos) continue;  // the team path
    expect_same_outputs(p, named("pool.global"), named("pool.direct"));
    expect_same_when_misaligned(p, named("pool.global"), std::string(line).find("fp32") != std::string::npos ? 4 : 2);
  }
}

// pool.nchw.band refuses what it cannot stage, saying why; other layouts and 3D go to the other solvers.
TEST(PoolLrnTensorOpReduceEmulated, NchwBandRefusesWithAReason) {
  const OpSolver* band = &named("pool.nchw.band");
  const auto wide = band->applicable(*parse_op_problem("pool fwd max fp32 nchw n1 c1 in3x5000 win3x3 pad0x0 str1x1"));
  EXPECT_FALSE(wide);
  EXPECT_NE(wide.reason.find("48 KiB"), std::string::npos) << wide.reason;
  EXPECT_TRUE(band->applicable(*parse_op_problem("pool fwd max fp32 nchw n1 c1 in3x3000 win3x3 pad0x0 str1x1")));
  const auto nhwc = band->applicable(*parse_op_problem("pool fwd max fp32 nhwc n1 c8 in8x8 win2x2 pad0x0 str2x2"));
  EXPECT_FALSE(nhwc);
  EXPECT_NE(nhwc.reason.find("nchw"), std::string::npos) << nhwc.reason;
  EXPECT_FALSE(band->applicable(*parse_op_problem("pool fwd max fp32 ncdhw n1 c2 in3x8x8 win2x2x2 pad0x0x0 str2x2x2")));
}

// Runs every applicable emulated solver of p's op (those `keep` accepts) and asserts it passes.
void check_all(const OpProblemPtr& p, const std::function<bool(const OpSolver&)>& keep = {}) {
  static const OpSolverList solvers = emulated_solvers();
  verify::RunOptions o;
  o.seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
  o.check_determinism = false;  // covered by the fixed cases above; halves the emulation time
  verify::PreparedCase c(p, o);
  for (const auto& s : solvers) {
    if (s->op() != p->op() || !s->applicable(*p) || (keep && !keep(*s))) continue;
    const verify::CaseRecord rec = verify::run_case(c, *s, o);
    RC_ASSERT(rec.verdict.status == verify::Status::passed);
  }
}

std::pair<Dims, bool> gen_dims(int max_size) {
  const int rank = *rc::gen::inRange(1, 6);
  Dims d;
  for (int i = 0; i < rank; ++i) d.push_back(*rc::gen::inRange(1, max_size + 1));
  return {d, (rank == 4 || rank == 5) && *rc::gen::arbitrary<bool>()};
}

// C = op(alpha1*A, alpha2*B) + beta*C with B broadcast over any subset of any rank <= 5.
RC_GTEST_PROP(PoolLrnTensorOpReduceEmulated, TensorOpBroadcastsOverAnyDims, ()) {
  TensorOpProblem p;
  p.op = *rc::gen::element(TensorOpKind::add, TensorOpKind::mul, TensorOpKind::min, TensorOpKind::max);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  std::tie(p.a, p.channels_last) = gen_dims(5);
  if (*rc::gen::arbitrary<bool>()) p.a.back() = 8;  // the 16-byte path too
  p.b = p.a;
  for (auto& v : p.b)
    if (*rc::gen::arbitrary<bool>()) v = 1;
  p.alpha1 = *rc::gen::element(1.0, -0.5, 3.0);
  p.alpha2 = *rc::gen::element(1.0, 2.0, -1.0);
  p.beta = *rc::gen::element(0.0, 1.0, 0.25);
  check_all(make_op_problem(p));
}

// Every op over any set of dims of a rank <= 5 tensor, both NaN modes, indices.
RC_GTEST_PROP(PoolLrnTensorOpReduceEmulated, ReduceOverAnySetOfDims, ()) {
  ReduceProblem p;
  p.op = *rc::gen::element(ReduceOp::add, ReduceOp::mul, ReduceOp::min, ReduceOp::max, ReduceOp::amax, ReduceOp::avg,
                           ReduceOp::norm1, ReduceOp::norm2);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  std::tie(p.dims, p.channels_last) = gen_dims(4);
  p.over.clear();
  for (int i = 0; i < p.rank(); ++i)
    if (*rc::gen::arbitrary<bool>()) p.over.push_back(i);
  if (p.over.empty()) p.over.push_back(*rc::gen::inRange(0, p.rank()));
  p.propagate_nan = *rc::gen::arbitrary<bool>();
  p.indices = reduce_op_selects(p.op) && *rc::gen::arbitrary<bool>();
  // The block-per-output solver costs 256 emulated threads x 9 barriers per output: few outputs.
  const bool few_outputs = p.y_desc().elements() <= 8;
  check_all(make_op_problem(p), [&](const OpSolver& s) { return few_outputs || s.name() != "reduce.blockwise"; });
}

// Pooling: every mode and direction, 2D/3D, both layouts, random window/pad/stride.
RC_GTEST_PROP(PoolLrnTensorOpReduceEmulated, PoolAnyGeometry, ()) {
  PoolProblem p;
  p.dir = *rc::gen::element(PoolDir::fwd, PoolDir::bwd);
  p.mode = *rc::gen::element(PoolMode::max, PoolMode::avg_incl, PoolMode::avg_excl);
  p.shape.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  p.shape.channels_last = *rc::gen::arbitrary<bool>();
  p.shape.n = *rc::gen::inRange(1, 3);
  p.shape.c = *rc::gen::element(1, 3, 4, 8);
  const int rank = *rc::gen::inRange(2, 4);
  p.shape.in.clear();
  p.window.clear();
  p.pad.clear();
  p.stride.clear();
  for (int i = 0; i < rank; ++i) {
    const std::int64_t w = *rc::gen::inRange(1, 4);
    p.window.push_back(w);
    p.pad.push_back(*rc::gen::inRange<std::int64_t>(0, w));
    p.stride.push_back(*rc::gen::inRange(1, 4));
    p.shape.in.push_back(std::max<std::int64_t>(w, *rc::gen::inRange(1, 7)));
  }
  check_all(make_op_problem(p));
}

}  // namespace
}  // namespace hiprim
