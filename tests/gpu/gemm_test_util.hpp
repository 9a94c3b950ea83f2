// Helpers of the GEMM and GEMM-conv tests: integer fills, dtype encoding, device round trips.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/dtype.hpp"
#include "gpu/runtime/device.hpp"

namespace hiprim::test_gemm {

// Whole numbers in [-2, 2]: every product is in [-4, 4], so a dot product of length L has
// |sum| <= 4L, exact in fp32 (and in every partial sum) while 4L < 2^24 — the exact tier.
inline float small_int(std::mt19937& rng) { return static_cast<float>(static_cast<int>(rng() % 5) - 2); }

inline std::vector<unsigned char> encode(DType t, const std::vector<float>& v) {
  std::vector<unsigned char> bytes(v.size() * dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) store_element(t, bytes.data() + i * dtype_size(t), v[i]);
  return bytes;
}

inline std::vector<float> decode(DType t, const std::vector<unsigned char>& bytes) {
  std::vector<float> v(bytes.size() / dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_element(t, bytes.data() + i * dtype_size(t));
  return v;
}

// Skips the calling test (returns true) when no GPU can be used.
#define HIPRIM_SKIP_WITHOUT_GPU()                                     \
  do {                                                                \
    std::string why_no_gpu;                                           \
    if (!::hiprim::gpu::device_available(&why_no_gpu)) GTEST_SKIP() << why_no_gpu; \
  } while (0)

// Device buffer of `bytes` followed by kGuardBytes of guard, all poisoned with 0xFF (NaN in every
// dtype); guard_intact() says whether the guard still holds only 0xFF after a kernel ran.
inline constexpr std::size_t kGuardBytes = 256;
struct GuardedBuffer {
  gpu::DeviceBuffer buf;
  std::size_t bytes = 0;
  GuardedBuffer(std::size_t n, const std::string& what) : buf(n + kGuardBytes, what), bytes(n) { buf.fill_bytes(0xFF); }
  void* data() const { return buf.data(); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> h(bytes);
    buf.download(h.data(), bytes);
    return h;
  }
  bool guard_intact() const {
    std::vector<unsigned char> g(kGuardBytes);
    buf.download(g.data(), kGuardBytes, bytes);
    for (unsigned char c : g)
      if (c != 0xFF) return false;
    return true;
  }
};

// Exact-tier comparison: got must equal expected (already rounded to the dtype) and not be NaN.
inline bool exact_equal(float got, float expected) { return !std::isnan(got) && got == expected; }

}  // namespace hiprim::test_gemm
