// The fuzz target of every primitive: one solver as verify::all_solvers() has it (an OpSolver; conv
// solvers through ConvOpSolver) and a CaseSource, the primitive's part (fuzz/primitive.hpp). Its
// cases run through FuzzPrimitive::run: the applicability check (a refusal is a discard with the
// case's repro line), then the verify runner (guards, poisoned outputs, unchanged inputs, the
// primitive's judgement, determinism), so a failure's repro line reruns it exactly.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/op_solver.hpp"
#include "fuzz/primitive.hpp"
#include "fuzz/target.hpp"

namespace hiprim::fuzz {

class SolverFuzzTarget final : public FuzzTarget {
 public:
  SolverFuzzTarget(std::shared_ptr<const OpSolver> solver, CaseSourcePtr cases, bool check_determinism = true);
  std::string op() const override { return solver_->op(); }
  std::string solver() const override { return solver_->name(); }
  std::string domain() const override { return cases_->domain(); }
  std::vector<std::string> reachable_classes() const override { return cases_->reachable_classes(); }
  std::vector<SkippedClass> skipped_classes() const override { return cases_->skipped_classes(); }
  rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const override { return cases_->generate(random, size); }
  verify::CaseRecord run(const CaseSpec& c) const override;
  void exclude_failure_class(const std::string& failure_class) override { cases_->exclude_failure_class(failure_class); }
  const CaseSource& cases() const { return *cases_; }

 private:
  std::shared_ptr<const OpSolver> solver_;
  CaseSourcePtr cases_;
  const FuzzPrimitive& primitive_;
  bool check_determinism_;
};

// The case source of each fuzzed solver (the per-primitive mapping of options to generators).
using CasesFor = std::function<CaseSourcePtr(const std::shared_ptr<const OpSolver>& solver)>;

// The targets of `op` for its solvers matching the comma-separated globs (FuzzPrimitive::solvers),
// each with cases_for(solver); InputError naming the op and the fuzzed ones when it has no
// generator, or the globs and the op's solvers when none matches.
std::vector<FuzzTargetPtr> make_targets(const std::string& op, const std::string& solver_globs, const CasesFor& cases_for,
                                        bool check_determinism = true);

}  // namespace hiprim::fuzz
