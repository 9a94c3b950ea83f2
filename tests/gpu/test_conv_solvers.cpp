// GPU convolution solvers against the CPU reference. Exact tier: integer inputs in [-2, 2] keep
// every sum exact in fp32, so each output must equal the reference rounded to the dtype, bit for bit
// (threshold zero). Every buffer lies between guard bytes, the output poisoned first (a signaling
// NaN: an unwritten element fails), and the inputs must come back unmodified. Device tests
// skip with the reason when there is no GPU; the registry and applicability tests run on the host.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "gpu/conv/nchw_via_nhwc.hpp"
#include "gpu/conv/registry.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/conv_exact_cases.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

namespace {

const ConvSolver& solver_named(const std::string& name) {
  for (const auto& s : gpu_conv_solvers())
    if (s->name() == name) return *s;
  throw std::runtime_error("no GPU solver named " + name);
}

// Runs `solver` on p once with exact-tier data and returns "" on an exact match with the reference
// (and a second run bitwise equal to the first when the solver claims determinism), else the first
// problem found.
std::string check_against_reference(const ConvSolver& solver, const ConvProblem& p, std::uint32_t seed) {
  gputest::ConvCase c = gputest::make_case(p, seed);
  const std::vector<float> expected = gputest::expected_output(p, c);
  HostTensor& out = c.output(p.dir);
  // x, w, y, bias: the output poisoned, the inputs with their bytes (kept to check them afterwards).
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<gputest::GuardedBuffer> bufs;
  bufs.reserve(4);
  const std::pair<HostTensor*, const char*> tensors[] = {{&c.x, "x"}, {&c.w, "w"}, {&c.y, "y"}, {&c.bias, "bias"}};
  for (auto [t, what] : tensors) {
    bytes.push_back(t->to_bytes());
    bufs.push_back(t == &out ? gputest::guarded_output(bytes.back().size(), p.dtype, what)
                             : gputest::guarded_input(bytes.back(), what));
  }
  gputest::GuardedBuffer& dout = bufs[p.dir == ConvDir::fwd ? 2 : p.dir == ConvDir::bwd_data ? 0 : 1];
  // The solver's workspace (poisoned: its contents must not matter), where it needs one.
  const std::size_t ws_bytes = solver.workspace_bytes(p);
  gputest::GuardedBuffer ws = gputest::guarded_output((ws_bytes + 31) / 16 * 16, p.dtype, "workspace");
  ConvTensors t{bufs[0].data(), bufs[1].data(), bufs[2].data(), p.bias ? bufs[3].data() : nullptr,
                ws_bytes > 0 ? ws.data() : nullptr, ws_bytes, nullptr, {}};
  Stream stream;
  t.stream = stream.handle();

  std::vector<unsigned char> first;
  for (int run = 0; run < 2; ++run) {
    dout.poison(p.dtype);
    ws.poison(p.dtype);
    solver.run(p, t);
    stream.synchronize();
    if (const std::string bad = gputest::guard_error(ws); !bad.empty()) return bad;
    for (std::size_t i = 0; i < bufs.size(); ++i)
      if (const std::string bad = &bufs[i] == &dout ? gputest::guard_error(dout) : gputest::input_error(bufs[i], bytes[i]);
          !bad.empty())
        return bad;
    const std::vector<unsigned char> body = gputest::read_back(dout).payload;
    if (run == 1) {
      if (solver.deterministic() && body != first) return "two runs gave different bits";
      break;
    }
    first = body;
    out.from_bytes(body.data());
    if (std::string bad = gputest::first_mismatch(out, expected); !bad.empty()) return bad;  // NaN (unwritten) fails too
  }
  return "";
}

// Tiny fixed problems: every direction is applied to each (see dirs below) in every dtype.
const char* const kFixedProblems[] = {
    "conv fwd fp32 nchw n1 c1 k1 in1x1 f1x1",
    "conv fwd fp32 nchw n2 c3 k4 in5x6 f3x3 pad1x1",
    "conv fwd fp32 nhwc n2 c4 k6 in7x5 f3x2 pad1x0 str2x1 dil1x2 g2",
    "conv fwd fp32 nchw n1 c18 k10 in19x21 f3x3 pad2x1 str1x1 dil2x1",  // several tiles, chunks, channel blocks
    "conv fwd fp32 nhwc n1 c3 k3 in9x9 f3x3 pad1x1 g3",                  // depthwise
    "conv fwd fp32 nchw n1 c2 k3 in6x5 f2x3 pad1x2 str3x2",
    "conv fwd fp32 ncdhw n1 c2 k2 in3x4x4 f2x2x2 pad1x0x1 str1x2x1",
    "conv fwd fp32 ndhwc n2 c4 k2 in3x3x3 f3x1x2 pad1x0x0 dil1x1x2 g2",
    "conv fwd fp32 nchw n1 c4 k6 in4x5 f3x3 pad1x1 str2x2 g2 trans opad1x0",
    "conv fwd fp32 nhwc n2 c2 k3 in3x3 f2x2 str2x3 dil2x1 trans opad1x2",
    "conv fwd fp32 ndhwc n1 c2 k2 in2x3x3 f2x2x2 pad0x1x0 str2x1x2 trans opad1x0x1",
};

std::vector<ConvProblem> fixed_cases() { return gputest::every_direction_and_dtype(kFixedProblems); }

void run_fixed_cases(const std::string& name) {
  const ConvSolver& solver = solver_named(name);
  int ran = 0;
  for (const ConvProblem& p : fixed_cases()) {
    if (!solver.applicable(p)) continue;
    ++ran;
    EXPECT_EQ(check_against_reference(solver, p, 17), "") << name << " on " << to_string(p);
  }
  EXPECT_GT(ran, 0);
}

}  // namespace

TEST(GpuConvRegistry, OrderedWithUniqueNamesAndNaiveLast) {
  const ConvSolverList& all = gpu_conv_solvers();
  ASSERT_GE(all.size(), 2u);
  std::set<std::string> names;
  for (const auto& s : all) {
    EXPECT_TRUE(names.insert(s->name()).second) << "duplicate " << s->name();
    EXPECT_EQ(s->backend(), Backend::device) << s->name();
    EXPECT_FALSE(s->summary().empty()) << s->name();
  }
  EXPECT_EQ(all.back()->name(), "conv.naive");
  EXPECT_EQ(all[all.size() - 2]->name(), "conv.direct.tiled");
  for (const char* n : {"conv.naive", "conv.direct.tiled"}) {
    EXPECT_TRUE(solver_named(n).deterministic()) << n;
    EXPECT_EQ(solver_named(n).workspace_bytes(parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in4x4 f3x3")), 0u) << n;
  }
}

TEST(GpuConvApplicability, NaiveTakesEveryFixedProblem) {
  for (const ConvProblem& p : fixed_cases()) EXPECT_TRUE(solver_named("conv.naive").applicable(p)) << to_string(p);
}

TEST(GpuConvApplicability, TiledRefusesTrans3DAndOversizedTilesWithReasons) {
  const ConvSolver& tiled = solver_named("conv.direct.tiled");
  auto refusal = [&](const char* s) {
    const Applicability a = tiled.applicable(parse_conv_problem(s));
    EXPECT_FALSE(a.ok) << s;
    return a.reason;
  };
  EXPECT_NE(refusal("conv fwd fp32 ncdhw n1 c2 k2 in3x4x4 f2x2x2").find("3D"), std::string::npos);
  EXPECT_NE(refusal("conv bwd-data fp32 nchw n1 c2 k2 in4x4 f2x2 trans").find("trans"), std::string::npos);
  // x tile (8-1)*16+1 = 113 rows by (16-1)*16+1 = 241 columns of floats is over 48 KiB for one channel.
  EXPECT_NE(refusal("conv fwd fp32 nchw n1 c1 k1 in300x300 f1x1 str16x16").find("shared-memory"), std::string::npos);
  EXPECT_TRUE(tiled.applicable(parse_conv_problem("conv bwd-weights fp32 nhwc n2 c4 k4 in8x8 f3x3 pad1x1")));
}

TEST(GpuConvNaive, FixedProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_fixed_cases("conv.naive");
}

TEST(GpuConvDirectTiled, FixedProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  run_fixed_cases("conv.direct.tiled");
}

// Random small valid problems (both modes, 2D/3D, every layout/dtype/direction) for each solver
// that takes them.
TEST(GpuConvSolvers, RandomSmallProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  for (const char* name : {"conv.naive", "conv.direct.tiled"}) {
    const ConvSolver& solver = solver_named(name);
    const bool allow_3d = solver.name() == "conv.naive";  // direct.tiled refuses 3D: do not waste cases
    const bool ok = rc::check(std::string(name) + " vs reference", [&solver, allow_3d] {
      const ConvProblem p = gputest::pick_small_problem(allow_3d);
      RC_PRE(p.valid());
      RC_PRE(solver.applicable(p).ok);
      const std::string err = check_against_reference(solver, p, *rc::gen::inRange(0u, 1000u));
      if (!err.empty()) RC_FAIL(to_string(p) + ": " + err);
    });
    EXPECT_TRUE(ok) << name;
  }
}

TEST(GpuConvNaive, RunsAfterAnOutOfMemoryError) {
  HIPRIM_SKIP_WITHOUT_GPU();
  EXPECT_THROW(DeviceBuffer(std::size_t{1} << 60, "absurd"), RuntimeError);
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 pad1x1");
  EXPECT_EQ(check_against_reference(solver_named("conv.naive"), p, 3), "");
}

// conv.igemm.wgmma.nchw (host checks): it follows conv.igemm.wgmma in the registry, forwards the
// inner solver's claims, refuses channels-last problems naming the inner solver, and its workspace
// of a config is its copies followed by the inner solver's workspace of the NHWC twin.
TEST(GpuConvNchwViaNhwc, ForwardsTheInnerSolverAndAddsItsCopiesToTheWorkspace) {
  const ConvSolverList& all = gpu_conv_solvers();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[0]->name(), "conv.igemm.wgmma");
  EXPECT_EQ(all[1]->name(), "conv.igemm.wgmma.nchw");
  const ConvSolver &s = *all[1], &inner = *all[0];
  EXPECT_EQ(s.deterministic(), inner.deterministic());
  EXPECT_EQ(s.accumulation_error_factor(), inner.accumulation_error_factor());
  EXPECT_EQ(s.perf_configs(), inner.perf_configs());
  const Applicability nhwc = s.applicable(parse_conv_problem("conv fwd bf16 nhwc n2 c64 k64 in7x7 f3x3 pad1x1"));
  EXPECT_FALSE(nhwc.ok);
  EXPECT_NE(nhwc.reason.find("conv.igemm.wgmma takes it directly"), std::string::npos) << nhwc.reason;
  for (const char* text : {"conv fwd bf16 nchw n2 c64 k64 in7x7 f3x3 pad1x1", "conv bwd-data fp16 nchw n2 c64 k32 in9x9 f3x3 pad1x1 str2x2",
                           "conv bwd-weights bf16 nchw n2 c64 k64 in14x14 f1x1"}) {
    const ConvProblem p = parse_conv_problem(text);
    const ConvProblem q = nhwc_twin(p);
    const std::string cfg = "m128n128k64.s4.splitk2";
    EXPECT_EQ(s.config_workspace_bytes(p, cfg), nchw_copies(p).inner_offset + inner.config_workspace_bytes(q, cfg)) << text;
    EXPECT_EQ(s.implicit_zeros(p), inner.implicit_zeros(q)) << text;
    EXPECT_GT(nchw_copies(p).inner_offset, 0u) << text;  // x (C > 1, H*W > 1) is always copied here
  }
}

// conv.direct.grouped on the device (made by its factory): the fixed problems
// and random small ones it takes, exact tier, every direction and dtype.
TEST(GpuConvDirectGrouped, FixedAndRandomGroupedProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const auto solver = make_conv_direct_grouped();
  int ran = 0;
  for (const ConvProblem& p : fixed_cases()) {
    if (!solver->applicable(p)) continue;
    ++ran;
    EXPECT_EQ(check_against_reference(*solver, p, 23), "") << to_string(p);
  }
  EXPECT_GT(ran, 0);
  const bool ok = rc::check("conv.direct.grouped vs reference", [&solver] {
    const ConvProblem p = gputest::pick_small_problem(false);
    RC_PRE(p.valid());
    RC_PRE(solver->applicable(p).ok);
    const std::string err = check_against_reference(*solver, p, *rc::gen::inRange(0u, 1000u));
    if (!err.empty()) RC_FAIL(to_string(p) + ": " + err);
  });
  EXPECT_TRUE(ok);
}
