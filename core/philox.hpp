// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011):
// a counter-based generator, output = bijection(counter) keyed by key, so element i's random word
// depends only on (seed, i) and is the same on the host and on any device, in any thread order.
// One round: (hi0, lo0) = M0 * c0, (hi1, lo1) = M1 * c2 (32x32 -> 64-bit products),
//   c <- (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0); then the key is bumped k0 += W0, k1 += W1.
// Ten rounds. Checked against Random123's known-answer vectors (tests/core/test_philox.cpp).
// Header-only and usable from host C++ and from HIP/CUDA device code (HIPRIM_HOST_DEVICE).
#pragma once
#include <cstdint>

#include "core/host_device.hpp"

namespace hiprim {

struct Philox4x32 {
  std::uint32_t w[4];
};

inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

HIPRIM_HOST_DEVICE inline Philox4x32 philox4x32_10(Philox4x32 c, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxM0) * c.w[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxM1) * c.w[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c = Philox4x32{{hi1 ^ c.w[1] ^ k0, lo1, hi0 ^ c.w[3] ^ k1, lo0}};
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  return c;
}

// Dropout's random word of logical element i: counter (i / 4 as two 32-bit words, 0, 0), key
// (seed low, seed high), output word i % 4 (so four consecutive elements share one evaluation).
HIPRIM_HOST_DEVICE inline std::uint32_t dropout_word(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t block = i >> 2;
  const Philox4x32 r = philox4x32_10(Philox4x32{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), 0u, 0u}},
                                     static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  return r.w[i & 3];
}

}  // namespace hiprim
