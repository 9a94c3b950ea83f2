// Convolution's part of the fuzzer (fuzz/conv_primitive.hpp).
#include "fuzz/conv_primitive.hpp"

#include <algorithm>

#include <rapidcheck/shrinkable/Transform.h>

#include "core/error.hpp"
#include "fuzz/conv_implicit_zero.hpp"
#include "fuzz/gpu_oracle.hpp"
#include "reference/conv.hpp"
#include "verify/conv_check.hpp"
#include "verify/host_solvers.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::uint64_t kCpuCheckSalt = 0xC0C0ULL;
constexpr std::uint64_t kReseedSalt = 0x2E5EEDULL;
constexpr int kMaxReseeds = 8;

// Whether the gpu-oracle case goes to the CPU reference instead (deterministic in the case).
bool sampled_for_cpu_check(const ConvCase& c, double rate) {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  const std::uint64_t h = verify::fill_hash(c.data.seed, kCpuCheckSalt, static_cast<std::uint64_t>(c.problem.macs()));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < rate;
}

// The ConvSolver behind s (a conv solver reaches the buffer-list interface as a ConvOpSolver,
// verify::all_solvers()); InputError for a solver of another op.
const ConvSolver& conv_solver_of(const OpSolver& s) {
  const auto* conv = dynamic_cast<const ConvOpSolver*>(&s);
  if (!conv) throw InputError(s.name() + " is not a conv solver (a solver of " + s.op() + ")");
  return conv->conv_solver();
}

}  // namespace

bool gpu_oracle_serves(const ConvProblem& p, verify::FillTier tier, Special special, const ConvSolver& s) {
  if (special != Special::none || tier != verify::FillTier::exact) return false;
  return p.dtype == DType::fp32 || s.error_model(p).winograd_m == 0;  // a 16-bit store rounds the exact sum
}

namespace {

class ConvPrimitive final : public FuzzPrimitive {
 public:
  const char* size_unit() const override { return "MACs"; }
  CaseSpecPtr case_from_repro(const ReproLine& r) const override { return std::make_shared<ConvCaseSpec>(conv_case_from_repro(r)); }
  verify::RunOptions run_options(const CaseSpec& c, const OpSolver& s, bool check_determinism) const override {
    const ConvCase& cc = static_cast<const ConvCaseSpec&>(c).conv_case();
    return conv_run_options(cc.problem, cc.data, conv_solver_of(s), check_determinism);
  }
  OpSolverList solvers(const std::string& globs) const override {
    OpSolverList out;
    for (auto& s : verify::all_solvers())
      if (s->op() == ConvProblem::kOp && verify::glob_list_match(globs, s->name())) out.push_back(s);
    if (out.empty()) verify::select_conv_solvers(globs);  // throws: the globs and the conv solvers
    return out;
  }
};

}  // namespace

std::string ConvCaseSpec::problem() const { return to_string(c_.problem); }
OpProblemPtr ConvCaseSpec::op_problem() const { return make_op_problem(c_.problem); }
std::vector<std::string> ConvCaseSpec::classes() const { return conv_case_classes(c_); }
double ConvCaseSpec::size() const { return c_.problem.macs(); }
std::string ConvCaseSpec::data() const {
  std::string s = "seed " + std::to_string(c_.data.seed) + ", " + std::string(verify::fill_tier_name(conv_case_tier(c_)));
  if (c_.data.special != Special::none) s += ", special " + std::string(special_name(c_.data.special));
  return s;
}

std::string ConvCaseSpec::failure_class() const {
  return c_.data.special == Special::none ? std::string() : "special:" + std::string(special_name(c_.data.special));
}

verify::RunOptions conv_run_options(const ConvProblem& p, const ConvCaseData& d, const ConvSolver& s, bool check_determinism) {
  verify::RunOptions o;
  o.seed = d.seed;
  o.fill = d.fill;
  o.check_determinism = check_determinism;
  if (d.special != Special::none) {
    const Special kind = d.special;
    const std::uint64_t seed = d.seed;
    o.hooks.adjust_input = [kind, seed, p](HostTensor& t, const OpTensor& tensor) {
      apply_special(kind, p, seed, verify::conv_fill_tag(tensor.name), t);
    };
    // The oracle also records which implicit zeros meet Inf/NaN; the judge of the same case turns
    // that into this solver's answer (its declaration) and requires exactly it.
    // A Winograd or FFT solver's answer instead: NaN over the tiles and output channels a non-finite
    // value reaches (winograd_nonfinite_outputs, fft_nonfinite_outputs), the rest judged by its derived
    // bound (the conv check passes its S and tolerance to this judge).
    auto kinds = std::make_shared<std::vector<std::uint8_t>>();
    const int winograd_m = s.error_model(p).winograd_m, fft_tile = s.error_model(p).fft_tile;
    o.hooks.oracle = [kinds, winograd_m, fft_tile](const verify::PreparedCase& c) {
      const ConvProblem& q = verify::conv_problem(c);
      const ref::ConvInputs in = verify::conv_inputs(c);
      ref::ConvOutput out = ref::conv_naive(q, in);
      *kinds = fft_tile > 0     ? fft_nonfinite_outputs(q, fft_tile, in, out.desc)
               : winograd_m > 0 ? winograd_nonfinite_outputs(q, winograd_m, in, out.desc)
                                : implicit_zero_kinds(q, in, out.desc);
      return out;
    };
    const ImplicitZeros declared = s.implicit_zeros(p);
    const std::string solver = s.name();
    if (winograd_m > 0 || fft_tile > 0) {
      o.hooks.judge = [kinds, solver](const HostTensor& got, const ref::ConvOutput& e, const verify::Tolerance& tol) {
        std::int64_t spread = 0;
        for (std::uint8_t k : *kinds) spread += k;
        verify::Verdict v = judge_special(got, nan_where(e, *kinds), tol);
        if (spread > 0 && v.status == verify::Status::passed)
          v.reason += " (" + std::to_string(spread) + " of them NaN: " + solver + "'s transforms spread a non-finite value over its tiles)";
        return v;
      };
      o.hooks.repro_flags = "--special " + std::string(special_name(kind));
      return o;
    }
    o.hooks.judge = [kinds, declared, solver](const HostTensor& got, const ref::ConvOutput& e, const verify::Tolerance& tol) {
      std::uint8_t present = 0;
      std::int64_t multiplied = 0;
      for (std::uint8_t k : *kinds) {
        present |= k;
        multiplied += (k & multiplied_kinds(declared)) ? 1 : 0;
      }
      if (auto k = undeclared_kind(declared, present)) {
        verify::Verdict v;
        v.status = verify::Status::error;
        v.reason = solver + " does not declare what it does with implicit zeros of kind " + *k +
                   " (ConvSolver::implicit_zeros), and this case has such zeros meeting Inf/NaN";
        return v;
      }
      verify::Verdict v = judge_special(got, solver_expected(e, *kinds, declared), tol);
      if (multiplied > 0 && v.status == verify::Status::passed)
        v.reason += " (" + std::to_string(multiplied) + " of them NaN because " + solver + " multiplies an implicit zero by Inf/NaN there)";
      return v;
    };
    o.hooks.repro_flags = "--special " + std::string(special_name(kind));
  }
  return o;
}

ConvCase conv_case_from_repro(const ReproLine& r) {
  if (r.op() != "conv") throw InputError("repro line: problem '" + r.problem + "' is not a convolution (it starts with '" + r.op() + "')");
  ConvCase c;
  c.problem = parse_conv_problem(r.problem);
  c.data.seed = r.seed;
  if (!r.fill.empty()) c.data.fill = verify::parse_fill_tier(r.fill);
  if (!r.special.empty()) {
    auto s = parse_special(r.special);
    if (!s) throw InputError("--special '" + r.special + "': expected nan, inf, signed_zero, subnormal, huge or mixed");
    c.data.special = *s;
  }
  const verify::FillTier tier = conv_case_tier(c);
  if (!special_fits_tier(c.data.special, tier))
    throw InputError("--special " + r.special + " does not run with the " + std::string(verify::fill_tier_name(tier)) +
                     " fill (subnormal needs exact, huge needs bounded)");
  if (tier == verify::FillTier::exact && verify::exact_fill_range(c.problem) == 0)
    throw InputError("--fill exact: the problem's reduction length is too long for exact integer sums in fp32");
  return c;
}

const FuzzPrimitive& conv_fuzz_primitive() {
  static const ConvPrimitive conv;
  return conv;
}

verify::CaseRecord run_conv_case(const ConvCase& c, const ConvSolver& s, bool check_determinism) {
  return conv_fuzz_primitive().run(ConvCaseSpec(c), ConvOpSolver(s), check_determinism);
}

std::shared_ptr<SolverFuzzTarget> conv_fuzz_target(std::shared_ptr<const ConvSolver> solver, ConvTargetOptions o, std::optional<ConvDomain> domain,
                                                   bool check_determinism) {
  auto cases = std::make_shared<ConvCases>(*solver, std::move(o), std::move(domain));
  return std::make_shared<SolverFuzzTarget>(verify::conv_op_solver(std::move(solver)), std::move(cases), check_determinism);
}

ConvCases::ConvCases(const ConvSolver& solver, ConvTargetOptions o, std::optional<ConvDomain> domain)
    : opts_(std::move(o)), domain_(domain ? *domain : probe_conv_domain(solver)), gen_(conv_genome_gen(domain_, opts_.limits)) {}

void ConvCases::exclude_failure_class(const std::string& failure_class) {
  auto& sp = domain_.specials;
  const auto before = sp.size();
  sp.erase(std::remove_if(sp.begin(), sp.end(), [&](Special s) { return s != Special::none && "special:" + std::string(special_name(s)) == failure_class; }),
           sp.end());
  if (sp.size() != before) gen_ = conv_genome_gen(domain_, opts_.limits);
}

std::vector<std::string> ConvCases::reachable_classes() const { return conv_reachable_classes(domain_); }
std::vector<SkippedClass> ConvCases::skipped_classes() const { return conv_skipped_classes(domain_); }

rc::Shrinkable<CaseSpecPtr> ConvCases::generate(const rc::Random& random, int size) const {
  const ConvDomain d = domain_;
  const ConvGenLimits lim = opts_.limits;
  return rc::shrinkable::map(gen_(random, size), [d, lim](const ConvGenome& g) -> CaseSpecPtr {
    return std::make_shared<ConvCaseSpec>(conv_case_from_genome(g, d, lim));
  });
}

verify::PreparedCase ConvCases::prepare(const CaseSpec& spec, const OpSolver& s, verify::RunOptions& o, std::string& note) const {
  const ConvSolver& solver = conv_solver_of(s);
  ConvCase c = static_cast<const ConvCaseSpec&>(spec).conv_case();
  const std::uint64_t drawn_seed = c.data.seed;
  for (int attempt = 0;; ++attempt) {
    o = conv_run_options(c.problem, c.data, solver, o.check_determinism);
    const bool gpu_oracle = opts_.gpu_oracle && opts_.gpu_oracle.get() != &solver &&
                            gpu_oracle_serves(c.problem, conv_case_tier(c), c.data.special, solver) &&
                            !sampled_for_cpu_check(c, opts_.cpu_check_rate);
    if (gpu_oracle) {
      auto oracle = opts_.gpu_oracle;
      o.hooks.oracle = [oracle](const verify::PreparedCase& pc) { return device_solver_output(pc, *oracle); };
    }
    verify::PreparedCase pc(c.problem, o);
    // Data whose expected output is mostly zeros (a short reduction over fills that hit zero, -0
    // special values) would be mistrusted: the case takes the next seed of its sequence instead.
    const ref::ConvOutput& e = verify::conv_expected(pc, solver.needs_independent_oracle());
    if (attempt < kMaxReseeds && verify::mostly_zero(e.value, e.desc)) {
      c.data.seed = 1 + verify::fill_hash(c.data.seed, kReseedSalt, static_cast<std::uint64_t>(attempt)) % ((std::uint64_t{1} << 31) - 1);
      continue;
    }
    if (attempt > 0)
      note = " (data seed " + std::to_string(c.data.seed) + ", reseeded " + std::to_string(attempt) + " times from " + std::to_string(drawn_seed) +
             ": mostly-zero outputs)";
    return pc;
  }
}

}  // namespace hiprim::fuzz
