// The solver interface: one algorithm for the convolution primitive, stateless.
// A solver runs on the host or on the device; its buffers live in that backend's memory and hold
// the problem's dtype with the packed strides of ConvProblem::{x,w,y}_desc() (the layout decides).
// Direction roles (MIOpen's): fwd reads x, w (and bias) and writes y; bwd-data reads y (= dy) and w
// and writes x (= dx); bwd-weights reads x and y (= dy) and writes w (= dw).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"

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

struct ConvTensors {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  const void* bias = nullptr;  // [K] in the problem's dtype, fwd only, when problem.bias
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  // device solvers: the hipStream_t to launch on (nullptr: default stream)
};

class ConvSolver {
 public:
  virtual ~ConvSolver() = default;
  // Stable name, primitive.algorithm.variant, e.g. "conv.gemm.im2col".
  virtual std::string name() const = 0;
  virtual Backend backend() const = 0;
  // One line for listings: the directions, dtypes and layouts it covers.
  virtual std::string summary() const = 0;
  // Whether two runs on the same inputs give bitwise identical outputs (the runner checks the claim).
  virtual bool deterministic() const { return true; }
  // The factor on gamma(L) of its fp32 accumulation's error bound (verify/compare.hpp): 1 for
  // round-to-nearest adds; 2 where the adder truncates (tensor-core mma: each add errs by < 2u).
  virtual double accumulation_error_factor() const { return 1.0; }
  virtual Applicability applicable(const ConvProblem& p) const = 0;
  virtual std::size_t workspace_bytes(const ConvProblem&) const { return 0; }
  // Precondition: applicable(p) and t.workspace_bytes >= workspace_bytes(p). Throws RuntimeError on
  // a failed device call; device solvers launch asynchronously on t.stream.
  virtual void run(const ConvProblem& p, const ConvTensors& t) const = 0;
};

using ConvSolverList = std::vector<std::shared_ptr<const ConvSolver>>;

}  // namespace hiprim
