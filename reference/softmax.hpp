// CPU reference of softmax / log-softmax (core/softmax_problem.hpp): plain loops in double per row,
// and the per-element bounds of an fp32 max-subtracting solver (derivation in softmax.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "core/softmax_problem.hpp"
#include "reference/op_reference.hpp"

namespace hiprim::ref {

// Storage offsets of each row's elements (rows in logical order, elements in logical order).
std::vector<std::vector<std::int64_t>> softmax_rows(const SoftmaxProblem& p);
// The forward of one row in double (softmax or log-softmax by p.algo), from x values.
std::vector<double> softmax_row(const SoftmaxProblem& p, const std::vector<double>& x);

// fwd: {y}; bwd: {dx}.
std::vector<OpExpected> softmax_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);

}  // namespace hiprim::ref
