// The C API's convolution on the host backend: fwd equals an independent direct convolution, and
// bwd-data / bwd-weights satisfy the adjoint identities <conv(x, w), dy> = <x, dx> = <w, dw> exactly
// (small integers: every sum is exact in fp32 and in double).
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "api/api_objects.hpp"
#include "tests/api/api_fixture.hpp"

extern "C" int hiprim_c_smoke(void);

namespace hiprim_api_test {
namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

const Shape kShapes[] = {
    {2, 3, 4, 7, 6, 3, 3, 1, 1, 1, false}, {1, 4, 2, 9, 9, 3, 3, 1, 2, 1, true}, {2, 2, 3, 8, 7, 3, 2, 2, 1, 2, false},
    {1, 5, 4, 6, 6, 1, 1, 0, 1, 1, true},  {2, 1, 1, 5, 5, 5, 5, 2, 1, 1, true},
};

// A host handle and, per shape, its descriptors and integer data of x, w and dy (seeds apart).
struct HostCase {
  hiprimHandle_t h = nullptr;
  const float one = 1, zero = 0;
  HostCase() { EXPECT_EQ(hiprimCreateWithBackend(&h, hiprimBackendHost), hiprimStatusSuccess); }
  ~HostCase() { EXPECT_EQ(hiprimDestroy(h), hiprimStatusSuccess); }
};
struct Data {
  std::vector<float> x, w, dy;
  Data(const Shape& sh, int seed)
      : x(integers(static_cast<std::size_t>(sh.n) * sh.c * sh.h * sh.w, seed)),
        w(integers(static_cast<std::size_t>(sh.k) * sh.c * sh.r * sh.s, seed + 1)),
        dy(integers(static_cast<std::size_t>(sh.n) * sh.k * sh.p() * sh.q(), seed + 5)) {}
};

TEST(CApi, HeaderCompilesAsCAndRuns) { EXPECT_EQ(hiprim_c_smoke(), 1); }

TEST(CApi, VersionIsTheProjectsAndNullPointersAreSkipped) {
  int major = -1, minor = -1, patch = -1;
  hiprimGetVersion(&major, &minor, &patch);
  EXPECT_EQ(major, HIPRIM_TEST_VERSION_MAJOR);
  EXPECT_EQ(minor, HIPRIM_TEST_VERSION_MINOR);
  EXPECT_EQ(patch, HIPRIM_TEST_VERSION_PATCH);
  int only_minor = -1;
  hiprimGetVersion(nullptr, &only_minor, nullptr);
  EXPECT_EQ(only_minor, minor);
}

TEST(CApi, HostForwardEqualsADirectConvolution) {
  HostCase hc;
  hiprimHandle_t h = hc.h;
  const float one = hc.one, zero = hc.zero;
  for (const Shape& sh : kShapes) {
    Descs d(sh);
    const Data data(sh, 1);
    const auto& x = data.x;
    const auto& w = data.w;
    std::vector<float> y(data.dy.size(), -99.0f);
    size_t ws = 1;
    ASSERT_EQ(hiprimConvolutionForwardGetWorkSpaceSize(h, d.w, d.x, d.conv, d.y, &ws), hiprimStatusSuccess) << hiprimGetLastErrorMessage(h);
    std::vector<unsigned char> workspace(ws + 1);
    ASSERT_EQ(hiprimConvolutionForward(h, &one, d.x, x.data(), d.w, w.data(), d.conv, &zero, d.y, y.data(), workspace.data(), ws),
              hiprimStatusSuccess)
        << hiprimGetLastErrorMessage(h);
    EXPECT_EQ(y, direct_fwd(sh, x, w)) << "shape " << sh.n << "x" << sh.c << "x" << sh.h << "x" << sh.w << (sh.nhwc ? " nhwc" : " nchw");
    EXPECT_STREQ(hiprimGetLastSolverName(h), "ref.conv.fast");
    EXPECT_STREQ(hiprimGetLastErrorMessage(h), "");
  }
}

TEST(CApi, HostBackwardPassesAreTheAdjointsOfForward) {
  HostCase hc;
  hiprimHandle_t h = hc.h;
  const float one = hc.one, zero = hc.zero;
  for (const Shape& sh : kShapes) {
    Descs d(sh);
    const Data data(sh, 3);
    const auto& x = data.x;
    const auto& w = data.w;
    const auto& dy = data.dy;
    std::vector<float> dx(x.size()), dw(w.size());
    size_t ws_d = 0, ws_w = 0;
    ASSERT_EQ(hiprimConvolutionBackwardDataGetWorkSpaceSize(h, d.y, d.w, d.conv, d.x, &ws_d), hiprimStatusSuccess);
    ASSERT_EQ(hiprimConvolutionBackwardWeightsGetWorkSpaceSize(h, d.y, d.x, d.conv, d.w, &ws_w), hiprimStatusSuccess);
    std::vector<unsigned char> workspace(std::max(ws_d, ws_w) + 1);
    ASSERT_EQ(hiprimConvolutionBackwardData(h, &one, d.y, dy.data(), d.w, w.data(), d.conv, &zero, d.x, dx.data(), workspace.data(),
                                            workspace.size()),
              hiprimStatusSuccess)
        << hiprimGetLastErrorMessage(h);
    ASSERT_EQ(hiprimConvolutionBackwardWeights(h, &one, d.y, dy.data(), d.x, x.data(), d.conv, &zero, d.w, dw.data(),
                                               workspace.data(), workspace.size()),
              hiprimStatusSuccess)
        << hiprimGetLastErrorMessage(h);
    const double fwd = dot(direct_fwd(sh, x, w), dy);
    EXPECT_EQ(dot(x, dx), fwd);
    EXPECT_EQ(dot(w, dw), fwd);
    EXPECT_NE(fwd, 0.0);  // the identity is not vacuous
  }
}

TEST(CApi, CreatePicksTheDeviceOnlyWhereAGpuCanRun) {
  hiprimHandle_t h = nullptr;
  ASSERT_EQ(hiprimCreate(&h), hiprimStatusSuccess);
  hiprimBackend_t b;
  ASSERT_EQ(hiprimGetBackend(h, &b), hiprimStatusSuccess);
  hiprimHandle_t dev = nullptr;
  const hiprimStatus_t s = hiprimCreateWithBackend(&dev, hiprimBackendDevice);
  if (s == hiprimStatusSuccess) {
    EXPECT_EQ(b, hiprimBackendDevice);
    hiprimDestroy(dev);
  } else {
    EXPECT_EQ(s, hiprimStatusNotInitialized);
    EXPECT_EQ(dev, nullptr);
    EXPECT_EQ(b, hiprimBackendHost);
  }
  hiprimDestroy(h);
}

}  // namespace
}  // namespace hiprim_api_test

// The handle's own workspace (entry points without a workspace argument): at least the bytes asked,
// the same buffer while it suffices, a larger one when asked for more.
namespace hiprim_api_test {
namespace {
TEST(CApi, HandleWorkspaceGrowsOnDemandAndIsReused) {
  hiprimHandle h;
  h.backend = hiprim::Backend::host;
  void* a = hiprim::api::handle_workspace(h, 100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.workspace_bytes, 100u);
  std::memset(a, 1, 100);  // writable
  EXPECT_EQ(hiprim::api::handle_workspace(h, 64), a);
  void* b = hiprim::api::handle_workspace(h, 4096);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(h.workspace_bytes, 4096u);
  std::memset(b, 2, 4096);
}
}  // namespace
}  // namespace hiprim_api_test
