// Bad input to every C API entry point: a clear status, a message naming what is wrong, and
// nothing written (the output keeps its sentinel).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/api/api_fixture.hpp"

namespace hiprim_api_test {
namespace {

const Shape kShape{1, 2, 3, 5, 5, 3, 3, 1, 1, 1, false};

struct Call {
  hiprimHandle_t h = nullptr;
  Descs d{kShape};
  std::vector<float> x = integers(1 * 2 * 5 * 5, 1), w = integers(3 * 2 * 3 * 3, 2);
  std::vector<float> y = std::vector<float>(1 * 3 * 5 * 5, -7.0f);
  float one = 1, zero = 0;
  Call() { EXPECT_EQ(hiprimCreateWithBackend(&h, hiprimBackendHost), hiprimStatusSuccess); }
  ~Call() { hiprimDestroy(h); }
  hiprimStatus_t fwd() { return hiprimConvolutionForward(h, &one, d.x, x.data(), d.w, w.data(), d.conv, &zero, d.y, y.data(), nullptr, 0); }
  bool untouched() const {
    for (float v : y)
      if (v != -7.0f) return false;
    return true;
  }
  std::string message() const { return hiprimGetLastErrorMessage(h); }
};

TEST(CApiErrors, NullHandleAndNullArguments) {
  Call c;
  const float one = 1, zero = 0;
  EXPECT_EQ(hiprimConvolutionForward(nullptr, &one, c.d.x, c.x.data(), c.d.w, c.w.data(), c.d.conv, &zero, c.d.y, c.y.data(), nullptr, 0),
            hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimConvolutionForward(c.h, &one, c.d.x, nullptr, c.d.w, c.w.data(), c.d.conv, &zero, c.d.y, c.y.data(), nullptr, 0),
            hiprimStatusInvalidValue);
  EXPECT_NE(c.message().find("null"), std::string::npos) << c.message();
  EXPECT_EQ(hiprimConvolutionBackwardData(c.h, &one, c.d.y, c.y.data(), c.d.w, c.w.data(), c.d.conv, &zero, c.d.x, nullptr, nullptr, 0),
            hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimConvolutionBackwardWeights(c.h, nullptr, c.d.y, c.y.data(), c.d.x, c.x.data(), c.d.conv, &zero, c.d.w, c.w.data(),
                                             nullptr, 0),
            hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimConvolutionForward(c.h, &one, nullptr, c.x.data(), c.d.w, c.w.data(), c.d.conv, &zero, c.d.y, c.y.data(), nullptr, 0),
            hiprimStatusInvalidValue);
  EXPECT_NE(c.message().find("x descriptor is null"), std::string::npos) << c.message();
  EXPECT_EQ(hiprimConvolutionForwardGetWorkSpaceSize(c.h, c.d.w, c.d.x, c.d.conv, c.d.y, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreate(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimDestroy(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateTensorDescriptor(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSetTensorDescriptor(c.d.x, hiprimFloat, 4, nullptr, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimGetBackend(c.h, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSetConvolutionGroupCount(nullptr, 1), hiprimStatusInvalidValue);
  EXPECT_TRUE(c.untouched());
}

TEST(CApiErrors, DescriptorsThatDoNotDescribeAProblem) {
  Call c;
  hiprimTensorDescriptor_t unset = nullptr;
  ASSERT_EQ(hiprimCreateTensorDescriptor(&unset), hiprimStatusSuccess);
  EXPECT_EQ(hiprimConvolutionForward(c.h, &c.one, unset, c.x.data(), c.d.w, c.w.data(), c.d.conv, &c.zero, c.d.y, c.y.data(), nullptr, 0),
            hiprimStatusBadParm);
  EXPECT_NE(c.message().find("never set"), std::string::npos) << c.message();
  hiprimDestroyTensorDescriptor(unset);
  // y of the wrong size: the message names both shapes.
  Descs::set(c.d.y, kShape, 1, 3, 4, 5);
  EXPECT_EQ(c.fwd(), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("[1,3,4,5]"), std::string::npos) << c.message();
  EXPECT_NE(c.message().find("[1,3,5,5]"), std::string::npos) << c.message();
  Descs::set(c.d.y, kShape, 1, 3, 5, 5);
  // w with the wrong channel count, mixed channel orders, a different dtype.
  Descs::set(c.d.w, kShape, 3, 4, 3, 3);
  EXPECT_EQ(c.fwd(), hiprimStatusBadParm);
  Descs::set(c.d.w, kShape, 3, 2, 3, 3);
  const int dims[4] = {1, 3, 5, 5}, nhwc[4] = {75, 1, 15, 3}, odd[4] = {75, 25, 5, 2};
  ASSERT_EQ(hiprimSetTensorDescriptor(c.d.y, hiprimFloat, 4, dims, nhwc), hiprimStatusSuccess);
  EXPECT_EQ(c.fwd(), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("channel orders"), std::string::npos) << c.message();
  EXPECT_EQ(hiprimSetTensorDescriptor(c.d.y, hiprimFloat, 4, dims, odd), hiprimStatusBadParm);  // not packed
  ASSERT_EQ(hiprimSet4dTensorDescriptor(c.d.y, hiprimHalf, 1, 3, 5, 5), hiprimStatusSuccess);
  EXPECT_EQ(c.fwd(), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("data types"), std::string::npos) << c.message();
  ASSERT_EQ(hiprimSet4dTensorDescriptor(c.d.y, hiprimFloat, 1, 3, 5, 5), hiprimStatusSuccess);
  // Descriptor setters refuse bad values outright.
  EXPECT_EQ(hiprimSet4dTensorDescriptor(c.d.x, hiprimFloat, 1, 0, 5, 5), hiprimStatusBadParm);
  EXPECT_EQ(hiprimSet4dTensorDescriptor(c.d.x, static_cast<hiprimDataType_t>(9), 1, 2, 5, 5), hiprimStatusBadParm);
  EXPECT_EQ(hiprimSetTensorDescriptor(c.d.x, hiprimFloat, 3, dims, nhwc), hiprimStatusBadParm);
  EXPECT_EQ(hiprimInitConvolutionDescriptor(c.d.conv, hiprimConvolution, -1, 0, 1, 1, 1, 1), hiprimStatusBadParm);
  EXPECT_EQ(hiprimInitConvolutionDescriptor(c.d.conv, static_cast<hiprimConvolutionMode_t>(5), 1, 1, 1, 1, 1, 1), hiprimStatusBadParm);
  EXPECT_EQ(hiprimSetConvolutionGroupCount(c.d.conv, 0), hiprimStatusBadParm);
  // Groups that do not divide C: the problem's own validation message.
  ASSERT_EQ(hiprimSetConvolutionGroupCount(c.d.conv, 3), hiprimStatusSuccess);
  EXPECT_EQ(c.fwd(), hiprimStatusBadParm);
  EXPECT_NE(c.message().find("invalid convolution"), std::string::npos) << c.message();
  ASSERT_EQ(hiprimSetConvolutionGroupCount(c.d.conv, 1), hiprimStatusSuccess);
  EXPECT_TRUE(c.untouched());
  EXPECT_EQ(c.fwd(), hiprimStatusSuccess) << c.message();  // the same call, fixed, runs
  EXPECT_FALSE(c.untouched());
}

TEST(CApiErrors, RequestsThisVersionDoesNotDoAndSolverChoice) {
  Call c;
  c.one = 2;
  EXPECT_EQ(c.fwd(), hiprimStatusNotImplemented);
  EXPECT_NE(c.message().find("alpha = 1"), std::string::npos) << c.message();
  c.one = 1;
  EXPECT_EQ(hiprimSetStream(c.h, &c), hiprimStatusBadParm);  // a host handle has no stream
  for (const char* glob : {"conv.naive", "no.such.solver"}) {  // a device solver (in GPU builds) or none: no host solver left
    setenv("HIPRIM_SOLVER", glob, 1);
    EXPECT_EQ(c.fwd(), hiprimStatusUnsupported) << glob;
    EXPECT_NE(c.message().find("no host solver matching HIPRIM_SOLVER='" + std::string(glob) + "'"), std::string::npos) << c.message();
  }
  unsetenv("HIPRIM_SOLVER");
  EXPECT_TRUE(c.untouched());
  // HIPRIM_LOG_CMD: the repro line of the call, which the CLI reruns.
  setenv("HIPRIM_LOG_CMD", "1", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.fwd(), hiprimStatusSuccess);
  const std::string log = testing::internal::GetCapturedStderr();
  unsetenv("HIPRIM_LOG_CMD");
  EXPECT_NE(log.find("hiprim repro \"conv fwd fp32 nchw n1 c2 k3 in5x5 f3x3 pad1x1 str1x1 dil1x1 g1\" --solver ref.conv.fast"),
            std::string::npos)
      << log;
}

TEST(CApiErrors, EveryStatusHasAString) {
  for (int s = 0; s <= 6; ++s) {
    const std::string text = hiprimGetErrorString(static_cast<hiprimStatus_t>(s));
    EXPECT_EQ(text.rfind("hiprimStatus", 0), 0u) << s << ": " << text;
  }
  EXPECT_STREQ(hiprimGetErrorString(static_cast<hiprimStatus_t>(99)), "unknown hiprimStatus_t value");
  EXPECT_STREQ(hiprimGetLastErrorMessage(nullptr), "handle is null");
}

}  // namespace
}  // namespace hiprim_api_test
