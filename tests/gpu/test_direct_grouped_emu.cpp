// conv.direct.grouped run by the host emulation of the HIP layer (tests/gpu/emu) against the CPU
// reference, exact tier: integer data in [-2, 2] keeps every fp32 sum exact, so each output must
// equal the reference rounded to the dtype bit for bit. Every buffer sits between guard bytes, the
// output and the workspace are poisoned (all-ones bytes: NaN in fp32, fp16 and bf16) so that an
// unwritten element or an unwritten bwd-weights partial fails, inputs must come back unchanged,
// and a second bwd-weights run (workspace poisoned again) must give the same bits. Covers depthwise (also K = m*C), small groups, strides,
// pads past the input's edge, dilation, odd sizes, channel counts that take narrower packs,
// several pixel tiles, channel slices and bwd-weights chunks, all three directions and dtypes, the
// scalar fallback of unaligned buffers, and the refusals with their reasons.
//
// Why a kernel that drops the last channel tail fails here: the slice count rounds the channel
// vectors up (c24 fp16: 3 vectors of 8 in slices of 2; c5 fp32: 5 scalars in slices of 4; c20 k20:
// 5 vectors of 4), so a floor there, or a channel guard that stops one vector early, leaves the
// last channels of every pixel unwritten: they stay NaN from the poison and the exact compare
// reports them. (Checked by hand on a mutant with `vectors / g.cvb`: the fixed cases fail.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "tests/gpu/conv_exact_cases.hpp"

namespace hiprim::gpu_emu {
std::shared_ptr<const ConvSolver> make_conv_direct_grouped();  // tests/gpu/emu/emu_direct_grouped.cpp
std::string direct_grouped_rows_refusal(const ConvProblem& p);  // "" when the rows configs take p
int direct_grouped_rows_per_thread(const ConvProblem& p, const std::string& config);  // Out rows per rows thread
}  // namespace hiprim::gpu_emu

using namespace hiprim;

namespace {

const ConvSolver& solver() {
  static const auto s = gpu_emu::make_conv_direct_grouped();
  return *s;
}

std::string rows_refusal_of(const ConvProblem& p) { return gpu_emu::direct_grouped_rows_refusal(p); }
int rows_per_thread_of(const ConvProblem& p, const std::string& config) {
  return gpu_emu::direct_grouped_rows_per_thread(p, config);
}

std::string check_exact(const ConvProblem& p, std::uint32_t seed, std::size_t shift = 0, const std::string& config = "") {
  return gputest::check_exact_guarded(solver(), p, seed, shift, config);
}

// check_exact under every config that can run p ("gather", and rows.q2 / rows.q4 for depthwise 3x3),
// the first failure prefixed with its config.
std::string check_exact_every_config(const ConvProblem& p, std::uint32_t seed, std::size_t shift = 0) {
  for (const std::string& config : solver().configs_for(p)) {
    const std::string err = check_exact(p, seed, shift, config);
    if (!err.empty()) return "config " + config + ": " + err;
  }
  return "";
}

// Fixed problems; each runs in every direction and dtype (fwd with and without bias).
const char* const kFixed[] = {
    // depthwise 3x3, stride 1 and 2; channel counts taking packs of 8/4 (c16, c8), 4 (c12, c20), 2 (c6), 1 (c5)
    "conv fwd fp32 nhwc n2 c16 k16 in7x9 f3x3 pad1x1 g16",
    "conv fwd fp32 nhwc n1 c8 k8 in9x8 f3x3 pad1x1 str2x2 g8",
    "conv fwd fp32 nhwc n1 c12 k12 in6x7 f3x3 pad1x1 str2x1 g12",
    "conv fwd fp32 nhwc n1 c20 k20 in5x5 f3x3 pad1x1 g20",
    "conv fwd fp32 nhwc n1 c6 k6 in5x6 f3x3 pad0x1 g6",
    "conv fwd fp32 nhwc n2 c5 k5 in5x4 f3x3 pad1x1 str2x2 g5",
    "conv fwd fp32 nhwc n1 c24 k24 in4x5 f3x3 pad1x1 g24",  // fp16: 3 vectors of 8, the last slice half full
    // several pixel tiles and bwd-weights chunks (n*P*Q = 646)
    "conv fwd fp32 nhwc n2 c8 k8 in17x19 f3x3 pad1x1 g8",
    // depthwise multipliers 2 and 3 (K = m*C)
    "conv fwd fp32 nhwc n1 c4 k8 in6x6 f3x3 pad1x1 g4",
    "conv fwd fp32 nhwc n2 c3 k6 in5x7 f3x3 pad1x1 str2x2 g3",
    "conv fwd fp32 nhwc n1 c4 k12 in5x5 f3x3 pad1x1 g4",
    // groups 2..8 with C/G, K/G from 1 to 16
    "conv fwd fp32 nhwc n1 c8 k8 in6x6 f3x3 pad1x1 g2",
    "conv fwd fp32 nhwc n2 c16 k16 in5x6 f3x3 pad1x1 str2x2 g4",
    "conv fwd fp32 nhwc n1 c32 k16 in4x5 f3x3 pad1x1 g2",
    "conv fwd fp32 nhwc n1 c6 k9 in5x5 f3x3 pad1x1 g3",
    "conv fwd fp32 nhwc n1 c24 k32 in4x4 f3x3 pad1x1 g8",
    "conv fwd fp32 nhwc n1 c12 k6 in5x5 f3x3 pad1x1 g6",
    "conv fwd fp32 nhwc n1 c64 k64 in3x4 f3x3 pad1x1 g4",
    "conv fwd fp32 nhwc n1 c32 k64 in3x3 f1x1 g2",
    // pads past the input's edge, dilation, odd and large filters (bwd-weights: several tap chunks)
    "conv fwd fp32 nhwc n1 c8 k8 in3x4 f3x3 pad3x2 g8",
    "conv fwd fp32 nhwc n1 c4 k4 in2x2 f2x2 pad2x2 str3x2 g2",
    "conv fwd fp32 nhwc n1 c8 k8 in9x10 f3x3 pad2x3 dil2x3 g8",
    "conv fwd fp32 nhwc n1 c16 k16 in7x7 f5x5 pad2x2 g16",
    "conv fwd fp32 nhwc n1 c8 k8 in9x9 f7x7 pad3x3 str2x2 g4",
    "conv fwd fp32 nhwc n2 c6 k6 in5x6 f3x1 pad1x0 str1x2 g3",
    "conv fwd fp32 nhwc n1 c2 k2 in1x1 f1x1 g2",
};

std::vector<ConvProblem> fixed_cases() { return gputest::every_direction_and_dtype(kFixed); }

// A random small NHWC grouped problem (valid, applicable) from rng.
ConvProblem random_problem(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  while (true) {
    ConvProblem p;
    p.channels_last = true;
    p.dir = static_cast<ConvDir>(pick(0, 2));
    p.dtype = static_cast<DType>(pick(0, 2));
    const int kind = pick(0, 2);  // depthwise, depthwise multiplier, grouped
    p.groups = kind == 2 ? pick(1, 8) : pick(1, 24);
    const int cg = kind == 2 ? pick(1, 16) : 1, kg = kind == 0 ? 1 : kind == 1 ? pick(2, 4) : pick(1, 16);
    p.c = p.groups * cg, p.k = p.groups * kg, p.n = pick(1, 2);
    p.in = {pick(1, 11), pick(1, 11)};
    p.filter = {pick(1, 5), pick(1, 5)};
    p.pad = {pick(0, 3), pick(0, 3)};
    p.stride = {pick(1, 3), pick(1, 3)};
    p.dilation = {pick(1, 2), pick(1, 2)};
    p.bias = p.dir == ConvDir::fwd && pick(0, 1) == 1;
    if (p.valid() && solver().applicable(p)) return p;
  }
}

}  // namespace

TEST(DirectGroupedEmu, DeclaresItsClaims) {
  const ConvSolver& s = solver();
  EXPECT_EQ(s.name(), "conv.direct.grouped");
  EXPECT_EQ(s.backend(), Backend::device);
  EXPECT_TRUE(s.deterministic());
  EXPECT_EQ(s.accumulation_error_factor(), 1.0);
  for (const char* str : {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 g8", "conv bwd-data fp16 nhwc n1 c8 k8 in5x5 f3x3 pad2x2 str2x2 g8",
                          "conv bwd-weights bf16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 g2"})
    EXPECT_EQ(s.implicit_zeros(parse_conv_problem(str)), ImplicitZeros::all(ZeroTerm::skipped)) << str;
  EXPECT_EQ(s.workspace_bytes(parse_conv_problem("conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 g8")), 0u);
  EXPECT_GT(s.workspace_bytes(parse_conv_problem("conv bwd-weights fp32 nhwc n1 c8 k8 in5x5 f3x3 g8")), 0u);
}

TEST(DirectGroupedEmu, FixedProblemsMatchTheReferenceExactly) {
  int ran = 0;
  for (const ConvProblem& p : fixed_cases()) {
    ASSERT_TRUE(solver().applicable(p)) << to_string(p) << ": " << solver().applicable(p).reason;
    ++ran;
    EXPECT_EQ(check_exact_every_config(p, 17), "") << to_string(p);
  }
  EXPECT_EQ(ran, static_cast<int>(std::size(kFixed)) * 12);
}

TEST(DirectGroupedEmu, RandomProblemsMatchTheReferenceExactly) {
  std::mt19937 rng(2027);
  for (int i = 0; i < 100; ++i) {
    const ConvProblem p = random_problem(rng);
    EXPECT_EQ(check_exact_every_config(p, 100 + i), "") << to_string(p);
  }
}

// Buffers shifted by one element: every pack path falls back to single elements (and bwd-weights
// to a different combo split); the sums keep their order, so the bits must still match.
TEST(DirectGroupedEmu, UnalignedBuffersTakeTheScalarPathAndStillMatch) {
  for (const char* s : {"conv fwd fp32 nhwc n1 c16 k16 in6x7 f3x3 pad1x1 g16 bias", "conv fwd fp16 nhwc n1 c16 k16 in5x5 f3x3 pad1x1 g2",
                        "conv bwd-data bf16 nhwc n1 c16 k16 in6x6 f3x3 pad1x1 str2x2 g16",
                        "conv bwd-weights fp16 nhwc n2 c16 k32 in9x9 f3x3 pad1x1 g4",
                        "conv bwd-weights fp32 nhwc n2 c8 k8 in13x11 f3x3 pad1x1 g8"}) {
    const ConvProblem p = parse_conv_problem(s);
    const std::size_t elem = p.dtype == DType::fp32 ? 4 : 2;
    EXPECT_EQ(check_exact_every_config(p, 5, elem), "") << s << " shifted by one element";
  }
}

// Which problems the row kernels take (depthwise 3x3: fwd and bwd-weights with W stride <= 2, stride-1
// bwd-data; bwd-weights strips of 4 only), the default there (rows.q4: measured faster), the gather alone
// everywhere else, and the rows' refusal kept out of the solver's.
TEST(DirectGroupedEmu, RowsConfigsOnDepthwise3x3AndTheGatherElsewhere) {
  const std::vector<std::string> all = {"gather", "rows.q2", "rows.q4"};
  EXPECT_EQ(solver().perf_configs(), all);
  for (const char* str : {"conv fwd bf16 nhwc n1 c32 k32 in9x9 f3x3 pad1x1 g32", "conv fwd fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str2x2 g8",
                          "conv fwd fp16 nhwc n1 c8 k8 in9x9 f3x3 pad0x2 str3x1 dil2x1 g8 bias",
                          "conv bwd-data fp16 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 g8"}) {
    const ConvProblem p = parse_conv_problem(str);
    EXPECT_EQ(solver().configs_for(p), all) << str;
    EXPECT_EQ(solver().default_config_for(p), "rows.q4") << str;
    EXPECT_EQ(rows_refusal_of(p), "") << str;
  }
  for (const char* str : {"conv bwd-weights bf16 nhwc n1 c32 k32 in9x9 f3x3 pad1x1 g32",
                          "conv bwd-weights fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str2x2 dil2x1 g8"}) {
    const ConvProblem p = parse_conv_problem(str);
    EXPECT_EQ(solver().configs_for(p), (std::vector<std::string>{"gather", "rows.q4"})) << str;
    EXPECT_EQ(solver().default_config_for(p), "rows.q4") << str;
    EXPECT_GT(solver().config_workspace_bytes(p, "rows.q4"), 0u) << str;
    EXPECT_EQ(solver().workspace_bytes(p), solver().config_workspace_bytes(p, "rows.q4")) << str;
    EXPECT_GT(solver().config_workspace_bytes(p, "gather"), 0u) << str;
  }
  struct Gather {
    const char* problem;
    const char* why;
  };
  for (const Gather& c : {Gather{"conv bwd-data fp16 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str2x2 g8", "strided"},
                          Gather{"conv bwd-weights fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str1x3 g8", "stride along W"},
                          Gather{"conv bwd-weights fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 g4", "multiplier 1"},
                          Gather{"conv fwd fp32 nhwc n1 c8 k16 in9x9 f3x3 pad1x1 g8", "multiplier 1"},
                          Gather{"conv fwd fp32 nhwc n1 c16 k16 in9x9 f3x3 pad1x1 g8", "multiplier 1"},
                          Gather{"conv fwd fp32 nhwc n1 c8 k8 in9x9 f5x5 pad2x2 g8", "3x3"},
                          Gather{"conv fwd fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 dil1x2 g8", "dilation along W"},
                          Gather{"conv fwd fp32 nhwc n1 c8 k8 in9x9 f3x3 pad1x1 str1x3 g8", "stride along W"}}) {
    const ConvProblem p = parse_conv_problem(c.problem);
    EXPECT_EQ(solver().configs_for(p), std::vector<std::string>{"gather"}) << c.problem;
    EXPECT_EQ(solver().default_config_for(p), "gather") << c.problem;
    EXPECT_NE(rows_refusal_of(p).find(c.why), std::string::npos) << c.problem << ": " << rows_refusal_of(p);
  }
  EXPECT_TRUE(solver().configs_for(parse_conv_problem("conv fwd fp32 nchw n1 c8 k8 in5x5 f3x3 pad1x1 g8")).empty());
}

// Large enough that a rows thread walks several Out rows (the plan gives a thread more than one row
// past 135168 threads at one row): the row loop's bounds, in fwd, stride-1 bwd-data and bwd-weights.
TEST(DirectGroupedEmu, RowsKernelWalkingSeveralRowsPerThreadMatches) {
  for (const char* str : {"conv fwd fp32 nhwc n3 c8 k8 in515x509 f3x3 pad1x1 g8 bias",
                          "conv bwd-data fp32 nhwc n3 c8 k8 in515x509 f3x3 pad1x1 g8",
                          "conv bwd-weights fp32 nhwc n3 c8 k8 in515x509 f3x3 pad1x1 g8"}) {
    const ConvProblem p = parse_conv_problem(str);
    for (const std::string& config : solver().configs_for(p)) {
      if (config == "gather") continue;
      EXPECT_GT(rows_per_thread_of(p, config), 1) << str << " " << config;
      EXPECT_EQ(check_exact(p, 9, 0, config), "") << str << " " << config;
    }
  }
}

TEST(DirectGroupedEmu, RefusesWhatItDoesNotImplementWithTheReason) {
  struct Refusal {
    const char* problem;
    const char* reason_part;
  };
  const Refusal cases[] = {
      {"conv fwd fp32 nchw n1 c8 k8 in5x5 f3x3 pad1x1 g8", "nchw"},
      {"conv fwd fp32 ndhwc n1 c8 k8 in3x5x5 f3x3x3 pad1x1x1 g8", "3D"},
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3 pad1x1 str2x2 g8 trans opad1x1", "mode trans"},
      {"conv fwd fp32 nhwc n1 c64 k64 in5x5 f3x3 pad1x1 g1", "a GEMM solver is faster"},
      {"conv bwd-data fp32 nhwc n1 c66 k66 in5x5 f3x3 pad1x1 g2", "more than 32 channels per group"},
      {"conv bwd-weights fp16 nhwc n1 c32 k66 in5x5 f3x3 pad1x1 g1", "K/G = 66"},
      {"conv fwd fp32 nhwc n1 c32 k32 in9x9 f7x7 pad3x3 g1", "shared-memory budget"},
      {"conv bwd-data fp32 nhwc n1 c8 k64 in9x9 f7x7 pad3x3 g2", "R*S*K/G = 1568"},
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f7x7 g8", "invalid problem"},
  };
  for (const auto& c : cases) {
    const ConvProblem p = parse_conv_problem_unchecked(c.problem);
    const Applicability a = solver().applicable(p);
    EXPECT_FALSE(a.ok) << c.problem;
    EXPECT_NE(a.reason.find(c.reason_part), std::string::npos) << c.problem << ": " << a.reason;
  }
  // bwd-weights stages no filter slice: the same 7x7 slice is taken there.
  EXPECT_TRUE(solver().applicable(parse_conv_problem("conv bwd-weights fp32 nhwc n1 c32 k32 in9x9 f7x7 pad3x3 g1")));
}
