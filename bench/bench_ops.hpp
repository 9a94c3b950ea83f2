// The op part of the bench (bench/bench.hpp's Bench over problems of the other primitives;
// bench/bench_primitive.hpp): hiprim's GPU solvers of the memory-bound primitives (bnorm, activ,
// softmax, dropout, pool, lrn, tensorop, reduce) timed by the conv bench's clock (bench/bench_stats.hpp and
// bench_timing.hpp: graph replay of L runs rotating over buffer sets that cover 3 x L2, timed
// replays alternating between the op's solvers, host overhead per call, --repeats of the suite),
// each output verified first, and compared with the device copy bandwidth measured in the same run:
// gbps = OpProblem::bytes() / time (every input read once, every output written once, in_out
// tensors both), fraction_of_copy_ceiling = gbps / the copy ceiling. There is no GEMM ceiling and
// no peer for ops (the peer columns say "unavailable").
//
// Verification (--verify), before a solver is timed:
//   full:    the runner (verify/runner.hpp) on the whole problem, at the timed size: guard
//            regions, inputs left unchanged, every element of every output against the reference,
//            determinism re-run. The default, and the only mode a committed claim may use.
//   quick:   a labelled quick look, never for claims: the runner on the same problem at batch
//            kOpSampleBatch (op_problem_at_batch), and at full size one run on the bench's own
//            buffers, outputs poisoned with all-ones bytes before it, after which no output element
//            may still hold that pattern (every element written).
//   none:    no check; "passed" then only means the solver ran without a runtime error.
// The timed buffers are separate copies of the op's own fill (verify/op_fill.hpp: real values
// shaped for each op). Host preparation (fills, references) runs ahead on other threads: up to
// kOpPrepareAhead problems, at most the hardware threads less two.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hiprim::verify {

inline constexpr std::int64_t kOpSampleBatch = 2;
inline constexpr int kOpPrepareAhead = 8;

// Elements of `bytes` (elements of elem_size bytes each) whose bytes are all 0xFF: the poison of
// the quick check, left where a solver did not write.
std::int64_t count_poisoned(const std::vector<unsigned char>& bytes, std::size_t elem_size);

}  // namespace hiprim::verify
