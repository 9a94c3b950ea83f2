#include "fuzz/conv_special.hpp"

#include <cmath>
#include <limits>

#include "verify/fill.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::uint64_t kSpecialSalt = 0x5BEC1A1ULL;

std::uint64_t h(std::uint64_t seed, std::uint64_t tag, std::uint64_t i) { return verify::fill_hash(seed ^ kSpecialSalt, tag, i); }

// Storage offset of logical element i (last dim fastest).
std::int64_t offset_of_linear(const TensorDesc& d, std::int64_t i) {
  std::int64_t off = 0;
  for (int k = static_cast<int>(d.dims.size()) - 1; k >= 0; --k) {
    off += (i % d.dims[k]) * d.strides[k];
    i /= d.dims[k];
  }
  return off;
}

// The direction's two main inputs; the first is the activation side (x, or dy for bwd-data).
std::pair<std::uint64_t, std::uint64_t> main_inputs(const ConvProblem& p) {
  switch (p.dir) {
    case ConvDir::fwd: return {verify::kTagX, verify::kTagW};
    case ConvDir::bwd_data: return {verify::kTagY, verify::kTagW};
    case ConvDir::bwd_weights: return {verify::kTagX, verify::kTagY};
  }
  return {verify::kTagX, verify::kTagW};
}

// How many special values tensor `tag` gets (0 for most tensors of most cases): the seed picks a
// primary input (1-2 values); the other input gets one with probability 1/3, the bias with 1/4.
// The input that always gets special values (one of main_inputs, by the seed).
std::uint64_t primary_input(const ConvProblem& p, std::uint64_t seed) {
  const auto [a, b] = main_inputs(p);
  return h(seed, 0, 1) % 2 == 0 ? a : b;
}

int special_count(const ConvProblem& p, std::uint64_t seed, std::uint64_t tag) {
  if (tag == primary_input(p, seed)) return 1 + static_cast<int>(h(seed, 0, 2) % 2);
  if (tag == verify::kTagBias) return h(seed, 0, 3) % 4 == 0 ? 1 : 0;
  return h(seed, tag, 4) % 3 == 0 ? 1 : 0;
}

// Writes value(bits) at `count` seed-chosen elements of t (salt separates the kinds' positions).
template <typename Value>
void place(std::uint64_t seed, std::uint64_t tag, HostTensor& t, int count, Value value, std::uint64_t salt) {
  const std::int64_t n = t.desc.elements();
  if (n <= 0) return;
  for (int j = 0; j < count; ++j) {
    const std::uint64_t r = h(seed, tag * 16 + salt, static_cast<std::uint64_t>(j));
    const std::int64_t i = static_cast<std::int64_t>(r % static_cast<std::uint64_t>(n));
    t.data[static_cast<std::size_t>(offset_of_linear(t.desc, i))] = value(r >> 32);
  }
}

float nan_value(std::uint64_t) { return std::numeric_limits<float>::quiet_NaN(); }
float inf_value(std::uint64_t bits) { return (bits & 1) ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity(); }

// Huge magnitudes: 2^100 (fp32, bf16) or 2^13 (fp16), times (1 + k/8), k < 8 (4 significant bits:
// exact in every dtype), with a random sign.
float huge_value(DType t, std::uint64_t bits) {
  const double base = std::ldexp(1.0, t == DType::fp16 ? 13 : 100) * (1.0 + static_cast<double>((bits >> 1) % 8) / 8.0);
  return static_cast<float>((bits & 1) ? -base : base);
}

// 2^-s such that every exact-tier integer value |v| <= 4 scaled by it is subnormal in t (and on its grid).
double subnormal_scale(DType t) {
  switch (t) {
    case DType::fp32: return std::ldexp(1.0, -135);  // 4*2^-135 = 2^-133 < 2^-126; grid 2^-149
    case DType::fp16: return std::ldexp(1.0, -22);   // 4*2^-22 = 2^-20 < 2^-14; grid 2^-24
    case DType::bf16: return std::ldexp(1.0, -130);  // 4*2^-130 = 2^-128 < 2^-126; grid 2^-133
  }
  return 1.0;
}

}  // namespace

std::string_view special_name(Special s) {
  switch (s) {
    case Special::none: return "none";
    case Special::nan: return "nan";
    case Special::inf: return "inf";
    case Special::signed_zero: return "signed_zero";
    case Special::subnormal: return "subnormal";
    case Special::huge: return "huge";
    case Special::mixed: return "mixed";
  }
  return "?";
}

std::vector<Special> all_specials() {
  return {Special::none, Special::nan, Special::inf, Special::signed_zero, Special::subnormal, Special::huge, Special::mixed};
}

std::optional<Special> parse_special(std::string_view s) {
  for (Special k : all_specials())
    if (special_name(k) == s) return k;
  return std::nullopt;
}

bool special_fits_tier(Special s, verify::FillTier tier) {
  if (s == Special::subnormal) return tier == verify::FillTier::exact;
  if (s == Special::huge) return tier == verify::FillTier::bounded;
  return true;
}

void apply_special(Special s, const ConvProblem& p, std::uint64_t seed, std::uint64_t tag, HostTensor& t) {
  switch (s) {
    case Special::none: return;
    case Special::nan: place(seed, tag, t, special_count(p, seed, tag), nan_value, 1); return;
    case Special::inf: place(seed, tag, t, special_count(p, seed, tag), inf_value, 2); return;
    case Special::signed_zero:
      for_each_index(t.desc.dims, [&](const Dims& idx) {
        const auto off = static_cast<std::size_t>(t.desc.offset(idx));
        if (h(seed, tag * 16 + 3, off) % 4 == 0) t.data[off] = -0.0f;
      });
      return;
    case Special::subnormal: {
      if (tag != main_inputs(p).first && tag != verify::kTagBias) return;
      const double scale = subnormal_scale(p.dtype);
      for (float& v : t.data) v = round_to(p.dtype, static_cast<double>(v) * scale);
      return;
    }
    case Special::huge: {
      // The primary input only: a huge value in each operand would meet in a product of 2^200,
      // past fp32 (the s19 GPU campaign drew one: conv.winograd.f2x3's transforms then gave NaN).
      if (tag != primary_input(p, seed)) return;
      const int base = special_count(p, seed, tag);
      const int count = base + (base > 0 && h(seed, tag, 5) % 2 == 0 ? 1 : 0);  // 1-3 in the primary input
      place(seed, tag, t, count, [&](std::uint64_t bits) { return huge_value(p.dtype, bits); }, 6);
      return;
    }
    case Special::mixed:
      apply_special(Special::signed_zero, p, seed, tag, t);
      apply_special(Special::inf, p, seed, tag, t);
      apply_special(Special::nan, p, seed + 1, tag, t);
      return;
  }
}

verify::Verdict judge_special(const HostTensor& got, const ref::ConvOutput& exp, const verify::Tolerance& tol) {
  // Masked copies: where the expected value is not finite both sides become 1 (equal, not a zero).
  HostTensor got_masked = got;
  std::vector<double> value = exp.value, abs_sum = exp.abs_sum;
  std::vector<verify::Element> bad;
  std::int64_t nonfinite_expected = 0, nonfinite_bad = 0;
  for_each_index(exp.desc.dims, [&](const Dims& idx) {
    const auto eo = static_cast<std::size_t>(exp.desc.offset(idx));
    const auto go = static_cast<std::size_t>(got.desc.offset(idx));
    const double e = exp.value[eo];
    const double g = got.data[go];
    if (std::isfinite(e)) return;
    ++nonfinite_expected;
    const bool ok = std::isnan(e) ? std::isnan(g) : g == e;
    if (!ok) {
      ++nonfinite_bad;
      if (bad.size() < verify::kWorstElements)
        bad.push_back({static_cast<std::int64_t>(go), idx, g, e, std::numeric_limits<double>::infinity(), 0.0});
    }
    got_masked.data[go] = 1.0f;
    value[eo] = 1.0;
    if (eo < abs_sum.size()) abs_sum[eo] = 1.0;
  });
  verify::Verdict v = verify::compare(got_masked, value, abs_sum, exp.desc, tol);
  if (nonfinite_bad == 0) {
    if (nonfinite_expected > 0 && v.status == verify::Status::passed)
      v.reason += "; " + std::to_string(nonfinite_expected) + " NaN/Inf outputs where expected";
    return v;
  }
  const verify::Element& first = bad.front();
  auto fmt = [](double d) {
    char b[48];
    std::snprintf(b, sizeof b, "%.9g", d);
    return std::string(b);
  };
  v.status = verify::Status::failed;
  v.reason = std::to_string(nonfinite_bad) + " of " + std::to_string(nonfinite_expected) +
             " outputs expected NaN/Inf (a NaN/Inf term, or a multiplied implicit zero meeting one) are wrong; at " + verify::index_string(first.index) + ": got " +
             fmt(first.got) + ", expected " + fmt(first.expected) + (v.metrics.mismatches > 0 ? "; and " + v.reason : std::string());
  v.metrics.mismatches += nonfinite_bad;
  v.metrics.nonfinite_mismatches += nonfinite_bad;
  v.metrics.max_abs_error = std::numeric_limits<double>::infinity();
  v.metrics.worst_ratio = std::numeric_limits<double>::infinity();
  bad.insert(bad.end(), v.metrics.worst.begin(), v.metrics.worst.end());
  if (bad.size() > verify::kWorstElements) bad.resize(verify::kWorstElements);
  v.metrics.worst = std::move(bad);
  return v;
}

}  // namespace hiprim::fuzz
