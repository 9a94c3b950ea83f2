// The TF32 error model in the runner's conv check (reference/error_model.hpp): a host solver that
// truncates its inputs to TF32 and sums the products (as the tensor cores do with fp32 operands),
// declaring ConvErrorModel::input_unit on a math=tf32 problem, is judged by the widened bound and
// passes; the same arithmetic declared exact fails in the bounded tier (the truncation's error is far
// above fp32's); declaring TF32 on a problem without math=tf32 is an error, never a pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"
#include "reference/error_model.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify_test {
namespace {

using ref::tf32_truncated;

class HostTf32 final : public ConvSolver {
 public:
  explicit HostTf32(double declared_unit) : unit_(declared_unit) {}
  std::string name() const override { return "test.tf32"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "ref::conv of TF32-truncated inputs, rounded to fp32"; }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override {
    return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::multiplied, .stride_holes = ZeroTerm::multiplied};
  }
  Applicability applicable(const ConvProblem& p) const override {
    return p.dir == ConvDir::fwd && p.dtype == DType::fp32 && !p.bias ? Applicability::yes() : Applicability::no("fwd fp32 without bias only");
  }
  ConvErrorModel error_model(const ConvProblem&) const override {
    ConvErrorModel m;
    m.input_unit = unit_;
    return m;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    HostTensor x(p.x_desc()), w(p.w_desc()), y(p.y_desc());
    x.from_bytes(static_cast<const unsigned char*>(t.x));
    w.from_bytes(static_cast<const unsigned char*>(t.w));
    for (float& v : x.data) v = tf32_truncated(v);
    for (float& v : w.data) v = tf32_truncated(v);
    const ref::ConvOutput out = ref::conv(p, ref::ConvInputs{&x, &w, nullptr, nullptr}, false);
    for (std::size_t i = 0; i < out.value.size(); ++i) y.data[i] = static_cast<float>(out.value[i]);
    const std::vector<unsigned char> bytes = y.to_bytes();
    std::copy(bytes.begin(), bytes.end(), static_cast<unsigned char*>(t.y));
  }

 private:
  double unit_;
};

verify::CaseRecord run(const std::string& problem, verify::FillTier tier, const ConvSolver& s) {
  verify::RunOptions o;
  o.seed = 11;
  o.fill = tier;
  const verify::PreparedCase c(parse_conv_problem(problem), o);
  return verify::run_case(c, s, o);
}

TEST(Tf32Model, TheRunnerJudgesTruncatedInputsByTheWidenedBound) {
  const std::string tf32 = "conv fwd fp32 nchw n2 c16 k8 in9x9 f3x3 pad1x1 math=tf32";
  const auto good = run(tf32, verify::FillTier::bounded, HostTf32(ref::kUnitTf32Truncated));
  EXPECT_EQ(good.verdict.status, verify::Status::passed) << good.verdict.reason;
  EXPECT_NE(good.tolerance.find("TF32"), std::string::npos) << good.tolerance;
  const auto exact_claim = run(tf32, verify::FillTier::bounded, HostTf32(0.0));
  EXPECT_EQ(exact_claim.verdict.status, verify::Status::failed) << exact_claim.verdict.reason;
  // The exact tier's small integers are TF32 values already: nothing is truncated, both pass.
  EXPECT_EQ(run(tf32, verify::FillTier::exact, HostTf32(ref::kUnitTf32Truncated)).verdict.status, verify::Status::passed);
  // TF32 declared where the problem did not opt in: an error, not a pass.
  const auto undeclared = run("conv fwd fp32 nchw n2 c16 k8 in9x9 f3x3 pad1x1", verify::FillTier::bounded, HostTf32(ref::kUnitTf32Truncated));
  EXPECT_NE(undeclared.verdict.status, verify::Status::passed) << undeclared.verdict.reason;
  EXPECT_NE(undeclared.verdict.reason.find("without math=tf32"), std::string::npos) << undeclared.verdict.reason;
}

}  // namespace
}  // namespace hiprim::verify_test
