// The solver interface of the non-convolution primitives: one algorithm for one op, stateless.
// A solver receives one buffer per OpProblem::tensors() entry, in that order, in its backend's
// memory (device solvers: device pointers), each holding the tensor's dtype with its desc's strides.
// Names are stable, primitive.algorithm.variant ("bnorm.spatial.fwd_train", "activ.elementwise").
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "core/solver.hpp"  // Solver, Backend, Applicability

namespace hiprim {

class OpSolver : public Solver {
 public:
  virtual std::string op() const = 0;  // the op it solves: "bnorm", ...
  // ok, or the reason it refuses (another op's problem, an unsupported mode, ...).
  virtual Applicability applicable(const OpProblem& p) const = 0;
  virtual std::size_t workspace_bytes(const OpProblem&) const { return 0; }
  // Precondition: applicable(p), buffers.size() == p.tensors().size(), ws_bytes >= workspace_bytes(p).
  // Device solvers launch asynchronously on `stream` (a hipStream_t; nullptr: the default stream).
  // Throws RuntimeError on a failed device call.
  virtual void run(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes,
                   void* stream) const = 0;

  // Perf configs per problem (Solver::perf_configs is the whole space). A run with config "" uses
  // default_config_for(p) (for conv.igemm.wgmma: HIPRIM_CONV_CONFIG when set and valid, else its
  // heuristic); a solver without configs has the one implicit config "".
  // The configs that can run p: {""} for a solver without configs; empty when it refuses p.
  virtual std::vector<std::string> configs_for(const OpProblem& p) const;
  virtual std::string default_config_for(const OpProblem&) const { return default_perf_config(); }
  // workspace_bytes(p) of a run with `config`; InputError when config is not "" nor in configs_for(p).
  virtual std::size_t config_workspace_bytes(const OpProblem& p, const std::string& config) const;
  // run() with `config`, same precondition with ws_bytes >= config_workspace_bytes(p, config);
  // InputError when config is not "" nor in configs_for(p). The default: run() for "" and the default config.
  virtual void run_config(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes,
                          void* stream, const std::string& config) const;
};

// InputError "<solver>: perf config '<config>' cannot run <problem> (its configs: ...)" unless config
// is "" or one of `configs`.
void check_config(const std::string& solver, const std::string& problem, const std::vector<std::string>& configs,
                  const std::string& config);

using OpSolverList = std::vector<std::shared_ptr<const OpSolver>>;

// Throws InputError naming the solver when the problem has the wrong type, the buffer count is not
// tensors().size(), or the workspace is too small.
void check_op_run(const std::string& solver, const OpProblem& p, bool right_type, std::size_t buffers,
                  std::size_t ws_bytes, std::size_t ws_needed);

// Base for a solver of one problem struct P: does the cast and the precondition checks, so the
// solver writes applicable_to(const P&) and run_typed(const P&, ...).
template <OpProblemValue P>
class TypedOpSolver : public OpSolver {
 public:
  std::string op() const override { return std::string(P::kOp); }
  Applicability applicable(const OpProblem& p) const final {
    const P* q = op_problem_cast<P>(p);
    if (!q) return Applicability::no("not a " + std::string(P::kOp) + " problem (" + p.op() + ")");
    auto errors = q->validate();
    if (!errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    return applicable_to(*q);
  }
  std::size_t workspace_bytes(const OpProblem& p) const final {
    const P* q = op_problem_cast<P>(p);
    return q ? workspace_for(*q) : 0;
  }
  void run(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes,
           void* stream) const final {
    const P* q = op_problem_cast<P>(p);
    check_op_run(name(), p, q != nullptr, buffers.size(), ws_bytes, q ? workspace_for(*q) : 0);
    run_typed(*q, buffers, workspace, stream);
  }
  // A solver without perf configs: OpSolver's (its default only). With configs: config "" or one of
  // configs_for(p) (InputError otherwise), the cast and run()'s checks, then run_typed_config with
  // the config resolved ("" -> default_config_for(p)).
  void run_config(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes, void* stream,
                  const std::string& config) const final {
    if (perf_configs().empty()) return OpSolver::run_config(p, buffers, workspace, ws_bytes, stream, config);
    check_config(name(), p.str(), configs_for(p), config);
    const P* q = op_problem_cast<P>(p);
    check_op_run(name(), p, q != nullptr, buffers.size(), ws_bytes, q ? workspace_for(*q) : 0);
    run_typed_config(*q, buffers, workspace, stream, config.empty() ? default_config_for(p) : config);
  }

 protected:
  virtual Applicability applicable_to(const P& p) const = 0;
  virtual std::size_t workspace_for(const P&) const { return 0; }
  virtual void run_typed(const P& p, const std::vector<void*>& buffers, void* workspace, void* stream) const = 0;
  // The run of one perf config (never ""): solvers with perf configs override it.
  virtual void run_typed_config(const P& p, const std::vector<void*>& buffers, void* workspace, void* stream,
                                const std::string& /*config*/) const {
    run_typed(p, buffers, workspace, stream);
  }
};

}  // namespace hiprim
