// CPU reference of dropout (core/dropout_problem.hpp): the Philox mask of core/philox.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "core/dropout_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// Whether logical element i is kept.
bool dropout_keep(const DropoutProblem& p, std::uint64_t i);

// fwd: {y}; bwd: {dx}. Dropped elements: exactly 0 (bound 0); kept: v * scale with scale the fp32
// value of 1/(1-rate), which the fp32 product rounds once (u|v*scale|), then the store.
std::vector<OpExpected> dropout_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
