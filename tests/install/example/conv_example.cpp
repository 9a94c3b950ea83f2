// One small convolution through the C++ wrappers (hiprim/hiprim.hpp, header-only over the C API) on
// the host backend, NHWC this time, checked against a direct sum; and one refused call whose
// exception carries the library's message. Exit 0 when all is as expected.
#include <hiprim/hiprim.hpp>

#include <cstdio>
#include <vector>

int main() {
  constexpr int C = 2, K = 3, H = 5, W = 4, R = 3;  // x [1, C, H, W] NHWC, w [K, C, R, R] NHWC, pad 1
  std::vector<float> x(C * H * W), w(K * C * R * R), y(K * H * W, -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 3) - 1);
  try {
    hiprim::Handle h(hiprimBackendHost);
    hiprim::TensorDescriptor xd(hiprimFloat, {1, C, H, W}, true), wd(hiprimFloat, {K, C, R, R}, true), yd(hiprimFloat, {1, K, H, W}, true);
    hiprim::ConvolutionDescriptor conv({1, 1}, {1, 1}, {1, 1});
    std::vector<unsigned char> ws(h.forward_workspace(xd, wd, conv, yd) + 1);
    h.convolution_forward(xd, x.data(), wd, w.data(), conv, yd, y.data(), ws.data(), ws.size());
    int bad = 0;
    for (int p = 0; p < H; ++p)
      for (int q = 0; q < W; ++q)
        for (int k = 0; k < K; ++k) {
          float want = 0;
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < R; ++s)
              for (int c = 0; c < C; ++c) {
                const int iy = p - 1 + r, ix = q - 1 + s;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W) want += x[(iy * W + ix) * C + c] * w[((k * R + r) * R + s) * C + c];
              }
          bad += y[(p * W + q) * K + k] != want;
        }
    std::printf("solver %s: %d of %d outputs wrong\n", h.last_solver().c_str(), bad, K * H * W);
    try {
      hiprim::TensorDescriptor wrong(hiprimFloat, {1, K + 1, H, W});
      h.convolution_forward(xd, x.data(), wd, w.data(), conv, wrong, y.data());
      std::printf("a mismatched y descriptor was accepted\n");
      return 1;
    } catch (const hiprim::Error& e) {
      std::printf("refused as expected: %s\n", e.what());
      if (e.status() != hiprimStatusBadParm) return 1;
    }
    return bad == 0 ? 0 : 1;
  } catch (const hiprim::Error& e) {
    std::printf("hiprim error: %s\n", e.what());
    return 1;
  }
}
