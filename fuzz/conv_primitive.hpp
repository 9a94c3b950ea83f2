// Convolution's part of the fuzzer (fuzz/primitive.hpp): ConvCaseSpec (problem, seed, fill tier,
// special values), the generator of fuzz/conv_gen.hpp inside the solver's probed domain
// (conv_domain.hpp), and the runner options of a case's data.
//
// Oracles:
//   cpu (default): the CPU reference (naive loops, or the fast one above 2e7 multiply-accumulates).
//   gpu: the GPU naive solver conv.naive computes the expected output of exact-tier cases without
//        special values. The exact tier's rule is equality with the correctly rounded exact sum, and
//        every partial sum is exact in fp32, so conv.naive's stored result is that value whenever it
//        is correct; a disagreement means one of the two is wrong, and the repro line (which always
//        uses the CPU reference) tells which. A fraction cpu_check_rate of those cases (picked by a
//        hash of the case, so deterministic) uses the CPU reference instead, which keeps checking
//        conv.naive itself. Bounded-tier and special-value cases always use the CPU reference (the
//        bounded rule needs the reference's double value and sum of |terms|). Nor does it serve a
//        16-bit case of a solver judged by another model than the direct sum's (conv.winograd.*):
//        conv.naive's output is the exact sum rounded to the dtype, while that solver's bound is
//        relative to the exact sum itself (an exact 259 that conv.naive stores as 260 and a
//        Winograd 258.9999 stored as 258 are 1.0001 apart, not 2: the s19 H100 campaign's 12
//        "failures" of f4x3 and f6x3 were this).
//   Special-value cases always use the CPU naive loops (real terms only), record which implicit
//   zeros meet Inf/NaN (implicit_zero_kinds), and judge with judge_special() against the solver's own
//   answer: NaN where it declares it multiplies those zeros (ConvSolver::implicit_zeros), the
//   reference's value where it skips them; nothing else passes.
// Mostly-zero data: when the oracle's output of a drawn case's data is more than 80% zeros (the
// comparator would mistrust it: a short reduction over fills that hit zero, -0 special values),
// the case takes the next seed of a fixed sequence (up to 8 times, ConvCases::prepare), so the
// campaign rarely meets a mistrusted case; the record's repro line carries the seed used.
// Structural zeros are the generator's job (conv_gen.hpp, kMinLiveFraction).
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "core/conv_solver.hpp"
#include "fuzz/conv_domain.hpp"
#include "fuzz/conv_gen.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/primitive.hpp"
#include "fuzz/solver_target.hpp"
#include "verify/runner.hpp"

namespace hiprim::fuzz {

struct ConvTargetOptions {
  ConvGenLimits limits = small_conv_limits();
  std::shared_ptr<const ConvSolver> gpu_oracle;  // conv.naive for the gpu oracle; null: cpu oracle
  double cpu_check_rate = 0.05;                  // gpu oracle: fraction of its cases checked on the CPU instead
};

// Whether conv.naive's output (the GPU oracle) may stand in for the reference on a case of this
// problem, tier and special kind for solver s (the rules above; the CPU-check sampling aside).
bool gpu_oracle_serves(const ConvProblem& p, verify::FillTier tier, Special special, const ConvSolver& s);

class ConvCaseSpec final : public CaseSpec {
 public:
  explicit ConvCaseSpec(ConvCase c) : c_(std::move(c)) {}
  const ConvCase& conv_case() const { return c_; }
  std::string problem() const override;
  OpProblemPtr op_problem() const override;
  std::vector<std::string> classes() const override;
  double size() const override;  // multiply-accumulates
  std::string data() const override;
  std::string failure_class() const override;  // "special:<kind>" for special-value cases

 private:
  ConvCase c_;
};

// The cases of one conv solver: its domain, the generator, and the GPU oracle's hook and the
// mostly-zero reseeds of a drawn case's run.
class ConvCases final : public CaseSource {
 public:
  // The domain is the solver's probed one (probe_conv_domain) unless one is given.
  ConvCases(const ConvSolver& solver, ConvTargetOptions o, std::optional<ConvDomain> domain = std::nullopt);
  std::string domain() const override { return domain_.describe(); }
  const ConvDomain& conv_domain() const { return domain_; }
  std::vector<std::string> reachable_classes() const override;
  std::vector<SkippedClass> skipped_classes() const override;
  rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const override;
  void exclude_failure_class(const std::string& failure_class) override;  // "special:<kind>": that kind is no longer drawn
  verify::PreparedCase prepare(const CaseSpec& c, const OpSolver& s, verify::RunOptions& o, std::string& note) const override;

 private:
  ConvTargetOptions opts_;
  ConvDomain domain_;
  rc::Gen<ConvGenome> gen_;
};

// Conv's FuzzPrimitive (fuzz_primitive("conv")).
const FuzzPrimitive& conv_fuzz_primitive();
// The target of a conv solver (e.g. one outside the registry: a test's mutant), its view as an
// OpSolver held together with it.
std::shared_ptr<SolverFuzzTarget> conv_fuzz_target(std::shared_ptr<const ConvSolver> solver, ConvTargetOptions o = {},
                                                   std::optional<ConvDomain> domain = std::nullopt, bool check_determinism = true);

// The runner options of a case's data for solver s: seed, explicit tier, and for special values the
// input adjustment, the naive CPU oracle, judge_special() against s's declared implicit zeros
// (status error when s leaves a kind the case has undeclared) and the repro flag "--special KIND".
verify::RunOptions conv_run_options(const ConvProblem& p, const ConvCaseData& d, const ConvSolver& s, bool check_determinism = true);

// The case of a repro line (problem, seed, --fill, --special); InputError naming the bad part.
ConvCase conv_case_from_repro(const ReproLine& r);
// Runs it on one solver exactly as the campaign did (CPU oracle: FuzzPrimitive::run on the solver's
// ConvOpSolver view); the record's repro line is r's with the solver's name.
verify::CaseRecord run_conv_case(const ConvCase& c, const ConvSolver& s, bool check_determinism = true);

}  // namespace hiprim::fuzz
