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

}  // namespace hiprim
