// The runner of the non-convolution primitives: problem x OpSolver -> CaseRecord (the same record
// and report as conv, so `hiprim check`, `report diff` and the schema apply unchanged).
// For one problem it fills the inputs (verify/op_fill.hpp) and asks the reference once
// (reference/op_reference.hpp). Per solver: buffers with guard regions (verify/guarded_buffer.hpp);
// inputs set, in_out tensors reset to their initial values and outputs poisoned (a signaling NaN no
// arithmetic produces) before every run; after it, guards intact, inputs unchanged, no output element
// still poisoned (never written: failed, even where NaN is expected), every output and in_out tensor compared with
// compare_with_bounds; for solvers claiming determinism, a second run must be bitwise identical.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "reference/op_reference.hpp"
#include "verify/report.hpp"
#include "verify/runner.hpp"  // RunOptions (seed, check_determinism, dump_dir; fill is ignored)

namespace hiprim::verify {

class PreparedOpCase {
 public:
  // InputError when p is invalid.
  PreparedOpCase(OpProblemPtr p, const RunOptions& o);
  const OpProblem& problem() const { return *p_; }
  const OpProblemPtr& problem_ptr() const { return p_; }
  const std::vector<OpTensor>& tensors() const { return tensors_; }
  // tensors() order: filled inputs and in_out initial values; outputs hold zeros.
  const std::vector<HostTensor>& data() const { return data_; }
  // data()[i] as a solver receives it (HostTensor::to_bytes), converted once on first use and kept
  // for every solver run on the case. Like expected(): one thread at a time.
  const std::vector<unsigned char>& bytes(std::size_t i) const;
  std::uint64_t seed() const { return seed_; }
  // The oracle's answer (computed on first use), one per output/in_out tensor, tensors() order.
  const std::vector<ref::OpExpected>& expected() const;

 private:
  OpProblemPtr p_;
  std::vector<OpTensor> tensors_;
  std::vector<HostTensor> data_;
  std::uint64_t seed_;
  mutable std::optional<std::vector<ref::OpExpected>> expected_;
  mutable std::vector<std::optional<std::vector<unsigned char>>> bytes_;
};

CaseRecord run_op_case(const PreparedOpCase& c, const OpSolver& s, const RunOptions& o);
// hiprim repro "<problem>" --solver S --seed N
std::string op_repro_command(const PreparedOpCase& c, const std::string& solver);

// The verdict of several tensors as one: the worst status (failed > error > mistrusted > passed),
// metrics merged (counts summed, maxima taken, the worst elements of the worst tensor), and the
// reasons joined as "<tensor>: <reason>; ...".
Verdict merge_verdicts(const std::vector<std::pair<std::string, Verdict>>& per_tensor);

}  // namespace hiprim::verify
