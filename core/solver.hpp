// The solver interface every primitive's solvers share: one algorithm, stateless, with a stable
// name (primitive.algorithm.variant, e.g. "conv.gemm.im2col", "bnorm.spatial.fwd_train"), the
// backend its buffers live on, and the claims the verifier holds it to. The primitive's own base
// adds the problem-typed part (applicable, workspace, run): ConvSolver (core/conv_solver.hpp) and
// OpSolver (core/op_solver.hpp).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace hiprim {

enum class Backend { host, device };

// ok, or the reason the solver refuses the problem.
struct Applicability {
  bool ok = true;
  std::string reason;
  static Applicability yes() { return {}; }
  static Applicability no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  virtual Backend backend() const = 0;
  // One line for listings: the directions, modes, dtypes and layouts it covers.
  virtual std::string summary() const = 0;
  // Whether two runs on the same inputs give bitwise identical outputs (the runner checks the claim).
  virtual bool deterministic() const { return true; }
  // The factor on gamma(L) of its fp32 accumulation's error bound (verify/compare.hpp): 1 for
  // round-to-nearest adds; 2 where the adder truncates (tensor-core mma: each add errs by < 2u).
  virtual double accumulation_error_factor() const { return 1.0; }
  // Whether it runs the code of its primitive's default oracle (ref.conv.fast is the fast CPU
  // reference that checks large conv problems): the runner then judges it by the reference's
  // independent naive loops, so that no solver is checked against its own code.
  virtual bool needs_independent_oracle() const { return false; }
  // Its perf-config space: the canonical strings of the tuning variants it can be run with (each
  // problem takes a subset of them). Empty: one implicit config, nothing to tune.
  virtual std::vector<std::string> perf_configs() const { return {}; }
  // The config a run uses when none is chosen; "" when there is none or it is picked per problem.
  virtual std::string default_perf_config() const { return ""; }
};

}  // namespace hiprim
