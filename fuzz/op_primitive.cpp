#include "fuzz/op_target.hpp"

#include <rapidcheck/gen/Tuple.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "core/error.hpp"
#include "fuzz/gen_util.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::fuzz {
namespace {

constexpr int kMaxRepairSteps = 40;

verify::CaseRecord refused(const OpProblem& p, const OpSolver& s, std::uint64_t seed, const std::string& why) {
  verify::CaseRecord r;
  r.problem = p.str();
  r.solver = s.name();
  r.seed = seed;
  r.verdict.status = verify::Status::unsupported;
  r.verdict.reason = why;
  r.repro = verify::repro_command(r.problem, s.name(), seed);
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

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

OpFuzzTarget::OpFuzzTarget(OpGeneratorPtr gen, std::shared_ptr<const OpSolver> solver, OpTargetOptions o, std::optional<OpDomain> domain)
    : gen_(std::move(gen)),
      solver_(std::move(solver)),
      opts_(o),
      domain_(domain ? *domain : probe_op_domain(*gen_, *solver_)),
      cases_(rc::gen::tuple(gen_->problems(domain_, opts_.limits), seed_gen())) {}

rc::Shrinkable<CaseSpecPtr> OpFuzzTarget::generate(const rc::Random& random, int size) const {
  auto gen = gen_;
  auto solver = solver_;
  return rc::shrinkable::map(cases_(random, size), [gen, solver](const std::tuple<OpProblemPtr, std::uint64_t>& c) -> CaseSpecPtr {
    OpProblemPtr p = fit_to_solver(*gen, *solver, std::get<0>(c));
    return std::make_shared<OpCaseSpec>(p, std::get<1>(c), op_case_classes(*gen, *p));
  });
}

verify::CaseRecord OpFuzzTarget::run(const CaseSpec& spec) const {
  const auto& c = static_cast<const OpCaseSpec&>(spec);
  return run_op_fuzz_case({c.op_problem(), c.seed()}, *solver_, opts_.check_determinism);
}

std::vector<FuzzTargetPtr> make_op_targets(const std::string& op, const std::string& solver_globs, const OpTargetOptions& o) {
  return make_op_targets(op, solver_globs, [&o](const OpSolver&) { return o; });
}

std::vector<FuzzTargetPtr> make_op_targets(const std::string& op, const std::string& solver_globs,
                                           const std::function<OpTargetOptions(const OpSolver&)>& options_for) {
  const OpGeneratorPtr gen = op_generator(op);
  if (!gen) throw InputError("--op '" + op + "': no fuzz generator for it (known: conv, " + joined(fuzzed_ops()) + ")");
  const OpSolverList solvers = verify::match_op_solvers(solver_globs, op);
  if (solvers.empty()) {
    std::vector<std::string> names;
    for (auto& s : verify::op_solvers())
      if (s->op() == op) names.push_back(s->name());
    throw InputError("--solver '" + solver_globs + "' matches no " + op + " solver; known: " + joined(names));
  }
  std::vector<FuzzTargetPtr> out;
  for (auto& s : solvers) out.push_back(std::make_shared<OpFuzzTarget>(gen, s, options_for(*s)));
  return out;
}

OpCase op_case_from_repro(const ReproLine& r) {
  if (r.op() == "conv") throw InputError("repro line: problem '" + r.problem + "' is a convolution, not an op problem");
  if (!r.fill.empty()) throw InputError("repro line: --fill is a convolution flag (op problems have one fill per op)");
  if (!r.special.empty()) throw InputError("repro line: --special is a convolution flag (ops have no special-value cases)");
  return {parse_op_problem(r.problem), r.seed};
}

verify::CaseRecord run_op_fuzz_case(const OpCase& c, const OpSolver& s, bool check_determinism) {
  if (s.op() != c.problem->op()) return refused(*c.problem, s, c.seed, "solver of op " + s.op() + ", problem of op " + c.problem->op());
  if (auto a = s.applicable(*c.problem); !a) return refused(*c.problem, s, c.seed, a.reason);
  verify::RunOptions o;
  o.seed = c.seed;
  o.check_determinism = check_determinism;
  verify::PreparedCase pc(c.problem, o);
  return verify::run_case(pc, s, o);
}

}  // namespace hiprim::fuzz
