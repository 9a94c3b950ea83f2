// Division by a run-time constant without a divide instruction (Granlund & Montgomery, "Division
// by invariant integers using multiplication", PLDI 1994; the round-up variant): for a divisor
// d >= 1 let s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1 (< 2^32); then for every
// numerator 0 <= n < 2^31
//   n / d = (mulhi32(n, m) + n) >> s,   mulhi32(n, m) = floor(n m / 2^32),
// and the sum cannot overflow 32 bits. The index decoders of the op kernels use it where a
// pack index is split into coordinates (64-bit division costs tens of instructions per use).
// Host and device (tests/gpu/test_ops_math.cpp checks it against '/' on the host).
#pragma once
#include <cstdint>

#include "core/host_device.hpp"

namespace hiprim::gpu {

struct FastDiv {
  std::uint32_t d = 1, m = 1, s = 0;

  FastDiv() = default;
  // 1 <= d < 2^31 (d = 0 is treated as 1).
  explicit FastDiv(std::uint32_t divisor) : d(divisor == 0 ? 1 : divisor) {
    while ((std::uint64_t{1} << s) < d) ++s;
    m = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << s) - d)) / d + 1);
  }
  // n / d for 0 <= n < 2^31.
  HIPRIM_HOST_DEVICE std::uint32_t div(std::uint32_t n) const {
    const std::uint32_t hi = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * m) >> 32);
    return (hi + n) >> s;
  }
  // q = n / d and r = n % d.
  HIPRIM_HOST_DEVICE void divmod(std::uint32_t n, std::uint32_t& q, std::uint32_t& r) const {
    q = div(n);
    r = n - q * d;
  }
};

// Largest numerator FastDiv::div accepts, plus one.
inline constexpr std::int64_t kFastDivLimit = std::int64_t{1} << 31;

}  // namespace hiprim::gpu
