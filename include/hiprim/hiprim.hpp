// hiprim's C++ API: owning wrappers over the C API (hiprim/hiprim.h) whose failures throw
// hiprim::Error carrying the status and the handle's message (the text the CLI prints for the
// same mistake). Header-only over the C API (it calls nothing else), so it works against the
// installed libhiprim.so (CMake: find_package(hiprim), target hiprim::hiprim) as well as in-tree
// against hiprim_api.
//
//   hiprim::Handle h(hiprimBackendHost);
//   hiprim::TensorDescriptor x(hiprimFloat, {1, 2, 5, 5}), w(hiprimFloat, {3, 2, 3, 3}), y(hiprimFloat, {1, 3, 5, 5});
//   hiprim::ConvolutionDescriptor conv({1, 1}, {1, 1}, {1, 1});
//   h.convolution_forward(x, xp, w, wp, conv, y, yp);             // workspace sized and allocated by the caller:
//   h.convolution_forward(x, xp, w, wp, conv, y, yp, ws, bytes);   //   h.forward_workspace(x, w, conv, y)
//   h.run("activ fwd relu fp32 nchw n1 c2 in5x5", {xp, yp});
//   hiprim::FusionPlan plan(x);                                   // conv -> bias -> relu
//   hiprim::OperatorArgs args;
//   args.conv(plan.add_conv(conv, w), wp), args.bias(plan.add_bias(b), bp);
//   plan.add_activation(hiprim::ActivationDescriptor(hiprimActivationRELU));
//   plan.compile(h);                                              // plan.problem(): its canonical string
//   plan.execute(h, x, xp, y, yp, args);
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hiprim/hiprim.h"

namespace hiprim {

class Error : public std::runtime_error {
 public:
  Error(hiprimStatus_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  hiprimStatus_t status() const { return status_; }

 private:
  hiprimStatus_t status_;
};

namespace detail {
inline void check(hiprimStatus_t s, const char* call, hiprimHandle_t h = nullptr) {
  if (s == hiprimStatusSuccess) return;
  std::string m = std::string(call) + ": " + hiprimGetErrorString(s);
  if (h != nullptr && *hiprimGetLastErrorMessage(h) != '\0') m += ": " + std::string(hiprimGetLastErrorMessage(h));
  throw Error(s, m);
}
// Packed strides of dims, channels first or last.
inline std::vector<int> packed_strides(const std::vector<int>& dims, bool channels_last) {
  const std::size_t n = dims.size();
  std::vector<int> order;  // innermost first
  if (channels_last) {
    order.push_back(1);
    for (std::size_t i = n; i-- > 2;) order.push_back(static_cast<int>(i));
  } else {
    for (std::size_t i = n; i-- > 1;) order.push_back(static_cast<int>(i));
  }
  order.push_back(0);
  std::vector<int> s(n);
  int step = 1;
  for (int d : order) s[static_cast<std::size_t>(d)] = step, step *= dims[static_cast<std::size_t>(d)];
  return s;
}
}  // namespace detail

class TensorDescriptor {
 public:
  // dims N, C, spatial...; packed strides, channels first (NCHW) or last (NHWC).
  TensorDescriptor(hiprimDataType_t type, const std::vector<int>& dims, bool channels_last = false) {
    detail::check(hiprimCreateTensorDescriptor(&d_), "hiprimCreateTensorDescriptor");
    const std::vector<int> strides = detail::packed_strides(dims, channels_last);
    const hiprimStatus_t s = hiprimSetTensorDescriptor(d_, type, static_cast<int>(dims.size()), dims.data(), strides.data());
    if (s != hiprimStatusSuccess) {
      hiprimDestroyTensorDescriptor(d_);
      detail::check(s, "hiprimSetTensorDescriptor");
    }
  }
  ~TensorDescriptor() { hiprimDestroyTensorDescriptor(d_); }
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  hiprimTensorDescriptor_t get() const { return d_; }

 private:
  hiprimTensorDescriptor_t d_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  // pads, strides, dilations per spatial axis (2 or 3 of each).
  ConvolutionDescriptor(const std::vector<int>& pads, const std::vector<int>& strides, const std::vector<int>& dilations,
                        int groups = 1, hiprimConvolutionMode_t mode = hiprimConvolution) {
    detail::check(hiprimCreateConvolutionDescriptor(&d_), "hiprimCreateConvolutionDescriptor");
    hiprimStatus_t s = pads.size() == strides.size() && pads.size() == dilations.size()
                           ? hiprimInitConvolutionNdDescriptor(d_, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                                               dilations.data(), mode)
                           : hiprimStatusBadParm;
    if (s == hiprimStatusSuccess) s = hiprimSetConvolutionGroupCount(d_, groups);
    if (s != hiprimStatusSuccess) {
      hiprimDestroyConvolutionDescriptor(d_);
      detail::check(s, "hiprimInitConvolutionNdDescriptor");
    }
  }
  ~ConvolutionDescriptor() { hiprimDestroyConvolutionDescriptor(d_); }
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  hiprimConvolutionDescriptor_t get() const { return d_; }

 private:
  hiprimConvolutionDescriptor_t d_ = nullptr;
};

class Handle {
 public:
  Handle() { detail::check(hiprimCreate(&h_), "hiprimCreate"); }
  explicit Handle(hiprimBackend_t backend) { detail::check(hiprimCreateWithBackend(&h_, backend), "hiprimCreateWithBackend"); }
  ~Handle() { hiprimDestroy(h_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hiprimHandle_t get() const { return h_; }

  hiprimBackend_t backend() const {
    hiprimBackend_t b;
    detail::check(hiprimGetBackend(h_, &b), "hiprimGetBackend", h_);
    return b;
  }
  void set_stream(void* stream) { detail::check(hiprimSetStream(h_, stream), "hiprimSetStream", h_); }
  std::string last_solver() const { return hiprimGetLastSolverName(h_); }

  std::size_t forward_workspace(const TensorDescriptor& x, const TensorDescriptor& w, const ConvolutionDescriptor& c,
                                const TensorDescriptor& y) const {
    std::size_t n = 0;
    detail::check(hiprimConvolutionForwardGetWorkSpaceSize(h_, w.get(), x.get(), c.get(), y.get(), &n),
                  "hiprimConvolutionForwardGetWorkSpaceSize", h_);
    return n;
  }
  void convolution_forward(const TensorDescriptor& xd, const void* x, const TensorDescriptor& wd, const void* w,
                           const ConvolutionDescriptor& c, const TensorDescriptor& yd, void* y, void* ws = nullptr,
                           std::size_t ws_bytes = 0) {
    const float one = 1, zero = 0;
    detail::check(hiprimConvolutionForward(h_, &one, xd.get(), x, wd.get(), w, c.get(), &zero, yd.get(), y, ws, ws_bytes),
                  "hiprimConvolutionForward", h_);
  }
  void convolution_backward_data(const TensorDescriptor& dyd, const void* dy, const TensorDescriptor& wd, const void* w,
                                 const ConvolutionDescriptor& c, const TensorDescriptor& dxd, void* dx, void* ws = nullptr,
                                 std::size_t ws_bytes = 0) {
    const float one = 1, zero = 0;
    detail::check(hiprimConvolutionBackwardData(h_, &one, dyd.get(), dy, wd.get(), w, c.get(), &zero, dxd.get(), dx, ws, ws_bytes),
                  "hiprimConvolutionBackwardData", h_);
  }
  void convolution_backward_weights(const TensorDescriptor& dyd, const void* dy, const TensorDescriptor& xd, const void* x,
                                    const ConvolutionDescriptor& c, const TensorDescriptor& dwd, void* dw, void* ws = nullptr,
                                    std::size_t ws_bytes = 0) {
    const float one = 1, zero = 0;
    detail::check(hiprimConvolutionBackwardWeights(h_, &one, dyd.get(), dy, xd.get(), x, c.get(), &zero, dwd.get(), dw, ws, ws_bytes),
                  "hiprimConvolutionBackwardWeights", h_);
  }
  // Any primitive by its problem string; buffers in the order of its tensors.
  void run(const std::string& problem, const std::vector<void*>& buffers, void* ws = nullptr, std::size_t ws_bytes = 0) {
    detail::check(hiprimRunProblem(h_, problem.c_str(), buffers.data(), static_cast<int>(buffers.size()), ws, ws_bytes),
                  "hiprimRunProblem", h_);
  }

 private:
  hiprimHandle_t h_ = nullptr;
};

class ActivationDescriptor {
 public:
  explicit ActivationDescriptor(hiprimActivationMode_t mode, double alpha = 1, double beta = 1, double gamma = 1) {
    detail::check(hiprimCreateActivationDescriptor(&d_), "hiprimCreateActivationDescriptor");
    if (const hiprimStatus_t s = hiprimSetActivationDescriptor(d_, mode, alpha, beta, gamma); s != hiprimStatusSuccess) {
      hiprimDestroyActivationDescriptor(d_);
      detail::check(s, "hiprimSetActivationDescriptor");
    }
  }
  ~ActivationDescriptor() { hiprimDestroyActivationDescriptor(d_); }
  ActivationDescriptor(const ActivationDescriptor&) = delete;
  ActivationDescriptor& operator=(const ActivationDescriptor&) = delete;
  hiprimActivationDescriptor_t get() const { return d_; }

 private:
  hiprimActivationDescriptor_t d_ = nullptr;
};

// The tensors of a fusion plan's ops (hiprimSetOpArgs*); an op is what FusionPlan::add_* returned.
class OperatorArgs {
 public:
  OperatorArgs() { detail::check(hiprimCreateOperatorArgs(&a_), "hiprimCreateOperatorArgs"); }
  ~OperatorArgs() { hiprimDestroyOperatorArgs(a_); }
  OperatorArgs(const OperatorArgs&) = delete;
  OperatorArgs& operator=(const OperatorArgs&) = delete;
  hiprimOperatorArgs_t get() const { return a_; }

  void conv(hiprimFusionOpDescriptor_t op, const void* w) { detail::check(hiprimSetOpArgsConvForward(a_, op, w), "hiprimSetOpArgsConvForward"); }
  void bias(hiprimFusionOpDescriptor_t op, const void* b) { detail::check(hiprimSetOpArgsBiasForward(a_, op, b), "hiprimSetOpArgsBiasForward"); }
  void batch_norm(hiprimFusionOpDescriptor_t op, const void* scale, const void* shift, const void* mean, const void* variance) {
    detail::check(hiprimSetOpArgsBatchNormInference(a_, op, scale, shift, mean, variance), "hiprimSetOpArgsBatchNormInference");
  }
  void residual(hiprimFusionOpDescriptor_t op, const void* r) { detail::check(hiprimSetOpArgsAddForward(a_, op, r), "hiprimSetOpArgsAddForward"); }

 private:
  hiprimOperatorArgs_t a_ = nullptr;
};

// A fusion plan (hiprim.h): ops added in chain order, compiled for a handle, executed with arguments.
class FusionPlan {
 public:
  explicit FusionPlan(const TensorDescriptor& x) { detail::check(hiprimCreateFusionPlan(&p_, x.get()), "hiprimCreateFusionPlan"); }
  ~FusionPlan() { hiprimDestroyFusionPlan(p_); }
  FusionPlan(const FusionPlan&) = delete;
  FusionPlan& operator=(const FusionPlan&) = delete;
  hiprimFusionPlanDescriptor_t get() const { return p_; }

  hiprimFusionOpDescriptor_t add_conv(const ConvolutionDescriptor& c, const TensorDescriptor& w) {
    return added([&](hiprimFusionOpDescriptor_t* op) { return hiprimCreateOpConvForward(p_, op, c.get(), w.get()); }, "hiprimCreateOpConvForward");
  }
  hiprimFusionOpDescriptor_t add_bias(const TensorDescriptor& b) {
    return added([&](hiprimFusionOpDescriptor_t* op) { return hiprimCreateOpBiasForward(p_, op, b.get()); }, "hiprimCreateOpBiasForward");
  }
  hiprimFusionOpDescriptor_t add_batch_norm_inference(const TensorDescriptor& bn, double epsilon) {
    return added([&](hiprimFusionOpDescriptor_t* op) { return hiprimCreateOpBatchNormInference(p_, op, hiprimBNSpatial, bn.get(), epsilon); },
                 "hiprimCreateOpBatchNormInference");
  }
  hiprimFusionOpDescriptor_t add_residual(const TensorDescriptor& r, double alpha = 1, double beta = 1) {
    return added([&](hiprimFusionOpDescriptor_t* op) { return hiprimCreateOpAddForward(p_, op, r.get(), alpha, beta); }, "hiprimCreateOpAddForward");
  }
  hiprimFusionOpDescriptor_t add_activation(const ActivationDescriptor& a) {
    return added([&](hiprimFusionOpDescriptor_t* op) { return hiprimCreateOpActivationForward(p_, op, a.get()); },
                 "hiprimCreateOpActivationForward");
  }
  void set_rounding(hiprimFusionRounding_t r) { detail::check(hiprimSetFusionPlanRounding(p_, r), "hiprimSetFusionPlanRounding"); }

  void compile(const Handle& h) { detail::check(hiprimCompileFusionPlan(h.get(), p_), "hiprimCompileFusionPlan", h.get()); }
  std::string problem() const {
    const char* s = nullptr;
    detail::check(hiprimFusionPlanGetProblem(p_, &s), "hiprimFusionPlanGetProblem");
    return s;
  }
  std::string solver() const {
    const char* s = nullptr;
    detail::check(hiprimFusionPlanGetSolverName(p_, &s), "hiprimFusionPlanGetSolverName");
    return s;
  }
  std::size_t workspace(const Handle& h) const {
    std::size_t n = 0;
    detail::check(hiprimFusionPlanGetWorkSpaceSize(h.get(), p_, &n), "hiprimFusionPlanGetWorkSpaceSize", h.get());
    return n;
  }
  // ws null: the handle's own workspace.
  void execute(const Handle& h, const TensorDescriptor& xd, const void* x, const TensorDescriptor& yd, void* y, const OperatorArgs& args,
               void* ws = nullptr, std::size_t ws_bytes = 0) {
    detail::check(hiprimExecuteFusionPlan(h.get(), p_, xd.get(), x, yd.get(), y, args.get(), ws, ws_bytes), "hiprimExecuteFusionPlan", h.get());
  }

 private:
  template <typename Create>
  static hiprimFusionOpDescriptor_t added(Create&& create, const char* call) {
    hiprimFusionOpDescriptor_t op = nullptr;
    detail::check(create(&op), call);
    return op;
  }
  hiprimFusionPlanDescriptor_t p_ = nullptr;
};

}  // namespace hiprim
