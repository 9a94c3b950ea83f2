// The C API's fusion plans on the host backend: conv -> bias -> [bnorm-infer] -> add -> relu
// against an independent computation (tests/api/fusion_fixture.hpp), the canonical string of a
// compiled plan, and the rounding attribute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/api/fusion_fixture.hpp"

namespace hiprim_api_test {
namespace {

// Small integers: conv sums (|v| <= 27 * 9), the bias, alpha * v + beta * res and relu are exact in
// fp32, so any correct solver's y equals the double chain exactly.
TEST(FusionApi, ConvBiasAddReluIsExactWithSmallIntegers) {
  for (const Shape& sh : {kNchw, kNhwc}) {
    Chain c(sh);
    ASSERT_EQ(c.add_chain(false), hiprimStatusSuccess);
    ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
    const std::string layout = sh.nhwc ? "nhwc" : "nchw";
    EXPECT_EQ(c.problem(), "fusion fwd fp32 " + layout + " conv(n2 c3 k4 in5x6 f3x3 pad1x1 str1x1 dil1x1 g1) bias add(alpha2 beta-1) activ(relu)");
    const char* solver = nullptr;
    ASSERT_EQ(hiprimFusionPlanGetSolverName(c.plan, &solver), hiprimStatusSuccess);
    EXPECT_STREQ(solver, "ref.fusion");
    std::size_t ws = 99;
    ASSERT_EQ(hiprimFusionPlanGetWorkSpaceSize(c.h, c.plan, &ws), hiprimStatusSuccess);
    EXPECT_EQ(ws, 0u);
    ASSERT_EQ(c.execute(), hiprimStatusSuccess) << c.message();
    EXPECT_STREQ(hiprimGetLastSolverName(c.h), "ref.fusion");
    const std::vector<double> want = c.expected(false);
    int positive = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(static_cast<double>(c.y[i]), want[i]) << layout << " element " << i;
      positive += want[i] > 0;
    }
    EXPECT_GT(positive, 0);  // relu neither kills everything nor (next) nothing
    EXPECT_LT(positive, static_cast<int>(want.size()));
  }
}

// With batch norm inference the chain is not exact. Bound per element, u = 2^-24: the fp32
// rounding of bn's result v2 and of the add (alpha * v2 + beta * res) and, should a solver compute
// bn itself in fp32, its subtract, multiply, square root, divide and add: at most 10 roundings, each
// of a quantity no larger than M = |alpha| (|v1 - mean| |scale| / sqrt(var + eps) + |shift|) + |beta res|
// (v1 = conv + bias is exact, relu is 1-Lipschitz). A missing eps alone moves y by ~M * 3e-4.
TEST(FusionApi, ConvBiasBnormAddReluWithinTheDerivedBound) {
  for (const Shape& sh : {kNchw, kNhwc}) {
    Chain c(sh);
    ASSERT_EQ(c.add_chain(true), hiprimStatusSuccess);
    ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
    const std::string layout = sh.nhwc ? "nhwc" : "nchw";
    EXPECT_EQ(c.problem(), "fusion fwd fp32 " + layout +
                               " conv(n2 c3 k4 in5x6 f3x3 pad1x1 str1x1 dil1x1 g1) bias bnorm-infer(eps0.001) add(alpha2 beta-1) activ(relu)");
    ASSERT_EQ(c.execute(), hiprimStatusSuccess) << c.message();
    const std::vector<double> want = c.expected(true);
    const std::vector<double> v1 = direct_fwd_double(sh, c.x, c.w);
    const double u = std::ldexp(1.0, -24);
    for (std::size_t i = 0; i < want.size(); ++i) {
      const int k = y_channel(sh, i);
      const double m = std::abs(c.alpha) * (std::abs(v1[i] + c.bias[k] - c.mean[k]) * c.scale[k] / std::sqrt(c.var[k] + c.eps) + std::abs(c.shift[k])) +
                       std::abs(c.beta * c.res[i]);
      ASSERT_LE(std::abs(c.y[i] - want[i]), 10 * u * m) << layout << " element " << i << ": " << c.y[i] << " vs " << want[i];
    }
  }
}

// The rounding attribute reaches the problem; changing it (or adding an op) uncompiles the plan.
TEST(FusionApi, RoundingIsAPlanAttribute) {
  Chain c(kNchw);
  ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  EXPECT_EQ(c.problem(), "fusion fwd fp32 nchw conv(n2 c3 k4 in5x6 f3x3 pad1x1 str1x1 dil1x1 g1)");
  ASSERT_EQ(hiprimSetFusionPlanRounding(c.plan, hiprimFusionRoundingUnfused), hiprimStatusSuccess);
  EXPECT_EQ(c.execute(), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("not compiled"), std::string::npos) << c.message();
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  EXPECT_EQ(c.problem(), "fusion fwd fp32 nchw conv(n2 c3 k4 in5x6 f3x3 pad1x1 str1x1 dil1x1 g1) rounding=unfused");
  EXPECT_EQ(hiprimSetFusionPlanRounding(c.plan, static_cast<hiprimFusionRounding_t>(7)), hiprimStatusBadParm);
  ASSERT_EQ(c.add_relu(), hiprimStatusSuccess);
  const char* p = nullptr;
  EXPECT_EQ(hiprimFusionPlanGetProblem(c.plan, &p), hiprimStatusBadParm);
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  ASSERT_EQ(c.execute(), hiprimStatusSuccess) << c.message();
  const std::vector<float> conv = direct_fwd(kNchw, c.x, c.w);
  for (std::size_t i = 0; i < conv.size(); ++i) ASSERT_EQ(c.y[i], std::max(conv[i], 0.0f)) << i;
}

}  // namespace
}  // namespace hiprim_api_test
