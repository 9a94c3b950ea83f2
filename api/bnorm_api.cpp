// The C API's batch normalization entry points (include/hiprim/hiprim.h): the descriptors and
// arguments become a bnorm problem string (core/bnorm_problem.hpp) whose buffers are the pointers in
// that problem's tensor order; hiprim::api::run_problem checks and runs it.
#include <cstdio>
#include <string>

#include "api/api_objects.hpp"

using hiprim::api::ApiError;

namespace {

// "bnorm <dir> <mode> <dtype> <layout> n.. c.. in.. eps.. [momentum..] [scale=.. stats=..]" from the
// descriptors; ApiError naming the disagreement.
std::string bnorm_problem(const char* dir, hiprimBatchNormMode_t mode, const hiprimTensorDescriptor* x, const hiprimTensorDescriptor* y,
                          const hiprimTensorDescriptor* bn, double epsilon, const double* momentum) {
  const auto& xd = hiprim::api::tensor(x, "x descriptor");
  const auto& yd = hiprim::api::tensor(y, "y descriptor");
  const auto& bd = hiprim::api::tensor(bn, "bn_desc");
  if (mode != hiprimBNSpatial && mode != hiprimBNPerActivation) throw ApiError(hiprimStatusBadParm, "mode is not hiprimBNSpatial or hiprimBNPerActivation");
  hiprim::Dims want(xd.dims.size(), 1);
  want[1] = xd.dims[1];
  if (mode == hiprimBNPerActivation)
    for (std::size_t i = 2; i < want.size(); ++i) want[i] = xd.dims[i];
  if (bd.dims != want) throw ApiError(hiprimStatusBadParm, "bn_desc's dims are not [1, C, ...] of the mode");
  if (bd.dtype != hiprim::DType::fp32 && bd.dtype != xd.dtype) throw ApiError(hiprimStatusBadParm, "bn_desc's data type is neither fp32 nor x's");
  std::string s = std::string("bnorm ") + dir;
  s += mode == hiprimBNSpatial ? " spatial " : " per-act ";
  s += hiprim::api::shape_tokens(xd, &yd);
  s += " eps" + hiprim::api::number_text(epsilon);
  if (momentum) s += " momentum" + hiprim::api::number_text(*momentum);
  if (bd.dtype != hiprim::DType::fp32) s += " scale=" + std::string(hiprim::dtype_name(bd.dtype)) + " stats=" + std::string(hiprim::dtype_name(bd.dtype));
  return s;
}

}  // namespace

extern "C" {

hiprimStatus_t hiprimBatchNormalizationForwardTraining(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha,
                                                       const void* beta, hiprimTensorDescriptor_t x_desc, const void* x,
                                                       hiprimTensorDescriptor_t y_desc, void* y, hiprimTensorDescriptor_t bn_desc,
                                                       const void* scale, const void* bias, double exp_avg_factor, void* running_mean,
                                                       void* running_variance, double epsilon, void* save_mean,
                                                       void* save_inv_variance) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    const std::string p = bnorm_problem("fwd-train", mode, x_desc, y_desc, bn_desc, epsilon, &exp_avg_factor);
    void* const b[] = {const_cast<void*>(x), const_cast<void*>(scale), const_cast<void*>(bias), running_mean, running_variance, y,
                       save_mean, save_inv_variance};
    hiprim::api::run_problem(h, p.c_str(), b, 8, nullptr, 0, true);
  });
}

hiprimStatus_t hiprimBatchNormalizationForwardInference(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha,
                                                        const void* beta, hiprimTensorDescriptor_t x_desc, const void* x,
                                                        hiprimTensorDescriptor_t y_desc, void* y, hiprimTensorDescriptor_t bn_desc,
                                                        const void* scale, const void* bias, const void* estimated_mean,
                                                        const void* estimated_variance, double epsilon) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    const std::string p = bnorm_problem("fwd-infer", mode, x_desc, y_desc, bn_desc, epsilon, nullptr);
    void* const b[] = {const_cast<void*>(x), const_cast<void*>(scale), const_cast<void*>(bias), const_cast<void*>(estimated_mean),
                       const_cast<void*>(estimated_variance), y};
    hiprim::api::run_problem(h, p.c_str(), b, 6, nullptr, 0, true);
  });
}

hiprimStatus_t hiprimBatchNormalizationBackward(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha_data,
                                                const void* beta_data, const void* alpha_param, const void* beta_param,
                                                hiprimTensorDescriptor_t x_desc, const void* x, hiprimTensorDescriptor_t dy_desc,
                                                const void* dy, hiprimTensorDescriptor_t dx_desc, void* dx,
                                                hiprimTensorDescriptor_t bn_desc, const void* scale, void* result_scale_diff,
                                                void* result_bias_diff, double epsilon, const void* saved_mean,
                                                const void* saved_inv_variance) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha_data, beta_data);
    hiprim::api::require_unit_scaling(alpha_param, beta_param);
    (void)hiprim::api::tensor(dx_desc, "dx descriptor");
    if (dx_desc->dims != dy_desc->dims || dx_desc->dtype != dy_desc->dtype)
      throw ApiError(hiprimStatusBadParm, "dx and dy descriptors differ in dims or data type");
    const std::string p = bnorm_problem("bwd", mode, x_desc, dy_desc, bn_desc, epsilon, nullptr);
    void* const b[] = {const_cast<void*>(x), const_cast<void*>(dy), const_cast<void*>(scale), const_cast<void*>(saved_mean),
                       const_cast<void*>(saved_inv_variance), dx, result_scale_diff, result_bias_diff};
    hiprim::api::run_problem(h, p.c_str(), b, 8, nullptr, 0, true);
  });
}

}  // extern "C"
