// The C API's batch normalization on the host backend against the formulas evaluated here in
// double (core/bnorm_problem.hpp states them), within 2 units in the last place of fp32 (the
// reference rounds its double result once; this test's double evaluation differs from it by far
// less than that), and its bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hiprim/hiprim.h"

namespace {

constexpr int N = 2, C = 3, H = 4, W = 5, M = N * H * W;

bool close(float got, double want) { return std::fabs(got - want) <= std::ldexp(1.0, -22) * std::fmax(1.0, std::fabs(want)); }

struct Bn {
  hiprimHandle_t h = nullptr;
  hiprimTensorDescriptor_t x = nullptr, bn = nullptr;
  std::vector<float> xv, dyv, scale{1.5f, -0.5f, 2.0f}, bias{0.25f, 1.0f, -3.0f};
  float one = 1, zero = 0;
  Bn() : xv(N * C * H * W), dyv(xv.size()) {
    EXPECT_EQ(hiprimCreateWithBackend(&h, hiprimBackendHost), hiprimStatusSuccess);
    hiprimCreateTensorDescriptor(&x), hiprimCreateTensorDescriptor(&bn);
    EXPECT_EQ(hiprimSet4dTensorDescriptor(x, hiprimFloat, N, C, H, W), hiprimStatusSuccess);
    EXPECT_EQ(hiprimSet4dTensorDescriptor(bn, hiprimFloat, 1, C, 1, 1), hiprimStatusSuccess);
    for (std::size_t i = 0; i < xv.size(); ++i) {
      xv[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i)) * 2.0 + static_cast<double>(i % 3));
      dyv[i] = static_cast<float>(std::cos(1.3 * static_cast<double>(i)));
    }
  }
  ~Bn() {
    hiprimDestroyTensorDescriptor(x), hiprimDestroyTensorDescriptor(bn);
    hiprimDestroy(h);
  }
  float at(const std::vector<float>& v, int n, int c, int i) const { return v[(n * C + c) * H * W + i]; }
  double mean(int c) const {
    double s = 0;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i) s += at(xv, n, c, i);
    return s / M;
  }
  double var(int c) const {
    const double m = mean(c);
    double s = 0;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i) s += (at(xv, n, c, i) - m) * (at(xv, n, c, i) - m);
    return s / M;
  }
};

TEST(CApiBnorm, TrainingForwardNormalisesAndUpdatesTheStatistics) {
  Bn b;
  const double eps = 1e-5, momentum = 0.1;
  std::vector<float> y(b.xv.size(), -9.0f), rmean{0.5f, -1.0f, 2.0f}, rvar{1.0f, 2.0f, 0.5f}, smean(C), sinv(C);
  const std::vector<float> rmean0 = rmean, rvar0 = rvar;
  ASSERT_EQ(hiprimBatchNormalizationForwardTraining(b.h, hiprimBNSpatial, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                    b.scale.data(), b.bias.data(), momentum, rmean.data(), rvar.data(), eps,
                                                    smean.data(), sinv.data()),
            hiprimStatusSuccess)
      << hiprimGetLastErrorMessage(b.h);
  EXPECT_STREQ(hiprimGetLastSolverName(b.h), "ref.bnorm");
  for (int c = 0; c < C; ++c) {
    const double m = b.mean(c), v = b.var(c), inv = 1.0 / std::sqrt(v + eps);
    EXPECT_TRUE(close(smean[c], m)) << c << ": " << smean[c] << " vs " << m;
    EXPECT_TRUE(close(sinv[c], inv)) << c << ": " << sinv[c] << " vs " << inv;
    EXPECT_TRUE(close(rmean[c], (1 - momentum) * rmean0[c] + momentum * m)) << c;
    EXPECT_TRUE(close(rvar[c], (1 - momentum) * rvar0[c] + momentum * v * M / (M - 1))) << c;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i)
        ASSERT_TRUE(close(b.at(y, n, c, i), b.scale[c] * (b.at(b.xv, n, c, i) - m) * inv + b.bias[c])) << c << " " << n << " " << i;
  }
}

TEST(CApiBnorm, InferenceAndBackwardFollowTheirFormulas) {
  Bn b;
  const double eps = 1e-3;
  std::vector<float> y(b.xv.size()), emean{0.5f, -1.0f, 2.0f}, evar{1.0f, 2.0f, 0.5f};
  ASSERT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNSpatial, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                     b.scale.data(), b.bias.data(), emean.data(), evar.data(), eps),
            hiprimStatusSuccess)
      << hiprimGetLastErrorMessage(b.h);
  for (int c = 0; c < C; ++c)
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i)
        ASSERT_TRUE(close(b.at(y, n, c, i), b.scale[c] * (b.at(b.xv, n, c, i) - emean[c]) / std::sqrt(evar[c] + eps) + b.bias[c]));
  // Backward with the saved statistics of x: dbias = sum dy, dscale = sum dy xhat,
  // dx = scale inv / M (M dy - dbias - xhat dscale).
  std::vector<float> smean(C), sinv(C), dx(b.xv.size(), -9.0f), dscale(C), dbias(C);
  for (int c = 0; c < C; ++c) smean[c] = static_cast<float>(b.mean(c)), sinv[c] = static_cast<float>(1.0 / std::sqrt(b.var(c) + eps));
  ASSERT_EQ(hiprimBatchNormalizationBackward(b.h, hiprimBNSpatial, &b.one, &b.zero, &b.one, &b.zero, b.x, b.xv.data(), b.x, b.dyv.data(),
                                             b.x, dx.data(), b.bn, b.scale.data(), dscale.data(), dbias.data(), eps, smean.data(),
                                             sinv.data()),
            hiprimStatusSuccess)
      << hiprimGetLastErrorMessage(b.h);
  for (int c = 0; c < C; ++c) {
    double sb = 0, ss = 0;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i) {
        const double xhat = (b.at(b.xv, n, c, i) - static_cast<double>(smean[c])) * sinv[c];
        sb += b.at(b.dyv, n, c, i), ss += b.at(b.dyv, n, c, i) * xhat;
      }
    EXPECT_TRUE(close(dbias[c], sb)) << c << ": " << dbias[c] << " vs " << sb;
    EXPECT_TRUE(close(dscale[c], ss)) << c << ": " << dscale[c] << " vs " << ss;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < H * W; ++i) {
        const double xhat = (b.at(b.xv, n, c, i) - static_cast<double>(smean[c])) * sinv[c];
        const double want = b.scale[c] * static_cast<double>(sinv[c]) / M * (M * static_cast<double>(b.at(b.dyv, n, c, i)) - sb - xhat * ss);
        ASSERT_TRUE(std::fabs(b.at(dx, n, c, i) - want) <= std::ldexp(1.0, -20) * std::fmax(1.0, std::fabs(want)))
            << c << " " << n << " " << i << ": " << b.at(dx, n, c, i) << " vs " << want;
      }
  }
}

TEST(CApiBnorm, BadInputIsRefusedAndNothingWritten) {
  Bn b;
  std::vector<float> y(b.xv.size(), -9.0f), e(C, 1.0f);
  hiprimTensorDescriptor_t wrong = nullptr;
  hiprimCreateTensorDescriptor(&wrong);
  hiprimSet4dTensorDescriptor(wrong, hiprimFloat, 1, C + 1, 1, 1);
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNSpatial, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), wrong,
                                                     b.scale.data(), b.bias.data(), e.data(), e.data(), 1e-5),
            hiprimStatusBadParm);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(b.h)).find("bn_desc"), std::string::npos);
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNPerActivation, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                     b.scale.data(), b.bias.data(), e.data(), e.data(), 1e-5),
            hiprimStatusBadParm);  // per-activation wants [1, C, H, W]
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, static_cast<hiprimBatchNormMode_t>(7), &b.one, &b.zero, b.x, b.xv.data(), b.x,
                                                     y.data(), b.bn, b.scale.data(), b.bias.data(), e.data(), e.data(), 1e-5),
            hiprimStatusBadParm);
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNSpatial, &b.one, &b.one, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                     b.scale.data(), b.bias.data(), e.data(), e.data(), 1e-5),
            hiprimStatusNotImplemented);
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNSpatial, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                     b.scale.data(), nullptr, e.data(), e.data(), 1e-5),
            hiprimStatusInvalidValue);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(b.h)).find("(bias) is null"), std::string::npos) << hiprimGetLastErrorMessage(b.h);
  EXPECT_EQ(hiprimBatchNormalizationForwardInference(b.h, hiprimBNSpatial, &b.one, &b.zero, b.x, b.xv.data(), b.x, y.data(), b.bn,
                                                     b.scale.data(), b.bias.data(), e.data(), e.data(), -1.0),
            hiprimStatusBadParm);  // eps < 0: the problem's own validation
  hiprimDestroyTensorDescriptor(wrong);
  for (float v : y) ASSERT_EQ(v, -9.0f);
}

}  // namespace
