// Shared by the fusion-plan tests: a host handle, a plan over a shape's x, the descriptors and data
// of every op of conv -> bias -> bnorm-infer -> add -> relu, and the chain computed independently in
// double (api_fixture's direct convolution, then the steps written here).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/api/api_fixture.hpp"

namespace hiprim_api_test {

inline constexpr float kSentinel = -7.0f;

// A handle (the host backend unless told), a plan over sh's x and the descriptors and data of every op: bias and batch norm
// parameters [1, K, 1, 1] fp32, the residual with y's descriptor shape, relu.
struct Chain {
  Shape sh;
  hiprimHandle_t h = nullptr;
  Descs d;
  hiprimTensorDescriptor_t bias_desc = nullptr, bn_desc = nullptr, res_desc = nullptr;
  hiprimActivationDescriptor_t relu = nullptr;
  hiprimFusionPlanDescriptor_t plan = nullptr;
  hiprimOperatorArgs_t args = nullptr;
  hiprimFusionOpDescriptor_t conv_op = nullptr, bias_op = nullptr, bn_op = nullptr, add_op = nullptr, activ_op = nullptr;
  std::vector<float> x, w, bias, scale, shift, mean, var, res, y;
  double eps = 1e-3, alpha = 2, beta = -1;

  explicit Chain(const Shape& s, hiprimBackend_t backend = hiprimBackendHost) : sh(s), d(s) {
    EXPECT_EQ(hiprimCreateWithBackend(&h, backend), hiprimStatusSuccess);
    for (auto* t : {&bias_desc, &bn_desc, &res_desc}) EXPECT_EQ(hiprimCreateTensorDescriptor(t), hiprimStatusSuccess);
    Descs::set(bias_desc, sh, 1, sh.k, 1, 1), Descs::set(bn_desc, sh, 1, sh.k, 1, 1), Descs::set(res_desc, sh, sh.n, sh.k, sh.p(), sh.q());
    EXPECT_EQ(hiprimCreateActivationDescriptor(&relu), hiprimStatusSuccess);
    EXPECT_EQ(hiprimSetActivationDescriptor(relu, hiprimActivationRELU, 0, 0, 0), hiprimStatusSuccess);
    EXPECT_EQ(hiprimCreateFusionPlan(&plan, d.x), hiprimStatusSuccess);
    EXPECT_EQ(hiprimCreateOperatorArgs(&args), hiprimStatusSuccess);
    const std::size_t ny = static_cast<std::size_t>(sh.n) * sh.k * sh.p() * sh.q();
    x = integers(static_cast<std::size_t>(sh.n) * sh.c * sh.h * sh.w, 1), w = integers(static_cast<std::size_t>(sh.k) * sh.c * sh.r * sh.s, 2);
    bias = integers(sh.k, 3, 5), res = integers(ny, 4, 9), y.assign(ny, kSentinel);
    for (int k = 0; k < sh.k; ++k) {  // varied, non-trivial statistics: each term changes y beyond the bound below
      scale.push_back(0.5f * k + 0.25f), shift.push_back(0.125f * k - 0.375f), mean.push_back(0.5f * k - 1), var.push_back(1.5f + k);
    }
  }
  ~Chain() {
    hiprimDestroyOperatorArgs(args), hiprimDestroyFusionPlan(plan), hiprimDestroyActivationDescriptor(relu);
    for (auto* t : {bias_desc, bn_desc, res_desc}) hiprimDestroyTensorDescriptor(t);
    hiprimDestroy(h);
  }
  hiprimStatus_t add_conv() {
    hiprimStatus_t s = hiprimCreateOpConvForward(plan, &conv_op, d.conv, d.w);
    return s == hiprimStatusSuccess ? hiprimSetOpArgsConvForward(args, conv_op, w.data()) : s;
  }
  hiprimStatus_t add_bias() {
    hiprimStatus_t s = hiprimCreateOpBiasForward(plan, &bias_op, bias_desc);
    return s == hiprimStatusSuccess ? hiprimSetOpArgsBiasForward(args, bias_op, bias.data()) : s;
  }
  hiprimStatus_t add_bn() {
    hiprimStatus_t s = hiprimCreateOpBatchNormInference(plan, &bn_op, hiprimBNSpatial, bn_desc, eps);
    return s == hiprimStatusSuccess ? hiprimSetOpArgsBatchNormInference(args, bn_op, scale.data(), shift.data(), mean.data(), var.data()) : s;
  }
  hiprimStatus_t add_add() {
    hiprimStatus_t s = hiprimCreateOpAddForward(plan, &add_op, res_desc, alpha, beta);
    return s == hiprimStatusSuccess ? hiprimSetOpArgsAddForward(args, add_op, res.data()) : s;
  }
  hiprimStatus_t add_relu() { return hiprimCreateOpActivationForward(plan, &activ_op, relu); }
  // conv -> bias -> [bnorm-infer] -> add -> relu; the first refusal's status.
  hiprimStatus_t add_chain(bool with_bn) {
    for (auto add : {&Chain::add_conv, &Chain::add_bias, &Chain::add_bn, &Chain::add_add, &Chain::add_relu}) {
      if (add == &Chain::add_bn && !with_bn) continue;
      if (const hiprimStatus_t s = (this->*add)(); s != hiprimStatusSuccess) return s;
    }
    return hiprimStatusSuccess;
  }
  hiprimStatus_t compile() { return hiprimCompileFusionPlan(h, plan); }
  hiprimStatus_t execute(void* ws = nullptr, std::size_t ws_bytes = 0) {
    return hiprimExecuteFusionPlan(h, plan, d.x, x.data(), d.y, y.data(), args, ws, ws_bytes);
  }
  std::string message() const { return hiprimGetLastErrorMessage(h); }
  std::string problem() const {
    const char* p = nullptr;
    return hiprimFusionPlanGetProblem(plan, &p) == hiprimStatusSuccess ? p : "(none)";
  }
  bool untouched() const {
    return std::all_of(y.begin(), y.end(), [](float v) { return v == kSentinel; });
  }
  // The chain in double: v = conv(x, w) [+ bias[k]] [bn] [alpha * v + beta * res] [relu].
  std::vector<double> expected(bool with_bn) const {
    std::vector<double> v = direct_fwd_double(sh, x, w);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const int k = y_channel(sh, i);
      v[i] += bias[k];
      if (with_bn) v[i] = (v[i] - mean[k]) * scale[k] / std::sqrt(var[k] + eps) + shift[k];
      v[i] = std::max(alpha * v[i] + beta * res[i], 0.0);
    }
    return v;
  }
};

inline const Shape kNchw{2, 3, 4, 5, 6, 3, 3, 1, 1, 1, false}, kNhwc{2, 3, 4, 5, 6, 3, 3, 1, 1, 1, true};

}  // namespace hiprim_api_test
