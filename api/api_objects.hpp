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
#include <vector>

#include "core/activ_problem.hpp"
#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "core/fusion_problem.hpp"
#include "core/op_solver.hpp"
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

struct hiprimActivationDescriptor {
  bool set = false;
  hiprim::ActivMode mode = hiprim::ActivMode::relu;
  double alpha = 1, beta = 1, gamma = 1;
};

// A fusion plan (hiprim.h's fusion part, api/fusion_api.cpp): the input descriptor, the ops in the
// order they were added, each with copies of its descriptors; after a compile, the problem and the
// solver immediate mode picked for the backend.
struct hiprimFusionPlan;
struct hiprimFusionOp {
  const hiprimFusionPlan* plan = nullptr;
  hiprim::FusionOp kind = hiprim::FusionOp::conv;
  hiprimTensorDescriptor tensor;     // conv: w; bias: the bias; bnorm: scale/shift/mean/var; add: the residual
  hiprimConvolutionDescriptor conv;  // conv
  hiprimActivationDescriptor activ;  // activ
  bool spatial = true;               // bnorm: hiprimBNSpatial
  double epsilon = 1e-5;             // bnorm
  double alpha = 1, beta = 1;        // add
};

struct hiprimFusionPlan {
  hiprimTensorDescriptor x;
  hiprim::FusionRounding rounding = hiprim::FusionRounding::fused;
  std::vector<std::unique_ptr<hiprimFusionOp>> ops;
  bool compiled = false;  // the fields below are those of the last successful compile
  hiprim::OpProblemPtr problem;
  std::string problem_text, solver_name;
  hiprim::Backend backend = hiprim::Backend::host;
  hiprim::verify::Chosen<hiprim::OpSolver> chosen;
};

// The tensors of each op (in the op's tensors() order), keyed by op.
struct hiprimOperatorArgs {
  std::vector<std::pair<const hiprimFusionOp*, std::vector<const void*>>> tensors;
};

namespace hiprim::api {

struct ApiError : std::runtime_error {
  ApiError(hiprimStatus_t s, const std::string& what) : std::runtime_error(what), status(s) {}
  hiprimStatus_t status;
};

// The descriptor behind d, set; ApiError naming `what` when it is null or was never set.
const hiprimTensorDescriptor& tensor(const hiprimTensorDescriptor* d, const char* what);
const hiprimConvolutionDescriptor& convolution(const hiprimConvolutionDescriptor* d);
const hiprimActivationDescriptor& activation(const hiprimActivationDescriptor* d);

// "[a,b,...]" of dims (the messages' form).
std::string dims_text(const Dims& d);
// The convolution of `dir` from its descriptors (x, w, y in the problem's roles: bwd-data's x is
// dx, y is dy; bwd-weights' w is dw), validated, the descriptors checked against each other.
// y null (fwd only): K is w's dims[0] and the channel order that of x and w.
ConvProblem conv_problem(ConvDir dir, const hiprimTensorDescriptor* x, const hiprimTensorDescriptor* w, const hiprimTensorDescriptor* y,
                         const hiprimConvolutionDescriptor* cd);

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

// Immediate mode's solver of p among the solvers of p's op (first_solver over verify::all_solvers()).
verify::Chosen<OpSolver> choose_op_solver(const hiprimHandle& h, const OpProblem& p);
// Runs p with the chosen solver c: the workspace check (own_workspace: see run_problem), the
// HIPRIM_LOG_CMD line, h.last_solver, then the solver; buffers in p.tensors() order, already checked.
void run_chosen(hiprimHandle& h, const OpProblem& p, const verify::Chosen<OpSolver>& c, const std::vector<void*>& buffers, void* workspace,
                std::size_t workspace_size, bool own_workspace);
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
