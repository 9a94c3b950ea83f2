// The C API's fusion plans (include/hiprim/hiprim.h): the ops of a plan become one FusionProblem
// (core/fusion_problem.hpp; its validate() names a chain out of order, a step twice, a missing
// conv), the ops' descriptors are checked against it, and immediate mode picks the solver among the
// fusion op's solvers of the handle's backend. Execute passes the buffers in the problem's tensors()
// order (x, w, [bias], [bn_scale, bn_shift, bn_mean, bn_var], [residual], y) to
// hiprim::api::run_chosen (the workspace check, the HIPRIM_LOG_CMD line, the run).
#include <algorithm>
#include <string>
#include <vector>

#include "api/api_objects.hpp"
#include "core/fusion_problem.hpp"

using hiprim::ConvProblem;
using hiprim::Dims;
using hiprim::DType;
using hiprim::FusionOp;
using hiprim::FusionProblem;
using hiprim::api::ApiError;

namespace {

std::string layout_text(bool channels_last) { return channels_last ? "channels last (NHWC)" : "channels first (NCHW)"; }

// "op <i> (<kind>)": how the messages name an op (1-based, in the order added).
std::string op_name(std::size_t i, FusionOp kind) { return "op " + std::to_string(i + 1) + " (" + std::string(hiprim::fusion_op_name(kind)) + ")"; }

// ApiError naming `what` unless d has these dims, this dtype and (when it tells) this channel order.
void expect_tensor(const hiprimTensorDescriptor& d, const std::string& what, const Dims& dims, DType dtype, bool channels_last) {
  using hiprim::api::dims_text;
  if (d.dims != dims) throw ApiError(hiprimStatusBadParm, what + " dims " + dims_text(d.dims) + " are not the plan's " + dims_text(dims));
  if (d.dtype != dtype)
    throw ApiError(hiprimStatusBadParm, what + " has data type " + std::string(hiprim::dtype_name(d.dtype)) + ", the plan needs " +
                                            std::string(hiprim::dtype_name(dtype)));
  if (!d.either_order && d.channels_last != channels_last)
    throw ApiError(hiprimStatusBadParm, what + " is " + layout_text(d.channels_last) + ", the plan " + layout_text(channels_last));
}

// [1, K, 1, 1] (or [1, K, 1, 1, 1]): a per-channel parameter of a plan of `rank` dims.
Dims channel_dims(std::int64_t k, std::size_t rank) {
  Dims d(rank, 1);
  d[1] = k;
  return d;
}

// Runs f; an ApiError it throws gets "<op name>: " before its message.
template <typename F>
void in_op(std::size_t i, FusionOp kind, F&& f) {
  try {
    f();
  } catch (const ApiError& e) {
    throw ApiError(e.status, op_name(i, kind) + ": " + e.what());
  }
}

// The plan's problem: its steps in the order the ops were added, validated, then every op's
// descriptors checked against it.
FusionProblem fusion_problem_of(const hiprimFusionPlan& plan) {
  const hiprimTensorDescriptor& xd = hiprim::api::tensor(&plan.x, "the plan's x descriptor");
  FusionProblem q;
  q.dtype = xd.dtype;
  q.channels_last = xd.channels_last;
  q.rounding = plan.rounding;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const hiprimFusionOp& op = *plan.ops[i];
    hiprim::FusionStep st = hiprim::fusion_step(op.kind);
    in_op(i, op.kind, [&] {
      switch (op.kind) {
        case FusionOp::conv:
          st.conv = hiprim::api::conv_problem(hiprim::ConvDir::fwd, &plan.x, &op.tensor, nullptr, &op.conv);
          q.channels_last = st.conv.channels_last;
          break;
        case FusionOp::bias: break;
        case FusionOp::bnorm_infer:
          if (!op.spatial) throw ApiError(hiprimStatusNotImplemented, "a fusion plan's batch norm is hiprimBNSpatial only (per output channel)");
          st.epsilon = op.epsilon;
          break;
        case FusionOp::add: st.alpha = op.alpha, st.beta = op.beta; break;
        case FusionOp::activ: {
          const hiprimActivationDescriptor& a = hiprim::api::activation(&op.activ);
          // The coefficients the mode uses (the others stay 1), as hiprimActivationForward.
          st.mode = a.mode;
          st.activ_alpha = hiprim::activ_uses_alpha(a.mode) ? a.alpha : 1;
          st.activ_beta = hiprim::activ_uses_beta(a.mode) ? a.beta : 1;
          st.activ_gamma = hiprim::activ_uses_gamma(a.mode) ? a.gamma : 1;
          break;
        }
      }
    });
    q.steps.push_back(st);
  }
  if (auto errors = q.validate(); !errors.empty()) {
    std::string m = "invalid fusion plan: " + errors.front();
    for (std::size_t i = 1; i < errors.size(); ++i) m += "; " + errors[i];
    throw ApiError(hiprimStatusBadParm, m);
  }
  const ConvProblem c = q.conv();
  const std::size_t rank = xd.dims.size();
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const hiprimFusionOp& op = *plan.ops[i];
    in_op(i, op.kind, [&] {
      switch (op.kind) {
        case FusionOp::bias:
          expect_tensor(hiprim::api::tensor(&op.tensor, "bias descriptor"), "bias descriptor", channel_dims(c.k, rank), q.dtype, q.channels_last);
          break;
        case FusionOp::bnorm_infer:
          expect_tensor(hiprim::api::tensor(&op.tensor, "bn descriptor"), "bn descriptor", channel_dims(c.k, rank), DType::fp32, q.channels_last);
          break;
        case FusionOp::add:
          expect_tensor(hiprim::api::tensor(&op.tensor, "residual descriptor"), "residual descriptor", q.y_desc().dims, q.dtype, q.channels_last);
          break;
        default: break;
      }
    });
  }
  return q;
}

// The plan, compiled for h's backend; ApiError otherwise.
const hiprimFusionPlan& compiled(const hiprimFusionPlan* plan, const hiprimHandle& h) {
  if (plan == nullptr) throw ApiError(hiprimStatusInvalidValue, "plan is null");
  if (!plan->compiled) throw ApiError(hiprimStatusBadParm, "the fusion plan is not compiled (hiprimCompileFusionPlan after its last change)");
  if (plan->backend != h.backend)
    throw ApiError(hiprimStatusBadParm, std::string("the fusion plan was compiled for the ") +
                                            (plan->backend == hiprim::Backend::host ? "host" : "device") + " backend, the handle is of the other");
  return *plan;
}

// hiprimCreateOp*: a new op of `kind` at the end of the plan, `set` fills its descriptors.
template <typename Set>
hiprimStatus_t add_op(hiprimFusionPlan* plan, hiprimFusionOp** out, FusionOp kind, Set&& set) {
  if (plan == nullptr || out == nullptr) return hiprimStatusInvalidValue;
  try {
    auto op = std::make_unique<hiprimFusionOp>();
    op->plan = plan, op->kind = kind;
    if (!set(*op)) return hiprimStatusInvalidValue;
    *out = op.get();
    plan->ops.push_back(std::move(op));
    plan->compiled = false;
    return hiprimStatusSuccess;
  } catch (...) {
    return hiprimStatusInternalError;
  }
}

// hiprimSetOpArgs*: the op's tensors in args (replacing earlier ones).
hiprimStatus_t set_args(hiprimOperatorArgs* args, const hiprimFusionOp* op, FusionOp kind, std::vector<const void*> tensors) {
  if (args == nullptr || op == nullptr) return hiprimStatusInvalidValue;
  for (const void* t : tensors)
    if (t == nullptr) return hiprimStatusInvalidValue;
  if (op->kind != kind) return hiprimStatusBadParm;
  try {
    auto it = std::find_if(args->tensors.begin(), args->tensors.end(), [&](const auto& e) { return e.first == op; });
    if (it != args->tensors.end())
      it->second = std::move(tensors);
    else
      args->tensors.emplace_back(op, std::move(tensors));
    return hiprimStatusSuccess;
  } catch (...) {
    return hiprimStatusInternalError;
  }
}

const char* args_call(FusionOp kind) {
  switch (kind) {
    case FusionOp::conv: return "hiprimSetOpArgsConvForward";
    case FusionOp::bias: return "hiprimSetOpArgsBiasForward";
    case FusionOp::bnorm_infer: return "hiprimSetOpArgsBatchNormInference";
    case FusionOp::add: return "hiprimSetOpArgsAddForward";
    case FusionOp::activ: break;
  }
  return "";
}

// The buffers of one execution in tensors() order; ApiError for a missing op's arguments or
// arguments of an op that is not the plan's.
std::vector<void*> buffers_of(const hiprimFusionPlan& plan, const hiprimOperatorArgs& args, const void* x, void* y) {
  for (const auto& [op, tensors] : args.tensors)
    if (op->plan != &plan || std::none_of(plan.ops.begin(), plan.ops.end(), [&](const auto& o) { return o.get() == op; }))
      throw ApiError(hiprimStatusBadParm, "the arguments hold tensors of an op that is not this plan's");
  std::vector<void*> b{const_cast<void*>(x)};
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const hiprimFusionOp* op = plan.ops[i].get();
    if (op->kind == FusionOp::activ) continue;
    auto it = std::find_if(args.tensors.begin(), args.tensors.end(), [&](const auto& e) { return e.first == op; });
    if (it == args.tensors.end())
      throw ApiError(hiprimStatusBadParm, "no arguments for " + op_name(i, op->kind) + " (" + args_call(op->kind) + ")");
    for (const void* t : it->second) b.push_back(const_cast<void*>(t));
  }
  b.push_back(y);
  if (b.size() != plan.problem->tensors().size())
    throw ApiError(hiprimStatusInternalError, plan.problem_text + " takes " + std::to_string(plan.problem->tensors().size()) + " buffers, the plan gave " +
                                                  std::to_string(b.size()));
  return b;
}

}  // namespace

extern "C" {

hiprimStatus_t hiprimCreateFusionPlan(hiprimFusionPlanDescriptor_t* plan, hiprimTensorDescriptor_t x_desc) {
  if (plan == nullptr || x_desc == nullptr) return hiprimStatusInvalidValue;
  if (hiprimStatus_t s = hiprim::api::create_object(plan); s != hiprimStatusSuccess) return s;
  (*plan)->x = *x_desc;
  return hiprimStatusSuccess;
}
hiprimStatus_t hiprimDestroyFusionPlan(hiprimFusionPlanDescriptor_t plan) { return hiprim::api::destroy_object(plan); }

hiprimStatus_t hiprimSetFusionPlanRounding(hiprimFusionPlanDescriptor_t plan, hiprimFusionRounding_t rounding) {
  if (plan == nullptr) return hiprimStatusInvalidValue;
  if (rounding != hiprimFusionRoundingFused && rounding != hiprimFusionRoundingUnfused) return hiprimStatusBadParm;
  plan->rounding = rounding == hiprimFusionRoundingFused ? hiprim::FusionRounding::fused : hiprim::FusionRounding::unfused;
  plan->compiled = false;
  return hiprimStatusSuccess;
}

hiprimStatus_t hiprimCreateOpConvForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                         hiprimConvolutionDescriptor_t conv_desc, hiprimTensorDescriptor_t w_desc) {
  return add_op(plan, op, FusionOp::conv, [&](hiprimFusionOp& o) {
    if (conv_desc == nullptr || w_desc == nullptr) return false;
    o.conv = *conv_desc, o.tensor = *w_desc;
    return true;
  });
}

hiprimStatus_t hiprimCreateOpBiasForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op, hiprimTensorDescriptor_t b_desc) {
  return add_op(plan, op, FusionOp::bias, [&](hiprimFusionOp& o) {
    if (b_desc == nullptr) return false;
    o.tensor = *b_desc;
    return true;
  });
}

hiprimStatus_t hiprimCreateOpBatchNormInference(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op, hiprimBatchNormMode_t mode,
                                                hiprimTensorDescriptor_t bn_desc, double epsilon) {
  if (mode != hiprimBNSpatial && mode != hiprimBNPerActivation) return hiprimStatusBadParm;
  return add_op(plan, op, FusionOp::bnorm_infer, [&](hiprimFusionOp& o) {
    if (bn_desc == nullptr) return false;
    o.tensor = *bn_desc, o.spatial = mode == hiprimBNSpatial, o.epsilon = epsilon;
    return true;
  });
}

hiprimStatus_t hiprimCreateOpAddForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op, hiprimTensorDescriptor_t residual_desc,
                                        double alpha, double beta) {
  return add_op(plan, op, FusionOp::add, [&](hiprimFusionOp& o) {
    if (residual_desc == nullptr) return false;
    o.tensor = *residual_desc, o.alpha = alpha, o.beta = beta;
    return true;
  });
}

hiprimStatus_t hiprimCreateOpActivationForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                               hiprimActivationDescriptor_t activ_desc) {
  return add_op(plan, op, FusionOp::activ, [&](hiprimFusionOp& o) {
    if (activ_desc == nullptr) return false;
    o.activ = *activ_desc;
    return true;
  });
}

hiprimStatus_t hiprimCompileFusionPlan(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (plan == nullptr) throw ApiError(hiprimStatusInvalidValue, "plan is null");
    plan->compiled = false;
    auto p = hiprim::make_op_problem(fusion_problem_of(*plan));
    auto c = hiprim::api::choose_op_solver(h, *p);
    plan->problem_text = p->str();
    plan->problem = std::move(p);
    plan->solver_name = c.solver->name();
    plan->chosen = std::move(c);
    plan->backend = h.backend;
    plan->compiled = true;
  });
}

hiprimStatus_t hiprimFusionPlanGetProblem(hiprimFusionPlanDescriptor_t plan, const char** problem) {
  if (plan == nullptr || problem == nullptr) return hiprimStatusInvalidValue;
  if (!plan->compiled) return hiprimStatusBadParm;
  *problem = plan->problem_text.c_str();
  return hiprimStatusSuccess;
}

hiprimStatus_t hiprimFusionPlanGetSolverName(hiprimFusionPlanDescriptor_t plan, const char** solver) {
  if (plan == nullptr || solver == nullptr) return hiprimStatusInvalidValue;
  if (!plan->compiled) return hiprimStatusBadParm;
  *solver = plan->solver_name.c_str();
  return hiprimStatusSuccess;
}

hiprimStatus_t hiprimFusionPlanGetWorkSpaceSize(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan, size_t* workspace_size) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (workspace_size == nullptr) throw ApiError(hiprimStatusInvalidValue, "workspace_size is null");
    const hiprimFusionPlan& p = compiled(plan, h);
    *workspace_size = p.chosen.solver->config_workspace_bytes(*p.problem, p.chosen.config);
  });
}

hiprimStatus_t hiprimCreateOperatorArgs(hiprimOperatorArgs_t* args) { return hiprim::api::create_object(args); }
hiprimStatus_t hiprimDestroyOperatorArgs(hiprimOperatorArgs_t args) { return hiprim::api::destroy_object(args); }

hiprimStatus_t hiprimSetOpArgsConvForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* w) {
  return set_args(args, op, FusionOp::conv, {w});
}
hiprimStatus_t hiprimSetOpArgsBiasForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* bias) {
  return set_args(args, op, FusionOp::bias, {bias});
}
hiprimStatus_t hiprimSetOpArgsBatchNormInference(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* scale, const void* shift,
                                                 const void* estimated_mean, const void* estimated_variance) {
  return set_args(args, op, FusionOp::bnorm_infer, {scale, shift, estimated_mean, estimated_variance});
}
hiprimStatus_t hiprimSetOpArgsAddForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* residual) {
  return set_args(args, op, FusionOp::add, {residual});
}

hiprimStatus_t hiprimExecuteFusionPlan(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan, hiprimTensorDescriptor_t x_desc, const void* x,
                                       hiprimTensorDescriptor_t y_desc, void* y, hiprimOperatorArgs_t args, void* workspace, size_t workspace_size) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    const hiprimFusionPlan& p = compiled(plan, h);
    if (x == nullptr || y == nullptr) throw ApiError(hiprimStatusInvalidValue, "x or y is null");
    if (args == nullptr) throw ApiError(hiprimStatusInvalidValue, "args is null");
    const auto& q = *hiprim::op_problem_cast<FusionProblem>(*p.problem);
    expect_tensor(hiprim::api::tensor(x_desc, "x descriptor"), "x descriptor", q.conv().x_desc().dims, q.dtype, q.channels_last);
    expect_tensor(hiprim::api::tensor(y_desc, "y descriptor"), "y descriptor", q.y_desc().dims, q.dtype, q.channels_last);
    hiprim::api::run_chosen(h, *p.problem, p.chosen, buffers_of(p, *args, x, y), workspace, workspace_size, workspace == nullptr);
  });
}

}  // extern "C"
