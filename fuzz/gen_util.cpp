#include "fuzz/gen_util.hpp"

#include <algorithm>

namespace hiprim::fuzz {

rc::Gen<bool> flag(int percent_on) { return pick<bool>({{100 - percent_on, false}, {percent_on, true}}); }

rc::Gen<std::int64_t> capped(std::vector<std::pair<int, std::int64_t>> c, std::int64_t cap) {
  std::vector<std::pair<int, std::int64_t>> keep;
  for (auto& x : c)
    if (keep.empty() || x.second <= cap) keep.push_back(x);
  return pick(keep);
}

bool is_prime(std::int64_t v) {
  if (v < 2) return false;
  for (std::int64_t d = 2; d * d <= v; ++d)
    if (v % d == 0) return false;
  return true;
}

const std::vector<std::int64_t>& default_tile_sizes() {
  static const std::vector<std::int64_t> t{7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};
  return t;
}

rc::Gen<std::int64_t> corner_size(std::int64_t lo, std::int64_t hi, const std::vector<std::int64_t>& tiles) {
  return rc::Gen<std::int64_t>([lo, hi, tiles](const rc::Random& random, int size) {
    rc::Random r = random;
    const std::int64_t top = std::max(lo, lo + (hi - lo) * std::clamp(size, 10, 100) / 100);
    auto uniform = [&](std::int64_t a, std::int64_t b) { return a + static_cast<std::int64_t>(r.next() % static_cast<std::uint64_t>(b - a + 1)); };
    std::vector<std::int64_t> pool;
    const int kind = static_cast<int>(r.next() % 100);
    if (kind >= 12 && kind < 45) {
      for (std::int64_t v = lo; v <= top; ++v)
        if (is_prime(v)) pool.push_back(v);
    } else if (kind >= 45 && kind < 60) {
      for (std::int64_t v : tiles)
        if (v >= lo && v <= top) pool.push_back(v);
    } else if (kind >= 60 && kind < 70) {
      for (std::int64_t v = lo; v <= top; ++v)
        if (v % 2 == 1) pool.push_back(v);
    }
    std::int64_t v = lo;
    if (!pool.empty()) v = pool[static_cast<std::size_t>(r.next() % pool.size())];
    else if (kind >= 70) v = uniform(lo, top);
    return rc::shrinkable::shrinkRecur(v, [lo](std::int64_t x) { return rc::shrink::towards<std::int64_t>(x, lo); });
  });
}

rc::Gen<std::uint64_t> seed_gen() {
  return rc::Gen<std::uint64_t>([](const rc::Random& random, int) {
    rc::Random r = random;
    const std::uint64_t v = 1 + r.next() % ((std::uint64_t{1} << 31) - 1);
    return rc::shrinkable::shrinkRecur(v, [](std::uint64_t x) { return rc::shrink::towards<std::uint64_t>(x, 1); });
  });
}

}  // namespace hiprim::fuzz
