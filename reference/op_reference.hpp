// The CPU oracle of the non-convolution primitives, type-erased by op name. Each primitive writes
// reference/<prim>.{hpp,cpp}: plain loops in double over the problem struct, returning for every
// output and in_out tensor the expected values and a per-element absolute error bound derived from
// the primitive's documented tolerance policy (reference/error_model.hpp has the shared terms:
// gamma(L)*sum|terms| for sums, k*u*|value| for transcendental functions, output rounding;
// exact 0 for exact ops: relu, max, abs, max-pool values and indices, dropout masks, ...).
// Inputs are HostTensors whose values the dtype holds exactly (the fills round them).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::ref {

// Expected contents of one output/in_out tensor, indexed by the storage offsets of that tensor's
// desc (as in OpProblem::tensors()). A NaN value means the solver must produce NaN there; an
// infinite value the same infinity (bound 0); bound >= 0 is absolute.
struct OpExpected {
  std::string tensor;          // OpTensor::name
  std::vector<double> value;   // desc.storage_elements() entries
  std::vector<double> bound;   // same size
  std::string rule;            // one line: the tolerance policy and its constants (for reports)
};

// An OpExpected for tensor `name` of desc d with value and bound zero-filled to its storage size.
OpExpected make_expected(const std::string& name, const TensorDesc& d, std::string rule);

// inputs: one pointer per tensors() entry; nullptr for pure outputs; in_out entries hold the
// values before the run. Returns one OpExpected per output and in_out tensor, in tensors() order.
using OpReferenceFn = std::function<std::vector<OpExpected>(const OpProblem&, const std::vector<const HostTensor*>&)>;
// What a reference's bounds may depend on besides the problem and its data: the judged solver's
// accumulation_error_factor() (core/solver.hpp), for ops with a convolution inside (fusion).
struct OpReferenceOptions {
  double accumulation_factor = 1.0;
};
using OpReferenceWithOptionsFn =
    std::function<std::vector<OpExpected>(const OpProblem&, const std::vector<const HostTensor*>&, const OpReferenceOptions&)>;

// Adds (or replaces) an op's reference; the built-in ones (reference/op_catalog.cpp) are registered
// before the first lookup. A reference without options ignores them (its bounds hold for any solver).
void register_op_reference(std::string op, OpReferenceFn fn);
void register_op_reference(std::string op, OpReferenceWithOptionsFn fn);
bool has_op_reference(std::string_view op);
// Runs the registered reference after checking the inputs against p.tensors() (count, dims,
// dtype; InputError naming the tensor) and checks its answer (one OpExpected per output/in_out
// tensor with the right sizes; RuntimeError otherwise). InputError for an op without a reference.
std::vector<OpExpected> op_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs,
                                    const OpReferenceOptions& options = {});

void register_builtin_op_references();  // reference/op_catalog.cpp; called once by the registry

}  // namespace hiprim::ref
