// Special input values: the judge, the contract (NaN/Inf reach exactly the outputs whose dot
// products include them), and that the data kinds bite (a flushing or NaN-leaking solver fails).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "fuzz/conv_special.hpp"
#include "fuzz/conv_primitive.hpp"
#include "tests/fuzz/judge_fixture.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "reference/conv.hpp"

namespace hiprim::fuzz_test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

verify::Tolerance exact_fp32() {
  verify::Tolerance t;
  t.tier = verify::FillTier::exact;
  t.out_dtype = DType::fp32;
  return t;
}

TEST(FuzzSpecial, JudgeAcceptsExactPropagationAndRejectsEveryOtherOutcome) {
  const auto e = expected_of({1.0, kNaN, kInf, -kInf});
  EXPECT_EQ(fuzz::judge_special(got_of({1, kNaN, kInf, -kInf}), e, exact_fp32()).status, verify::Status::passed);
  // A NaN that did not arrive, an infinity of the wrong sign, a NaN where the output is finite.
  EXPECT_EQ(fuzz::judge_special(got_of({1, 0, kInf, -kInf}), e, exact_fp32()).status, verify::Status::failed);
  EXPECT_EQ(fuzz::judge_special(got_of({1, kNaN, -kInf, -kInf}), e, exact_fp32()).status, verify::Status::failed);
  EXPECT_EQ(fuzz::judge_special(got_of({kNaN, kNaN, kInf, -kInf}), e, exact_fp32()).status, verify::Status::failed);
  EXPECT_EQ(fuzz::judge_special(got_of({2, kNaN, kInf, -kInf}), e, exact_fp32()).status, verify::Status::failed);
  const auto v = fuzz::judge_special(got_of({1, 5, kNaN, -kInf}), e, exact_fp32());
  EXPECT_EQ(v.metrics.mismatches, 2);
  EXPECT_EQ(v.metrics.nonfinite_mismatches, 2);
  EXPECT_NE(v.reason.find("NaN/Inf"), std::string::npos) << v.reason;
}

TEST(FuzzSpecial, ReferenceNaNPositionsAreExactlyTheOutputsReadingTheNaN) {
  // 1x1 conv, stride 1, no padding: y[n,k,h,w] reads x[n,*,h,w] only, so a NaN at x[0,1,2,3] must
  // make y[0,k,2,3] NaN for every k and nothing else.
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k4 in5x6 f1x1");
  HostTensor x(p.x_desc()), w(p.w_desc());
  for (auto& v : x.data) v = 1;
  for (auto& v : w.data) v = 1;
  x.at({0, 1, 2, 3}) = kNaN;
  const auto out = ref::conv_naive(p, {&x, &w, nullptr, nullptr});
  for_each_index(out.desc.dims, [&](const Dims& i) {
    const bool reads_nan = i[0] == 0 && i[2] == 2 && i[3] == 3;
    EXPECT_EQ(std::isnan(out.value[static_cast<std::size_t>(out.desc.offset(i))]), reads_nan);
  });
}

// Huge values go into one of the two main inputs only (their products stay below fp32's range), in
// every direction, over many seeds; the other main input keeps the fill's magnitudes.
TEST(FuzzSpecial, HugeValuesLandInOneMainInputOnly) {
  const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> cases[] = {
      {"conv fwd fp32 nchw n2 c3 k4 in5x6 f3x3 pad1x1", {verify::kTagX, verify::kTagW}},
      {"conv bwd-data fp32 nchw n2 c3 k4 in5x6 f3x3 pad1x1", {verify::kTagY, verify::kTagW}},
      {"conv bwd-weights fp32 nchw n2 c3 k4 in5x6 f3x3 pad1x1", {verify::kTagX, verify::kTagY}}};
  for (const auto& [line, tags] : cases) {
    const ConvProblem p = parse_conv_problem(line);
    auto desc = [&](std::uint64_t tag) { return tag == verify::kTagX ? p.x_desc() : tag == verify::kTagW ? p.w_desc() : p.y_desc(); };
    int first = 0, second = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      int with_huge = 0;
      for (std::uint64_t tag : {tags.first, tags.second}) {
        HostTensor t(desc(tag));
        fuzz::apply_special(fuzz::Special::huge, p, seed, tag, t);
        bool huge = false;
        for (float v : t.data) huge = huge || std::fabs(v) >= 0x1p99f;
        with_huge += huge;
        if (huge) (tag == tags.first ? first : second)++;
      }
      EXPECT_EQ(with_huge, 1) << line << ", seed " << seed;
    }
    EXPECT_GT(first, 20) << line;  // either input can be the one
    EXPECT_GT(second, 20) << line;
  }
}

TEST(FuzzSpecial, SpecialValuesAreDeterministicAndLandInTheInputs) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k4 in5x6 f3x3 pad1x1");
  for (fuzz::Special s : {fuzz::Special::nan, fuzz::Special::inf, fuzz::Special::mixed}) {
    int nonfinite = 0;
    for (std::uint64_t tag : {verify::kTagX, verify::kTagW}) {
      HostTensor a(tag == verify::kTagX ? p.x_desc() : p.w_desc()), b = a;
      fuzz::apply_special(s, p, 42, tag, a);
      fuzz::apply_special(s, p, 42, tag, b);
      for (std::size_t i = 0; i < a.data.size(); ++i) {
        EXPECT_EQ(std::isnan(a.data[i]), std::isnan(b.data[i]));
        if (!std::isnan(a.data[i])) {
          EXPECT_EQ(a.data[i], b.data[i]);
        }
        nonfinite += std::isfinite(a.data[i]) ? 0 : 1;
      }
    }
    EXPECT_GE(nonfinite, 1) << fuzz::special_name(s);
  }
}

TEST(FuzzSpecial, SubnormalScalingMakesEveryNonzeroInputSubnormalAndStaysExact) {
  for (const char* prob : {"conv fwd fp32 nchw n1 c3 k2 in4x4 f3x3 pad1x1 bias", "conv fwd fp16 nchw n1 c3 k2 in4x4 f3x3 pad1x1 bias",
                           "conv bwd-data bf16 nhwc n1 c3 k2 in4x4 f3x3 pad1x1"}) {
    const fuzz::ConvCase c{parse_conv_problem(prob), {5, std::nullopt, fuzz::Special::subnormal}};
    const auto o = fuzz::conv_run_options(c.problem, c.data, *make_host_mutant(Bug::none));
    verify::PreparedCase pc(c.problem, o);
    const HostTensor& act = pc.tensor(c.problem.dir == ConvDir::bwd_data ? "dy" : "x");
    const double smallest_normal = c.problem.dtype == DType::fp16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
    int nonzero = 0;
    for (float v : act.data)
      if (v != 0) {
        ++nonzero;
        EXPECT_LT(std::fabs(v), smallest_normal) << prob;
      }
    EXPECT_GT(nonzero, 0);
    // The bug-free direct conv is exact on it (threshold zero), so the data stayed on the exact grid.
    const auto rec = fuzz::run_conv_case(c, *make_host_mutant(Bug::none));
    EXPECT_EQ(rec.verdict.status, verify::Status::passed) << prob << ": " << rec.verdict.reason;
    EXPECT_EQ(rec.verdict.metrics.max_ulp, 0u);
  }
}

TEST(FuzzSpecial, SubnormalCasesCatchAFlushToZeroSolver) {
  const fuzz::ConvCase c{parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in3x3 f1x1"), {3, std::nullopt, fuzz::Special::subnormal}};
  EXPECT_EQ(fuzz::run_conv_case(c, *make_flush_to_zero_solver()).verdict.status, verify::Status::failed);
  const fuzz::ConvCase plain{c.problem, {3, std::nullopt, fuzz::Special::none}};
  EXPECT_EQ(fuzz::run_conv_case(plain, *make_flush_to_zero_solver()).verdict.status, verify::Status::passed);  // only the special data shows it
}

TEST(FuzzSpecial, TierRulesOfTheKinds) {
  EXPECT_FALSE(fuzz::special_fits_tier(fuzz::Special::subnormal, verify::FillTier::bounded));
  EXPECT_FALSE(fuzz::special_fits_tier(fuzz::Special::huge, verify::FillTier::exact));
  EXPECT_TRUE(fuzz::special_fits_tier(fuzz::Special::nan, verify::FillTier::exact));
  EXPECT_THROW(fuzz::conv_case_from_repro(fuzz::parse_repro_line("hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --special huge")), InputError);
  EXPECT_THROW(fuzz::conv_case_from_repro(fuzz::parse_repro_line("hiprim repro \"conv n1 c1 k1 in2x2 f1x1\" --special what")), InputError);
  for (fuzz::Special s : fuzz::all_specials()) EXPECT_EQ(fuzz::parse_special(fuzz::special_name(s)), s);
}

}  // namespace
}  // namespace hiprim::fuzz_test
