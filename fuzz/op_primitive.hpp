// The fuzzer's part of the non-convolution primitives (fuzz/primitive.hpp): one class for every op,
// parameterized by the op's generator (fuzz/op_gen.hpp). Cases are (problem, fill seed); they run
// through FuzzPrimitive::run, so a failure's repro line is
//   hiprim repro "<op problem>" --solver S --seed N
// The oracle is always the CPU reference (no special-value contract, no GPU oracle for ops).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <rapidcheck/Gen.h>

#include "core/op_solver.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/op_gen.hpp"
#include "fuzz/primitive.hpp"
#include "fuzz/solver_target.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz {

class OpCaseSpec final : public CaseSpec {
 public:
  OpCaseSpec(OpProblemPtr p, std::uint64_t seed, std::vector<std::string> classes)
      : p_(std::move(p)), seed_(seed), classes_(std::move(classes)) {}
  std::uint64_t seed() const { return seed_; }
  std::string problem() const override { return p_->str(); }
  OpProblemPtr op_problem() const override { return p_; }
  std::vector<std::string> classes() const override { return classes_; }
  double size() const override;  // elements of all tensors
  std::string data() const override { return "seed " + std::to_string(seed_); }

 private:
  OpProblemPtr p_;
  std::uint64_t seed_;
  std::vector<std::string> classes_;
};

// The cases of one op solver: the op's generator inside the solver's domain, each problem fitted to
// the solver (fit_to_solver), with a fill seed. Ops have no failure classes.
class OpCases final : public CaseSource {
 public:
  // The domain is the solver's probed one (probe_op_domain) unless one is given.
  OpCases(OpGeneratorPtr gen, std::shared_ptr<const OpSolver> solver, OpGenLimits limits = small_op_limits(),
          std::optional<OpDomain> domain = std::nullopt);
  std::string domain() const override { return domain_.describe(); }
  const OpDomain& op_domain() const { return domain_; }
  std::vector<std::string> reachable_classes() const override { return op_reachable_classes(*gen_, domain_); }
  std::vector<SkippedClass> skipped_classes() const override { return op_skipped_classes(*gen_, domain_); }
  rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const override;

 private:
  OpGeneratorPtr gen_;
  std::shared_ptr<const OpSolver> solver_;
  OpDomain domain_;
  rc::Gen<std::tuple<OpProblemPtr, std::uint64_t>> cases_;
};

// p itself when the solver accepts it, else the first of g's repairs of p (applied one after the
// other) that it accepts, else p (a discard).
OpProblemPtr fit_to_solver(const OpGenerator& g, const OpSolver& s, const OpProblemPtr& p);

// Op `op`'s FuzzPrimitive (fuzz_primitive(op) for every op but conv).
const FuzzPrimitive& op_fuzz_primitive(std::string_view op);
// The target of an op solver with its op's generator (e.g. a solver outside the registry: a test's
// mutant).
std::shared_ptr<SolverFuzzTarget> op_fuzz_target(std::shared_ptr<const OpSolver> solver, OpGenLimits limits = small_op_limits(),
                                                 bool check_determinism = true);

// cases_for of make_targets: each solver's OpCases with its op's generator and these limits.
CasesFor op_cases(OpGenLimits limits = small_op_limits());

// An op case of a repro line: its problem (parse_op_problem) and seed; InputError for a conv line
// and for --fill / --special (conv-only data flags).
struct OpCase {
  OpProblemPtr problem;
  std::uint64_t seed = 1;
};
OpCase op_case_from_repro(const ReproLine& r);
// Runs one case exactly as the campaign does (FuzzPrimitive::run); a refusal is a record with
// status unsupported.
verify::CaseRecord run_op_fuzz_case(const OpCase& c, const OpSolver& s, bool check_determinism = true);

}  // namespace hiprim::fuzz
