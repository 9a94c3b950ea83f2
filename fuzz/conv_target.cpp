#include "fuzz/conv_target.hpp"

#include <algorithm>

#include <rapidcheck/shrinkable/Transform.h>

#include "core/error.hpp"
#include "fuzz/conv_implicit_zero.hpp"
#include "fuzz/gpu_oracle.hpp"
#include "reference/conv.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::uint64_t kCpuCheckSalt = 0xC0C0ULL;

// Whether the gpu-oracle case goes to the CPU reference instead (deterministic in the case).
bool sampled_for_cpu_check(const ConvCase& c, double rate) {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  const std::uint64_t h = verify::fill_hash(c.data.seed, kCpuCheckSalt, static_cast<std::uint64_t>(c.problem.macs()));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < rate;
}

verify::CaseRecord refused(const ConvProblem& p, const ConvSolver& s, const std::string& why, const verify::RunOptions& o) {
  verify::CaseRecord r;
  r.problem = to_string(p);
  r.solver = s.name();
  r.seed = o.seed;
  r.verdict.status = verify::Status::unsupported;
  r.verdict.reason = why;
  r.repro = verify::repro_command(to_string(p), s.name(), o.seed);
  if (o.fill) r.repro += " --fill " + std::string(verify::fill_tier_name(*o.fill));
  if (!o.hooks.repro_flags.empty()) r.repro += " " + o.hooks.repro_flags;
  return r;
}

}  // namespace

std::string ConvCaseSpec::problem() const { return to_string(c_.problem); }
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

verify::RunOptions conv_run_options(const ConvProblem& p, const ConvCaseData& d, bool check_determinism) {
  verify::RunOptions o;
  o.seed = d.seed;
  o.fill = d.fill;
  o.check_determinism = check_determinism;
  if (d.special != Special::none) {
    const Special kind = d.special;
    const std::uint64_t seed = d.seed;
    o.hooks.adjust_input = [kind, seed, p](HostTensor& t, std::uint64_t tag) { apply_special(kind, p, seed, tag, t); };
    // The oracle also records where NaN is an accepted answer; the judge of the same case reads it.
    auto may_be_nan = std::make_shared<std::vector<std::uint8_t>>();
    o.hooks.oracle = [may_be_nan](const verify::PreparedCase& c) {
      const ConvProblem& q = c.problem();
      ref::ConvInputs in{q.dir != ConvDir::bwd_data ? &c.x() : nullptr, q.dir != ConvDir::bwd_weights ? &c.w() : nullptr,
                         q.dir != ConvDir::fwd ? &c.y() : nullptr, q.bias ? &c.bias() : nullptr};
      ref::ConvOutput out = ref::conv_naive(q, in);
      *may_be_nan = implicit_zero_nan_mask(q, in, out.desc);
      return out;
    };
    o.hooks.judge = [may_be_nan](const HostTensor& got, const ref::ConvOutput& e, const verify::Tolerance& tol) {
      return judge_special(got, e, tol, may_be_nan->empty() ? nullptr : may_be_nan.get());
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

verify::CaseRecord run_conv_case(const ConvCase& c, const ConvSolver& s, bool check_determinism) {
  const verify::RunOptions o = conv_run_options(c.problem, c.data, check_determinism);
  if (auto a = s.applicable(c.problem); !a) return refused(c.problem, s, a.reason, o);
  verify::PreparedCase pc(c.problem, o);
  return verify::run_case(pc, s, o);
}

ConvFuzzTarget::ConvFuzzTarget(std::shared_ptr<const ConvSolver> solver, ConvTargetOptions o, std::optional<ConvDomain> domain)
    : solver_(std::move(solver)),
      opts_(std::move(o)),
      domain_(domain ? *domain : probe_conv_domain(*solver_)),
      gen_(conv_genome_gen(domain_, opts_.limits)) {}

void ConvFuzzTarget::exclude_failure_class(const std::string& failure_class) {
  auto& sp = domain_.specials;
  const auto before = sp.size();
  sp.erase(std::remove_if(sp.begin(), sp.end(), [&](Special s) { return s != Special::none && "special:" + std::string(special_name(s)) == failure_class; }),
           sp.end());
  if (sp.size() != before) gen_ = conv_genome_gen(domain_, opts_.limits);
}

std::vector<std::string> ConvFuzzTarget::reachable_classes() const { return conv_reachable_classes(domain_); }
std::vector<SkippedClass> ConvFuzzTarget::skipped_classes() const { return conv_skipped_classes(domain_); }

rc::Shrinkable<CaseSpecPtr> ConvFuzzTarget::generate(const rc::Random& random, int size) const {
  const ConvDomain d = domain_;
  const ConvGenLimits lim = opts_.limits;
  return rc::shrinkable::map(gen_(random, size), [d, lim](const ConvGenome& g) -> CaseSpecPtr {
    return std::make_shared<ConvCaseSpec>(conv_case_from_genome(g, d, lim));
  });
}

verify::CaseRecord ConvFuzzTarget::run(const CaseSpec& spec) const {
  const ConvCase& c = static_cast<const ConvCaseSpec&>(spec).conv_case();
  verify::RunOptions o = conv_run_options(c.problem, c.data, opts_.check_determinism);
  if (auto a = solver_->applicable(c.problem); !a) return refused(c.problem, *solver_, a.reason, o);
  const bool gpu_oracle = opts_.gpu_oracle && opts_.gpu_oracle.get() != solver_.get() && c.data.special == Special::none &&
                          conv_case_tier(c) == verify::FillTier::exact && !sampled_for_cpu_check(c, opts_.cpu_check_rate);
  if (gpu_oracle) {
    auto oracle = opts_.gpu_oracle;
    o.hooks.oracle = [oracle](const verify::PreparedCase& pc) { return device_solver_output(pc, *oracle); };
  }
  verify::PreparedCase pc(c.problem, o);
  return verify::run_case(pc, *solver_, o);
}

}  // namespace hiprim::fuzz
