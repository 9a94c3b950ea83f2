#include "fuzz/solver_target.hpp"

namespace hiprim::fuzz {

SolverFuzzTarget::SolverFuzzTarget(std::shared_ptr<const OpSolver> solver, CaseSourcePtr cases, bool check_determinism)
    : solver_(std::move(solver)), cases_(std::move(cases)), primitive_(fuzz_primitive(solver_->op())), check_determinism_(check_determinism) {}

verify::CaseRecord SolverFuzzTarget::run(const CaseSpec& c) const { return primitive_.run(c, *solver_, check_determinism_, *cases_); }

std::vector<FuzzTargetPtr> make_targets(const std::string& op, const std::string& solver_globs, const CasesFor& cases_for,
                                        bool check_determinism) {
  std::vector<FuzzTargetPtr> out;
  for (auto& s : fuzzed_primitive(op).solvers(solver_globs)) out.push_back(std::make_shared<SolverFuzzTarget>(s, cases_for(s), check_determinism));
  return out;
}

}  // namespace hiprim::fuzz
