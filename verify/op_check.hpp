// The part of the one runner (verify/case_check.hpp) for every primitive but conv: inputs from its
// registered fill (verify/op_fill.hpp; one way, whatever tier is asked for: records say bounded),
// the oracle its registered reference (reference/op_reference.hpp: expected values and per-element
// absolute bounds of every output and in_out tensor), the judge compare_with_bounds per tensor,
// merged into one verdict. Tolerance line: the references' rules, "<tensor>: <rule>; ...".
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "reference/op_reference.hpp"
#include "verify/compare.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify {

// The oracle's answer of an op case (computed on first use), one per output/in_out tensor, in
// tensors() order; InputError for a conv case.
const std::vector<ref::OpExpected>& op_expected_of(const PreparedCase& c);

// The op check's verdict on a run's tensors `got` (bytes per tensor in tensors() order; the inputs'
// entries are not read) for code whose accumulation error factor is `factor` (what
// Solver::accumulation_error_factor() says of a solver): a peer's output judged like a solver's.
Verdict judge_op_bytes(const PreparedCase& c, double factor, const std::vector<std::vector<unsigned char>>& got);

// The verdict of several tensors as one: the worst status (failed > error > mistrusted > passed),
// metrics merged (counts summed, maxima taken, the worst elements of the worst tensor), and the
// reasons joined as "<tensor>: <reason>; ...".
Verdict merge_verdicts(const std::vector<std::pair<std::string, Verdict>>& per_tensor);

}  // namespace hiprim::verify
