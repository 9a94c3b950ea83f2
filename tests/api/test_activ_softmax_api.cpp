// The C API's activations and softmax on the host backend against the formulas evaluated here in
// double (core/activ_problem.hpp, core/softmax_problem.hpp), within 2 units in the last place of
// fp32 (the reference rounds once from double), and their bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hiprim/hiprim.h"

namespace {

constexpr int N = 2, C = 4, H = 3, W = 2, E = N * C * H * W;

bool close(float got, double want) { return std::fabs(got - want) <= std::ldexp(1.0, -22) * std::fmax(1.0, std::fabs(want)); }

struct Host {
  hiprimHandle_t h = nullptr;
  hiprimTensorDescriptor_t t = nullptr;
  hiprimActivationDescriptor_t a = nullptr;
  std::vector<float> x = std::vector<float>(E), dy = std::vector<float>(E);
  float one = 1, zero = 0;
  Host() {
    EXPECT_EQ(hiprimCreateWithBackend(&h, hiprimBackendHost), hiprimStatusSuccess);
    hiprimCreateTensorDescriptor(&t), hiprimCreateActivationDescriptor(&a);
    EXPECT_EQ(hiprimSet4dTensorDescriptor(t, hiprimFloat, N, C, H, W), hiprimStatusSuccess);
    for (int i = 0; i < E; ++i) x[i] = static_cast<float>(std::sin(1.7 * i) * 3), dy[i] = static_cast<float>(std::cos(0.9 * i));
  }
  ~Host() {
    hiprimDestroyTensorDescriptor(t), hiprimDestroyActivationDescriptor(a);
    hiprimDestroy(h);
  }
  std::string message() const { return hiprimGetLastErrorMessage(h); }
};

TEST(CApiActivation, ForwardAndBackwardFollowTheModes) {
  Host c;
  std::vector<float> y(E), dx(E);
  ASSERT_EQ(hiprimSetActivationDescriptor(c.a, hiprimActivationTANH, 0.5, 2.0, 1.0), hiprimStatusSuccess);
  ASSERT_EQ(hiprimActivationForward(c.h, c.a, &c.one, c.t, c.x.data(), &c.zero, c.t, y.data()), hiprimStatusSuccess) << c.message();
  for (int i = 0; i < E; ++i) ASSERT_TRUE(close(y[i], 2.0 * std::tanh(0.5 * c.x[i]))) << i;
  ASSERT_EQ(hiprimSetActivationDescriptor(c.a, hiprimActivationLEAKYRELU, 0.25, 1, 1), hiprimStatusSuccess);
  ASSERT_EQ(hiprimActivationForward(c.h, c.a, &c.one, c.t, c.x.data(), &c.zero, c.t, y.data()), hiprimStatusSuccess) << c.message();
  for (int i = 0; i < E; ++i) ASSERT_TRUE(close(y[i], c.x[i] > 0 ? c.x[i] : 0.25 * c.x[i])) << i;
  ASSERT_EQ(hiprimActivationBackward(c.h, c.a, &c.one, c.t, y.data(), c.t, c.dy.data(), c.t, c.x.data(), &c.zero, c.t, dx.data()),
            hiprimStatusSuccess)
      << c.message();
  for (int i = 0; i < E; ++i) ASSERT_TRUE(close(dx[i], c.dy[i] * (c.x[i] > 0 ? 1.0 : 0.25))) << i;
  EXPECT_STREQ(hiprimGetLastSolverName(c.h), "ref.activ");
}

TEST(CApiSoftmax, ChannelSoftmaxLogSoftmaxAndBackward) {
  Host c;
  std::vector<float> y(E), ly(E), dx(E);
  ASSERT_EQ(hiprimSoftmaxForward(c.h, &c.one, c.t, c.x.data(), &c.zero, c.t, y.data(), hiprimSoftmaxAccurate, hiprimSoftmaxModeChannel),
            hiprimStatusSuccess)
      << c.message();
  ASSERT_EQ(hiprimSoftmaxForward(c.h, &c.one, c.t, c.x.data(), &c.zero, c.t, ly.data(), hiprimSoftmaxLog, hiprimSoftmaxModeChannel),
            hiprimStatusSuccess);
  ASSERT_EQ(hiprimSoftmaxBackward(c.h, &c.one, c.t, y.data(), c.t, c.dy.data(), &c.zero, c.t, dx.data(), hiprimSoftmaxAccurate,
                                  hiprimSoftmaxModeChannel),
            hiprimStatusSuccess)
      << c.message();
  auto at = [](int n, int ch, int p) { return (n * C + ch) * H * W + p; };
  for (int n = 0; n < N; ++n)
    for (int p = 0; p < H * W; ++p) {
      double m = -1e300, s = 0, sdy = 0;
      for (int ch = 0; ch < C; ++ch) m = std::fmax(m, c.x[at(n, ch, p)]);
      for (int ch = 0; ch < C; ++ch) s += std::exp(c.x[at(n, ch, p)] - m);
      for (int ch = 0; ch < C; ++ch) sdy += static_cast<double>(c.dy[at(n, ch, p)]) * y[at(n, ch, p)];
      for (int ch = 0; ch < C; ++ch) {
        const int i = at(n, ch, p);
        ASSERT_TRUE(close(y[i], std::exp(c.x[i] - m) / s)) << i;
        ASSERT_TRUE(close(ly[i], (c.x[i] - m) - std::log(s))) << i;
        ASSERT_TRUE(close(dx[i], y[i] * (c.dy[i] - sdy))) << i;
      }
    }
}

TEST(CApiActivationSoftmax, BadInputIsRefusedAndNothingWritten) {
  Host c;
  std::vector<float> y(E, -9.0f);
  EXPECT_EQ(hiprimActivationForward(c.h, c.a, &c.one, c.t, c.x.data(), &c.zero, c.t, y.data()), hiprimStatusBadParm);  // never set
  EXPECT_NE(c.message().find("never set"), std::string::npos) << c.message();
  EXPECT_EQ(hiprimSetActivationDescriptor(c.a, static_cast<hiprimActivationMode_t>(13), 1, 1, 1), hiprimStatusBadParm);
  ASSERT_EQ(hiprimSetActivationDescriptor(c.a, hiprimActivationRELU, 1, 1, 1), hiprimStatusSuccess);
  hiprimTensorDescriptor_t other = nullptr;
  hiprimCreateTensorDescriptor(&other);
  hiprimSet4dTensorDescriptor(other, hiprimFloat, N, C, H, W + 1);
  EXPECT_EQ(hiprimActivationForward(c.h, c.a, &c.one, c.t, c.x.data(), &c.zero, other, y.data()), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("differ"), std::string::npos) << c.message();
  EXPECT_EQ(hiprimActivationBackward(c.h, c.a, &c.one, c.t, nullptr, c.t, c.dy.data(), c.t, c.x.data(), &c.zero, c.t, y.data()),
            hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSoftmaxForward(c.h, &c.one, c.t, c.x.data(), &c.zero, c.t, y.data(), static_cast<hiprimSoftmaxAlgorithm_t>(3),
                                 hiprimSoftmaxModeChannel),
            hiprimStatusBadParm);
  EXPECT_EQ(hiprimSoftmaxForward(c.h, &c.one, c.t, c.x.data(), &c.zero, other, y.data(), hiprimSoftmaxFast, hiprimSoftmaxModeInstance),
            hiprimStatusBadParm);
  EXPECT_EQ(hiprimSoftmaxForward(c.h, &c.zero, c.t, c.x.data(), &c.zero, c.t, y.data(), hiprimSoftmaxFast, hiprimSoftmaxModeInstance),
            hiprimStatusNotImplemented);
  hiprimDestroyTensorDescriptor(other);
  for (float v : y) ASSERT_EQ(v, -9.0f);
}

}  // namespace
