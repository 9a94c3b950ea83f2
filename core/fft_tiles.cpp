#include "core/fft_tiles.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"  // winograd_fwd_equivalent: bwd-data as a fwd convolution

namespace hiprim {
namespace {

int log2_exact(int t) {
  int l = 0;
  while ((1 << l) < t) ++l;
  if (t < 4 || (1 << l) != t) throw InputError("FFT size " + std::to_string(t) + " is not a power of two >= 4");
  return l;
}

}  // namespace

FftTiling fft_tiling(const ConvProblem& problem, int t) {
  if (problem.rank() != 2) throw InputError("fft_tiling: a 2D problem, not " + to_string(problem));
  const ConvProblem p = winograd_fwd_equivalent(problem);  // bwd-data: dy in, dx out
  FftTiling g;
  g.t = t;
  g.log2t = log2_exact(t);
  g.out_h = t - static_cast<int>(p.filter[0]) + 1;
  g.out_w = t - static_cast<int>(p.filter[1]) + 1;
  if (g.out_h < 1 || g.out_w < 1) throw InputError("fft_tiling: filter larger than the transform in " + to_string(p));
  const Dims out = p.out();
  g.tiles_h = static_cast<int>((out[0] + g.out_h - 1) / g.out_h);
  g.tiles_w = static_cast<int>((out[1] + g.out_w - 1) / g.out_w);
  g.tiles = p.n * g.tiles_h * g.tiles_w;
  return g;
}

std::string fft_conv_refusal(const ConvProblem& p, int t) {
  if (!p.valid()) return "invalid problem";
  if (p.dtype != DType::fp32) return "fp32 only";
  if (p.mode != ConvMode::conv || p.dir == ConvDir::bwd_weights) return "fwd or bwd-data convolution (mode conv) only";
  if (p.rank() != 2) return "2D only";
  if (p.groups != 1) return "groups 1 only";
  if (p.stride[0] != 1 || p.stride[1] != 1 || p.dilation[0] != 1 || p.dilation[1] != 1) return "stride 1, dilation 1 only";
  if (p.bias) return "no bias";
  if (p.math != ConvMath::exact) return "math=tf32: no TF32 path (exact fp32 only)";
  for (int i = 0; i < 2; ++i) {
    if (p.filter[i] < 2 || p.filter[i] > t - 1)
      return "filter " + std::to_string(p.filter[0]) + "x" + std::to_string(p.filter[1]) + " outside 2.." + std::to_string(t - 1) +
             " for a " + std::to_string(t) + "x" + std::to_string(t) + " transform";
    if (p.pad[i] >= p.filter[i])
      return (p.dir == ConvDir::bwd_data ? "bwd-data with pad " : "pad ") + std::to_string(p.pad[0]) + "x" + std::to_string(p.pad[1]) +
             " not below the filter" + (p.dir == ConvDir::bwd_data ? " (the equivalent fwd convolution would need a negative pad)" : "");
  }
  return "";
}

FftTwiddleTable fft_twiddles(int t) {
  (void)log2_exact(t);
  FftTwiddleTable tw;
  const double pi = std::acos(-1.0);
  for (int k = 0; k < t / 2; ++k) {
    // By quadrant, from an angle in [0, pi/4]... [0, pi/2]: cos and sin of 2 pi k / t, exact at k = 0, t/4.
    double c, s;
    if (4 * k == t) {
      c = 0, s = 1;
    } else if (4 * k < t) {
      c = std::cos(2 * pi * k / t), s = std::sin(2 * pi * k / t);
    } else {
      const int q = t / 2 - k;  // angle pi - theta
      c = -std::cos(2 * pi * q / t), s = std::sin(2 * pi * q / t);
    }
    tw.re.push_back(static_cast<float>(c));
    tw.im.push_back(static_cast<float>(-s));
  }
  return tw;
}

}  // namespace hiprim
