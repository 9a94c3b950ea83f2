// fusion.unfused: the chain of core/fusion_problem.hpp run step by step with the existing GPU
// solvers, each intermediate stored in the dtype (the unfused rounding model, rounding=unfused):
//   conv     the first applicable solver of gpu_conv_solvers() whose adds round to nearest
//            (accumulation_error_factor 1, as the reference's bound assumes), fwd without bias
//   bias     tensorop add: a = v, b = bias seen as [1, K, 1, 1] (the same bytes as [K]), alpha1 = alpha2 = 1
//   bnorm    bnorm fwd-infer spatial on v with bn_scale, bn_shift, bn_mean, bn_var (fp32)
//   add      tensorop add: alpha * v + beta * residual
//   activ    activ fwd of the mode
// (the first applicable deterministic GPU solver of each op, in registry order, so that the chain
// is deterministic too). Workspace: two intermediates of y's size (ping-pong; the last step writes
// y), then the largest workspace of the step solvers (they run in turn), each 256-byte aligned.
// It refuses rounding=fused problems (it stores every intermediate) and chains a step of which no
// GPU solver applies, naming the step and that solver's reason.
#include <algorithm>
#include <memory>

#include "core/bnorm_problem.hpp"
#include "core/error.hpp"
#include "core/fusion_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "gpu/conv/registry.hpp"
#include "gpu/fusion/solvers.hpp"
#include "gpu/ops_registry.hpp"

namespace hiprim::gpu {
namespace {

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// One step after conv: its problem and the indices of its extra inputs in the fusion's buffers.
struct Stage {
  OpProblemPtr problem;
  std::vector<std::size_t> extra;  // fusion buffer indices, in the step solver's order after its input
};

TensorOpProblem add_problem(const FusionProblem& p, const Dims& b, double alpha1, double alpha2) {
  TensorOpProblem q;
  q.dtype = p.dtype;
  q.channels_last = p.channels_last;
  q.a = p.y_desc().dims;
  q.b = b;
  q.alpha1 = alpha1;
  q.alpha2 = alpha2;
  return q;
}

std::vector<Stage> stages(const FusionProblem& p) {
  const auto ts = p.tensors();
  auto index = [&](const char* name) {
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].name == name) return i;
    return ts.size();
  };
  std::vector<Stage> out;
  for (std::size_t s = 1; s < p.steps.size(); ++s) {
    const FusionStep& st = p.steps[s];
    switch (st.op) {
      case FusionOp::conv: break;
      case FusionOp::bias: {
        Dims b(p.y_desc().dims.size(), 1);
        b[1] = p.conv().k;
        out.push_back({make_op_problem(add_problem(p, b, 1, 1)), {index("bias")}});
        break;
      }
      case FusionOp::bnorm_infer: {
        const BnormProblem q = fusion_bnorm_problem(p, st, p.dtype);
        out.push_back({make_op_problem(q), {index("bn_scale"), index("bn_shift"), index("bn_mean"), index("bn_var")}});
        break;
      }
      case FusionOp::add: out.push_back({make_op_problem(add_problem(p, p.y_desc().dims, st.alpha, st.beta)), {index("residual")}}); break;
      case FusionOp::activ: out.push_back({make_op_problem(p.activ()), {}}); break;
    }
  }
  return out;
}

struct Plan {
  std::shared_ptr<const ConvSolver> conv;
  std::vector<std::shared_ptr<const OpSolver>> ops;  // one per stage
  std::string refusal;                               // empty when every step has a solver
};

Plan plan(const FusionProblem& p, const std::vector<Stage>& st) {
  Plan pl;
  std::string why = "no GPU conv solver";
  for (const auto& s : gpu_conv_solvers()) {
    if (s->accumulation_error_factor() != 1.0 || !s->deterministic()) continue;
    const Applicability a = s->applicable(p.conv());
    if (a) {
      pl.conv = s;
      break;
    }
    why = s->name() + ": " + a.reason;
  }
  if (!pl.conv) {
    pl.refusal = "no deterministic round-to-nearest GPU conv solver applies to " + to_string(p.conv()) + " (last: " + why + ")";
    return pl;
  }
  for (const Stage& s : st) {
    std::shared_ptr<const OpSolver> found;
    std::string last = "no GPU " + s.problem->op() + " solver";
    for (const auto& o : gpu_op_solvers()) {
      if (o->op() != s.problem->op() || !o->deterministic()) continue;
      const Applicability a = o->applicable(*s.problem);
      if (a) {
        found = o;
        break;
      }
      last = o->name() + ": " + a.reason;
    }
    if (!found) {
      pl.refusal = "no GPU solver applies to the step " + s.problem->str() + " (last: " + last + ")";
      return pl;
    }
    pl.ops.push_back(found);
  }
  return pl;
}

class UnfusedFusionSolver final : public TypedOpSolver<FusionProblem> {
 public:
  std::string name() const override { return "fusion.unfused"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "every step with the existing GPU solvers (conv, tensorop, bnorm fwd-infer, activ), intermediates stored in the dtype; rounding=unfused";
  }

 protected:
  Applicability applicable_to(const FusionProblem& p) const override {
    if (p.rounding != FusionRounding::unfused)
      return Applicability::no("stores every intermediate in the dtype (the unfused rounding model); the problem asks for rounding=fused");
    const Plan pl = plan(p, stages(p));
    if (!pl.refusal.empty()) return Applicability::no(pl.refusal);
    return Applicability::yes();
  }
  std::size_t workspace_for(const FusionProblem& p) const override {
    const std::vector<Stage> st = stages(p);
    const Plan pl = plan(p, st);
    if (!pl.refusal.empty()) return 0;
    return 2 * aligned(y_bytes(p)) + step_workspace(pl, st, p);
  }
  void run_typed(const FusionProblem& p, const std::vector<void*>& buffers, void* workspace, void* stream) const override {
    const std::vector<Stage> st = stages(p);
    const Plan pl = plan(p, st);
    if (!pl.refusal.empty()) throw InputError(name() + ": " + pl.refusal);
    auto* ws = static_cast<unsigned char*>(workspace);
    const std::size_t yb = aligned(y_bytes(p));
    void* inter[2] = {ws, ws + yb};
    void* y = buffers.back();
    const ConvProblem cp = p.conv();
    ConvTensors ct;
    ct.x = buffers[0];
    ct.w = buffers[1];
    ct.y = st.empty() ? y : inter[0];
    void* step_ws = ws + 2 * yb;
    const std::size_t step_ws_bytes = step_workspace(pl, st, p);
    ct.workspace = step_ws;
    ct.workspace_bytes = step_ws_bytes;
    ct.stream = stream;
    pl.conv->run(cp, ct);
    void* cur = ct.y;
    for (std::size_t i = 0; i < st.size(); ++i) {
      void* out = i + 1 == st.size() ? y : (cur == inter[0] ? inter[1] : inter[0]);
      std::vector<void*> b{cur};
      for (std::size_t e : st[i].extra) b.push_back(buffers[e]);
      b.push_back(out);
      pl.ops[i]->run(*st[i].problem, b, step_ws, step_ws_bytes, stream);
      cur = out;
    }
  }

 private:
  // The largest workspace of the steps' solvers (they run one after another, sharing it).
  static std::size_t step_workspace(const Plan& pl, const std::vector<Stage>& st, const FusionProblem& p) {
    std::size_t w = aligned(pl.conv->workspace_bytes(p.conv()));
    for (std::size_t i = 0; i < st.size(); ++i) w = std::max(w, aligned(pl.ops[i]->workspace_bytes(*st[i].problem)));
    return w;
  }
  static std::size_t y_bytes(const FusionProblem& p) {
    return static_cast<std::size_t>(p.y_desc().storage_elements()) * dtype_size(p.dtype);
  }
};

}  // namespace

std::shared_ptr<const OpSolver> make_unfused_fusion_solver() { return std::make_shared<UnfusedFusionSolver>(); }

}  // namespace hiprim::gpu
