// RapidCheck building blocks shared by the fuzz generators (conv_gen.cpp, op_gen_*.cpp): weighted
// choices, corner-biased sizes and case seeds, each shrinking toward its simplest value.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include <rapidcheck/Gen.h>
#include <rapidcheck/Random.h>
#include <rapidcheck/gen/Create.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

namespace hiprim::fuzz {

// One of the choices with probability proportional to its weight; shrinks toward choices[0].
template <typename T>
rc::Gen<T> pick(std::vector<std::pair<int, T>> choices) {
  if (choices.size() == 1) return rc::gen::just(choices[0].second);
  return rc::Gen<T>([choices](const rc::Random& random, int) {
    rc::Random r = random;
    int total = 0;
    for (auto& c : choices) total += c.first;
    auto x = static_cast<int>(r.next() % static_cast<std::uint64_t>(total));
    std::size_t idx = 0;
    while (x >= choices[idx].first) x -= choices[idx++].first;
    return rc::shrinkable::map(rc::shrinkable::shrinkRecur(idx, [](std::size_t i) { return rc::shrink::towards<std::size_t>(i, 0); }),
                               [choices](std::size_t i) { return choices[i].second; });
  });
}

// true with percent_on % probability; shrinks to false.
rc::Gen<bool> flag(int percent_on);

// Equal weights over a non-empty list (first = simplest).
template <typename T>
rc::Gen<T> any_of(const std::vector<T>& v) {
  std::vector<std::pair<int, T>> c;
  for (const T& x : v) c.push_back({1, x});
  return pick(c);
}

// Weighted choices up to a cap (the first always kept).
rc::Gen<std::int64_t> capped(std::vector<std::pair<int, std::int64_t>> c, std::int64_t cap);

bool is_prime(std::int64_t v);

// The tile sizes and their neighbours corner_size draws from by default (vector, warp, tile edges).
const std::vector<std::int64_t>& default_tile_sizes();

// Sizes in [lo, top], top = lo + (hi-lo)*size/100: lo itself (12%: a size-1 dim when lo = 1), small
// primes (33%), tile sizes and their neighbours (`tiles` within [lo, top]; 15%), odd sizes (10%), or
// uniform (30%; also the fallback of an empty pool). Shrinks toward lo.
rc::Gen<std::int64_t> corner_size(std::int64_t lo, std::int64_t hi, const std::vector<std::int64_t>& tiles = default_tile_sizes());

// A fill seed in [1, 2^31); shrinks toward 1.
rc::Gen<std::uint64_t> seed_gen();

}  // namespace hiprim::fuzz
