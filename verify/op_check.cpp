#include "verify/op_check.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "core/error.hpp"
#include "verify/case_check.hpp"
#include "verify/npy.hpp"
#include "verify/op_fill.hpp"

namespace hiprim::verify {

namespace {

class OpCheck final : public CaseCheck {
 public:
  FillTier fill_tier(const OpProblem& p, std::optional<FillTier>) const override {
    auto errs = p.validate();
    if (!errs.empty()) throw_invalid_problem(p.op(), p.str(), errs);
    return FillTier::bounded;
  }
  bool takes_fill_tiers() const override { return false; }
  std::vector<HostTensor> fill(const OpProblem& p, FillTier, std::uint64_t seed) const override { return op_fill(p, seed); }
  std::string tolerance(const PreparedCase&, const Solver&) const override { return "per-element bounds of the op's reference"; }
  std::string expect(const PreparedCase& c, const Solver& s) const override {
    std::string rules;
    for (const auto& e : expected(c, s.accumulation_error_factor())) rules += (rules.empty() ? "" : "; ") + e.tensor + ": " + e.rule;
    return rules;
  }
  Verdict judge(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got) const override {
    return judge_factor(c, s.accumulation_error_factor(), got);
  }
  Verdict judge_factor(const PreparedCase& c, double factor, const std::vector<std::vector<unsigned char>>& got) const {
    const auto& ts = c.tensors();
    const auto& exp = expected(c, factor);
    std::vector<std::pair<std::string, Verdict>> verdicts;
    std::size_t k = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::input) continue;
      const ref::OpExpected& e = exp[k++];
      verdicts.emplace_back(ts[i].name,
                            compare_with_bounds(tensor_from_bytes(ts[i], got[i]), e.value, e.bound, ts[i].desc, ts[i].desc.dtype));
    }
    return merge_verdicts(verdicts);
  }
  // <name>.npy for inputs; <name>_before.npy, <name>.npy (the solver's) and <name>_reference.npy for in_out tensors;
  // <name>.npy and <name>_reference.npy for outputs.
  void dump(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got,
            const std::string& dir) const override {
    const auto& ts = c.tensors();
    const auto& exp = expected(c, s.accumulation_error_factor());
    std::size_t k = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const TensorDesc& d = ts[i].desc;
      if (ts[i].role != OpTensor::Role::output)
        write_npy(dir + "/" + ts[i].name + (ts[i].role == OpTensor::Role::in_out ? "_before" : "") + ".npy", d.dims,
                  logical_values(d, c.data()[i].data));
      if (ts[i].role == OpTensor::Role::input) continue;
      write_npy(dir + "/" + ts[i].name + ".npy", d.dims, logical_values(d, tensor_from_bytes(ts[i], got[i]).data));
      write_npy(dir + "/" + ts[i].name + "_reference.npy", d.dims, logical_values(d, exp[k++].value));
    }
  }

  // The reference's answer for a solver of accumulation factor f (ref::OpReferenceOptions), once per f.
  const std::vector<ref::OpExpected>& expected(const PreparedCase& c, double f = 1.0) const {
    auto it = expected_.find(f);
    if (it == expected_.end()) {
      std::vector<const HostTensor*> in;
      for (std::size_t i = 0; i < c.tensors().size(); ++i)
        in.push_back(c.tensors()[i].role == OpTensor::Role::output ? nullptr : &c.data()[i]);
      it = expected_.emplace(f, ref::op_expected(c.problem(), in, ref::OpReferenceOptions{f})).first;
    }
    return it->second;
  }

 private:
  mutable std::map<double, std::vector<ref::OpExpected>> expected_;
};

int severity(Status s) {
  switch (s) {
    case Status::failed: return 4;
    case Status::error: return 3;
    case Status::mistrusted: return 2;
    case Status::unsupported: return 1;
    case Status::passed: return 0;
  }
  return 0;
}

}  // namespace

std::unique_ptr<const CaseCheck> make_op_check(const OpProblem& p, const RunOptions& o) {
  if (o.hooks.oracle || o.hooks.judge || o.hooks.judge_bytes)
    throw InputError("the oracle, judge and judge_bytes hooks are conv's; a " + p.op() + " case takes none");
  return std::make_unique<OpCheck>();
}

Verdict judge_op_bytes(const PreparedCase& c, double factor, const std::vector<std::vector<unsigned char>>& got) {
  auto* k = dynamic_cast<const OpCheck*>(&c.check());
  if (!k) throw InputError("not an op case: " + c.problem().str());
  if (got.size() != c.tensors().size()) throw InputError("judge_op_bytes: " + std::to_string(got.size()) + " tensors for " + std::to_string(c.tensors().size()));
  return k->judge_factor(c, factor, got);
}

const std::vector<ref::OpExpected>& op_expected_of(const PreparedCase& c) {
  auto* k = dynamic_cast<const OpCheck*>(&c.check());
  if (!k) throw InputError("not an op case: " + c.problem().str());
  return k->expected(c);
}

Verdict merge_verdicts(const std::vector<std::pair<std::string, Verdict>>& per_tensor) {
  Verdict v;
  v.status = Status::passed;
  if (per_tensor.empty()) return v;
  const Verdict* worst = &per_tensor.front().second;
  std::string passed_reasons, other_reasons;
  Metrics& m = v.metrics;
  double sum_sq_err_rel = 0;
  for (auto& [name, t] : per_tensor) {
    if (severity(t.status) > severity(v.status)) v.status = t.status;
    if (severity(t.status) > severity(worst->status) ||
        (severity(t.status) == severity(worst->status) && t.metrics.worst_ratio > worst->metrics.worst_ratio))
      worst = &t;
    std::string& r = t.status == Status::passed ? passed_reasons : other_reasons;
    r += (r.empty() ? "" : "; ") + name + ": " + t.reason;
    const Metrics& x = t.metrics;
    m.checked += x.checked;
    m.mismatches += x.mismatches;
    m.nonfinite_mismatches += x.nonfinite_mismatches;
    m.max_abs_error = std::max(m.max_abs_error, x.max_abs_error);
    m.max_rel_error = std::max(m.max_rel_error, x.max_rel_error);
    m.worst_ratio = std::max(m.worst_ratio, x.worst_ratio);
    m.max_ulp = std::max(m.max_ulp, x.max_ulp);
    m.zero_fraction += x.zero_fraction * static_cast<double>(x.checked);
    sum_sq_err_rel = std::max(sum_sq_err_rel, x.rms_rel_error);
  }
  m.rms_rel_error = sum_sq_err_rel;  // the largest per-tensor value (tensors have different scales)
  m.zero_fraction = m.checked ? m.zero_fraction / static_cast<double>(m.checked) : 0.0;
  m.worst = worst->metrics.worst;
  v.reason = v.status == Status::passed ? passed_reasons : other_reasons;
  return v;
}

}  // namespace hiprim::verify
