// The one path of a fuzz case on a solver, and the primitives by name (fuzz/primitive.hpp).
#include "fuzz/primitive.hpp"

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "fuzz/conv_primitive.hpp"
#include "fuzz/op_gen.hpp"
#include "fuzz/op_primitive.hpp"

namespace hiprim::fuzz {
namespace {

// The record of a case s refuses: status unsupported, and the repro line of the case's data.
verify::CaseRecord refused(const OpProblem& p, const OpSolver& s, const verify::RunOptions& o, const std::string& why) {
  verify::CaseRecord r;
  r.problem = p.str();
  r.solver = s.name();
  r.seed = o.seed;
  r.verdict.status = verify::Status::unsupported;
  r.verdict.reason = why;
  r.repro = verify::repro_command(r.problem, s.name(), o.seed);
  if (o.fill) r.repro += " --fill " + std::string(verify::fill_tier_name(*o.fill));
  if (!o.hooks.repro_flags.empty()) r.repro += " " + o.hooks.repro_flags;
  return r;
}

verify::CaseRecord run_on(const FuzzPrimitive& primitive, const CaseSpec& c, const OpSolver& s, bool check_determinism,
                          const CaseSource* source) {
  verify::RunOptions o = primitive.run_options(c, s, check_determinism);
  const OpProblemPtr p = c.op_problem();
  if (s.op() != p->op()) return refused(*p, s, o, "solver of op " + s.op() + ", problem of op " + p->op());
  if (auto a = s.applicable(*p); !a) return refused(*p, s, o, a.reason);
  std::string note;
  const verify::PreparedCase pc = source ? source->prepare(c, s, o, note) : verify::PreparedCase(p, o);
  verify::CaseRecord rec = verify::run_case(pc, s, o);
  rec.verdict.reason += note;
  return rec;
}

}  // namespace

verify::CaseRecord FuzzPrimitive::run(const CaseSpec& c, const OpSolver& s, bool check_determinism) const {
  return run_on(*this, c, s, check_determinism, nullptr);
}

verify::CaseRecord FuzzPrimitive::run(const CaseSpec& c, const OpSolver& s, bool check_determinism, const CaseSource& source) const {
  return run_on(*this, c, s, check_determinism, &source);
}

verify::PreparedCase CaseSource::prepare(const CaseSpec& c, const OpSolver&, verify::RunOptions& o, std::string&) const {
  return verify::PreparedCase(c.op_problem(), o);
}

const FuzzPrimitive& fuzz_primitive(std::string_view op) {
  if (op == ConvProblem::kOp) return conv_fuzz_primitive();
  return op_fuzz_primitive(op);
}

const FuzzPrimitive& fuzzed_primitive(const std::string& op) {
  if (op != ConvProblem::kOp && !op_generator(op)) {
    std::string known;
    for (auto& o : fuzzed_ops()) known += ", " + o;
    throw InputError("--op '" + op + "': no fuzz generator for it (known: conv" + known + ")");
  }
  return fuzz_primitive(op);
}

}  // namespace hiprim::fuzz
