// The op bench: hiprim's GPU solvers of the memory-bound primitives (bnorm, activ, softmax, dropout,
// pool, lrn, tensorop, reduce) timed by the conv bench's clock (bench/bench_stats.hpp and
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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op_solver.hpp"
#include "bench/bench.hpp"
#include "bench/bench_ops_select.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {

inline constexpr std::int64_t kOpSampleBatch = 2;
inline constexpr int kOpPrepareAhead = 8;

// Elements of `bytes` (elements of elem_size bytes each) whose bytes are all 0xFF: the poison of
// the quick check, left where a solver did not write.
std::int64_t count_poisoned(const std::vector<unsigned char>& bytes, std::size_t elem_size);

class OpBench {
 public:
  // ops: the op names whose GPU solvers may run. RuntimeError "hiprim bench needs a GPU: ..." when
  // no GPU can be used; InputError when solver_glob matches no GPU solver of those ops.
  OpBench(const BenchOptions& o, const std::vector<std::string>& ops);
  ~OpBench();
  OpBench(const OpBench&) = delete;
  OpBench& operator=(const OpBench&) = delete;

  // Measures the copy ceiling (when ceilings are on); the dtypes are not needed (no GEMM ceiling).
  void measure_ceilings(const std::vector<DType>& dtypes = {});
  // Verifies and times every selected solver of the problem's op, every repeat: the report's cases.
  nlohmann::json run(const SuiteProblem& bp);
  // The suite `repeats` times (inputs and references prepared ahead on other threads; repeat 1
  // verifies and times, later ones time the passed solvers again); progress(line) after each
  // problem of each repeat; stops starting problems when stop() says so. Returns every case.
  nlohmann::json run_all(const std::vector<SuiteProblem>& problems,
                         const std::function<void(const std::string&)>& progress = {},
                         const std::function<bool()>& stop = {});

  nlohmann::json ceilings_json() const;  // {"copy": {...}|null, "gemm": {}}
  nlohmann::json peer_json() const;      // null with --peer none, else the peer unavailable for ops
  nlohmann::json settings_json() const;
  nlohmann::json clocks_json() const;

 private:
  struct State;
  struct Prepared;
  struct ProblemState;
  Prepared prepare(const OpProblemPtr& p) const;
  void run_first(ProblemState& st, Prepared& prep);
  void time_repeat(ProblemState& st, int repeat, const Prepared& inputs);
  nlohmann::json finish(const ProblemState& st) const;
  std::unique_ptr<State> s_;
};

}  // namespace hiprim::verify
