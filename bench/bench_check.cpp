#include "bench/bench_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "reference/conv.hpp"

namespace hiprim::verify {

std::string_view verify_mode_name(VerifyMode m) {
  switch (m) {
    case VerifyMode::none: return "none";
    case VerifyMode::quick: return "quick";
    case VerifyMode::full: return "full";
  }
  return "?";
}

std::optional<VerifyMode> parse_verify_mode(std::string_view s) {
  for (VerifyMode m : {VerifyMode::none, VerifyMode::quick, VerifyMode::full})
    if (verify_mode_name(m) == s) return m;
  return std::nullopt;
}

std::string bench_tolerance_string(const Tolerance& tol) {
  std::string s = tol.describe();
  if (tol.tier == FillTier::exact) {
    char f[32];
    std::snprintf(f, sizeof f, "%g", tol.algorithm_factor);
    s += std::string("; algorithm factor ") + f + " (multiplies gamma(L) in the bounded tier; the exact tier's bound is 0)";
  }
  return s;
}

TensorDesc output_desc(const ConvProblem& p) {
  switch (p.dir) {
    case ConvDir::fwd: return p.y_desc();
    case ConvDir::bwd_data: return p.x_desc();
    case ConvDir::bwd_weights: return p.w_desc();
  }
  return p.y_desc();
}

ConvProblem sample_problem(const ConvProblem& p, std::int64_t channels) {
  if (channels < 1) throw InputError("sample_problem: channels = " + std::to_string(channels) + " must be >= 1");
  ConvProblem q = p;
  q.groups = 1;
  q.c = p.c / p.groups;
  q.k = p.k / p.groups;
  if (p.dir == ConvDir::bwd_data)
    q.c = std::min(channels, q.c);
  else
    q.k = std::min(channels, q.k);
  return q;
}

HostTensor prefix_box(const HostTensor& t, const TensorDesc& desc) {
  if (desc.dims.size() != t.desc.dims.size())
    throw InputError("prefix_box: rank " + std::to_string(desc.dims.size()) + " differs from the tensor's " +
                     std::to_string(t.desc.dims.size()));
  for (std::size_t i = 0; i < desc.dims.size(); ++i)
    if (desc.dims[i] > t.desc.dims[i])
      throw InputError("prefix_box: dim " + std::to_string(i) + " = " + std::to_string(desc.dims[i]) +
                       " exceeds the tensor's " + std::to_string(t.desc.dims[i]));
  if (desc == t.desc) return t;
  HostTensor out(desc);
  for_each_index(desc.dims, [&](const Dims& idx) { out.at(idx) = t.at(idx); });
  return out;
}

namespace {

// Fails when any element of got is NaN/Inf (naming the first in logical order); passed otherwise.
// The scan runs over the storage (gaps of non-packed strides hold 0); the index is looked up only
// on failure.
Verdict all_finite(const HostTensor& got) {
  Verdict v;
  v.status = Status::passed;
  const auto bad = std::count_if(got.data.begin(), got.data.end(), [](float x) { return !std::isfinite(x); });
  v.metrics.checked = got.desc.elements();
  v.metrics.mismatches = v.metrics.nonfinite_mismatches = bad;
  if (bad == 0) return v;
  Dims first;
  float first_value = 0;
  for_each_index(got.desc.dims, [&](const Dims& idx) {
    if (first.empty() && !std::isfinite(got.at(idx))) {
      first = idx;
      first_value = got.at(idx);
    }
  });
  v.status = Status::failed;
  v.reason = std::to_string(bad) + " output elements are not finite (first " + index_string(first) + " = " +
             (std::isnan(first_value) ? "nan" : first_value > 0 ? "inf" : "-inf") +
             "): unwritten (the output was poisoned with NaN) or overflowed";
  return v;
}

}  // namespace

SampleOracle::SampleOracle(const PreparedCase& c, std::int64_t channels) : c_(c), q_(sample_problem(conv_problem(c), channels)) {
  const ref::ConvInputs full = conv_inputs(c);
  HostTensor x, w, y, bias;
  ref::ConvInputs in;
  if (full.x) in.x = &(x = prefix_box(*full.x, q_.x_desc()));
  if (full.w) in.w = &(w = prefix_box(*full.w, q_.w_desc()));
  if (full.y) in.y = &(y = prefix_box(*full.y, q_.y_desc()));
  if (full.bias) in.bias = &(bias = prefix_box(*full.bias, q_.bias_desc()));
  expected_ = ref::conv(q_, in);
}

Verdict SampleOracle::check(const HostTensor& got, double algorithm_factor) const {
  const ConvProblem& p = conv_problem(c_);
  Verdict finite = all_finite(got);
  if (finite.status != Status::passed) return finite;
  const HostTensor got_box = prefix_box(got, output_desc(q_));
  Verdict v = compare(got_box, expected_.value, expected_.abs_sum, expected_.desc, tolerance_for(q_, c_.fill(), algorithm_factor));
  const std::string what = p.dir == ConvDir::bwd_data ? "input" : "output";
  v.reason = "quick check, not for claims (group 0, " + what + " channels 0.." + std::to_string((p.dir == ConvDir::bwd_data ? q_.c : q_.k) - 1) +
             "; all " + std::to_string(got.desc.elements()) + " elements finite): " + v.reason;
  return v;
}

Verdict check_output(const PreparedCase& c, const HostTensor& got, VerifyMode mode, double algorithm_factor,
                     const SampleOracle* oracle) {
  const TensorDesc want = output_desc(conv_problem(c));
  if (got.desc.dims != want.dims)
    throw InputError("check_output: output dims " + got.desc.str() + " differ from the output role's " + want.str());
  switch (mode) {
    case VerifyMode::none: throw InputError("check_output: verify mode none checks nothing");
    case VerifyMode::quick:
      if (oracle) return oracle->check(got, algorithm_factor);
      return SampleOracle(c).check(got, algorithm_factor);
    case VerifyMode::full: {
      const ref::ConvOutput& exp = conv_expected(c, false);
      return compare(got, exp.value, exp.abs_sum, exp.desc, conv_tolerance(c, algorithm_factor));
    }
  }
  throw InputError("check_output: unknown verify mode");
}

}  // namespace hiprim::verify
