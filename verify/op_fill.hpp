// Input fills of the non-convolution primitives. Each primitive may have a fill (own_fill in
// core/primitives.def, registered by verify/op_catalog.cpp) that shapes its data: variance > 0 for bnorm, nonzero values for dropout,
// distinct values or deliberate ties for max pooling, ... Ops without one get default_op_fill.
// Every value comes from verify/fill.hpp's counter-based hash of (seed, tag, logical index), so a
// tensor gets the same values in every layout, and is rounded (RNE) to the tensor's dtype.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::verify {

// Returns one HostTensor per tensors() entry, in order: inputs and in_out tensors filled, outputs
// with their desc and zero data.
using OpFillFn = std::function<std::vector<HostTensor>(const OpProblem&, std::uint64_t seed)>;

void register_op_fill(std::string op, OpFillFn fn);
// Whether op has a registered fill of its own (else op_fill uses default_op_fill).
bool has_op_fill(std::string_view op);
// The registered fill of p's op, else default_op_fill; checks the result against p.tensors()
// (count, descs; RuntimeError naming the tensor otherwise).
std::vector<HostTensor> op_fill(const OpProblem& p, std::uint64_t seed);
// Uniform reals in [-1, 1) for every input and in_out tensor (tag = the tensor's position + 1).
std::vector<HostTensor> default_op_fill(const OpProblem& p, std::uint64_t seed);

// Building blocks for the fills. value(unit) maps a uniform unit in [0, 1) (53 bits, from
// fill_hash(seed, tag, logical index)) to the element's value; the result is rounded to the dtype.
HostTensor hashed_tensor(const TensorDesc& d, std::uint64_t seed, std::uint64_t tag,
                         const std::function<double(double unit)>& value);
HostTensor uniform_tensor(const TensorDesc& d, std::uint64_t seed, std::uint64_t tag, double lo, double hi);
// The tensors() list with each output's HostTensor allocated (zeros) and inputs/in_out filled by
// fill_one(index, tensor) (which returns the filled HostTensor for that entry).
std::vector<HostTensor> fill_op_tensors(const OpProblem& p,
                                        const std::function<HostTensor(std::size_t index, const OpTensor& t)>& fill_one);

void register_builtin_op_fills();  // verify/op_catalog.cpp; called once by the registry

}  // namespace hiprim::verify
