// Tests of the GEMM-based conv solvers (conv.gemm.1x1, conv.gemm.im2col, conv.gemm.implicit and their .mma tensor-core
// twins, fp16/bf16 only, whose tests skip visibly where gemm_mma_unavailable() says why): on the host,
// the solvers' refusals and workspace against their plan (the maps and the plan alone:
// test_gemm_conv_plan.cpp, host-only); on the device
// (skipped without a GPU), every direction x dtype x layout of fixed small conv and trans problems,
// and random small problems, against the CPU reference with integer fills (exact tier: the result
// must equal round_to(dtype, expected)), outputs and workspace poisoned with NaN and followed by
// guard bytes, and a bitwise rerun.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/gemm_conv_maps.hpp"
#include "gpu/conv/registry.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/gemm/gemm.hpp"
#include "reference/conv.hpp"
#include "tests/gpu/gemm_conv_gen.hpp"
#include "tests/gpu/gemm_test_util.hpp"

namespace hiprim::gpu {
namespace {

using gputest::GuardedBuffer;
using test_gemm_conv::gen_problem;

// ---- host: operand maps against TensorDesc ----

// ---- host: the solvers against their plan (the plan itself: test_gemm_conv_plan.cpp) ----

TEST(GemmConvSolverPlan, RefusalAndWorkspaceComeFromThePlan) {
  const ConvProblem p = parse_conv_problem("conv fwd fp16 nchw n4 c6 k8 in10x10 f3x3 pad1x1 str1x1 dil1x1 g2");
  const auto solver = make_conv_gemm_im2col(10000);
  const Applicability a = solver->applicable(p);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.reason.find("10800 bytes"), std::string::npos) << a.reason;
  // ResNet-50-like 1x1 weight gradient: 8 split-K slices of fp32 partial sums.
  EXPECT_EQ(make_conv_gemm_1x1()->workspace_bytes(parse_conv_problem("conv bwd-weights bf16 nchw n32 c256 k1024 in14x14 f1x1")),
            8u * 1024 * 256 * sizeof(float));
}

RC_GTEST_PROP(GemmConvSolverPlan, ApplicableAndWorkspaceMatchThePlan, ()) {
  ConvProblem p = *gen_problem();
  p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  const std::size_t limit = *rc::gen::inRange<std::size_t>(1, 200000);
  const Im2colPlan pl = plan_im2col(p, limit);
  const auto solver = make_conv_gemm_im2col(limit);
  RC_ASSERT(solver->applicable(p).ok == pl.refusal.empty());
  if (pl.refusal.empty()) RC_ASSERT(solver->workspace_bytes(p) == pl.workspace_bytes);
}

TEST(GemmConv1x1, RefusesWhatItCannotDoWithAReason) {
  const auto s = make_conv_gemm_1x1();
  auto reason = [&](const std::string& str) { return s->applicable(parse_conv_problem(str)).reason; };
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f1x3").find("filter width is 3"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f1x1 str1x2").find("stride (width) is 2"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 ncdhw n1 c2 k2 in3x5x5 f1x1x1 pad1x0x0").find("pad (depth) is 1"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f1x1 dil2x2 trans opad1x0").find("output padding"), std::string::npos);
  EXPECT_TRUE(s->applicable(parse_conv_problem("conv bwd-data bf16 nhwc n2 c4 k6 in5x5 f1x1 g2 trans")).ok);
  EXPECT_TRUE(s->applicable(parse_conv_problem("conv fwd fp16 ndhwc n2 c4 k6 in2x3x5 f1x1x1 dil2x1x3 bias")).ok);
  EXPECT_EQ(s->workspace_bytes(parse_conv_problem("conv bwd-weights fp32 nchw n2 c4 k6 in5x5 f1x1")), 0u);
}

// The .mma twins: registered right before their siblings, refuse fp32 (and any device the tensor-core
// GEMM cannot use) with the reason, and otherwise take what the sibling takes with its workspace.
TEST(GemmConvMma, RegisteredBeforeTheSiblingAndRefuseWithReasons) {
  const ConvSolverList& all = gpu_conv_solvers();
  for (const char* sibling : {"conv.gemm.1x1", "conv.gemm.im2col"}) {
    std::size_t at = all.size();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i]->name() == sibling) at = i;
    ASSERT_TRUE(at > 0 && at < all.size()) << sibling;
    EXPECT_EQ(all[at - 1]->name(), std::string(sibling) + ".mma");
  }
  const std::string unavailable = gemm_mma_unavailable();
  const std::string geometry = " nhwc n2 c8 k16 in6x6 f1x1";
  for (const auto& [mma, simt] : {std::pair{make_conv_gemm_1x1_mma(), make_conv_gemm_1x1()},
                                  std::pair{make_conv_gemm_im2col_mma(), make_conv_gemm_im2col()}}) {
    const Applicability fp32 = mma->applicable(parse_conv_problem("conv fwd fp32" + geometry));
    EXPECT_FALSE(fp32.ok);
    EXPECT_NE(fp32.reason.find("fp32 would need tf32"), std::string::npos) << fp32.reason;
    for (const char* dir : {"fwd", "bwd-data", "bwd-weights"}) {
      const ConvProblem p = parse_conv_problem(std::string("conv ") + dir + " bf16" + geometry);
      const Applicability a = mma->applicable(p);
      if (!unavailable.empty()) {
        EXPECT_FALSE(a.ok) << mma->name();
        EXPECT_EQ(a.reason, unavailable);
        continue;
      }
      EXPECT_TRUE(a.ok) << mma->name() << ": " << a.reason;
      EXPECT_EQ(mma->workspace_bytes(p), simt->workspace_bytes(p)) << mma->name() << " " << to_string(p);
    }
    // The sibling's own refusals come through.
    if (mma->name() == "conv.gemm.1x1.mma" && unavailable.empty()) {
      EXPECT_NE(mma->applicable(parse_conv_problem("conv fwd fp16 nchw n1 c2 k2 in5x5 f1x3")).reason.find("filter width"),
                std::string::npos);
    }
  }
}

// ---- device: solvers against the reference ----

struct SolverCase {
  std::string variant;  // "1x1", "im2col", "im2col_chunked" (one image per chunk), each also with ".mma"
  std::string geometry;  // problem tokens after "conv <dir> <dtype> <layout>"
};

const std::vector<std::string> kGeneralProblems = {
    "n2 c4 k6 in7x5 f3x3 pad1x1 str1x1 dil1x1 g1",
    "n3 c6 k4 in9x8 f3x2 pad1x0 str2x2 dil2x1 g2",
    "n2 c6 k6 in6x7 f3x3 pad1x1 str1x2 dil1x1 g6",
    "n2 c6 k4 in4x5 f3x3 pad1x1 str2x2 dil1x1 g2 trans opad1x0",
    "n2 c3 k5 in6x6 f2x2 pad0x0 str2x2 dil1x1 g1 trans opad1x1",
    "n2 c4 k4 in5x4x6 f3x1x2 pad1x0x1 str2x1x1 dil1x1x2 g2",
    "n2 c4 k6 in3x4x3 f2x2x2 pad1x0x1 str2x1x2 dil1x1x1 g2 trans opad1x0x1",
    "n4 c32 k80 in12x12 f3x3 pad1x1 str1x1 dil1x1 g1",
};
const std::vector<std::string> k1x1Problems = {
    "n3 c8 k6 in5x7 f1x1 g2",
    "n3 c4 k6 in5x5 f1x1 g2 trans",
    "n3 c4 k8 in3x4x5 f1x1x1 g1",
    "n4 c96 k72 in9x9 f1x1 g1",
    "n8 c8 k8 in12x12 f1x1 g1",
};
// Problems whose bwd-weights GEMM runs as split-K (checked on the host below).
void PrintTo(const SolverCase& c, std::ostream* os) { *os << c.variant << " on \"" << c.geometry << "\""; }

std::vector<SolverCase> all_cases() {
  std::vector<SolverCase> v;
  for (const auto& g : k1x1Problems) v.push_back({"1x1", g});
  for (const auto* list : {&kGeneralProblems, &k1x1Problems})
    for (const auto& g : *list) {
      v.push_back({"im2col", g});
      v.push_back({"im2col_chunked", g});
    }
  const std::size_t simt_cases = v.size();
  for (std::size_t i = 0; i < simt_cases; ++i) v.push_back({v[i].variant + ".mma", v[i].geometry});
  return v;
}

ConvProblem make_problem(ConvDir dir, DType dt, bool channels_last, const std::string& geometry, bool bias) {
  ConvProblem p = parse_conv_problem("conv " + std::string(conv_dir_name(dir)) + " " + std::string(dtype_name(dt)) +
                                     " " + geometry + (bias ? " bias" : ""));
  p.channels_last = channels_last;  // the layout token is optional; set it for either rank
  return p;
}

// The chunked variant's limit: one image's col, the chunk and split-K partial sums, the alignment
// reserve of each (plan_im2col's layout).
std::size_t one_image_limit(const ConvProblem& p) {
  const Im2colPlan whole = plan_im2col(p);
  const std::size_t per_image = whole.col_bytes / static_cast<std::size_t>(p.n);
  const std::size_t partial = whole.op == ConvOp::w_from_in_out ? static_cast<std::size_t>(conv_geom(p).w_elements()) * 4 : 0;
  auto reserve = [](std::size_t b) { return b ? align_up(b, kWorkspaceAlign) + kWorkspaceAlign : 0; };
  return per_image + reserve(partial) + reserve(whole.split_bytes);
}

bool is_mma(const std::string& variant) { return variant.ends_with(".mma"); }

std::shared_ptr<const ConvSolver> make_solver(const std::string& variant, const ConvProblem& p) {
  if (variant == "1x1") return make_conv_gemm_1x1();
  if (variant == "im2col") return make_conv_gemm_im2col();
  if (variant == "im2col_chunked") return make_conv_gemm_im2col(one_image_limit(p));
  if (variant == "1x1.mma") return make_conv_gemm_1x1_mma();
  if (variant == "im2col.mma") return make_conv_gemm_im2col_mma();
  return make_conv_gemm_im2col_mma(one_image_limit(p));
}

void fill_ints(HostTensor& t, std::mt19937& rng) {
  for_each_index(t.desc.dims, [&](const Dims& i) { t.at(i) = test_gemm::small_int(rng); });
}

class GemmConvSolvers : public ::testing::TestWithParam<SolverCase> {};

// The chunked variant really cuts every batch into one-image chunks (host check of the plan).
TEST_P(GemmConvSolvers, ChunkedVariantCutsOneImagePerChunk) {
  const SolverCase& sc = GetParam();
  if (sc.variant != "im2col_chunked") GTEST_SKIP() << "only for the chunked variant";
  for (ConvDir dir : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
    for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
      const ConvProblem p = make_problem(dir, dt, false, sc.geometry, false);
      const Im2colPlan pl = plan_im2col(p, one_image_limit(p));
      EXPECT_EQ(pl.chunks, p.n) << to_string(p);
    }
}

// Runs `solver` on p (exact-tier integer fills from `seed`) and returns "" when the output equals
// round_to(dtype, reference) everywhere (a poisoned, never written element fails too), no guard byte
// around any buffer or the workspace changed, the inputs are unmodified, and a second run is bitwise
// identical; else what went wrong first.
std::string check_against_reference(const ConvSolver& solver, const ConvProblem& p, std::uint32_t seed) {
  std::mt19937 rng(seed);
  HostTensor x(p.x_desc()), w(p.w_desc()), y(p.y_desc()), b(p.bias_desc());
  for (HostTensor* t : {&x, &w, &y, &b}) fill_ints(*t, rng);
  const ref::ConvOutput want = ref::conv(p, ref::ConvInputs{&x, &w, &y, &b}, false);
  HostTensor* out = p.dir == ConvDir::fwd ? &y : p.dir == ConvDir::bwd_data ? &x : &w;
  std::string problem;
  auto run_once = [&]() {
    struct Tensor {
      HostTensor* host;
      std::vector<unsigned char> bytes;  // what an input must still hold after the run
      GuardedBuffer dev;
    };
    std::vector<std::unique_ptr<Tensor>> ts;
    auto make = [&](HostTensor& t, const char* what) {
      std::vector<unsigned char> bytes = t.to_bytes();
      GuardedBuffer dev = &t == out ? gputest::guarded_output(bytes.size(), t.desc.dtype, what) : gputest::guarded_input(bytes, what);
      ts.push_back(std::make_unique<Tensor>(Tensor{&t, std::move(bytes), std::move(dev)}));
      return &ts.back()->dev;
    };
    GuardedBuffer *dx = make(x, "x"), *dw = make(w, "w"), *dy = make(y, "y"), *db = make(b, "bias");
    GuardedBuffer ws(Backend::device, solver.workspace_bytes(p), "workspace");
    ConvTensors t{dx->data(), dw->data(), dy->data(), p.bias ? db->data() : nullptr, ws.data(), ws.payload(), nullptr, {}};
    solver.run(p, t);
    gpu::synchronize("gemm conv test");
    std::vector<unsigned char> got;
    for (auto& tt : ts) {
      std::string bad;
      if (tt->host == out) {
        gputest::Readback r = gputest::read_back(tt->dev);
        bad = r.guard_error;
        got = std::move(r.payload);
      } else {
        bad = gputest::input_error(tt->dev, tt->bytes);
      }
      if (!bad.empty() && problem.empty()) problem = bad;
    }
    if (const std::string bad = gputest::guard_error(ws); !bad.empty() && problem.empty()) problem = bad;
    return got;
  };
  const std::vector<unsigned char> got_bytes = run_once();
  HostTensor got(out->desc);
  got.from_bytes(got_bytes.data());
  std::int64_t mismatches = 0;
  std::string first;
  for_each_index(got.desc.dims, [&](const Dims& i) {
    const auto off = static_cast<std::size_t>(got.desc.offset(i));
    const float expect = round_to(p.dtype, want.value[off]);
    if (!test_gemm::exact_equal(got.data[off], expect) && mismatches++ == 0)
      first = "element at offset " + std::to_string(off) + " = " + std::to_string(got.data[off]) + ", want " +
              std::to_string(expect);
  });
  if (mismatches > 0) return std::to_string(mismatches) + " mismatches, first: " + first;
  if (!problem.empty()) return problem;
  if (solver.deterministic() && run_once() != got_bytes) return "a second run is not bitwise identical";
  return problem;
}

TEST_P(GemmConvSolvers, ExactAgainstReferenceEveryDirectionDtypeLayout) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const SolverCase& sc = GetParam();
  if (is_mma(sc.variant))
    if (const std::string why = gemm_mma_unavailable(); !why.empty()) GTEST_SKIP() << why;
  int run_index = 0;
  for (ConvDir dir : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
    for (DType dt : {DType::fp32, DType::fp16, DType::bf16})
      for (bool cl : {false, true}) {
        const bool bias = dir == ConvDir::fwd && (run_index++ % 2 == 1);
        const ConvProblem p = make_problem(dir, dt, cl, sc.geometry, bias);
        const auto solver = make_solver(sc.variant, p);
        if (is_mma(sc.variant) && dt == DType::fp32) {  // refused with the reason, checked on the host too
          EXPECT_FALSE(solver->applicable(p).ok) << to_string(p);
          continue;
        }
        const Applicability a = solver->applicable(p);
        ASSERT_TRUE(a.ok) << sc.variant << " refuses " << to_string(p) << ": " << a.reason;
        EXPECT_EQ(check_against_reference(*solver, p, static_cast<std::uint32_t>(run_index * 7919 + 17)), "")
            << sc.variant << ": " << to_string(p);
      }
}

// Random small problems (either mode, rank, layout, every direction and dtype, bias on fwd).
rc::Gen<ConvProblem> gen_full_problem(bool one_by_one) {
  return rc::gen::exec([one_by_one] {
    ConvProblem p = *gen_problem();
    if (one_by_one) {  // what conv.gemm.1x1 takes
      for (int i = 0; i < p.rank(); ++i) p.filter[i] = 1, p.pad[i] = 0, p.stride[i] = 1, p.out_pad[i] = 0;
    }
    p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
    p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
    p.bias = p.dir == ConvDir::fwd && *rc::gen::arbitrary<bool>();
    RC_PRE(p.valid());
    return p;
  });
}

// Skips (visibly, with the reason) when the tensor-core GEMM cannot run here.
#define HIPRIM_SKIP_WITHOUT_MMA()                                                  \
  do {                                                                             \
    if (const std::string why = gemm_mma_unavailable(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

void random_problems_match_reference(bool mma) {
  for (const bool one_by_one : {false, true}) {
    const auto solver = mma ? (one_by_one ? make_conv_gemm_1x1_mma() : make_conv_gemm_im2col_mma())
                            : (one_by_one ? make_conv_gemm_1x1() : make_conv_gemm_im2col());
    const bool ok = rc::check(solver->name() + " vs reference", [&] {
      ConvProblem p = *gen_full_problem(one_by_one);
      if (mma) p.dtype = *rc::gen::element(DType::fp16, DType::bf16);
      const Applicability a = solver->applicable(p);
      RC_ASSERT(a.ok);  // each solver takes every problem of its generator
      const std::string err = check_against_reference(*solver, p, *rc::gen::inRange(0u, 1000u));
      if (!err.empty()) RC_FAIL(to_string(p) + ": " + err);
    });
    EXPECT_TRUE(ok) << solver->name();
  }
}

TEST(GemmConvRandom, SmallProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  random_problems_match_reference(false);
}

TEST(GemmConvRandom, MmaSmallProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  HIPRIM_SKIP_WITHOUT_MMA();
  random_problems_match_reference(true);
}

// ---- conv.gemm.implicit(.mma): 2D conv fwd (and stride-1 bwd-data) as one GEMM over a zero-padded NHWC copy ----

TEST(GemmConvImplicit, RegisteredBeforeIm2colAndRefuseWithReasons) {
  const ConvSolverList& all = gpu_conv_solvers();
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i]->name() == name) return i;
    return all.size();
  };
  ASSERT_LT(at("conv.gemm.implicit"), all.size());
  ASSERT_LT(at("conv.gemm.implicit.mma"), all.size());
  EXPECT_LT(at("conv.gemm.implicit.mma"), at("conv.gemm.im2col.mma"));
  EXPECT_LT(at("conv.gemm.implicit"), at("conv.gemm.im2col"));
  const auto simt = make_conv_gemm_implicit(), mma = make_conv_gemm_implicit_mma();
  auto reason = [&](const std::string& str) { return simt->applicable(parse_conv_problem(str)).reason; };
  EXPECT_TRUE(simt->applicable(parse_conv_problem("conv fwd fp32 nchw n2 c3 k4 in9x9 f7x7 pad3x3 str2x2 bias")).ok);
  EXPECT_TRUE(simt->applicable(parse_conv_problem("conv bwd-data fp32 nchw n1 c2 k2 in5x5 f3x3")).ok);  // stride 1: flipped
  EXPECT_NE(reason("conv bwd-data fp32 nchw n1 c2 k2 in5x5 f3x3 str2x2").find("stride"), std::string::npos);
  EXPECT_NE(reason("conv bwd-weights fp32 nchw n1 c2 k2 in5x5 f3x3").find("bwd-weights"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f3x3 g2").find("groups"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f3x3 dil2x2").find("dilation"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 nchw n1 c2 k2 in5x5 f3x3 trans").find("trans"), std::string::npos);
  EXPECT_NE(reason("conv fwd fp32 ncdhw n1 c2 k2 in3x5x5 f1x3x3").find("2D"), std::string::npos);
  EXPECT_NE(mma->applicable(parse_conv_problem("conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3")).reason.find("tf32"),
            std::string::npos);
  EXPECT_EQ(simt->accumulation_error_factor(), 1.0);
  EXPECT_EQ(mma->accumulation_error_factor(), 2.0);
}

void implicit_fixed_problems_match_reference(bool use_mma) {
  const char* const geometries[] = {
      "n2 c4 k6 in7x5 f3x3 pad1x1 str1x1",  "n3 c5 k7 in9x8 f3x2 pad0x0 str2x2",  // odd sizes, stride 2, pad 0
      "n2 c3 k8 in17x15 f7x7 pad3x3 str2x2",                                       // 7x7 stem, C = 3
      "n2 c8 k5 in7x7 f1x1 pad0x0 str2x2",  "n2 c16 k24 in10x9 f3x3 pad1x1 str1x2",  // C % 8 == 0: vector path
      "n4 c32 k80 in12x12 f3x3 pad1x1 str1x1", "n1 c6 k3 in5x6 f2x3 pad1x0 str1x2"};
  int run_index = use_mma ? 1000 : 0;
  const auto solver = use_mma ? make_conv_gemm_implicit_mma() : make_conv_gemm_implicit();
  for (const char* geometry : geometries)
    for (DType dt : {DType::fp32, DType::fp16, DType::bf16})
      for (bool cl : {false, true}) {
        if (use_mma && dt == DType::fp32) continue;  // refused with the reason (RegisteredBeforeIm2col... checks it)
        const bool bias = run_index++ % 2 == 1;
        const ConvProblem p = make_problem(ConvDir::fwd, dt, cl, geometry, bias);
        const Applicability a = solver->applicable(p);
        ASSERT_TRUE(a.ok) << solver->name() << " refuses " << to_string(p) << ": " << a.reason;
        EXPECT_EQ(check_against_reference(*solver, p, static_cast<std::uint32_t>(run_index * 7919 + 5)), "")
            << solver->name() << ": " << to_string(p);
        // bwd-data of the stride-1 geometries: the flipped fwd conv (others are refused with the stride)
        const ConvProblem d = make_problem(ConvDir::bwd_data, dt, cl, geometry, false);
        const Applicability ad = solver->applicable(d);
        if (d.stride[0] != 1 || d.stride[1] != 1) {
          EXPECT_NE(ad.reason.find("stride"), std::string::npos) << to_string(d) << ": " << ad.reason;
          continue;
        }
        ASSERT_TRUE(ad.ok) << solver->name() << " refuses " << to_string(d) << ": " << ad.reason;
        EXPECT_EQ(check_against_reference(*solver, d, static_cast<std::uint32_t>(run_index * 7919 + 11)), "")
            << solver->name() << ": " << to_string(d);
      }
}

TEST(GemmConvImplicit, FwdExactAgainstReference) {
  HIPRIM_SKIP_WITHOUT_GPU();
  implicit_fixed_problems_match_reference(false);
}

TEST(GemmConvImplicit, MmaFwdExactAgainstReference) {
  HIPRIM_SKIP_WITHOUT_GPU();
  HIPRIM_SKIP_WITHOUT_MMA();
  implicit_fixed_problems_match_reference(true);
}

// Random small 2D conv fwd problems (groups 1, dilation 1, any stride/pad, layout, dtype, bias) and
// stride-1 bwd-data problems (the flipped fwd conv).
void implicit_random_problems_match_reference(bool use_mma) {
  const auto solver = use_mma ? make_conv_gemm_implicit_mma() : make_conv_gemm_implicit();
  const bool ok = rc::check(solver->name() + " vs reference", [&] {
    ConvProblem p = *gen_full_problem(false);
    p.mode = ConvMode::conv, p.groups = 1, p.out_pad = Dims(p.rank());
    RC_PRE(p.rank() == 2);
    p.dilation = Dims{1, 1};
    // fwd, or bwd-data with stride 1 and pad <= filter - 1 (the flipped fwd conv)
    p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data);
    if (p.dir == ConvDir::bwd_data) {
      p.stride = Dims{1, 1};
      for (std::size_t i = 0; i < 2; ++i) p.pad[i] = std::min(p.pad[i], p.filter[i] - 1);
    }
    p.bias = p.dir == ConvDir::fwd && *rc::gen::arbitrary<bool>();
    if (use_mma) p.dtype = *rc::gen::element(DType::fp16, DType::bf16);
    RC_PRE(p.valid());
    const Applicability a = solver->applicable(p);
    RC_ASSERT(a.ok);
    const std::string err = check_against_reference(*solver, p, *rc::gen::inRange(0u, 1000u));
    if (!err.empty()) RC_FAIL(to_string(p) + ": " + err);
  });
  EXPECT_TRUE(ok) << solver->name();
}

TEST(GemmConvImplicit, RandomFwdProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  implicit_random_problems_match_reference(false);
}

TEST(GemmConvImplicit, MmaRandomFwdProblemsMatchReferenceExactly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  HIPRIM_SKIP_WITHOUT_MMA();
  implicit_random_problems_match_reference(true);
}

INSTANTIATE_TEST_SUITE_P(Cases, GemmConvSolvers, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  std::string name = info.param.variant + "_" + std::to_string(info.index);
  for (char& ch : name)
    if (ch == '.') ch = '_';  // test names take [A-Za-z0-9_] only
  return name;
});

}  // namespace
}  // namespace hiprim::gpu
