// The conv generator: valid problems inside the solver's probed domain, the corner classes covered,
// shrinks valid and simpler, determinism of cases by seed and index.
#include <gtest/gtest.h>

#include <set>

#include "fuzz/campaign.hpp"
#include "fuzz/conv_gen.hpp"
#include "fuzz/conv_primitive.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "verify/host_solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

using fuzz::ConvDomain;

// A test solver that accepts only what `accept` says (its run is never called here).
class RestrictedSolver final : public ConvSolver {
 public:
  RestrictedSolver(std::string name, std::function<std::string(const ConvProblem&)> refuse) : name_(std::move(name)), refuse_(std::move(refuse)) {}
  std::string name() const override { return name_; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  Applicability applicable(const ConvProblem& p) const override {
    if (!p.valid()) return Applicability::no("invalid");
    const std::string why = refuse_(p);
    return why.empty() ? Applicability::yes() : Applicability::no(why);
  }
 protected:
  void run_checked(const ConvProblem&, const ConvTensors&) const override { FAIL() << "not run in these tests"; }

 private:
  std::string name_;
  std::function<std::string(const ConvProblem&)> refuse_;
};

// A solver judged by the Winograd F(4x4, 3x3) model.
class WinogradModelSolver final : public ConvSolver {
 public:
  std::string name() const override { return "test.winograd_model"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  ConvErrorModel error_model(const ConvProblem&) const override { return ConvErrorModel{4, 0.0}; }
  Applicability applicable(const ConvProblem&) const override { return Applicability::yes(); }
 protected:
  void run_checked(const ConvProblem&, const ConvTensors&) const override { FAIL() << "not run in these tests"; }
};

std::shared_ptr<fuzz::ConvCaseSpec const> draw(const fuzz::FuzzTarget& t, std::uint64_t i) {
  const auto key = fuzz::case_key(7, i);
  auto spec = t.generate(rc::Random(key), 10 + static_cast<int>(key % 91)).value();
  return std::static_pointer_cast<const fuzz::ConvCaseSpec>(spec);
}

TEST(FuzzGenerators, CasesAreValidWithinBudgetAndRoundTripThroughTheirReproLine) {
  const auto t = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {});
  const auto lim = fuzz::small_conv_limits();
  for (std::uint64_t i = 0; i < 400; ++i) {
    const auto spec = draw(*t, i);
    const fuzz::ConvCase& c = spec->conv_case();
    ASSERT_TRUE(c.problem.valid()) << to_string(c.problem) << ": " << c.problem.validate().front();
    EXPECT_LE(c.problem.macs(), lim.max_macs) << to_string(c.problem);
    EXPECT_TRUE(fuzz::special_fits_tier(c.data.special, fuzz::conv_case_tier(c)));
    // The repro line the runner writes is the case.
    fuzz::ReproLine line;
    line.problem = to_string(c.problem);
    line.seed = c.data.seed;
    if (c.data.fill) line.fill = std::string(verify::fill_tier_name(*c.data.fill));
    if (c.data.special != fuzz::Special::none) line.special = std::string(fuzz::special_name(c.data.special));
    const fuzz::ConvCase back = fuzz::conv_case_from_repro(fuzz::parse_repro_line(line.str()));
    EXPECT_EQ(back.problem, c.problem);
    EXPECT_EQ(back.data.seed, c.data.seed);
    EXPECT_EQ(back.data.fill, c.data.fill);
    EXPECT_EQ(back.data.special, c.data.special);
  }
}

TEST(FuzzGenerators, SameSeedAndIndexGiveTheSameCase) {
  const auto a = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {}), b = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {});
  std::set<std::string> distinct;
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(draw(*a, i)->problem(), draw(*b, i)->problem());
    EXPECT_EQ(draw(*a, i)->data(), draw(*b, i)->data());
    distinct.insert(draw(*a, i)->problem());
  }
  EXPECT_GT(distinct.size(), 45u);  // and different indices give different cases
}

TEST(FuzzGenerators, EveryReachableClassIsCoveredAndNonPackedStridesAreReportedSkipped) {
  const auto t = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {});
  std::map<std::string, int> hits;
  for (std::uint64_t i = 0; i < 1500; ++i)
    for (auto& c : draw(*t, i)->classes()) ++hits[c];
  for (auto& cls : t->reachable_classes()) EXPECT_GT(hits[cls], 0) << cls << " never generated";
  bool skipped = false;
  for (auto& s : t->skipped_classes()) skipped = skipped || s.name == "non_packed_strides";
  EXPECT_TRUE(skipped);
}

TEST(FuzzGenerators, ProbedDomainKeepsARestrictedSolverFree_of_Discards) {
  // Like a fwd-only 2D tensor-core kernel: fwd, conv mode, 2D, fp16/bf16, channels last, C and K multiples of 8.
  auto s = std::make_shared<RestrictedSolver>("test.restricted", [](const ConvProblem& p) -> std::string {
    if (p.dir != ConvDir::fwd) return "fwd only";
    if (p.mode != ConvMode::conv) return "no trans";
    if (p.rank() != 2) return "2D only";
    if (p.dtype == DType::fp32) return "16-bit only";
    if (!p.channels_last) return "nhwc only";
    if ((p.c / p.groups) % 8 || (p.k / p.groups) % 8) return "channels per group % 8";
    return "";
  });
  const ConvDomain d = fuzz::probe_conv_domain(*s);
  EXPECT_EQ(d.dirs, std::vector<ConvDir>{ConvDir::fwd});
  EXPECT_EQ(d.dtypes, (std::vector<DType>{DType::fp16, DType::bf16}));
  EXPECT_EQ(d.channels_last, std::vector<bool>{true});
  EXPECT_FALSE(d.rank3);
  EXPECT_FALSE(d.trans);
  EXPECT_FALSE(d.depthwise);
  EXPECT_TRUE(d.groups);
  EXPECT_EQ(d.channel_multiple, 8);
  const auto t = fuzz::conv_fuzz_target(s, {}, d);
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto spec = draw(*t, i);
    EXPECT_TRUE(s->applicable(spec->conv_case().problem)) << spec->problem();
  }
}

// Like conv.igemm.wgmma: fp16/bf16 in every direction, fp32 only with math=tf32 and not for
// bwd-weights. The probe keeps fp32 as math=tf32 for fwd and bwd-data; every draw is accepted, the
// fp32 ones carry the token and no special values, and a drawn fp32 bwd-weights case turns 16-bit.
TEST(FuzzGenerators, ProbedDomainPutsTheTf32TokenOnASolversFp32Cases) {
  auto s = std::make_shared<RestrictedSolver>("test.tf32", [](const ConvProblem& p) -> std::string {
    if (p.mode != ConvMode::conv || p.rank() != 2 || !p.channels_last || p.groups != 1) return "2D NHWC conv, groups 1";
    if (p.c % 8 || p.k % 8) return "C, K % 8";
    if (p.dtype == DType::fp32 && p.math != ConvMath::tf32) return "fp32 without math=tf32";
    if (p.math == ConvMath::tf32 && p.dir == ConvDir::bwd_weights) return "no tf32 bwd-weights";
    return "";
  });
  const ConvDomain d = fuzz::probe_conv_domain(*s);
  EXPECT_EQ(d.dtypes, (std::vector<DType>{DType::fp32, DType::fp16, DType::bf16}));
  EXPECT_TRUE(d.fp32_needs_tf32);
  EXPECT_EQ(d.tf32_dirs, (std::vector<ConvDir>{ConvDir::fwd, ConvDir::bwd_data}));
  EXPECT_NE(d.describe().find("fp32 as math=tf32 (fwd,bwd-data)"), std::string::npos) << d.describe();
  EXPECT_FALSE(fuzz::probe_conv_domain(*make_host_mutant(Bug::none)).fp32_needs_tf32);  // takes fp32 as it is
  const auto t = fuzz::conv_fuzz_target(s, {}, d);
  int tf32 = 0, sixteen = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto spec = draw(*t, i);
    const fuzz::ConvCase& c = spec->conv_case();
    EXPECT_TRUE(s->applicable(c.problem)) << spec->problem();
    EXPECT_EQ(c.problem.math == ConvMath::tf32, c.problem.dtype == DType::fp32) << spec->problem();
    if (c.problem.math == ConvMath::tf32) {
      ++tf32;
      EXPECT_EQ(c.data.special, fuzz::Special::none) << spec->problem();
    } else {
      ++sixteen;
    }
  }
  EXPECT_GT(tf32, 20);
  EXPECT_GT(sixteen, 20);
}

TEST(FuzzGenerators, ProbedDomainOfA1x1SolverHasNoFilterPadOrStride) {
  auto s = std::make_shared<RestrictedSolver>("test.1x1", [](const ConvProblem& p) -> std::string {
    for (int i = 0; i < p.rank(); ++i)
      if (p.filter[i] != 1 || p.pad[i] != 0 || p.stride[i] != 1) return "1x1, pad 0, stride 1 only";
    return "";
  });
  const ConvDomain d = fuzz::probe_conv_domain(*s);
  EXPECT_FALSE(d.filter_gt1);
  EXPECT_FALSE(d.pad);
  EXPECT_FALSE(d.stride);
  EXPECT_FALSE(d.dilation);
  EXPECT_TRUE(d.trans);
  EXPECT_TRUE(d.rank3);
  const auto t = fuzz::conv_fuzz_target(s, {}, d);
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(s->applicable(draw(*t, i)->conv_case().problem)) << draw(*t, i)->problem();
}

// A solver of one filter size (as conv.winograd.*: 2D 3x3, stride 1, no dilation) accepts no 1x1
// anchor: the probe falls back to a 3x3 one and fixes the filter, instead of an unconstrained
// domain whose every draw is refused.
TEST(FuzzGenerators, ProbedDomainOfA3x3OnlySolverFixesTheFilter) {
  auto s = std::make_shared<RestrictedSolver>("test.3x3", [](const ConvProblem& p) -> std::string {
    if (p.mode != ConvMode::conv || p.rank() != 2) return "2D convolution only";
    for (int i = 0; i < 2; ++i)
      if (p.filter[i] != 3 || p.stride[i] != 1 || p.dilation[i] != 1) return "3x3, stride 1, dilation 1 only";
    return "";
  });
  const ConvDomain d = fuzz::probe_conv_domain(*s);
  EXPECT_TRUE(d.found_anchor);
  EXPECT_EQ(d.fixed_filter, 3);
  EXPECT_TRUE(d.filter_gt1);
  EXPECT_TRUE(d.pad);
  EXPECT_FALSE(d.stride);
  EXPECT_FALSE(d.dilation);
  EXPECT_FALSE(d.rank3);
  EXPECT_FALSE(d.trans);
  EXPECT_NE(d.describe().find("filter 3 only"), std::string::npos) << d.describe();
  EXPECT_EQ(fuzz::probe_conv_domain(*make_host_mutant(Bug::none)).fixed_filter, 0);  // takes 1x1 anchors
  const auto t = fuzz::conv_fuzz_target(s, {}, d);
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(s->applicable(draw(*t, i)->conv_case().problem)) << draw(*t, i)->problem();
}

// A solver of filters from 2 up (as conv.fft.*: 2D, stride 1, filter 2 to its tile minus one) also
// refuses 1x1 anchors, but takes 5x5: the domain keeps every filter from 2 (the s21 GPU campaign drew
// only 3x3 for conv.fft.* while the probe fixed the filter).
TEST(FuzzGenerators, ProbedDomainOfASolverOfFiltersFromTwoKeepsLargeFilters) {
  auto s = std::make_shared<RestrictedSolver>("test.f2up", [](const ConvProblem& p) -> std::string {
    if (p.mode != ConvMode::conv || p.rank() != 2) return "2D convolution only";
    for (int i = 0; i < 2; ++i)
      if (p.filter[i] < 2 || p.filter[i] > 15 || p.stride[i] != 1 || p.dilation[i] != 1) return "filter 2 to 15, stride 1 only";
    return "";
  });
  const ConvDomain d = fuzz::probe_conv_domain(*s);
  EXPECT_EQ(d.fixed_filter, 0);
  EXPECT_EQ(d.min_filter, 2);
  EXPECT_TRUE(d.filter_gt1);
  EXPECT_TRUE(d.pad);
  EXPECT_NE(d.describe().find("filter >= 2"), std::string::npos) << d.describe();
  const auto t = fuzz::conv_fuzz_target(s, {}, d);
  std::set<std::int64_t> filters;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const ConvProblem p = draw(*t, i)->conv_case().problem;
    EXPECT_TRUE(s->applicable(p)) << to_string(p);
    filters.insert(p.filter[0]);
  }
  EXPECT_TRUE(filters.count(2) && filters.count(3) && filters.count(5)) << "filters drawn: " << filters.size();
}

// conv.naive (the GPU oracle) stores the exact sum rounded to the dtype: it stands in for the
// reference of exact-tier cases without special values, except 16-bit cases of a solver whose bound
// is relative to the exact sum (the Winograd model).
TEST(FuzzGenerators, GpuOracleServesNoSixteenBitCaseOfAWinogradModel) {
  const auto direct = make_host_mutant(Bug::none);
  const WinogradModelSolver wino;
  ConvProblem p = parse_conv_problem("conv fwd bf16 nchw n1 c7 k3 in67x67 f3x3 pad0x0");
  using verify::FillTier;
  EXPECT_TRUE(fuzz::gpu_oracle_serves(p, FillTier::exact, fuzz::Special::none, *direct));
  EXPECT_FALSE(fuzz::gpu_oracle_serves(p, FillTier::exact, fuzz::Special::none, wino));
  EXPECT_FALSE(fuzz::gpu_oracle_serves(p, FillTier::bounded, fuzz::Special::none, *direct));
  EXPECT_FALSE(fuzz::gpu_oracle_serves(p, FillTier::exact, fuzz::Special::nan, *direct));
  p.dtype = DType::fp16;
  EXPECT_FALSE(fuzz::gpu_oracle_serves(p, FillTier::exact, fuzz::Special::none, wino));
  p.dtype = DType::fp32;  // fp32: conv.naive's exact-tier output is the exact sum itself
  EXPECT_TRUE(fuzz::gpu_oracle_serves(p, FillTier::exact, fuzz::Special::none, wino));
}

TEST(FuzzGenerators, ShrinksAreValidAndNoBiggerThanTheirParent) {
  const auto t = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {});
  for (std::uint64_t i = 0; i < 40; ++i) {
    const auto key = fuzz::case_key(3, i);
    rc::Shrinkable<fuzz::CaseSpecPtr> cur = t->generate(rc::Random(key), 100);
    // A random descent through the shrink tree, checking every sibling on the way.
    for (int depth = 0; depth < 30; ++depth) {
      auto kids = cur.shrinks();
      std::vector<rc::Shrinkable<fuzz::CaseSpecPtr>> all;
      while (auto k = kids.next()) all.push_back(*k);
      if (all.empty()) break;
      for (auto& k : all) {
        const auto spec = std::static_pointer_cast<const fuzz::ConvCaseSpec>(k.value());
        ASSERT_TRUE(spec->conv_case().problem.valid()) << spec->problem();
      }
      cur = all[(key >> depth) % all.size()];
    }
  }
}

TEST(FuzzGenerators, FullyShrunkCaseIsTheSimplestProblem) {
  const auto t = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), {});
  rc::Shrinkable<fuzz::CaseSpecPtr> cur = t->generate(rc::Random(fuzz::case_key(11, 5)), 100);
  // Always take the first shrink: RapidCheck's first shrink of each choice is its simplest value.
  for (int i = 0; i < 500; ++i) {
    auto k = cur.shrinks().next();
    if (!k) break;
    cur = *k;
  }
  const auto spec = std::static_pointer_cast<const fuzz::ConvCaseSpec>(cur.value());
  const fuzz::ConvCase& c = spec->conv_case();
  EXPECT_EQ(to_string(c.problem), "conv fwd fp32 nchw n1 c1 k1 in1x1 f1x1 pad0x0 str1x1 dil1x1 g1");
  EXPECT_EQ(c.data.seed, 1u);
  EXPECT_EQ(c.data.special, fuzz::Special::none);
  EXPECT_EQ(c.data.fill, verify::FillTier::bounded);  // the shrink target of the tier (see conv_gen.hpp)
}

TEST(FuzzGenerators, LargeLimitsKeepCpuOracleCasesSmall) {
  fuzz::ConvTargetOptions o;
  o.limits = fuzz::large_conv_limits();
  const auto t = fuzz::conv_fuzz_target(make_host_mutant(Bug::none), o);
  double biggest_exact = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto spec = draw(*t, i);
    const fuzz::ConvCase& c = spec->conv_case();
    const double macs = c.problem.macs();
    if (c.data.special != fuzz::Special::none) EXPECT_LE(macs, o.limits.max_macs_special);
    else if (fuzz::conv_case_tier(c) == verify::FillTier::bounded) EXPECT_LE(macs, o.limits.max_macs_bounded);
    else biggest_exact = std::max(biggest_exact, macs);
    EXPECT_LE(macs, o.limits.max_macs);
    for (const TensorDesc& td : {c.problem.x_desc(), c.problem.w_desc(), c.problem.y_desc()})
      EXPECT_LE(static_cast<double>(td.elements()), o.limits.max_tensor_elements) << spec->problem();
  }
  EXPECT_GT(biggest_exact, 1e7);  // the GPU oracle's cases do get big
}

// Live fractions by hand: the share of the computed tensor's elements with at least one real term.
TEST(FuzzGenerators, StructuralLiveFractionByHand) {
  auto live = [](const char* p) { return fuzz::structural_live_fraction(parse_conv_problem(p)); };
  // 1x1 stride 2 bwd-data: only even (h, w) of dx are reached: 1/4.
  EXPECT_DOUBLE_EQ(live("conv bwd-data fp32 nchw n1 c1 k1 in4x4 f1x1 str2x2"), 0.25);
  // fwd, one input pixel, 3x3 filter, pad 3: out 5 per axis, outputs 1..3 reach x: (3/5)^2.
  EXPECT_DOUBLE_EQ(live("conv fwd fp32 nchw n1 c1 k1 in1x1 f3x3 pad3x3"), 9.0 / 25.0);
  // bwd-weights, width pad 2, stride 3, one output column: only tap 2 (position 0) lands in x: 1/3.
  EXPECT_DOUBLE_EQ(live("conv bwd-weights fp32 nchw n1 c1 k1 in1x1 f1x3 pad0x2 str1x3"), 1.0 / 3.0);
  // bwd-data, dilation 3, filter 4 over 10 (one output): dx 0, 3, 6, 9 are reached: (4/10)^2.
  EXPECT_DOUBLE_EQ(live("conv bwd-data fp32 nchw n1 c1 k1 in10x10 f4x4 dil3x3"), 0.16);
  EXPECT_DOUBLE_EQ(live("conv fwd fp32 nchw n2 c3 k4 in7x7 f3x3 pad1x1"), 1.0);
}

// The comparator mistrusts outputs of more than 80% zeros; the generator keeps the structural zeros
// under half (it repairs pad, stride, dilation) and the target reseeds mostly-zero data, so a
// campaign meets no mistrusted case.
TEST(FuzzGenerators, CasesKeepMostOfTheirOutputLiveAndAreNotMistrusted) {
  const auto t = fuzz::conv_fuzz_target(verify::make_fast_reference_solver(), {});
  int mistrusted = 0;
  for (std::uint64_t i = 0; i < 600; ++i) {
    const auto spec = draw(*t, i);
    EXPECT_GE(fuzz::structural_live_fraction(spec->conv_case().problem), fuzz::kMinLiveFraction) << spec->problem();
    const auto rec = t->run(*spec);
    if (rec.verdict.status == verify::Status::mistrusted) ++mistrusted;
    EXPECT_NE(rec.verdict.status, verify::Status::mistrusted) << rec.repro << ": " << rec.verdict.reason;
  }
  EXPECT_EQ(mistrusted, 0);
}

}  // namespace
}  // namespace hiprim::fuzz_test
