// The C API's activation and softmax entry points (include/hiprim/hiprim.h): descriptors and
// arguments become an activ or softmax problem string (core/activ_problem.hpp,
// core/softmax_problem.hpp); hiprim::api::run_problem checks and runs it.
#include <new>
#include <string>

#include "api/api_objects.hpp"
#include "core/activ_problem.hpp"

using hiprim::api::ApiError;

namespace hiprim::api {

const hiprimActivationDescriptor& activation(const hiprimActivationDescriptor* d) {
  if (d == nullptr) throw ApiError(hiprimStatusInvalidValue, "activation descriptor is null");
  if (!d->set) throw ApiError(hiprimStatusBadParm, "activation descriptor was created but never set");
  return *d;
}

}  // namespace hiprim::api

namespace {

// "activ <dir> <mode> <shape> [alpha..] [beta..] [gamma..]" with the coefficients the mode uses.
std::string activ_problem(const char* dir, const hiprimActivationDescriptor& a, const hiprimTensorDescriptor* x,
                          const hiprimTensorDescriptor* y) {
  std::string s = std::string("activ ") + dir;
  s += ' ';
  s += hiprim::activ_mode_name(a.mode);
  s += ' ';
  s += hiprim::api::shape_tokens(hiprim::api::tensor(x, "x descriptor"), &hiprim::api::tensor(y, "y descriptor"));
  if (hiprim::activ_uses_alpha(a.mode)) s += " alpha" + hiprim::api::number_text(a.alpha);
  if (hiprim::activ_uses_beta(a.mode)) s += " beta" + hiprim::api::number_text(a.beta);
  if (hiprim::activ_uses_gamma(a.mode)) s += " gamma" + hiprim::api::number_text(a.gamma);
  return s;
}

std::string softmax_problem(const char* dir, hiprimSoftmaxAlgorithm_t algorithm, hiprimSoftmaxMode_t mode, const hiprimTensorDescriptor* a,
                            const hiprimTensorDescriptor* b) {
  const char* alg = algorithm == hiprimSoftmaxFast ? "fast" : algorithm == hiprimSoftmaxAccurate ? "accurate" : algorithm == hiprimSoftmaxLog ? "log" : nullptr;
  const char* m = mode == hiprimSoftmaxModeInstance ? "instance" : mode == hiprimSoftmaxModeChannel ? "channel" : nullptr;
  if (alg == nullptr) throw ApiError(hiprimStatusBadParm, "softmax algorithm " + std::to_string(static_cast<int>(algorithm)) + " is not fast, accurate or log");
  if (m == nullptr) throw ApiError(hiprimStatusBadParm, "softmax mode " + std::to_string(static_cast<int>(mode)) + " is not instance or channel");
  std::string s = std::string("softmax ") + dir;
  s += ' ';
  s += alg;
  s += ' ';
  s += m;
  s += ' ';
  s += hiprim::api::shape_tokens(hiprim::api::tensor(a, "x (y) descriptor"), &hiprim::api::tensor(b, "y (dy) descriptor"));
  return s;
}

}  // namespace

extern "C" {

hiprimStatus_t hiprimCreateActivationDescriptor(hiprimActivationDescriptor_t* desc) { return hiprim::api::create_object(desc); }
hiprimStatus_t hiprimDestroyActivationDescriptor(hiprimActivationDescriptor_t desc) { return hiprim::api::destroy_object(desc); }

hiprimStatus_t hiprimSetActivationDescriptor(hiprimActivationDescriptor_t desc, hiprimActivationMode_t mode, double alpha, double beta,
                                             double gamma) {
  if (desc == nullptr) return hiprimStatusInvalidValue;
  if (static_cast<int>(mode) < 0 || static_cast<int>(mode) >= hiprim::kActivModeCount) return hiprimStatusBadParm;
  desc->mode = static_cast<hiprim::ActivMode>(mode);
  desc->alpha = alpha, desc->beta = beta, desc->gamma = gamma, desc->set = true;
  return hiprimStatusSuccess;
}

hiprimStatus_t hiprimActivationForward(hiprimHandle_t handle, hiprimActivationDescriptor_t desc, const void* alpha,
                                       hiprimTensorDescriptor_t x_desc, const void* x, const void* beta, hiprimTensorDescriptor_t y_desc,
                                       void* y) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    const std::string p = activ_problem("fwd", hiprim::api::activation(desc), x_desc, y_desc);
    void* const b[] = {const_cast<void*>(x), y};
    hiprim::api::run_problem(h, p.c_str(), b, 2, nullptr, 0, true);
  });
}

hiprimStatus_t hiprimActivationBackward(hiprimHandle_t handle, hiprimActivationDescriptor_t desc, const void* alpha,
                                        hiprimTensorDescriptor_t y_desc, const void* y, hiprimTensorDescriptor_t dy_desc, const void* dy,
                                        hiprimTensorDescriptor_t x_desc, const void* x, const void* beta, hiprimTensorDescriptor_t dx_desc,
                                        void* dx) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    if (y == nullptr) throw ApiError(hiprimStatusInvalidValue, "y is null");
    (void)hiprim::api::shape_tokens(hiprim::api::tensor(y_desc, "y descriptor"), &hiprim::api::tensor(dy_desc, "dy descriptor"));
    (void)hiprim::api::shape_tokens(hiprim::api::tensor(x_desc, "x descriptor"), &hiprim::api::tensor(dy_desc, "dy descriptor"));
    const std::string p = activ_problem("bwd", hiprim::api::activation(desc), x_desc, dx_desc);
    void* const b[] = {const_cast<void*>(x), const_cast<void*>(dy), dx};
    hiprim::api::run_problem(h, p.c_str(), b, 3, nullptr, 0, true);
  });
}

hiprimStatus_t hiprimSoftmaxForward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t x_desc, const void* x,
                                    const void* beta, hiprimTensorDescriptor_t y_desc, void* y, hiprimSoftmaxAlgorithm_t algorithm,
                                    hiprimSoftmaxMode_t mode) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    const std::string p = softmax_problem("fwd", algorithm, mode, x_desc, y_desc);
    void* const b[] = {const_cast<void*>(x), y};
    hiprim::api::run_problem(h, p.c_str(), b, 2, nullptr, 0, true);
  });
}

hiprimStatus_t hiprimSoftmaxBackward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t y_desc, const void* y,
                                     hiprimTensorDescriptor_t dy_desc, const void* dy, const void* beta, hiprimTensorDescriptor_t dx_desc,
                                     void* dx, hiprimSoftmaxAlgorithm_t algorithm, hiprimSoftmaxMode_t mode) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    hiprim::api::require_unit_scaling(alpha, beta);
    (void)hiprim::api::shape_tokens(hiprim::api::tensor(dx_desc, "dx descriptor"), &hiprim::api::tensor(dy_desc, "dy descriptor"));
    const std::string p = softmax_problem("bwd", algorithm, mode, y_desc, dy_desc);
    void* const b[] = {const_cast<void*>(y), const_cast<void*>(dy), dx};
    hiprim::api::run_problem(h, p.c_str(), b, 3, nullptr, 0, true);
  });
}

}  // extern "C"
