// The C API's convolution entry points (include/hiprim/hiprim.h): descriptors -> one ConvProblem
// (validated, the three descriptors checked against each other), the backend's first solver that
// takes it (immediate mode), then ConvSolver::run. Nothing runs and nothing is written unless every
// check passed.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/api_objects.hpp"
#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/solvers.hpp"

using hiprim::ConvDir;
using hiprim::ConvProblem;
using hiprim::api::ApiError;

namespace hiprim::api {

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(d[i]);
  }
  return s + "]";
}

ConvProblem conv_problem(ConvDir dir, const hiprimTensorDescriptor* x, const hiprimTensorDescriptor* w, const hiprimTensorDescriptor* y,
                         const hiprimConvolutionDescriptor* cd) {
  const auto& xd = tensor(x, "x descriptor");
  const auto& wd = tensor(w, "w descriptor");
  const hiprimTensorDescriptor* yd = y == nullptr ? nullptr : &tensor(y, "y descriptor");
  const auto& c = convolution(cd);
  const char* names = yd ? "x, w and y descriptors" : "x and w descriptors";
  if (xd.dtype != wd.dtype || (yd && xd.dtype != yd->dtype)) throw ApiError(hiprimStatusBadParm, std::string(names) + " have different data types");
  // The channel order: that of any descriptor whose strides tell it; all such must agree.
  bool channels_last = false, known = false;
  for (const hiprimTensorDescriptor* d : {&xd, &wd, yd}) {
    if (d == nullptr || d->either_order) continue;
    if (known && d->channels_last != channels_last)
      throw ApiError(hiprimStatusBadParm, std::string(names) + " have different channel orders (all NCHW or all NHWC)");
    channels_last = d->channels_last, known = true;
  }
  if (xd.dims.size() != wd.dims.size() || (yd && xd.dims.size() != yd->dims.size()))
    throw ApiError(hiprimStatusBadParm, std::string(names) + " have different ranks");
  const std::size_t spatial = xd.dims.size() - 2;
  if (c.pad.size() != spatial)
    throw ApiError(hiprimStatusBadParm, "the convolution descriptor has " + std::to_string(c.pad.size()) + " spatial axes, the tensors " +
                                            std::to_string(spatial));
  ConvProblem p;
  p.dir = dir;
  p.dtype = xd.dtype;
  p.channels_last = channels_last;
  p.n = xd.dims[0], p.c = xd.dims[1], p.k = yd ? yd->dims[1] : wd.dims[0], p.groups = c.groups;
  p.in.assign(xd.dims.begin() + 2, xd.dims.end());
  p.filter.assign(wd.dims.begin() + 2, wd.dims.end());
  p.pad = c.pad, p.stride = c.stride, p.dilation = c.dilation, p.mode = c.mode;
  p.out_pad = Dims(spatial, 0);
  if (auto errors = p.validate(); !errors.empty()) throw ApiError(hiprimStatusBadParm, "invalid convolution: " + errors.front());
  if (p.w_desc().dims != wd.dims)
    throw ApiError(hiprimStatusBadParm, "w descriptor dims " + dims_text(wd.dims) + " do not match the convolution's " + dims_text(p.w_desc().dims));
  if (yd && p.y_desc().dims != yd->dims)
    throw ApiError(hiprimStatusBadParm, "y descriptor dims " + dims_text(yd->dims) + " do not match the convolution's output " +
                                            dims_text(p.y_desc().dims));
  return p;
}

}  // namespace hiprim::api

namespace {

hiprim::verify::Chosen<hiprim::ConvSolver> choose_solver(const hiprimHandle& h, const ConvProblem& p) {
  return hiprim::api::first_solver(h, hiprim::verify::conv_solvers(), p, to_string(p), [](const hiprim::ConvSolver&) { return true; });
}

hiprimStatus_t workspace_size(hiprimHandle_t handle, ConvDir dir, const hiprimTensorDescriptor* x, const hiprimTensorDescriptor* w,
                              const hiprimTensorDescriptor* y, const hiprimConvolutionDescriptor* cd, size_t* size) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (size == nullptr) throw ApiError(hiprimStatusInvalidValue, "workspace_size is null");
    const ConvProblem p = hiprim::api::conv_problem(dir, x, w, y, cd);
    const auto c = choose_solver(h, p);
    *size = c.solver->config_workspace_bytes(p, c.config);
  });
}

// out is the direction's output; in_a, in_b its inputs (fwd: x, w; bwd-data: dy, w; bwd-weights: x, dy).
hiprimStatus_t run(hiprimHandle_t handle, ConvDir dir, const void* alpha, const void* beta, const hiprimTensorDescriptor* x,
                   const hiprimTensorDescriptor* w, const hiprimTensorDescriptor* y, const hiprimConvolutionDescriptor* cd,
                   const void* in_a, const void* in_b, void* out, void* workspace, size_t workspace_bytes) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (alpha == nullptr || beta == nullptr) throw ApiError(hiprimStatusInvalidValue, "alpha or beta is null");
    if (in_a == nullptr || in_b == nullptr || out == nullptr) throw ApiError(hiprimStatusInvalidValue, "a tensor pointer is null");
    if (*static_cast<const float*>(alpha) != 1.0f || *static_cast<const float*>(beta) != 0.0f)
      throw ApiError(hiprimStatusNotImplemented, "only alpha = 1 and beta = 0 are implemented");
    const ConvProblem p = hiprim::api::conv_problem(dir, x, w, y, cd);
    const auto c = choose_solver(h, p);
    const hiprim::ConvSolver& s = *c.solver;
    const std::size_t need = s.config_workspace_bytes(p, c.config);
    if (need > 0 && (workspace == nullptr || workspace_bytes < need))
      throw ApiError(hiprimStatusBadParm, "the workspace (" + std::to_string(workspace == nullptr ? 0 : workspace_bytes) +
                                              " bytes) is smaller than the " + std::to_string(need) + " bytes " + s.name() + " needs");
    hiprim::ConvTensors t;
    switch (dir) {
      case ConvDir::fwd: t.x = const_cast<void*>(in_a), t.w = const_cast<void*>(in_b), t.y = out; break;
      case ConvDir::bwd_data: t.y = const_cast<void*>(in_a), t.w = const_cast<void*>(in_b), t.x = out; break;
      case ConvDir::bwd_weights: t.x = const_cast<void*>(in_a), t.y = const_cast<void*>(in_b), t.w = out; break;
    }
    t.workspace = workspace, t.workspace_bytes = workspace_bytes, t.stream = h.stream, t.config = c.config;
    if (const char* log = std::getenv("HIPRIM_LOG_CMD"); log && *log && std::string(log) != "0")
      std::fprintf(stderr, "hiprim repro \"%s\" --solver %s%s\n", to_string(p).c_str(), s.name().c_str(),
                   c.config.empty() ? "" : (" --config " + c.config).c_str());
    h.last_solver = s.name();
    s.run(p, t);
  });
}

}  // namespace

extern "C" {

hiprimStatus_t hiprimConvolutionForwardGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t w_desc,
                                                        hiprimTensorDescriptor_t x_desc, hiprimConvolutionDescriptor_t conv_desc,
                                                        hiprimTensorDescriptor_t y_desc, size_t* size) {
  return workspace_size(handle, ConvDir::fwd, x_desc, w_desc, y_desc, conv_desc, size);
}
hiprimStatus_t hiprimConvolutionBackwardDataGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t dy_desc,
                                                             hiprimTensorDescriptor_t w_desc, hiprimConvolutionDescriptor_t conv_desc,
                                                             hiprimTensorDescriptor_t dx_desc, size_t* size) {
  return workspace_size(handle, ConvDir::bwd_data, dx_desc, w_desc, dy_desc, conv_desc, size);
}
hiprimStatus_t hiprimConvolutionBackwardWeightsGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t dy_desc,
                                                                hiprimTensorDescriptor_t x_desc,
                                                                hiprimConvolutionDescriptor_t conv_desc,
                                                                hiprimTensorDescriptor_t dw_desc, size_t* size) {
  return workspace_size(handle, ConvDir::bwd_weights, x_desc, dw_desc, dy_desc, conv_desc, size);
}

hiprimStatus_t hiprimConvolutionForward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t x_desc, const void* x,
                                        hiprimTensorDescriptor_t w_desc, const void* w, hiprimConvolutionDescriptor_t conv_desc,
                                        const void* beta, hiprimTensorDescriptor_t y_desc, void* y, void* workspace,
                                        size_t workspace_size) {
  return run(handle, ConvDir::fwd, alpha, beta, x_desc, w_desc, y_desc, conv_desc, x, w, y, workspace, workspace_size);
}
hiprimStatus_t hiprimConvolutionBackwardData(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t dy_desc,
                                             const void* dy, hiprimTensorDescriptor_t w_desc, const void* w,
                                             hiprimConvolutionDescriptor_t conv_desc, const void* beta,
                                             hiprimTensorDescriptor_t dx_desc, void* dx, void* workspace, size_t workspace_size) {
  return run(handle, ConvDir::bwd_data, alpha, beta, dx_desc, w_desc, dy_desc, conv_desc, dy, w, dx, workspace, workspace_size);
}
hiprimStatus_t hiprimConvolutionBackwardWeights(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t dy_desc,
                                                const void* dy, hiprimTensorDescriptor_t x_desc, const void* x,
                                                hiprimConvolutionDescriptor_t conv_desc, const void* beta,
                                                hiprimTensorDescriptor_t dw_desc, void* dw, void* workspace, size_t workspace_size) {
  return run(handle, ConvDir::bwd_weights, alpha, beta, x_desc, dw_desc, dy_desc, conv_desc, x, dy, dw, workspace, workspace_size);
}

}  // extern "C"
