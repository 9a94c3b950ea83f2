// The Winograd error model in the runner's conv check: a host solver computing Winograd F(m x m, 3 x 3)
// in fp32 (ref::winograd_conv_fp32) and declaring the model is judged by gamma(L_w) * S
// (reference/winograd.hpp) and passes; the same solver with a mis-typed transform coefficient fails;
// the tolerance line names the model. With bf16 transformed operands (conv.winograd.tc.*'s model) the bound needs
// the operands' rounding: declared, it passes; left out, it fails; a model that cannot mean anything is an error.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "core/conv_problem.hpp"
#include "reference/winograd.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify_test {
namespace {

class HostWinograd final : public ConvSolver {
 public:
  // operands: U and V stored in that dtype before the channel sum; declared: the model claimed (default {m, operands}).
  HostWinograd(int m, bool mistyped, DType operands = DType::fp32, std::optional<ConvErrorModel> declared = std::nullopt)
      : m_(m), t_(winograd_f3(m)), operands_(operands), declared_(declared) {
    if (mistyped) t_.g[7] = t_.g[7] + Rational(1, 64);
  }
  std::string name() const override { return "test.winograd"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "ref::winograd_conv_fp32 as a solver"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override {
    return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::skipped, .stride_holes = ZeroTerm::skipped};
  }
  Applicability applicable(const ConvProblem& p) const override {
    const std::string why = winograd_refusal(p, t_);
    return why.empty() ? Applicability::yes() : Applicability::no(why);
  }
  ConvErrorModel error_model(const ConvProblem&) const override {
    if (declared_) return *declared_;
    ConvErrorModel e{m_};
    e.winograd_operands = operands_;
    return e;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    HostTensor x(p.x_desc()), w(p.w_desc()), y(p.y_desc());
    x.from_bytes(static_cast<const unsigned char*>(t.x));
    w.from_bytes(static_cast<const unsigned char*>(t.w));
    const std::vector<float> out = ref::winograd_conv_fp32(p, t_, x, w, operands_);
    for (std::size_t i = 0; i < out.size(); ++i) y.data[i] = round_to(p.dtype, out[i]);
    const std::vector<unsigned char> bytes = y.to_bytes();
    std::copy(bytes.begin(), bytes.end(), static_cast<unsigned char*>(t.y));
  }

 private:
  int m_;
  WinogradTransforms t_;
  DType operands_;
  std::optional<ConvErrorModel> declared_;
};

TEST(WinogradModel, TheRunnerJudgesByTheDerivedBound) {
  for (int m : {2, 4, 6})
    for (const char* s : {"conv fwd fp32 nchw n2 c16 k8 in13x11 f3x3 pad1x1", "conv fwd bf16 nhwc n1 c32 k8 in9x9 f3x3 pad1x1",
                          "conv fwd fp16 nchw n1 c8 k12 in7x7 f3x3 pad2x2 g2"})
      for (verify::FillTier tier : {verify::FillTier::bounded, verify::FillTier::exact}) {
        const ConvProblem p = parse_conv_problem(s);
        verify::RunOptions o;
        o.seed = 7;
        o.fill = tier;
        const verify::PreparedCase c(p, o);
        const auto good = verify::run_case(c, HostWinograd(m, false), o);
        EXPECT_EQ(good.verdict.status, verify::Status::passed) << "F(" << m << ",3) " << s << ": " << good.verdict.reason;
        EXPECT_NE(good.tolerance.find("Winograd F(" + std::to_string(m)), std::string::npos) << good.tolerance;
        EXPECT_NE(good.tolerance.find("bounded"), std::string::npos) << good.tolerance;  // whatever the fill tier
        const auto bad = verify::run_case(c, HostWinograd(m, true), o);
        EXPECT_EQ(bad.verdict.status, verify::Status::failed) << "F(" << m << ",3) " << s << " with a mis-typed G";
      }
}

TEST(WinogradModel, Bf16OperandsPassWithTheirRoundingDeclaredAndFailWithout) {
  int failed_undeclared = 0, cases = 0;
  for (int m : {2, 4, 6})
    for (const char* s : {"conv fwd bf16 nhwc n1 c32 k8 in9x9 f3x3 pad1x1", "conv fwd fp16 nchw n1 c8 k12 in7x7 f3x3 pad2x2 g2",
                          "conv fwd fp16 nhwc n2 c6 k10 in8x9 f3x3 pad0x1"}) {
      const ConvProblem p = parse_conv_problem(s);
      verify::RunOptions o;
      o.seed = 9;
      o.fill = verify::FillTier::bounded;
      const verify::PreparedCase c(p, o);
      const auto good = verify::run_case(c, HostWinograd(m, false, DType::bf16), o);
      EXPECT_EQ(good.verdict.status, verify::Status::passed) << "F(" << m << ",3) " << s << ": " << good.verdict.reason;
      EXPECT_NE(good.tolerance.find("u_in=2^-8"), std::string::npos) << good.tolerance;
      ConvErrorModel fp32_claim{m};
      const auto bad = verify::run_case(c, HostWinograd(m, false, DType::bf16, fp32_claim), o);
      failed_undeclared += bad.verdict.status == verify::Status::failed;
      ++cases;
    }
  EXPECT_GT(failed_undeclared, cases / 2) << "bf16 operands judged as fp32 ones failed " << failed_undeclared << " of " << cases;
}

TEST(WinogradModel, AModelThatCannotMeanAnythingIsAnError) {
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n1 c8 k8 in6x6 f3x3 pad1x1");
  verify::RunOptions o;
  o.seed = 3;
  const verify::PreparedCase c(p, o);
  ConvErrorModel unit_with_tile{4};
  unit_with_tile.input_unit = 0x1p-8;
  ConvErrorModel operands_without_tile{};
  operands_without_tile.winograd_operands = DType::bf16;
  for (const ConvErrorModel& e : {unit_with_tile, operands_without_tile}) {
    const auto r = verify::run_case(c, HostWinograd(4, false, DType::bf16, e), o);
    EXPECT_EQ(r.verdict.status, verify::Status::error) << r.verdict.reason;
    EXPECT_NE(r.verdict.reason.find("declares"), std::string::npos) << r.verdict.reason;
  }
}

}  // namespace
}  // namespace hiprim::verify_test
