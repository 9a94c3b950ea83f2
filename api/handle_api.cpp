// The C API's handle, descriptors and status strings (include/hiprim/hiprim.h).
#include <cstdio>
#include <memory>
#include <string>

#include "api/api_objects.hpp"
#include "verify/guarded_buffer.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

using hiprim::api::ApiError;

namespace hiprim::api {

const hiprimTensorDescriptor& tensor(const hiprimTensorDescriptor* d, const char* what) {
  if (d == nullptr) throw ApiError(hiprimStatusInvalidValue, std::string(what) + " is null");
  if (!d->set) throw ApiError(hiprimStatusBadParm, std::string(what) + " was created but never set");
  return *d;
}

const hiprimConvolutionDescriptor& convolution(const hiprimConvolutionDescriptor* d) {
  if (d == nullptr) throw ApiError(hiprimStatusInvalidValue, "convolution descriptor is null");
  if (!d->set) throw ApiError(hiprimStatusBadParm, "convolution descriptor was created but never initialised");
  return *d;
}

void* handle_workspace(hiprimHandle& h, std::size_t bytes) {
  if (bytes <= h.workspace_bytes) return h.workspace.get();
  if (h.backend == Backend::host) {
    h.workspace = std::shared_ptr<void>(::operator new(bytes), [](void* p) { ::operator delete(p); });
  } else {
#ifdef HIPRIM_WITH_GPU
    if (h.workspace) gpu::synchronize("growing the handle's workspace");  // work in flight may still use the old one
    auto buf = std::make_shared<gpu::DeviceBuffer>(bytes, "the handle's workspace");
    h.workspace = std::shared_ptr<void>(buf, buf->data());
#else
    throw ApiError(hiprimStatusNotInitialized, "this build has no GPU backend");
#endif
  }
  h.workspace_bytes = bytes;
  return h.workspace.get();
}

std::string number_text(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

void require_unit_scaling(const void* alpha, const void* beta) {
  if (alpha == nullptr || beta == nullptr) throw ApiError(hiprimStatusInvalidValue, "alpha or beta is null");
  if (*static_cast<const float*>(alpha) != 1.0f || *static_cast<const float*>(beta) != 0.0f)
    throw ApiError(hiprimStatusNotImplemented, "only alpha = 1 and beta = 0 are implemented");
}

std::string shape_tokens(const hiprimTensorDescriptor& t, const hiprimTensorDescriptor* other) {
  bool last = t.channels_last;
  if (other != nullptr) {
    if (other->dims != t.dims || other->dtype != t.dtype || (other->channels_last != t.channels_last && !other->either_order && !t.either_order))
      throw ApiError(hiprimStatusBadParm, "the tensor descriptors differ in dims, data type or channel order");
    last = last || (t.either_order && other->channels_last);
  }
  std::string s(hiprim::dtype_name(t.dtype));
  s += t.dims.size() == 4 ? (last ? " nhwc" : " nchw") : (last ? " ndhwc" : " ncdhw");
  s += " n" + std::to_string(t.dims[0]) + " c" + std::to_string(t.dims[1]) + " in";
  for (std::size_t i = 2; i < t.dims.size(); ++i) {
    if (i > 2) s += 'x';
    s += std::to_string(t.dims[i]);
  }
  return s;
}

}  // namespace hiprim::api

namespace {

// A descriptor call without a handle: ApiError's status (the message goes nowhere).
template <typename F>
hiprimStatus_t plain(F&& f) {
  hiprimHandle scratch;
  return hiprim::api::guarded(&scratch, [&](hiprimHandle&) { f(); });
}

hiprim::DType dtype_of(hiprimDataType_t t) {
  switch (t) {
    case hiprimFloat: return hiprim::DType::fp32;
    case hiprimHalf: return hiprim::DType::fp16;
    case hiprimBFloat16: return hiprim::DType::bf16;
  }
  throw ApiError(hiprimStatusBadParm, "data type " + std::to_string(static_cast<int>(t)) + " is not hiprimFloat, hiprimHalf or hiprimBFloat16");
}

hiprim::ConvMode mode_of(hiprimConvolutionMode_t m) {
  if (m == hiprimConvolution) return hiprim::ConvMode::conv;
  if (m == hiprimTranspose) return hiprim::ConvMode::trans;
  throw ApiError(hiprimStatusBadParm, "convolution mode " + std::to_string(static_cast<int>(m)) + " is not hiprimConvolution or hiprimTranspose");
}

}  // namespace

extern "C" {

void hiprimGetVersion(int* major, int* minor, int* patch) {
  if (major) *major = HIPRIM_VERSION_MAJOR;
  if (minor) *minor = HIPRIM_VERSION_MINOR;
  if (patch) *patch = HIPRIM_VERSION_PATCH;
}

const char* hiprimGetErrorString(hiprimStatus_t status) {
  switch (status) {
    case hiprimStatusSuccess: return "hiprimStatusSuccess: the call succeeded";
    case hiprimStatusNotInitialized: return "hiprimStatusNotInitialized: the backend cannot run here";
    case hiprimStatusInvalidValue: return "hiprimStatusInvalidValue: a null pointer or an argument out of range";
    case hiprimStatusBadParm: return "hiprimStatusBadParm: the descriptors do not describe a valid problem";
    case hiprimStatusNotImplemented: return "hiprimStatusNotImplemented: a valid request this version does not do";
    case hiprimStatusUnsupported: return "hiprimStatusUnsupported: no solver of the backend takes the problem";
    case hiprimStatusInternalError: return "hiprimStatusInternalError: a failed device call or another runtime error";
  }
  return "unknown hiprimStatus_t value";
}

hiprimStatus_t hiprimCreate(hiprimHandle_t* handle) {
  const bool gpu = !hiprim::verify::backend_unavailable(hiprim::Backend::device);
  return hiprimCreateWithBackend(handle, gpu ? hiprimBackendDevice : hiprimBackendHost);
}

hiprimStatus_t hiprimCreateWithBackend(hiprimHandle_t* handle, hiprimBackend_t backend) {
  if (handle == nullptr) return hiprimStatusInvalidValue;
  *handle = nullptr;
  if (backend != hiprimBackendDevice && backend != hiprimBackendHost) return hiprimStatusBadParm;
  const hiprim::Backend b = backend == hiprimBackendDevice ? hiprim::Backend::device : hiprim::Backend::host;
  if (hiprim::verify::backend_unavailable(b)) return hiprimStatusNotInitialized;
  auto* h = new (std::nothrow) hiprimHandle;
  if (h == nullptr) return hiprimStatusInternalError;
  h->backend = b;
  *handle = h;
  return hiprimStatusSuccess;
}

hiprimStatus_t hiprimDestroy(hiprimHandle_t handle) { return hiprim::api::destroy_object(handle); }

hiprimStatus_t hiprimGetBackend(hiprimHandle_t handle, hiprimBackend_t* backend) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (backend == nullptr) throw ApiError(hiprimStatusInvalidValue, "backend is null");
    *backend = h.backend == hiprim::Backend::device ? hiprimBackendDevice : hiprimBackendHost;
  });
}

hiprimStatus_t hiprimSetStream(hiprimHandle_t handle, void* stream) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (h.backend == hiprim::Backend::host && stream != nullptr)
      throw ApiError(hiprimStatusBadParm, "a host-backend handle has no stream (pass null)");
    h.stream = stream;
  });
}

hiprimStatus_t hiprimGetStream(hiprimHandle_t handle, void** stream) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (stream == nullptr) throw ApiError(hiprimStatusInvalidValue, "stream is null");
    *stream = h.stream;
  });
}

const char* hiprimGetLastErrorMessage(hiprimHandle_t handle) { return handle == nullptr ? "handle is null" : handle->last_error.c_str(); }
const char* hiprimGetLastSolverName(hiprimHandle_t handle) { return handle == nullptr ? "" : handle->last_solver.c_str(); }

hiprimStatus_t hiprimCreateTensorDescriptor(hiprimTensorDescriptor_t* desc) { return hiprim::api::create_object(desc); }
hiprimStatus_t hiprimDestroyTensorDescriptor(hiprimTensorDescriptor_t desc) { return hiprim::api::destroy_object(desc); }

hiprimStatus_t hiprimSet4dTensorDescriptor(hiprimTensorDescriptor_t desc, hiprimDataType_t type, int n, int c, int h, int w) {
  const int dims[4] = {n, c, h, w};
  const int strides[4] = {c * h * w, h * w, w, 1};
  return hiprimSetTensorDescriptor(desc, type, 4, dims, strides);
}

hiprimStatus_t hiprimSetTensorDescriptor(hiprimTensorDescriptor_t desc, hiprimDataType_t type, int nb_dims, const int* dims,
                                         const int* strides) {
  return plain([&] {
    if (desc == nullptr || dims == nullptr || strides == nullptr) throw ApiError(hiprimStatusInvalidValue, "a null argument");
    if (nb_dims != 4 && nb_dims != 5) throw ApiError(hiprimStatusBadParm, "nb_dims " + std::to_string(nb_dims) + " (4 or 5)");
    hiprim::Dims d(dims, dims + nb_dims), s(strides, strides + nb_dims);
    for (auto v : d)
      if (v < 1) throw ApiError(hiprimStatusBadParm, "a dimension < 1");
    const hiprim::DType t = dtype_of(type);
    const bool first = hiprim::TensorDesc::packed(t, d, false).strides == s, last = hiprim::TensorDesc::packed(t, d, true).strides == s;
    if (!first && !last) throw ApiError(hiprimStatusBadParm, "strides are neither packed channels first nor packed channels last");
    desc->dtype = t, desc->dims = d, desc->channels_last = last && !first, desc->either_order = first && last, desc->set = true;
  });
}

hiprimStatus_t hiprimCreateConvolutionDescriptor(hiprimConvolutionDescriptor_t* desc) { return hiprim::api::create_object(desc); }
hiprimStatus_t hiprimDestroyConvolutionDescriptor(hiprimConvolutionDescriptor_t desc) { return hiprim::api::destroy_object(desc); }

hiprimStatus_t hiprimInitConvolutionDescriptor(hiprimConvolutionDescriptor_t desc, hiprimConvolutionMode_t mode, int pad_h,
                                               int pad_w, int stride_h, int stride_w, int dilation_h, int dilation_w) {
  const int pads[2] = {pad_h, pad_w}, strides[2] = {stride_h, stride_w}, dilations[2] = {dilation_h, dilation_w};
  return hiprimInitConvolutionNdDescriptor(desc, 2, pads, strides, dilations, mode);
}

hiprimStatus_t hiprimInitConvolutionNdDescriptor(hiprimConvolutionDescriptor_t desc, int n, const int* pads, const int* strides,
                                                 const int* dilations, hiprimConvolutionMode_t mode) {
  return plain([&] {
    if (desc == nullptr || pads == nullptr || strides == nullptr || dilations == nullptr)
      throw ApiError(hiprimStatusInvalidValue, "a null argument");
    if (n != 2 && n != 3) throw ApiError(hiprimStatusBadParm, "spatial axes " + std::to_string(n) + " (2 or 3)");
    for (int i = 0; i < n; ++i)
      if (pads[i] < 0 || strides[i] < 1 || dilations[i] < 1) throw ApiError(hiprimStatusBadParm, "pad < 0, stride < 1 or dilation < 1");
    desc->mode = mode_of(mode);
    desc->pad.assign(pads, pads + n), desc->stride.assign(strides, strides + n), desc->dilation.assign(dilations, dilations + n);
    desc->set = true;
  });
}

hiprimStatus_t hiprimSetConvolutionGroupCount(hiprimConvolutionDescriptor_t desc, int groups) {
  if (desc == nullptr) return hiprimStatusInvalidValue;
  if (groups < 1) return hiprimStatusBadParm;
  desc->groups = groups;
  return hiprimStatusSuccess;
}

}  // extern "C"
