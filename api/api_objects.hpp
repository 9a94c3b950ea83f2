// The objects behind the C API's opaque handles (include/hiprim/hiprim.h) and the one wrapper every
// entry point runs in: a call's checks throw ApiError (its status and message), the library's own
// InputError / RuntimeError become hiprimStatusBadParm / hiprimStatusInternalError, and the handle
// keeps the message (hiprimGetLastErrorMessage). No exception leaves an entry point.
#pragma once
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "core/solver.hpp"
#include "hiprim/hiprim.h"
#include "verify/immediate.hpp"
#include "verify/solvers.hpp"

struct hiprimHandle {
  hiprim::Backend backend = hiprim::Backend::host;
  void* stream = nullptr;
  std::string last_error, last_solver, last_tensor_name;
  // The handle's own workspace for the entry points that take none (batch norm, activations,
  // softmax): host memory or device memory by backend, grown on demand (hiprim::api::handle_workspace).
  std::shared_ptr<void> workspace;
  std::size_t workspace_bytes = 0;
};

struct hiprimTensorDescriptor {
  bool set = false;
  hiprim::DType dtype = hiprim::DType::fp32;
  hiprim::Dims dims;  // N, C, spatial...
  bool channels_last = false;
  bool either_order = false;  // packed channels first and last coincide (C = 1 or 1 x 1 spatial)
};

struct hiprimConvolutionDescriptor {
  bool set = false;
  hiprim::ConvMode mode = hiprim::ConvMode::conv;
  hiprim::Dims pad, stride, dilation;
  std::int64_t groups = 1;
};

namespace hiprim::api {

struct ApiError : std::runtime_error {
  ApiError(hiprimStatus_t s, const std::string& what) : std::runtime_error(what), status(s) {}
  hiprimStatus_t status;
};

// The descriptor behind d, set; ApiError naming `what` when it is null or was never set.
const hiprimTensorDescriptor& tensor(const hiprimTensorDescriptor* d, const char* what);
const hiprimConvolutionDescriptor& convolution(const hiprimConvolutionDescriptor* d);

// %.17g of v (round-trips through the problem parsers).
std::string number_text(double v);
// ApiError unless alpha and beta point to 1 and 0 (the scaling this version implements).
void require_unit_scaling(const void* alpha, const void* beta);
// "<dtype> <layout> n<N> c<C> in<HxW>" of an elementwise tensor (the OpShape tokens); ApiError when
// `other` (if given) differs from `t` in dims, data type or channel order.
std::string shape_tokens(const hiprimTensorDescriptor& t, const hiprimTensorDescriptor* other = nullptr);

// hiprimCreate*Descriptor / hiprimDestroy*Descriptor of every descriptor type.
template <typename D>
hiprimStatus_t create_object(D** out) {
  if (out == nullptr) return hiprimStatusInvalidValue;
  *out = new (std::nothrow) D;
  return *out == nullptr ? hiprimStatusInternalError : hiprimStatusSuccess;
}
template <typename D>
hiprimStatus_t destroy_object(D* d) {
  if (d == nullptr) return hiprimStatusInvalidValue;
  delete d;
  return hiprimStatusSuccess;
}

// Immediate mode (verify/immediate.hpp): among the solvers of `list` of h's backend that `keep`
// admits (the op's solvers), HIPRIM_SOLVER and HIPRIM_DISABLE_SOLVERS let through and that take p:
// the find-db's winner for p on this device, else the trained model's pick, else the first in
// registry order; with its perf config ("" : the solver's default). HIPRIM_FIND_MODE picks the
// steps (fast: no find-db). ApiError hiprimStatusUnsupported naming p (text: its canonical string),
// the switches when none matched, and the refusals otherwise; hiprimStatusBadParm for a bad
// HIPRIM_FIND_MODE.
template <typename List, typename Problem, typename Keep>
auto first_solver(const hiprimHandle& h, const List& list, const Problem& p, const std::string& text, Keep&& keep) {
  const auto cx = verify::ImmediateContext::from_env(&verify::library_dbs());
  return verify::choose_solver(list, p, text, h.backend, cx, keep, [](const std::string& why) { throw ApiError(hiprimStatusUnsupported, why); });
}

// Runs the problem string's problem on h's backend (hiprimRunProblem's checks, then the solver).
// own_workspace: the entry point has no workspace argument (workspace null): a solver that needs
// one gets the handle's (handle_workspace).
void run_problem(hiprimHandle& h, const char* problem, void* const* buffers, int buffer_count, void* workspace, std::size_t workspace_size,
                 bool own_workspace = false);
// At least `bytes` of h's own workspace (device memory on the device backend, used in the order of
// h's stream; growing it waits for the device before the old buffer is freed).
void* handle_workspace(hiprimHandle& h, std::size_t bytes);

// Runs f(*handle), mapping what it throws to a status and the handle's last message.
template <typename F>
hiprimStatus_t guarded(hiprimHandle_t handle, F&& f) {
  if (handle == nullptr) return hiprimStatusInvalidValue;
  hiprimStatus_t status = hiprimStatusSuccess;
  std::string message;
  try {
    f(*handle);
  } catch (const ApiError& e) {
    status = e.status, message = e.what();
  } catch (const InputError& e) {
    status = hiprimStatusBadParm, message = e.what();
  } catch (const std::bad_alloc&) {
    status = hiprimStatusInternalError, message = "out of host memory";
  } catch (const std::exception& e) {
    status = hiprimStatusInternalError, message = e.what();
  } catch (...) {
    status = hiprimStatusInternalError, message = "unknown error";
  }
  handle->last_error = std::move(message);
  return status;
}

}  // namespace hiprim::api
