// The C++ API (hiprim/hiprim.hpp): the wrappers run the host backend, and a refused call throws
// hiprim::Error with the status and the handle's message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hiprim/hiprim.hpp"

namespace {

TEST(CppApi, ConvolutionAndProblemStringsThroughTheWrappers) {
  hiprim::Handle h(hiprimBackendHost);
  EXPECT_EQ(h.backend(), hiprimBackendHost);
  // 1x1 convolution, NHWC: y[p][k] = sum_c x[p][c] * w[k][c] (w is [K][1][1][C] channels last).
  hiprim::TensorDescriptor x(hiprimFloat, {1, 2, 2, 3}, true), w(hiprimFloat, {2, 2, 1, 1}, true), y(hiprimFloat, {1, 2, 2, 3}, true);
  hiprim::ConvolutionDescriptor conv({0, 0}, {1, 1}, {1, 1});
  const std::vector<float> xv = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, wv = {1, 0, 2, -1};
  std::vector<float> yv(12, -1.0f);
  EXPECT_EQ(h.forward_workspace(x, w, conv, y), 0u);
  h.convolution_forward(x, xv.data(), w, wv.data(), conv, y, yv.data());
  for (int p = 0; p < 6; ++p) {
    EXPECT_EQ(yv[2 * p], xv[2 * p]) << p;                           // k = 0: w = (1, 0)
    EXPECT_EQ(yv[2 * p + 1], 2 * xv[2 * p] - xv[2 * p + 1]) << p;  // k = 1: w = (2, -1)
  }
  EXPECT_EQ(h.last_solver(), "ref.conv.fast");
  std::vector<float> r(12, -1.0f);
  h.run("activ fwd abs fp32 nhwc n1 c2 in2x3", {yv.data(), r.data()});
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r[i], yv[i] < 0 ? -yv[i] : yv[i]) << i;
}

TEST(CppApi, RefusalsThrowWithTheStatusAndTheMessage) {
  hiprim::Handle h(hiprimBackendHost);
  hiprim::TensorDescriptor x(hiprimFloat, {1, 2, 5, 5}), w(hiprimFloat, {3, 2, 3, 3}), y(hiprimFloat, {1, 3, 4, 4});
  hiprim::ConvolutionDescriptor conv({1, 1}, {1, 1}, {1, 1});
  std::vector<float> buf(100);
  try {
    h.convolution_forward(x, buf.data(), w, buf.data(), conv, y, buf.data());
    FAIL() << "a y of the wrong size ran";
  } catch (const hiprim::Error& e) {
    EXPECT_EQ(e.status(), hiprimStatusBadParm);
    EXPECT_NE(std::string(e.what()).find("[1,3,5,5]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(hiprim::TensorDescriptor(hiprimFloat, {1, 2, 3}), hiprim::Error);      // 3-D
  EXPECT_THROW(hiprim::ConvolutionDescriptor({1}, {1, 1}, {1, 1}), hiprim::Error);     // axes disagree
  EXPECT_THROW(hiprim::ConvolutionDescriptor({1, 1}, {1, 1}, {1, 1}, 0), hiprim::Error);  // groups 0
  EXPECT_THROW(h.run("activ fwd relu fp32 nchw n1 c2 in2x3", {buf.data()}), hiprim::Error);
}

// A fusion plan through the wrappers: 1x1 conv -> bias -> relu, exact with small integers; a
// refused compile throws with the message.
TEST(CppApi, FusionPlanThroughTheWrappers) {
  hiprim::Handle h(hiprimBackendHost);
  hiprim::TensorDescriptor x(hiprimFloat, {1, 2, 1, 3}), w(hiprimFloat, {2, 2, 1, 1}), y(hiprimFloat, {1, 2, 1, 3}),
      b(hiprimFloat, {1, 2, 1, 1});
  hiprim::ConvolutionDescriptor conv({0, 0}, {1, 1}, {1, 1});
  hiprim::ActivationDescriptor relu(hiprimActivationRELU);
  const std::vector<float> xv = {1, 2, 3, 4, 5, 6}, wv = {1, -1, 0, 2}, bv = {1, -20};  // NCHW: x[c][q]
  std::vector<float> yv(6, -1.0f);
  hiprim::FusionPlan plan(x);
  hiprim::OperatorArgs args;
  args.conv(plan.add_conv(conv, w), wv.data());
  args.bias(plan.add_bias(b), bv.data());
  plan.add_activation(relu);
  plan.compile(h);
  EXPECT_EQ(plan.problem(), "fusion fwd fp32 nchw conv(n1 c2 k2 in1x3 f1x1 pad0x0 str1x1 dil1x1 g1) bias activ(relu)");
  EXPECT_EQ(plan.solver(), "ref.fusion");
  EXPECT_EQ(plan.workspace(h), 0u);
  plan.execute(h, x, xv.data(), y, yv.data(), args);
  for (int q = 0; q < 3; ++q) {
    const float k0 = xv[q] - xv[3 + q] + bv[0], k1 = 2 * xv[3 + q] + bv[1];  // w = (1, -1), (0, 2)
    EXPECT_EQ(yv[q], k0 > 0 ? k0 : 0) << q;
    EXPECT_EQ(yv[3 + q], k1 > 0 ? k1 : 0) << q;
  }
  plan.add_bias(b);  // twice: the plan is uncompiled, its compile refused
  try {
    plan.compile(h);
    FAIL() << "a plan with bias twice compiled";
  } catch (const hiprim::Error& e) {
    EXPECT_EQ(e.status(), hiprimStatusBadParm);
    EXPECT_NE(std::string(e.what()).find("bias given twice"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan.execute(h, x, xv.data(), y, yv.data(), args), hiprim::Error);
  EXPECT_THROW(plan.problem(), hiprim::Error);
}

}  // namespace
