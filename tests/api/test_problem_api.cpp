// The C API's problem-string entry points on the host backend: tensor info, a ReLU and a
// broadcast add against values written here, and bad input (strings, buffer counts, nulls).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hiprim/hiprim.h"

namespace {

struct Host {
  hiprimHandle_t h = nullptr;
  Host() { EXPECT_EQ(hiprimCreateWithBackend(&h, hiprimBackendHost), hiprimStatusSuccess); }
  ~Host() { hiprimDestroy(h); }
};

TEST(CApiProblems, TensorInfoFollowsTheProblemModel) {
  Host c;
  const char* relu = "activ fwd relu fp32 nchw n2 c3 in4x5";
  int n = 0;
  ASSERT_EQ(hiprimProblemTensorCount(c.h, relu, &n), hiprimStatusSuccess) << hiprimGetLastErrorMessage(c.h);
  ASSERT_EQ(n, 2);
  const char* name = nullptr;
  size_t bytes = 0;
  int role = -1;
  ASSERT_EQ(hiprimProblemTensorInfo(c.h, relu, 0, &name, &bytes, &role), hiprimStatusSuccess);
  EXPECT_STREQ(name, "x");
  EXPECT_EQ(bytes, 2u * 3 * 4 * 5 * 4);
  EXPECT_EQ(role, 0);
  ASSERT_EQ(hiprimProblemTensorInfo(c.h, relu, 1, &name, &bytes, &role), hiprimStatusSuccess);
  EXPECT_STREQ(name, "y");
  EXPECT_EQ(role, 1);
  EXPECT_EQ(hiprimProblemTensorInfo(c.h, relu, 2, &name, &bytes, &role), hiprimStatusInvalidValue);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(c.h)).find("outside [0, 2)"), std::string::npos);
}

TEST(CApiProblems, ReluAndABroadcastAddRunOnTheHost) {
  Host c;
  std::vector<float> x(2 * 3 * 4 * 5), y(x.size(), -9.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.5f;
  void* relu_buffers[2] = {x.data(), y.data()};
  ASSERT_EQ(hiprimRunProblem(c.h, "activ fwd relu fp32 nchw n2 c3 in4x5", relu_buffers, 2, nullptr, 0), hiprimStatusSuccess)
      << hiprimGetLastErrorMessage(c.h);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f) << i;
  EXPECT_STREQ(hiprimGetLastSolverName(c.h), "ref.activ");
  // c = alpha1 * a + alpha2 * b (b broadcast over n, h, w) + beta * c, with beta 0.
  std::vector<float> a(2 * 3 * 2 * 2), b(3), out(a.size(), 5.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  b = {100, 200, 300};
  const char* add = "tensorop add fp32 nchw a2x3x2x2 b1x3x1x1 alpha1=1 alpha2=1 beta=0";
  int n = 0;
  ASSERT_EQ(hiprimProblemTensorCount(c.h, add, &n), hiprimStatusSuccess);
  ASSERT_EQ(n, 3);
  void* add_buffers[3] = {a.data(), b.data(), out.data()};
  ASSERT_EQ(hiprimRunProblem(c.h, add, add_buffers, 3, nullptr, 0), hiprimStatusSuccess) << hiprimGetLastErrorMessage(c.h);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(out[i], a[i] + b[(i / 4) % 3]) << i;
}

TEST(CApiProblems, BadStringsCountsAndPointers) {
  Host c;
  std::vector<float> x(24), y(24, -9.0f);
  void* two[2] = {x.data(), y.data()};
  EXPECT_EQ(hiprimRunProblem(c.h, "activ fwd nosuchmode fp32 nchw n1 c2 in3x4", two, 2, nullptr, 0), hiprimStatusBadParm);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(c.h)).find("mode (passthru"), std::string::npos) << hiprimGetLastErrorMessage(c.h);  // the parser's message, as `hiprim repro` prints it
  EXPECT_EQ(hiprimRunProblem(c.h, "frobnicate fwd fp32", two, 2, nullptr, 0), hiprimStatusBadParm);
  EXPECT_EQ(hiprimRunProblem(c.h, nullptr, two, 2, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimRunProblem(c.h, "activ fwd relu fp32 nchw n1 c2 in3x4", two, 1, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(c.h)).find("takes 2 buffers, 1 given"), std::string::npos);
  void* with_null[2] = {x.data(), nullptr};
  EXPECT_EQ(hiprimRunProblem(c.h, "activ fwd relu fp32 nchw n1 c2 in3x4", with_null, 2, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_NE(std::string(hiprimGetLastErrorMessage(c.h)).find("buffer 1 (y) is null"), std::string::npos);
  EXPECT_EQ(hiprimRunProblem(nullptr, "activ fwd relu fp32 nchw n1 c2 in3x4", two, 2, nullptr, 0), hiprimStatusInvalidValue);
  size_t ws = 0;
  EXPECT_EQ(hiprimProblemWorkSpaceSize(c.h, "activ fwd relu fp32 nchw n1 c2 in3x4", &ws), hiprimStatusSuccess);
  EXPECT_EQ(ws, 0u);
  for (float v : y) ASSERT_EQ(v, -9.0f);  // nothing written by the refused calls
}

}  // namespace
