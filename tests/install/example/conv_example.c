/* One small convolution through the C API on the host backend, checked against a direct sum:
 * x [1, 2, 4, 4], w [3, 2, 3, 3], pad 1, stride 1 -> y [1, 3, 4, 4], NCHW fp32, small integers
 * (every sum is exact). Exit 0 when every output matches. */
#include <stdio.h>
#include <stdlib.h>

#include <hiprim/hiprim.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hiprimStatus_t s_ = (call);                                                       \
    if (s_ != hiprimStatusSuccess) {                                                  \
      fprintf(stderr, "%s: %s: %s\n", #call, hiprimGetErrorString(s_), h ? hiprimGetLastErrorMessage(h) : ""); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

enum { C = 2, K = 3, H = 4, W = 4, R = 3 };

int main(void) {
  hiprimHandle_t h = NULL;
  hiprimTensorDescriptor_t xd, wd, yd;
  hiprimConvolutionDescriptor_t cd;
  float x[C * H * W], w[K * C * R * R], y[K * H * W];
  const float one = 1, zero = 0;
  int major = -1, minor = -1, patch = -1, i, bad = 0;
  for (i = 0; i < C * H * W; ++i) x[i] = (float)(i % 5 - 2);
  for (i = 0; i < K * C * R * R; ++i) w[i] = (float)(i % 3 - 1);
  hiprimGetVersion(&major, &minor, &patch);
  CHECK(hiprimCreateWithBackend(&h, hiprimBackendHost));
  CHECK(hiprimCreateTensorDescriptor(&xd));
  CHECK(hiprimCreateTensorDescriptor(&wd));
  CHECK(hiprimCreateTensorDescriptor(&yd));
  CHECK(hiprimCreateConvolutionDescriptor(&cd));
  CHECK(hiprimSet4dTensorDescriptor(xd, hiprimFloat, 1, C, H, W));
  CHECK(hiprimSet4dTensorDescriptor(wd, hiprimFloat, K, C, R, R));
  CHECK(hiprimSet4dTensorDescriptor(yd, hiprimFloat, 1, K, H, W));
  CHECK(hiprimInitConvolutionDescriptor(cd, hiprimConvolution, 1, 1, 1, 1, 1, 1));
  CHECK(hiprimConvolutionForward(h, &one, xd, x, wd, w, cd, &zero, yd, y, NULL, 0));
  for (int k = 0; k < K; ++k)
    for (int p = 0; p < H; ++p)
      for (int q = 0; q < W; ++q) {
        float want = 0;
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < R; ++s) {
              const int iy = p - 1 + r, ix = q - 1 + s;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W) want += x[(c * H + iy) * W + ix] * w[((k * C + c) * R + r) * R + s];
            }
        if (y[(k * H + p) * W + q] != want) ++bad;
      }
  printf("hiprim %d.%d.%d, solver %s: %d of %d outputs wrong\n", major, minor, patch, hiprimGetLastSolverName(h), bad, K * H * W);
  hiprimDestroyConvolutionDescriptor(cd);
  hiprimDestroyTensorDescriptor(yd);
  hiprimDestroyTensorDescriptor(wd);
  hiprimDestroyTensorDescriptor(xd);
  hiprimDestroy(h);
  return bad == 0 && major >= 0 ? 0 : 1;
}
