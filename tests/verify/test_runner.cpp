// The conv runner takes each solver's accumulation model into its tolerance: a solver declaring
// truncating adds (accumulation_error_factor 2, the tensor-core solvers) is judged by 2*gamma(L).
// The output poison (verify/guarded_buffer.hpp): a signaling NaN no arithmetic or conversion gives,
// and an element still holding it fails the case before any judge looks at it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/conv_problem.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/host_solvers.hpp"
#include "verify/op_solvers.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "verify/solvers.hpp"
#include "core/error.hpp"

namespace hiprim::verify_test {
namespace {

// The fast reference, declaring a given accumulation error factor.
class DeclaredFactor final : public ConvSolver {
 public:
  explicit DeclaredFactor(double f) : factor_(f) {}
  std::string name() const override { return "test.factor"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "fast reference with a declared accumulation factor"; }
  double accumulation_error_factor() const override { return factor_; }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return inner_->implicit_zeros(p); }
  Applicability applicable(const ConvProblem& p) const override { return inner_->applicable(p); }
  std::size_t workspace_bytes(const ConvProblem& p) const override { return inner_->workspace_bytes(p); }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override { inner_->run(p, t); }

 private:
  double factor_;
  std::shared_ptr<const ConvSolver> inner_ = verify::make_fast_reference_solver();
};

TEST(Runner, ToleranceUsesTheSolversAccumulationFactor) {
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n1 c8 k4 in5x5 f3x3 pad1x1");
  verify::RunOptions o;
  o.seed = 3;
  o.fill = verify::FillTier::bounded;
  const verify::PreparedCase c(p, o);
  const auto one = verify::run_case(c, DeclaredFactor(1.0), o), two = verify::run_case(c, DeclaredFactor(2.0), o);
  EXPECT_EQ(one.verdict.status, verify::Status::passed) << one.verdict.reason;
  EXPECT_EQ(two.verdict.status, verify::Status::passed) << two.verdict.reason;
  EXPECT_NE(one.tolerance.find("(1*gamma"), std::string::npos) << one.tolerance;
  EXPECT_NE(two.tolerance.find("(2*gamma"), std::string::npos) << two.tolerance;
  EXPECT_EQ(verify::conv_tolerance(c, 2.0).algorithm_factor, 2.0);
  EXPECT_EQ(verify::conv_tolerance(c).algorithm_factor, 1.0);
}

// The fast reference, then element `skip` (storage offset) of the output put back to the poison, as
// if the solver never wrote it.
class LeavesOneUnwritten final : public ConvSolver {
 public:
  explicit LeavesOneUnwritten(std::int64_t skip) : skip_(skip) {}
  std::string name() const override { return "test.unwritten"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "fast reference that leaves one output element unwritten"; }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return inner_->implicit_zeros(p); }
  Applicability applicable(const ConvProblem& p) const override { return inner_->applicable(p); }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    inner_->run(p, t);
    const std::uint32_t bits = verify::poison_bits(p.dtype);
    auto* y = static_cast<unsigned char*>(t.y) + skip_ * static_cast<std::int64_t>(dtype_size(p.dtype));
    std::memcpy(y, &bits, dtype_size(p.dtype));  // little-endian: the low bytes of bits
  }

 private:
  std::int64_t skip_;
  std::shared_ptr<const ConvSolver> inner_ = verify::make_fast_reference_solver();
};

TEST(Poison, IsASignalingNanPerDtypeUnlikeAnyCanonicalNan) {
  const float f32 = std::bit_cast<float>(verify::poison_bits(DType::fp32));
  EXPECT_TRUE(std::isnan(f32));
  EXPECT_EQ(verify::poison_bits(DType::fp32) & 0x00400000u, 0u);  // quiet bit clear
  EXPECT_TRUE(std::isnan(fp16_bits_to_float(static_cast<std::uint16_t>(verify::poison_bits(DType::fp16)))));
  EXPECT_EQ(verify::poison_bits(DType::fp16) & 0x0200u, 0u);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(static_cast<std::uint16_t>(verify::poison_bits(DType::bf16)))));
  EXPECT_EQ(verify::poison_bits(DType::bf16) & 0x0040u, 0u);
  // NVIDIA's canonical NaNs, x86's default NaN and quiet_NaN() are not the poison.
  for (std::uint32_t nan : {0x7FFFFFFFu, 0xFFC00000u, 0x7FC00000u, std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN())})
    EXPECT_FALSE(verify::is_poison(DType::fp32, nan)) << std::hex << nan;
  for (DType t : {DType::fp16, DType::bf16})
    for (std::uint32_t nan : {0x7FFFu, 0xFFFFu, 0x7E00u, 0x7FC0u, 0xFFC0u}) EXPECT_FALSE(verify::is_poison(t, nan)) << std::hex << nan;
  // A sign flip is still the poison (a bit move, not arithmetic).
  EXPECT_TRUE(verify::is_poison(DType::fp32, verify::poison_bits(DType::fp32) | 0x80000000u));
  EXPECT_TRUE(verify::is_poison(DType::bf16, verify::poison_bits(DType::bf16) | 0x8000u));
}

TEST(Poison, NoConversionOrHostArithmeticProducesIt) {
  // Every float NaN (both signs, every payload, the poison included) rounded to fp16/bf16 by the
  // host's round_to is a quiet NaN, never the 16-bit poison.
  for (std::uint32_t m = 1; m < (1u << 23); ++m)
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      const float f = std::bit_cast<float>(sign | 0x7F800000u | m);
      const std::uint32_t h = float_to_fp16_bits(f), b = float_to_bf16_bits(f);
      if (verify::is_poison(DType::fp16, h) || verify::is_poison(DType::bf16, b)) FAIL() << std::hex << (sign | m);
    }
  // Arithmetic with the poison itself as an operand: quiet results. (A float -> double -> float
  // round trip with nothing in between is a copy to the compiler, which may keep the bits: a bit
  // move, like any copy, and no input holds the poison to be copied.)
  volatile float p = std::bit_cast<float>(verify::poison_bits(DType::fp32));
  volatile float one = 1.0f, zero = 0.0f, inf = std::numeric_limits<float>::infinity();
  for (float r : {p + one, p * one, p * zero, zero * inf, inf - inf, static_cast<float>(static_cast<double>(p) * 2.0),
                  std::fma(p, one, zero)})
    EXPECT_FALSE(verify::is_poison(DType::fp32, std::bit_cast<std::uint32_t>(r))) << std::hex << std::bit_cast<std::uint32_t>(r);
  for (DType t : {DType::fp16, DType::bf16})
    EXPECT_FALSE(verify::is_poison(t, t == DType::fp16 ? float_to_fp16_bits(p) : float_to_bf16_bits(p)));
}

TEST(Poison, AnUnwrittenElementFailsNamingItEvenWhereTheJudgeAcceptsAnything) {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
    ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k3 in4x4 f3x3 pad1x1");
    p.dtype = t;
    verify::RunOptions o;
    o.seed = 5;
    // A judge that passes everything: the poison check must not depend on it.
    o.hooks.judge = [](const HostTensor&, const ref::ConvOutput&, const verify::Tolerance&) {
      verify::Verdict v;
      v.status = verify::Status::passed;
      return v;
    };
    const verify::PreparedCase c(p, o);
    // y [1,3,4,4] NCHW: storage offset 1*16 + 2*4 + 3 = 27 is element [0,1,2,3].
    const auto bad = verify::run_case(c, LeavesOneUnwritten(27), o);
    EXPECT_EQ(bad.verdict.status, verify::Status::failed) << dtype_name(t);
    EXPECT_NE(bad.verdict.reason.find("never wrote 1 of 48 elements of y"), std::string::npos) << bad.verdict.reason;
    EXPECT_NE(bad.verdict.reason.find("first at [0,1,2,3]"), std::string::npos) << bad.verdict.reason;
    const auto good = verify::run_case(c, *verify::make_fast_reference_solver(), o);
    EXPECT_EQ(good.verdict.status, verify::Status::passed) << good.verdict.reason;
  }
}

}  // namespace
}  // namespace hiprim::verify_test

// --solver takes comma-separated globs (check and bench alike): a solver matching any is selected, in
// registry order; a list matching nothing names the known solvers.
TEST(SelectConvSolvers, CommaSeparatedGlobsSelectTheUnion) {
  using hiprim::verify::select_conv_solvers;
  const auto all = select_conv_solvers("*");
  const auto fast = select_conv_solvers("nothing.*,ref.conv.fast");
  ASSERT_EQ(fast.size(), 1u);
  EXPECT_EQ(fast.front()->name(), "ref.conv.fast");
  const auto both = select_conv_solvers("ref.conv.fast,*");
  ASSERT_EQ(both.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(both[i]->name(), all[i]->name());
  EXPECT_THROW(select_conv_solvers("nothing.*,neither.*"), hiprim::InputError);
  EXPECT_THROW(select_conv_solvers(","), hiprim::InputError);
}

// The oracle rule is a property each solver declares: the fast CPU reference runs the code of conv's
// default oracle, so it alone is judged by the naive loops; every other solver keeps the default.
TEST(Runner, OnlyTheFastReferenceNeedsAnIndependentOracle) {
  for (const auto& s : hiprim::verify::select_conv_solvers("*"))
    EXPECT_EQ(s->needs_independent_oracle(), s->name() == "ref.conv.fast") << s->name();
  EXPECT_TRUE(hiprim::verify::make_fast_reference_solver()->needs_independent_oracle());
}

// ConvSolver::run checks the preconditions once for every solver (core/conv_solver.cpp) and calls
// run_checked only when they hold.
namespace hiprim::verify_test {
namespace {

class CountsRuns final : public ConvSolver {
 public:
  std::string name() const override { return "test.counts"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "counts its checked runs; refuses bwd-weights; 64-byte workspace"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  Applicability applicable(const ConvProblem& p) const override {
    return p.dir == ConvDir::bwd_weights ? Applicability::no("no bwd-weights here") : Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem&) const override { return 64; }
  mutable int runs = 0;

 protected:
  void run_checked(const ConvProblem&, const ConvTensors&) const override { ++runs; }
};

// The InputError's message of s.run(p, t), or "" when it ran.
std::string run_error(const ConvSolver& s, const ConvProblem& p, const ConvTensors& t) {
  try {
    s.run(p, t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ConvSolverRun, ChecksApplicabilityBuffersAndWorkspaceBeforeTheAlgorithm) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 pad1x1 bias");
  ConvProblem bwd_w = p;
  bwd_w.dir = ConvDir::bwd_weights;
  bwd_w.bias = false;
  unsigned char x[1], w[1], y[1], b[1], ws[64];
  const ConvTensors ok{x, w, y, b, ws, sizeof ws, nullptr, {}};
  CountsRuns s;
  auto has = [](const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; };
  EXPECT_TRUE(has(run_error(s, bwd_w, ok), "test.counts cannot run")) << run_error(s, bwd_w, ok);
  EXPECT_TRUE(has(run_error(s, bwd_w, ok), "no bwd-weights here"));
  ConvTensors t = ok;
  t.w = nullptr;
  EXPECT_TRUE(has(run_error(s, p, t), "test.counts: the w buffer is null")) << run_error(s, p, t);
  t = ok;
  t.bias = nullptr;
  EXPECT_TRUE(has(run_error(s, p, t), "the bias buffer is null")) << run_error(s, p, t);
  t = ok;
  t.workspace_bytes = 63;
  EXPECT_TRUE(has(run_error(s, p, t), "needs a workspace of 64 bytes")) << run_error(s, p, t);
  t = ok;
  t.workspace = nullptr;
  EXPECT_TRUE(has(run_error(s, p, t), "at a null pointer")) << run_error(s, p, t);
  EXPECT_EQ(s.runs, 0);
  EXPECT_EQ(run_error(s, p, ok), "");
  EXPECT_EQ(s.runs, 1);
}

// Conv and op solver lists select through the same glob-list matcher.
TEST(MatchSolvers, ConvAndOpListsShareTheGlobListMatch) {
  EXPECT_TRUE(verify::glob_list_match("nothing,ref.*", "ref.conv.fast"));
  EXPECT_FALSE(verify::glob_list_match(",", "ref.conv.fast"));
  EXPECT_EQ(verify::match_solvers(verify::conv_solvers(), "nothing").size(), 0u);
  const auto refs = verify::match_solvers(verify::op_solvers(), "nothing.*,ref.*");
  ASSERT_FALSE(refs.empty());
  for (const auto& s : refs) EXPECT_EQ(s->name().rfind("ref.", 0), 0u) << s->name();
  EXPECT_EQ(verify::match_op_solvers("nothing.*,ref.*").size(), refs.size());
}

}  // namespace
}  // namespace hiprim::verify_test
