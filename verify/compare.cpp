#include "verify/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <limits>
#include <thread>

#include "core/error.hpp"
#include "reference/error_model.hpp"

// Bounded tier: element_bound() is ref::stored_sum_bound (the derivation is in
// reference/error_model.hpp) with L = reduction_length and f = algorithm_factor (2 for tensor-core
// adders that may truncate).
// Exact tier: partial sums are integers <= 2^24 (see fill.hpp), so s = y = e exactly and the
// stored value is round_to(out_dtype, e) (RNE), the same rounding a kernel storing its fp32
// accumulator performs; the check is equality.

namespace hiprim::verify {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::mistrusted: return "mistrusted";
    case Status::unsupported: return "unsupported";
    case Status::error: return "error";
  }
  return "?";
}

std::optional<Status> parse_status(std::string_view s) {
  for (Status v : {Status::passed, Status::failed, Status::mistrusted, Status::unsupported, Status::error})
    if (status_name(v) == s) return v;
  return std::nullopt;
}

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pow2_string(double v) {
  return v == 0.0 ? std::string("0") : "2^" + std::to_string(std::ilogb(v));
}

// Ordering of the worst list: larger error/bound first, then larger error.
bool worse(const Element& a, double ra, const Element& b, double rb) {
  if (ra != rb) return ra > rb;
  return a.error > b.error;
}

struct WorstList {
  std::vector<Element> items;
  std::vector<double> ratios;
  // Whether an element of this ratio and error would enter the list (checked before building one).
  bool would_take(double ratio, double error) const {
    if (items.size() < kWorstElements) return true;
    return ratio != ratios.back() ? ratio > ratios.back() : error > items.back().error;
  }
  void offer(Element e, double ratio) {
    std::size_t pos = items.size();
    while (pos > 0 && worse(e, ratio, items[pos - 1], ratios[pos - 1])) --pos;
    if (pos >= kWorstElements) return;
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(pos), std::move(e));
    ratios.insert(ratios.begin() + static_cast<std::ptrdiff_t>(pos), ratio);
    if (items.size() > kWorstElements) {
      items.pop_back();
      ratios.pop_back();
    }
  }
};

std::string element_string(const Element& e) {
  return "at " + index_string(e.index) + ": got " + fmt("%.9g", e.got) + ", expected " + fmt("%.12g", e.expected) +
         ", |error| " + fmt("%.3g", e.error) + " > bound " + fmt("%.3g", e.bound);
}

void check_same_dims(const TensorDesc& a, const TensorDesc& b, const char* what) {
  if (a.dims != b.dims)
    throw InputError(std::string(what) + ": tensor " + a.str() + " and tensor " + b.str() + " have different dims");
}

}  // namespace

std::string index_string(const Dims& index) {
  std::string s = "[";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(index[i]);
  }
  return s + "]";
}

double zero_fraction(const std::vector<double>& values, const TensorDesc& desc) {
  std::int64_t zeros = 0, n = 0;
  for_each_index(desc.dims, [&](const Dims& idx) {
    ++n;
    if (values[static_cast<std::size_t>(desc.offset(idx))] == 0.0) ++zeros;
  });
  return n ? static_cast<double>(zeros) / static_cast<double>(n) : 0.0;
}

std::string Tolerance::describe() const {
  const std::string out = std::string(dtype_name(out_dtype));
  if (tier == FillTier::exact) return "exact: got == round_to(" + out + ", expected) (RNE), fp32 accumulation";
  const std::string sum = input_unit > 0 ? "eta+" + fmt("%g", algorithm_factor) + "*gamma(" + std::to_string(reduction_length) + ")*(1+eta)"
                                         : fmt("%g", algorithm_factor) + "*gamma(" + std::to_string(reduction_length) + ")";
  return "bounded: |got-expected| <= (1+u_out)*(" + sum + "+gamma_d)*abs_sum + u_out*|expected| + eta_out; u=2^-24 (fp32 accumulation), out " +
         out + " u_out=" + pow2_string(ref::store_unit(out_dtype)) + " eta_out=" + pow2_string(ref::store_underflow(out_dtype)) +
         (input_unit > 0 ? "; inputs rounded before the products by u_in=" + pow2_string(input_unit) + ", eta=(1+u_in)^2-1 (" +
                                (input_unit == ref::kUnitTf32Truncated || input_unit == ref::kUnitTf32Nearest ? "TF32" : "Winograd's 16-bit transformed operands") + ")"
                          : "");
}

Tolerance tolerance_for(const ConvProblem& p, FillTier tier, double algorithm_factor) {
  Tolerance t;
  t.tier = tier;
  t.out_dtype = p.dtype;
  t.reduction_length = p.reduction_length() + (p.bias && p.dir == ConvDir::fwd ? 1 : 0);
  t.algorithm_factor = algorithm_factor;
  return t;
}

double element_bound(const Tolerance& tol, double expected, double abs_sum) {
  if (tol.tier == FillTier::exact) return 0.0;
  return ref::stored_sum_bound(tol.out_dtype, tol.reduction_length, tol.algorithm_factor, expected, abs_sum, tol.input_unit);
}

namespace {

// One slab's share of the scan (indices with first component in [lo, hi)); merged in slab order.
struct ScanPart {
  Metrics m;
  WorstList worst;
  double sum_sq_err = 0, sum_sq_exp = 0;
  std::int64_t zeros = 0;
};

template <typename ExpectedOf, typename BoundOf>
void scan_slab(ScanPart& out, const HostTensor& got, const TensorDesc& desc, DType od, bool nan_matches_nan,
               const ExpectedOf& expected_of, const BoundOf& bound_of, std::int64_t lo, std::int64_t hi) {
  const double inf = std::numeric_limits<double>::infinity();
  ScanPart part;  // local, so that the threads' counters share no cache line
  Metrics& m = part.m;
  for_each_index_in(desc.dims, lo, hi, [&](const Dims& idx) {
    const std::int64_t eo = desc.offset(idx), go = got.desc.offset(idx);
    const double g = got.data[static_cast<std::size_t>(go)];
    const double e = expected_of(eo);
    const float rounded = round_to(od, e);
    ++m.checked;
    if (e == 0.0) ++part.zeros;
    double err, bound, ratio;
    bool bad;
    if (!std::isfinite(g) || !std::isfinite(e)) {
      const bool both_nan = std::isnan(g) && std::isnan(e);
      bad = !((static_cast<float>(g) == rounded && !std::isnan(g)) || (nan_matches_nan && both_nan));
      err = bad ? inf : 0.0;
      bound = 0.0;
      ratio = bad ? inf : 0.0;
      if (bad && !std::isfinite(g)) ++m.nonfinite_mismatches;
    } else {
      err = std::fabs(g - e);
      bound = bound_of(eo, e);
      ratio = err == 0.0 ? 0.0 : bound > 0.0 ? err / bound : inf;
      bad = err > bound;
    }
    if (bad) ++m.mismatches;
    m.max_abs_error = std::max(m.max_abs_error, err);
    m.max_rel_error = std::max(m.max_rel_error, e != 0.0 && std::isfinite(e) ? err / std::fabs(e) : err > 0 ? inf : 0.0);
    m.worst_ratio = std::max(m.worst_ratio, ratio);
    if (!(std::isnan(g) && std::isnan(e))) m.max_ulp = std::max(m.max_ulp, ulp_distance(od, static_cast<float>(g), rounded));
    part.sum_sq_err += err * err;
    if (std::isfinite(e)) part.sum_sq_exp += e * e;
    if (err > 0.0 && part.worst.would_take(ratio, err)) part.worst.offer(Element{go, idx, g, e, err, bound}, ratio);
  });
  out = std::move(part);
}

// The metric scan shared by compare() and compare_with_bounds(): for every element of desc,
// expected_of(storage offset) is the value to compare against and bound_of(offset, expected) its
// allowed |error|. A non-finite got or expected agrees only when got is the same infinity the
// expected value rounds to, or (nan_matches_nan) when both are NaN. Large tensors are scanned in
// slabs of the outermost dimension on several threads; the slabs merge in order, so counts, maxima
// and the worst list are those of one sequential scan (the sums of squares may differ in the last bits).
template <typename ExpectedOf, typename BoundOf>
Metrics scan_elements(const HostTensor& got, const TensorDesc& desc, DType od, bool nan_matches_nan, ExpectedOf expected_of,
                      BoundOf bound_of) {
  const std::int64_t outer = desc.dims.empty() ? 1 : desc.dims[0];
  const std::int64_t per_slab = outer > 0 ? desc.elements() / outer : 0;
  constexpr std::int64_t kElementsPerThread = std::int64_t{1} << 20;
  const std::int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t threads = desc.dims.empty() || per_slab == 0
                                   ? 1
                                   : std::clamp<std::int64_t>(desc.elements() / kElementsPerThread, 1, std::min(hw, outer));
  std::vector<ScanPart> parts(static_cast<std::size_t>(threads));
  auto slab = [&](std::int64_t t) {
    scan_slab(parts[static_cast<std::size_t>(t)], got, desc, od, nan_matches_nan, expected_of, bound_of, outer * t / threads,
              outer * (t + 1) / threads);
  };
  if (threads == 1) {
    slab(0);
  } else {
    std::vector<std::thread> pool;
    for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(slab, t);
    slab(0);
    for (auto& th : pool) th.join();
  }
  Metrics m;
  WorstList worst;
  double sum_sq_err = 0, sum_sq_exp = 0;
  std::int64_t zeros = 0;
  for (ScanPart& p : parts) {
    m.checked += p.m.checked;
    m.mismatches += p.m.mismatches;
    m.nonfinite_mismatches += p.m.nonfinite_mismatches;
    m.max_abs_error = std::max(m.max_abs_error, p.m.max_abs_error);
    m.max_rel_error = std::max(m.max_rel_error, p.m.max_rel_error);
    m.worst_ratio = std::max(m.worst_ratio, p.m.worst_ratio);
    m.max_ulp = std::max(m.max_ulp, p.m.max_ulp);
    sum_sq_err += p.sum_sq_err;
    sum_sq_exp += p.sum_sq_exp;
    zeros += p.zeros;
    for (std::size_t i = 0; i < p.worst.items.size(); ++i)
      if (worst.would_take(p.worst.ratios[i], p.worst.items[i].error)) worst.offer(std::move(p.worst.items[i]), p.worst.ratios[i]);
  }
  const double inf = std::numeric_limits<double>::infinity();
  m.rms_rel_error = sum_sq_err == 0.0 ? 0.0 : sum_sq_exp > 0.0 ? std::sqrt(sum_sq_err / sum_sq_exp) : inf;
  m.zero_fraction = m.checked ? static_cast<double>(zeros) / static_cast<double>(m.checked) : 0.0;
  m.worst = std::move(worst.items);
  return m;
}

// Failed (with the worst element) when anything mismatched; else nullopt.
std::optional<Verdict> failed_verdict(Metrics& m) {
  if (m.mismatches == 0) return std::nullopt;
  Verdict v;
  v.status = Status::failed;
  v.reason = std::to_string(m.mismatches) + " of " + std::to_string(m.checked) + " elements exceed the tolerance";
  if (m.nonfinite_mismatches) v.reason += " (" + std::to_string(m.nonfinite_mismatches) + " non-finite)";
  v.reason += "; worst " + element_string(m.worst.front());
  v.metrics = std::move(m);
  return v;
}

void check_got(const HostTensor& got, const TensorDesc& desc, DType od, const char* what) {
  check_same_dims(got.desc, desc, what);
  if (got.desc.dtype != od)
    throw InputError(std::string(what) + ": got tensor " + got.desc.str() + " is not of the output dtype " + std::string(dtype_name(od)));
  if (got.data.size() < static_cast<std::size_t>(got.desc.storage_elements()))
    throw InputError(std::string(what) + ": got tensor " + got.desc.str() + " stores fewer elements than it addresses");
}

void check_size(const std::vector<double>& v, const TensorDesc& desc, const char* what, const char* name) {
  const auto need = static_cast<std::size_t>(desc.storage_elements());
  if (v.size() < need)
    throw InputError(std::string(what) + ": " + name + " has " + std::to_string(v.size()) + " values, fewer than the " +
                     std::to_string(need) + " its desc " + desc.str() + " addresses");
}

}  // namespace

Verdict compare(const HostTensor& got, const std::vector<double>& expected, const std::vector<double>& abs_sum,
                const TensorDesc& expected_desc, const Tolerance& tol) {
  check_got(got, expected_desc, tol.out_dtype, "compare");
  check_size(expected, expected_desc, "compare", "expected");
  if (tol.tier == FillTier::bounded) check_size(abs_sum, expected_desc, "compare", "abs_sum (the bounded tier needs it)");
  const DType od = tol.out_dtype;
  const bool exact = tol.tier == FillTier::exact;
  Metrics m = scan_elements(
      got, expected_desc, od, /*nan_matches_nan=*/false,
      [&](std::int64_t eo) {
        const double e_raw = expected[static_cast<std::size_t>(eo)];
        return exact ? static_cast<double>(round_to(od, e_raw)) : e_raw;
      },
      [&](std::int64_t eo, double e) { return exact ? 0.0 : element_bound(tol, e, abs_sum[static_cast<std::size_t>(eo)]); });
  if (auto f = failed_verdict(m)) return *f;
  Verdict v;
  if (m.zero_fraction > kMistrustZeroFraction) {
    v.status = Status::mistrusted;
    v.reason = fmt("%.1f", 100.0 * m.zero_fraction) + "% of the " + std::to_string(m.checked) +
               " expected values are zero (more than " + fmt("%.0f", 100.0 * kMistrustZeroFraction) +
               "%): a mostly-zero output cannot show wrong indexing";
  } else {
    v.status = Status::passed;
    v.reason = exact ? std::to_string(m.checked) + " elements equal the correctly rounded result"
                     : std::to_string(m.checked) + " elements within the bound (worst error/bound " + fmt("%.3g", m.worst_ratio) + ")";
  }
  v.metrics = std::move(m);
  return v;
}

Verdict compare_with_bounds(const HostTensor& got, const std::vector<double>& expected, const std::vector<double>& bound,
                            const TensorDesc& desc, DType out_dtype) {
  check_got(got, desc, out_dtype, "compare_with_bounds");
  check_size(expected, desc, "compare_with_bounds", "expected");
  check_size(bound, desc, "compare_with_bounds", "bound");
  Metrics m = scan_elements(
      got, desc, out_dtype, /*nan_matches_nan=*/true, [&](std::int64_t eo) { return expected[static_cast<std::size_t>(eo)]; },
      [&](std::int64_t eo, double) { return bound[static_cast<std::size_t>(eo)]; });
  if (auto f = failed_verdict(m)) return *f;
  Verdict v;
  v.status = Status::passed;
  v.reason = std::to_string(m.checked) + " elements within their bounds (worst error/bound " + fmt("%.3g", m.worst_ratio) + ")";
  v.metrics = std::move(m);
  return v;
}

Verdict compare_bitwise(const HostTensor& a, const HostTensor& b) {
  check_same_dims(a.desc, b.desc, "compare_bitwise");
  if (a.desc.dtype != b.desc.dtype)
    throw InputError("compare_bitwise: dtypes differ (" + std::string(dtype_name(a.desc.dtype)) + " vs " +
                     std::string(dtype_name(b.desc.dtype)) + ")");
  Metrics m;
  // Fast path (the runner's determinism check of large outputs): the same packed layout and the
  // same bits everywhere; any difference falls through to the element walk that reports it.
  if (a.desc.strides == b.desc.strides && a.desc.storage_elements() == a.desc.elements() && a.data.size() == b.data.size() &&
      std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0) {
    m.checked = a.desc.elements();
    Verdict v;
    v.status = Status::passed;
    v.reason = "the two runs are bitwise identical in all " + std::to_string(m.checked) + " elements";
    v.metrics = std::move(m);
    return v;
  }
  for_each_index(a.desc.dims, [&](const Dims& idx) {
    const std::int64_t ao = a.desc.offset(idx);
    const float x = a.data[static_cast<std::size_t>(ao)], y = b.data[static_cast<std::size_t>(b.desc.offset(idx))];
    ++m.checked;
    if (std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y)) return;
    ++m.mismatches;
    const double err = std::isfinite(x) && std::isfinite(y) ? std::fabs(double(x) - double(y))
                                                            : std::numeric_limits<double>::infinity();
    if (!std::isfinite(x) || !std::isfinite(y)) ++m.nonfinite_mismatches;
    m.max_abs_error = std::max(m.max_abs_error, err);
    m.max_ulp = std::max(m.max_ulp, ulp_distance(a.desc.dtype, x, y));
    if (m.worst.size() < kWorstElements) m.worst.push_back(Element{ao, idx, x, y, err, 0.0});
  });
  Verdict v;
  if (m.mismatches == 0) {
    v.status = Status::passed;
    v.reason = "the two runs are bitwise identical in all " + std::to_string(m.checked) + " elements";
  } else {
    const Element& f = m.worst.front();
    v.status = Status::failed;
    v.reason = "the two runs differ in " + std::to_string(m.mismatches) + " of " + std::to_string(m.checked) +
               " elements; first at " + index_string(f.index) + ": " + fmt("%.9g", f.got) + " vs " + fmt("%.9g", f.expected);
  }
  v.metrics = std::move(m);
  return v;
}

}  // namespace hiprim::verify
