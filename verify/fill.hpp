// Seeded, deterministic tensor fills.
// Element i (its logical linear index: dims in order, last dim fastest, so a tensor gets the same
// values in every layout) holds f(h), h = hash(seed, tensor_tag, i), a counter-based splitmix64
// hash; the value of an element never depends on the order or the thread that computes it.
// Tiers:
//   exact:   integers uniform in [-r, r] (zero included, probability 1/(2r+1)). Every such integer
//            is exact in fp16/bf16/fp32, every product |a*b| <= r^2 is exact in fp32, and every
//            partial sum of an L-term dot product (+ a bias) is an integer of magnitude
//            <= L*r^2 + r; while that is <= 2^24 the fp32 accumulator holds it exactly in any
//            summation order, so the correct output rounded to the output dtype is unique.
//   bounded: reals uniform in [-1, 1) rounded (RNE) to the tensor's dtype.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::verify {

enum class FillTier { exact, bounded };

std::string_view fill_tier_name(FillTier t);  // "exact", "bounded"
std::optional<FillTier> parse_fill_tier(std::string_view s);

// Tags that keep the fills of a problem's tensors independent of each other.
inline constexpr std::uint64_t kTagX = 1, kTagW = 2, kTagY = 3, kTagBias = 4;

// Largest r in {4, 3, 2, 1} with terms*r*r + r <= 2^24; 0 when none (use the bounded tier).
int exact_fill_range(std::int64_t terms);
// Same for the problem's dot products (terms = reduction_length()).
int exact_fill_range(const ConvProblem& p);

// The counter-based hash: splitmix64 finalizer applied to seed, then tag, then i.
std::uint64_t fill_hash(std::uint64_t seed, std::uint64_t tensor_tag, std::uint64_t i);

// Value of logical element i. exact_range is r for the exact tier (ignored for bounded);
// throws InputError when the exact tier gets r < 1.
float fill_value(FillTier tier, DType dtype, std::uint64_t seed, std::uint64_t tensor_tag, std::uint64_t i,
                 int exact_range);

// Writes fill_value into every element the desc addresses (gaps of non-packed strides are left alone).
void fill(HostTensor& t, FillTier tier, std::uint64_t seed, std::uint64_t tensor_tag, int exact_range);

}  // namespace hiprim::verify
