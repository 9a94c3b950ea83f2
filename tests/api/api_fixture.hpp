// Shared by the C API tests: a host handle, descriptors, and an independent direct convolution
// (plain loops in double over packed NCHW or NHWC fp32 data, written here, not hiprim's reference).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hiprim/hiprim.h"

namespace hiprim_api_test {

struct Shape {
  int n, c, k, h, w, r, s, pad, stride, dil;
  bool nhwc;
  int p() const { return (h + 2 * pad - dil * (r - 1) - 1) / stride + 1; }
  int q() const { return (w + 2 * pad - dil * (s - 1) - 1) / stride + 1; }
};

// Offsets of [a][b][y][x] (dims a, b, H, W) in NCHW or NHWC.
inline long long at(const Shape& sh, int a, int b, int y, int x, int B, int H, int W) {
  return sh.nhwc ? ((static_cast<long long>(a) * H + y) * W + x) * B + b : ((static_cast<long long>(a) * B + b) * H + y) * W + x;
}

// y[n][k][p][q] = sum_{c,r,s} x[n][c][p*str - pad + r*dil][q*str - pad + s*dil] * w[k][c][r][s], in double.
inline std::vector<double> direct_fwd_double(const Shape& sh, const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<double> y(static_cast<std::size_t>(sh.n) * sh.k * sh.p() * sh.q());
  for (int n = 0; n < sh.n; ++n)
    for (int k = 0; k < sh.k; ++k)
      for (int p = 0; p < sh.p(); ++p)
        for (int q = 0; q < sh.q(); ++q) {
          double sum = 0;
          for (int c = 0; c < sh.c; ++c)
            for (int r = 0; r < sh.r; ++r)
              for (int s = 0; s < sh.s; ++s) {
                const int iy = p * sh.stride - sh.pad + r * sh.dil, ix = q * sh.stride - sh.pad + s * sh.dil;
                if (iy < 0 || iy >= sh.h || ix < 0 || ix >= sh.w) continue;
                sum += static_cast<double>(x[at(sh, n, c, iy, ix, sh.c, sh.h, sh.w)]) * w[at(sh, k, c, r, s, sh.c, sh.r, sh.s)];
              }
          y[at(sh, n, k, p, q, sh.k, sh.p(), sh.q())] = sum;
        }
  return y;
}

// The same rounded to fp32.
inline std::vector<float> direct_fwd(const Shape& sh, const std::vector<float>& x, const std::vector<float>& w) {
  const std::vector<double> d = direct_fwd_double(sh, x, w);
  return std::vector<float>(d.begin(), d.end());
}

// The output channel k of element i of y (dims N, K, P, Q) in sh's layout.
inline int y_channel(const Shape& sh, std::size_t i) {
  return sh.nhwc ? static_cast<int>(i % static_cast<std::size_t>(sh.k))
                 : static_cast<int>(i / (static_cast<std::size_t>(sh.p()) * sh.q()) % static_cast<std::size_t>(sh.k));
}

struct Descs {
  hiprimTensorDescriptor_t x = nullptr, w = nullptr, y = nullptr;
  hiprimConvolutionDescriptor_t conv = nullptr;
  explicit Descs(const Shape& sh) {
    hiprimCreateTensorDescriptor(&x), hiprimCreateTensorDescriptor(&w), hiprimCreateTensorDescriptor(&y);
    hiprimCreateConvolutionDescriptor(&conv);
    set(x, sh, sh.n, sh.c, sh.h, sh.w), set(w, sh, sh.k, sh.c, sh.r, sh.s), set(y, sh, sh.n, sh.k, sh.p(), sh.q());
    EXPECT_EQ(hiprimInitConvolutionDescriptor(conv, hiprimConvolution, sh.pad, sh.pad, sh.stride, sh.stride, sh.dil, sh.dil),
              hiprimStatusSuccess);
  }
  ~Descs() {
    hiprimDestroyTensorDescriptor(x), hiprimDestroyTensorDescriptor(w), hiprimDestroyTensorDescriptor(y);
    hiprimDestroyConvolutionDescriptor(conv);
  }
  static void set(hiprimTensorDescriptor_t d, const Shape& sh, int a, int b, int H, int W) {
    const int dims[4] = {a, b, H, W};
    const int nchw[4] = {b * H * W, H * W, W, 1}, nhwc[4] = {H * W * b, 1, W * b, b};
    EXPECT_EQ(hiprimSetTensorDescriptor(d, hiprimFloat, 4, dims, sh.nhwc ? nhwc : nchw), hiprimStatusSuccess);
  }
};

inline std::vector<float> integers(std::size_t n, int seed, int range = 3) {
  std::vector<float> v(n);
  std::uint32_t h = 2166136261u ^ static_cast<std::uint32_t>(seed);  // a varied, reproducible sequence in [-range, range]
  for (std::size_t i = 0; i < n; ++i) {
    h = (h ^ static_cast<std::uint32_t>(i)) * 16777619u;
    v[i] = static_cast<float>(static_cast<int>((h >> 8) % static_cast<std::uint32_t>(2 * range + 1)) - range);
  }
  return v;
}

}  // namespace hiprim_api_test
