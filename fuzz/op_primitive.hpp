// The fuzz target of the non-convolution primitives: one class for every op, parameterized by the
// op's generator (fuzz/op_gen.hpp) and one OpSolver. Cases are (problem, fill seed); they run
// through the runner (verify/runner.hpp: guards, poisoned outputs, inputs unchanged,
// per-element bounds of the CPU reference, determinism check), so a failure's repro line is
//   hiprim repro "<op problem>" --solver S --seed N
// The oracle is always the CPU reference (no special-value contract, no GPU oracle for ops).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include <rapidcheck/Gen.h>

#include "core/op_solver.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/op_gen.hpp"
#include "fuzz/target.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz {

struct OpTargetOptions {
  OpGenLimits limits = small_op_limits();
  bool check_determinism = true;
};

class OpCaseSpec final : public CaseSpec {
 public:
  OpCaseSpec(OpProblemPtr p, std::uint64_t seed, std::vector<std::string> classes)
      : p_(std::move(p)), seed_(seed), classes_(std::move(classes)) {}
  const OpProblemPtr& op_problem() const { return p_; }
  std::uint64_t seed() const { return seed_; }
  std::string problem() const override { return p_->str(); }
  std::vector<std::string> classes() const override { return classes_; }
  double size() const override;  // elements of all tensors
  std::string data() const override { return "seed " + std::to_string(seed_); }

 private:
  OpProblemPtr p_;
  std::uint64_t seed_;
  std::vector<std::string> classes_;
};

class OpFuzzTarget final : public FuzzTarget {
 public:
  // Probes the solver's domain (probe_op_domain) unless one is given.
  OpFuzzTarget(OpGeneratorPtr gen, std::shared_ptr<const OpSolver> solver, OpTargetOptions o = {}, std::optional<OpDomain> domain = std::nullopt);
  std::string op() const override { return gen_->op(); }
  std::string solver() const override { return solver_->name(); }
  std::string domain() const override { return domain_.describe(); }
  const OpDomain& op_domain() const { return domain_; }
  std::vector<std::string> reachable_classes() const override { return op_reachable_classes(*gen_, domain_); }
  std::vector<SkippedClass> skipped_classes() const override { return op_skipped_classes(*gen_, domain_); }
  rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const override;
  verify::CaseRecord run(const CaseSpec& c) const override;
  void exclude_failure_class(const std::string&) override {}  // ops have no data classes

 private:
  OpGeneratorPtr gen_;
  std::shared_ptr<const OpSolver> solver_;
  OpTargetOptions opts_;
  OpDomain domain_;
  rc::Gen<std::tuple<OpProblemPtr, std::uint64_t>> cases_;
};

// p itself when the solver accepts it, else the first of g's repairs of p (applied one after the
// other) that it accepts, else p (a discard).
OpProblemPtr fit_to_solver(const OpGenerator& g, const OpSolver& s, const OpProblemPtr& p);

// The targets of `op` for the solvers matching the comma-separated globs; InputError naming the op
// and listing the known ops (exit 2) when no generator exists, or the op's solvers when none matches.
// options_for(solver) gives each target's options.
std::vector<FuzzTargetPtr> make_op_targets(const std::string& op, const std::string& solver_globs,
                                           const std::function<OpTargetOptions(const OpSolver&)>& options_for);
std::vector<FuzzTargetPtr> make_op_targets(const std::string& op, const std::string& solver_globs, const OpTargetOptions& o);

// An op case of a repro line: its problem (parse_op_problem) and seed; InputError for a conv line
// and for --fill / --special (conv-only data flags).
struct OpCase {
  OpProblemPtr problem;
  std::uint64_t seed = 1;
};
OpCase op_case_from_repro(const ReproLine& r);
// Runs one case exactly as the campaign does; a refusal is a record with status unsupported.
verify::CaseRecord run_op_fuzz_case(const OpCase& c, const OpSolver& s, bool check_determinism = true);

}  // namespace hiprim::fuzz
