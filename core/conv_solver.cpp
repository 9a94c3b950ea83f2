// The preconditions of ConvSolver::run (core/conv_solver.hpp), checked once for every solver.
#include "core/conv_solver.hpp"

#include "core/error.hpp"

namespace hiprim {

void check_conv_run(const std::string& solver, const ConvProblem& p, const ConvTensors& t, const Applicability& a,
                    std::size_t ws_needed) {
  if (!a) throw InputError(solver + " cannot run " + to_string(p) + ": " + a.reason);
  // Every direction touches all three: fwd reads x, w and writes y; bwd-data reads y, w and writes
  // x; bwd-weights reads x, y and writes w.
  auto need = [&](const void* ptr, const char* role) {
    if (!ptr) throw InputError(solver + ": the " + role + " buffer is null for " + to_string(p));
  };
  need(t.x, "x");
  need(t.w, "w");
  need(t.y, "y");
  if (p.bias) need(t.bias, "bias");
  if (t.workspace_bytes < ws_needed || (ws_needed > 0 && t.workspace == nullptr))
    throw InputError(solver + " needs a workspace of " + std::to_string(ws_needed) + " bytes for " + to_string(p) +
                     ", got " + std::to_string(t.workspace_bytes) + (t.workspace ? " bytes" : " bytes at a null pointer"));
}

std::vector<std::string> ConvSolver::configs_for(const ConvProblem& p) const {
  if (!applicable(p)) return {};
  const std::vector<std::string> all = perf_configs();
  return all.empty() ? std::vector<std::string>{""} : all;
}

std::size_t ConvSolver::config_workspace_bytes(const ConvProblem& p, const std::string& config) const {
  check_config(name(), to_string(p), configs_for(p), config);
  return workspace_bytes(p);
}

void ConvSolver::run(const ConvProblem& p, const ConvTensors& t) const {
  const Applicability a = applicable(p);
  check_conv_run(name(), p, t, a, a ? config_workspace_bytes(p, t.config) : 0);
  run_checked(p, t);
}

ConvSlot conv_slot(std::string_view name) {
  if (name == "x" || name == "dx") return ConvSlot::x;
  if (name == "w" || name == "dw") return ConvSlot::w;
  if (name == "y" || name == "dy") return ConvSlot::y;
  if (name == "bias") return ConvSlot::bias;
  throw InputError("a conv problem has no tensor '" + std::string(name) + "' (x, w, y, dx, dw, dy, bias)");
}

Applicability ConvOpSolver::applicable(const OpProblem& p) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  if (!q) return Applicability::no("not a conv problem (" + p.op() + ")");
  return s_.applicable(*q);
}

std::size_t ConvOpSolver::workspace_bytes(const OpProblem& p) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  return q ? s_.workspace_bytes(*q) : 0;
}

std::vector<std::string> ConvOpSolver::configs_for(const OpProblem& p) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  return q ? s_.configs_for(*q) : std::vector<std::string>{};
}

std::string ConvOpSolver::default_config_for(const OpProblem& p) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  return q ? s_.default_config_for(*q) : std::string();
}

std::size_t ConvOpSolver::config_workspace_bytes(const OpProblem& p, const std::string& config) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  return q ? s_.config_workspace_bytes(*q, config) : 0;
}

void ConvOpSolver::run(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes,
                       void* stream) const {
  run_config(p, buffers, workspace, ws_bytes, stream, "");
}

void ConvOpSolver::run_config(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes, void* stream,
                              const std::string& config) const {
  const ConvProblem* q = op_problem_cast<ConvProblem>(p);
  const std::vector<OpTensor> ts = q ? q->tensors() : std::vector<OpTensor>{};
  // The type and the buffer count here; applicability, null buffers and the workspace in run(*q, t).
  check_op_run(s_.name(), p, q != nullptr, buffers.size(), ws_bytes, 0);
  ConvTensors t;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    switch (conv_slot(ts[i].name)) {
      case ConvSlot::x: t.x = buffers[i]; break;
      case ConvSlot::w: t.w = buffers[i]; break;
      case ConvSlot::y: t.y = buffers[i]; break;
      case ConvSlot::bias: t.bias = buffers[i]; break;
    }
  }
  t.workspace = workspace;
  t.workspace_bytes = ws_bytes;
  t.stream = stream;
  t.config = config;
  s_.run(*q, t);
}

}  // namespace hiprim
