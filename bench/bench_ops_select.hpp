// What the op bench (`hiprim bench --op ...`) takes of a suite: the problems a --op token selects,
// and (for its quick verification) a problem at a smaller batch.
#pragma once
#include <cstdint>
#include <string>

#include "core/op_problem.hpp"

namespace hiprim::verify {

// The batch of an op problem: dim 0 of its first tensor.
std::int64_t op_problem_batch(const OpProblem& p);
// p at batch min(batch, its own) (rebatch_problem on its string, parsed and validated).
OpProblemPtr op_problem_at_batch(const OpProblem& p, std::int64_t batch);
// Whether `--op token` selects p: token is "all", p's op, or a token of p's string before its dtype
// ("relu" selects "activ fwd relu ...", "max" max pooling and max reductions, "bwd" every backward).
bool op_selected_by(const OpProblem& p, const std::string& token);

}  // namespace hiprim::verify
