#include "verify/fill.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace hiprim::verify {

std::string_view fill_tier_name(FillTier t) { return t == FillTier::exact ? "exact" : "bounded"; }

std::optional<FillTier> parse_fill_tier(std::string_view s) {
  if (s == "exact") return FillTier::exact;
  if (s == "bounded") return FillTier::bounded;
  return std::nullopt;
}

int exact_fill_range(std::int64_t terms) {
  constexpr std::int64_t limit = std::int64_t{1} << 24;  // integers up to 2^24 are exact in fp32
  if (terms < 0) return 0;
  for (int r = 4; r >= 1; --r)
    if (terms <= (limit - r) / (std::int64_t{r} * r)) return r;  // terms*r*r + r <= 2^24, no overflow
  return 0;
}

int exact_fill_range(const ConvProblem& p) { return exact_fill_range(p.reduction_length()); }

namespace {
// splitmix64's output function (Steele, Lea, Flood 2014): a bijective avalanche mix of 64 bits.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;  // splitmix64's increment
}  // namespace

std::uint64_t fill_hash(std::uint64_t seed, std::uint64_t tensor_tag, std::uint64_t i) {
  std::uint64_t h = mix64(seed + kGolden);
  h = mix64(h ^ (tensor_tag + 2 * kGolden));
  return mix64(h ^ (i + 3 * kGolden));
}

float fill_value(FillTier tier, DType dtype, std::uint64_t seed, std::uint64_t tensor_tag, std::uint64_t i,
                 int exact_range) {
  const std::uint64_t h = fill_hash(seed, tensor_tag, i);
  if (tier == FillTier::exact) {
    if (exact_range < 1)
      throw InputError("exact fill range r = " + std::to_string(exact_range) +
                       " must be >= 1 (the dot products are too long for exact fills: use the bounded tier)");
    const std::uint64_t width = 2 * static_cast<std::uint64_t>(exact_range) + 1;
    return static_cast<float>(static_cast<std::int64_t>(h % width) - exact_range);
  }
  // Top 53 bits -> [0, 1) exactly in double, then [-1, 1), then RNE into the dtype.
  const double unit = std::ldexp(static_cast<double>(h >> 11), -53);
  return round_to(dtype, 2.0 * unit - 1.0);
}

void fill(HostTensor& t, FillTier tier, std::uint64_t seed, std::uint64_t tensor_tag, int exact_range) {
  if (static_cast<std::int64_t>(t.data.size()) < t.desc.storage_elements())
    throw InputError("fill: tensor " + t.desc.str() + " has " + std::to_string(t.data.size()) +
                     " stored elements, fewer than its descriptor addresses");
  std::uint64_t i = 0;
  for_each_index(t.desc.dims, [&](const Dims& idx) {
    t.data[static_cast<std::size_t>(t.desc.offset(idx))] = fill_value(tier, t.desc.dtype, seed, tensor_tag, i++, exact_range);
  });
}

}  // namespace hiprim::verify
