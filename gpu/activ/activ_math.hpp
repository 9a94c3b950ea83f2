// The activation functions and their derivatives as the GPU solver evaluates them: fp32 math on
// the stored input, one formula per mode, written to avoid overflow and cancellation:
//   logistic  1 / (1 + e^-x)                   d: e / (1 + e)^2, e = e^-|x| (f' is even)
//   tanh      beta * tanh(alpha x)             d: alpha*beta * 4e / (1 + e)^2, e = e^(-2|alpha x|)
//   softrelu  max(x, 0) + log1p(e^-|x|)        d: logistic(x)
//   power     (alpha + beta x)^gamma           d: gamma*beta * (alpha + beta x)^(gamma - 1)
//   elu       x > 0 ? x : alpha * expm1(x)     d: x > 0 ? 1 : alpha * e^x
//   gelu      x/2 * (1 + erf(x / sqrt 2))      d: (1 + erf(x / sqrt 2))/2 + x * e^(-x^2/2) / sqrt(2 pi)
//   gelu_tanh x/2 * (1 + tanh(z)), z = sqrt(2/pi) (x + 0.044715 x^3)
//             d: (1 + tanh z)/2 + x/2 * sech^2(z) * sqrt(2/pi) (1 + 3*0.044715 x^2), sech^2 as for tanh
//   silu      x * s, s = logistic(x)           d: s + x s (1 - s), s and 1 - s from e = e^-|x|
//   passthru, relu, abs, clippedrelu, leakyrelu: exact comparisons/selections (leakyrelu: one product).
// +-Inf inputs take the limits (gelu(-inf) = silu(-inf) = 0, derivatives 0 or 1); NaN propagates.
// HIPRIM_HOST_DEVICE: the same code runs on the host in tests (tests/gpu/test_ops_math.cpp), which
// checks it against the CPU reference's bounds with the host's libm.
#pragma once
#include <math.h>

#include "core/host_device.hpp"

namespace hiprim::gpu {

// Mode numbers: hiprim::ActivMode's order.
enum ActivModeId : int {
  kActPassthru, kActLogistic, kActTanh, kActRelu, kActSoftrelu, kActAbs, kActPower, kActClippedRelu,
  kActLeakyRelu, kActElu, kActGelu, kActGeluTanh, kActSilu
};

struct ActivCoeffs {
  float alpha, beta, gamma;
};

HIPRIM_HOST_DEVICE inline bool activ_isnan(float x) { return x != x; }
HIPRIM_HOST_DEVICE inline bool activ_isinf(float x) { return x - x != 0.0f && !activ_isnan(x); }

// e / (1 + e)^2 for e in [0, 1]
HIPRIM_HOST_DEVICE inline float activ_bell(float e) {
  const float d = 1.0f + e;
  return e / (d * d);
}

HIPRIM_HOST_DEVICE inline float activ_fwd(int mode, float x, ActivCoeffs k) {
  switch (mode) {
    case kActPassthru: return x;
    case kActLogistic: return 1.0f / (1.0f + expf(-x));
    case kActTanh: return k.beta * tanhf(k.alpha * x);
    case kActRelu: return x > 0.0f ? x : (activ_isnan(x) ? x : 0.0f);
    case kActSoftrelu: return (activ_isnan(x) ? x : fmaxf(x, 0.0f)) + log1pf(expf(-fabsf(x)));
    case kActAbs: return fabsf(x);
    case kActPower: return powf(k.alpha + k.beta * x, k.gamma);
    case kActClippedRelu: return activ_isnan(x) ? x : fminf(k.alpha, fmaxf(x, 0.0f));
    case kActLeakyRelu: return x > 0.0f ? x : k.alpha * x;
    case kActElu: return x > 0.0f ? x : k.alpha * expm1f(x);
    case kActGelu:
      if (activ_isinf(x)) return x > 0.0f ? x : 0.0f;
      return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case kActGeluTanh: {
      if (activ_isinf(x)) return x > 0.0f ? x : 0.0f;
      const float z = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + tanhf(z));
    }
    case kActSilu:
      if (activ_isinf(x)) return x > 0.0f ? x : 0.0f;
      return x / (1.0f + expf(-x));
  }
  return x;
}

// f'(x) (times dy by the caller).
HIPRIM_HOST_DEVICE inline float activ_derivative(int mode, float x, ActivCoeffs k) {
  if (activ_isnan(x)) return x;
  switch (mode) {
    case kActPassthru: return 1.0f;
    case kActLogistic: return activ_bell(expf(-fabsf(x)));
    case kActTanh: return k.alpha * k.beta * 4.0f * activ_bell(expf(-2.0f * fabsf(k.alpha * x)));
    case kActRelu: return x > 0.0f ? 1.0f : 0.0f;
    case kActSoftrelu: return 1.0f / (1.0f + expf(-x));
    case kActAbs: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
    case kActPower: return k.gamma * k.beta * powf(k.alpha + k.beta * x, k.gamma - 1.0f);
    case kActClippedRelu: return (x > 0.0f && x < k.alpha) ? 1.0f : 0.0f;
    case kActLeakyRelu: return x > 0.0f ? 1.0f : k.alpha;
    case kActElu: return x > 0.0f ? 1.0f : k.alpha * expf(x);
    case kActGelu:
      if (activ_isinf(x)) return x > 0.0f ? 1.0f : 0.0f;
      return 0.5f * (1.0f + erff(x * 0.70710678118654752f)) + x * expf(-0.5f * x * x) * 0.39894228040143268f;
    case kActGeluTanh: {
      if (activ_isinf(x)) return x > 0.0f ? 1.0f : 0.0f;
      const float z = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      const float sech2 = 4.0f * activ_bell(expf(-2.0f * fabsf(z)));
      // sech^2 = 0 (|z| > 44): the second term is 0 (x * x may already be inf).
      const float t2 = sech2 == 0.0f ? 0.0f : 0.5f * x * sech2 * 0.79788456080286536f * (1.0f + 0.134145f * x * x);
      return 0.5f * (1.0f + tanhf(z)) + t2;
    }
    case kActSilu: {
      if (activ_isinf(x)) return x > 0.0f ? 1.0f : 0.0f;
      const float e = expf(-fabsf(x)), inv = 1.0f / (1.0f + e);
      const float s = x >= 0.0f ? inv : e * inv, one_minus_s = x >= 0.0f ? e * inv : inv;
      return s + x * s * one_minus_s;
    }
  }
  return 1.0f;
}

}  // namespace hiprim::gpu
