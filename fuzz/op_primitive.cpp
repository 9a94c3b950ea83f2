// The fuzzer's part of the non-convolution primitives (fuzz/op_primitive.hpp).
#include "fuzz/op_primitive.hpp"

#include <map>
#include <mutex>

#include <rapidcheck/gen/Tuple.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "core/error.hpp"
#include "fuzz/gen_util.hpp"
#include "verify/op_solvers.hpp"
#include "verify/runner.hpp"

namespace hiprim::fuzz {
namespace {

constexpr int kMaxRepairSteps = 40;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

class OpPrimitive final : public FuzzPrimitive {
 public:
  explicit OpPrimitive(std::string op) : op_(std::move(op)) {}
  const char* size_unit() const override { return "elements"; }
  CaseSpecPtr case_from_repro(const ReproLine& r) const override {
    const OpCase c = op_case_from_repro(r);
    return std::make_shared<OpCaseSpec>(c.problem, c.seed, std::vector<std::string>{});
  }
  verify::RunOptions run_options(const CaseSpec& c, const OpSolver&, bool check_determinism) const override {
    verify::RunOptions o;
    o.seed = static_cast<const OpCaseSpec&>(c).seed();
    o.check_determinism = check_determinism;
    return o;
  }
  OpSolverList solvers(const std::string& globs) const override {
    OpSolverList out = verify::match_op_solvers(globs, op_);
    if (out.empty()) {
      std::vector<std::string> names;
      for (auto& s : verify::op_solvers())
        if (s->op() == op_) names.push_back(s->name());
      throw InputError("--solver '" + globs + "' matches no " + op_ + " solver; known: " + joined(names));
    }
    return out;
  }

 private:
  std::string op_;
};

}  // namespace

double OpCaseSpec::size() const { return op_case_size(*p_); }

OpProblemPtr fit_to_solver(const OpGenerator& g, const OpSolver& s, const OpProblemPtr& p) {
  if (s.applicable(*p)) return p;
  OpProblemPtr cur = p;
  for (int step = 0; step < kMaxRepairSteps; ++step) {
    OpProblemPtr next = g.repair(*cur, step);
    if (!next) break;
    cur = next;
    if (s.applicable(*cur)) return cur;
  }
  return p;
}

OpCases::OpCases(OpGeneratorPtr gen, std::shared_ptr<const OpSolver> solver, OpGenLimits limits, std::optional<OpDomain> domain)
    : gen_(std::move(gen)),
      solver_(std::move(solver)),
      domain_(domain ? *domain : probe_op_domain(*gen_, *solver_)),
      cases_(rc::gen::tuple(gen_->problems(domain_, limits), seed_gen())) {}

rc::Shrinkable<CaseSpecPtr> OpCases::generate(const rc::Random& random, int size) const {
  auto gen = gen_;
  auto solver = solver_;
  return rc::shrinkable::map(cases_(random, size), [gen, solver](const std::tuple<OpProblemPtr, std::uint64_t>& c) -> CaseSpecPtr {
    OpProblemPtr p = fit_to_solver(*gen, *solver, std::get<0>(c));
    return std::make_shared<OpCaseSpec>(p, std::get<1>(c), op_case_classes(*gen, *p));
  });
}

const FuzzPrimitive& op_fuzz_primitive(std::string_view op) {
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<const OpPrimitive>, std::less<>> by_op;
  const std::lock_guard<std::mutex> lock(m);
  auto it = by_op.find(op);
  if (it == by_op.end()) it = by_op.emplace(std::string(op), std::make_unique<const OpPrimitive>(std::string(op))).first;
  return *it->second;
}

std::shared_ptr<SolverFuzzTarget> op_fuzz_target(std::shared_ptr<const OpSolver> solver, OpGenLimits limits, bool check_determinism) {
  fuzzed_primitive(solver->op());  // InputError for an op without a generator
  return std::make_shared<SolverFuzzTarget>(solver, op_cases(limits)(solver), check_determinism);
}

CasesFor op_cases(OpGenLimits limits) {
  return [limits](const std::shared_ptr<const OpSolver>& s) -> CaseSourcePtr {
    return std::make_shared<OpCases>(op_generator(s->op()), s, limits);
  };
}

OpCase op_case_from_repro(const ReproLine& r) {
  if (r.op() == "conv") throw InputError("repro line: problem '" + r.problem + "' is a convolution, not an op problem");
  if (!r.fill.empty()) throw InputError("repro line: --fill is a convolution flag (op problems have one fill per op)");
  if (!r.special.empty()) throw InputError("repro line: --special is a convolution flag (ops have no special-value cases)");
  return {parse_op_problem(r.problem), r.seed};
}

verify::CaseRecord run_op_fuzz_case(const OpCase& c, const OpSolver& s, bool check_determinism) {
  return op_fuzz_primitive(c.problem->op()).run(OpCaseSpec(c.problem, c.seed, {}), s, check_determinism);
}

}  // namespace hiprim::fuzz
