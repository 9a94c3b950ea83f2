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

void ConvSolver::run(const ConvProblem& p, const ConvTensors& t) const {
  const Applicability a = applicable(p);
  check_conv_run(name(), p, t, a, a ? workspace_bytes(p) : 0);
  run_checked(p, t);
}

}  // namespace hiprim
