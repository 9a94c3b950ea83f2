// A fuzz case given by its repro line, for every primitive (fuzz/primitive.hpp).
#include "fuzz/primitive.hpp"

#include "core/error.hpp"
#include "fuzz/conv_target.hpp"
#include "fuzz/op_target.hpp"

namespace hiprim::fuzz {
namespace {

class ConvPrimitive final : public FuzzPrimitive {
 public:
  const char* size_unit() const override { return "MACs"; }
  CaseSpecPtr case_from_repro(const ReproLine& r) const override { return std::make_shared<ConvCaseSpec>(conv_case_from_repro(r)); }
  verify::CaseRecord run(const CaseSpec& c, const OpSolver& s, bool check_determinism) const override {
    const ConvCase& cc = static_cast<const ConvCaseSpec&>(c).conv_case();
    // A conv solver reaches the buffer-list interface as a ConvOpSolver (verify::all_solvers()).
    const auto* conv = dynamic_cast<const ConvOpSolver*>(&s);
    if (!conv) throw InputError(s.name() + " is not a conv solver (a solver of " + s.op() + ")");
    return run_conv_case(cc, conv->conv_solver(), check_determinism);
  }
};

class OpCases final : public FuzzPrimitive {
 public:
  const char* size_unit() const override { return "elements"; }
  CaseSpecPtr case_from_repro(const ReproLine& r) const override {
    const OpCase c = op_case_from_repro(r);
    return std::make_shared<OpCaseSpec>(c.problem, c.seed, std::vector<std::string>{});
  }
  verify::CaseRecord run(const CaseSpec& c, const OpSolver& s, bool check_determinism) const override {
    const auto& oc = static_cast<const OpCaseSpec&>(c);
    return run_op_fuzz_case({oc.op_problem(), oc.seed()}, s, check_determinism);
  }
};

}  // namespace

const FuzzPrimitive& fuzz_primitive(std::string_view op) {
  static const ConvPrimitive conv;
  static const OpCases ops;
  if (op == ConvProblem::kOp) return conv;
  return ops;
}

}  // namespace hiprim::fuzz
