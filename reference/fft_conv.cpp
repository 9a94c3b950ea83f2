// FFT convolution: the bound's factor and S, and the fp32 evaluation (reference/fft_conv.hpp has the
// order and the derivation; core/fft_tiles.hpp the tiling and twiddles).
#include "reference/fft_conv.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "core/error.hpp"
#include "core/winograd_transforms.hpp"
#include "reference/error_model.hpp"
#include "reference/winograd.hpp"  // winograd_equivalent_filter: bwd-data as a fwd convolution

namespace hiprim::ref {
namespace {

using I64 = std::int64_t;

void require(const ConvProblem& p, int t) {
  if (const std::string why = fft_conv_refusal(p, t); !why.empty()) throw InputError("fft_conv: " + why + ": " + to_string(p));
}

// x[n][c][h][w] (0 outside the image) and w[k][c][r][s], by logical index whatever the layout.
float x_at(const HostTensor& x, I64 n, I64 c, I64 h, I64 w) {
  const Dims& d = x.desc.dims;
  return h < 0 || w < 0 || h >= d[2] || w >= d[3] ? 0.0f : x.at({n, c, h, w});
}

// One radix-2 DIT pass over `line` (length t, already in bit-reversed order), in place.
void dit(std::vector<std::complex<float>>& line, const FftTwiddleTable& tw, bool inverse) {
  const int t = static_cast<int>(line.size());
  for (int h = 1; h < t; h *= 2)
    for (int b = 0; b < t / 2; ++b) {
      const int pos = b % h, j0 = (b / h) * 2 * h + pos, j1 = j0 + h, k = pos * (t / (2 * h));
      const float wr = tw.re[static_cast<std::size_t>(k)], wi = inverse ? -tw.im[static_cast<std::size_t>(k)] : tw.im[static_cast<std::size_t>(k)];
      const float ar = line[j0].real(), ai = line[j0].imag(), br = line[j1].real(), bi = line[j1].imag();
      const float tr = std::fma(wr, br, -(wi * bi)), ti = std::fma(wr, bi, wi * br);
      line[j1] = {ar - tr, ai - ti};
      line[j0] = {ar + tr, ai + ti};
    }
}

// The line a[i] (i < t) in bit-reversed order.
std::vector<std::complex<float>> reversed(const std::vector<std::complex<float>>& a, int bits) {
  std::vector<std::complex<float>> o(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) o[static_cast<std::size_t>(fft_bitrev(static_cast<int>(i), bits))] = a[i];
  return o;
}

// The half spectrum [u][v], v <= t/2, of the real t x t array a (row-major).
std::vector<std::complex<float>> forward2d(const std::vector<float>& a, const FftConvPlan& pl) {
  const int t = pl.tiling.t, hc = pl.tiling.freq_cols(), bits = pl.tiling.log2t;
  std::vector<std::complex<float>> rows(static_cast<std::size_t>(t * t)), half(static_cast<std::size_t>(t * hc));
  for (int i = 0; i < t; ++i) {
    std::vector<std::complex<float>> line(static_cast<std::size_t>(t));
    for (int j = 0; j < t; ++j) line[static_cast<std::size_t>(j)] = {a[static_cast<std::size_t>(i * t + j)], 0.0f};
    line = reversed(line, bits);
    dit(line, pl.twiddles, false);
    for (int j = 0; j < t; ++j) rows[static_cast<std::size_t>(i * t + j)] = line[static_cast<std::size_t>(j)];
  }
  for (int v = 0; v < hc; ++v) {
    std::vector<std::complex<float>> line(static_cast<std::size_t>(t));
    for (int u = 0; u < t; ++u) line[static_cast<std::size_t>(u)] = rows[static_cast<std::size_t>(u * t + v)];
    line = reversed(line, bits);
    dit(line, pl.twiddles, false);
    for (int u = 0; u < t; ++u) half[static_cast<std::size_t>(u * hc + v)] = line[static_cast<std::size_t>(u)];
  }
  return half;
}

// Rows a < out_h of the inverse of the half spectrum y [u][v] (real parts times 1/N), [a][b] row-major.
std::vector<float> inverse2d(const std::vector<std::complex<float>>& y, const FftConvPlan& pl) {
  const int t = pl.tiling.t, hc = pl.tiling.freq_cols(), bits = pl.tiling.log2t;
  std::vector<std::complex<float>> cols(static_cast<std::size_t>(t * hc));
  for (int v = 0; v < hc; ++v) {
    std::vector<std::complex<float>> line(static_cast<std::size_t>(t));
    for (int u = 0; u < t; ++u) line[static_cast<std::size_t>(u)] = y[static_cast<std::size_t>(u * hc + v)];
    line = reversed(line, bits);
    dit(line, pl.twiddles, true);
    for (int a = 0; a < t; ++a) cols[static_cast<std::size_t>(a * hc + v)] = line[static_cast<std::size_t>(a)];
  }
  const float scale = 1.0f / static_cast<float>(t * t);
  std::vector<float> out(static_cast<std::size_t>(pl.tiling.out_h * t));
  for (int a = 0; a < pl.tiling.out_h; ++a) {
    std::vector<std::complex<float>> line(static_cast<std::size_t>(t));
    for (int v = 0; v < t; ++v) {
      const std::complex<float> z = cols[static_cast<std::size_t>(a * hc + (v < hc ? v : t - v))];
      line[static_cast<std::size_t>(v)] = v < hc ? z : std::complex<float>(z.real(), -z.imag());
    }
    line = reversed(line, bits);
    dit(line, pl.twiddles, true);
    for (int b = 0; b < t; ++b) out[static_cast<std::size_t>(a * t + b)] = line[static_cast<std::size_t>(b)].real() * scale;
  }
  return out;
}

}  // namespace

double fft_conv_factor(int t, I64 channels, I64 r, I64 s) {
  const double u = kUnitFp32, mu = u + 0x1p-50, sq2 = std::sqrt(2.0);
  const double lg = std::log2(static_cast<double>(t));
  const double eta = mu + gamma_n(4, u) * (sq2 + mu);
  auto delta = [&](double stages) { return stages * eta / (1 - stages * eta); };
  const double d2 = delta(2 * lg), d1 = delta(lg);
  const double beta = d2 * (2 + d2) + sq2 * gamma_n(2 * channels, u) * (1 + d2) * (1 + d2);
  const double phi_u = 2 * beta + sq2 * d1 * (2 + d1) * (std::sqrt(static_cast<double>(r * s)) + t * beta);
  return phi_u / u * (1 + 0x1p-40);  // (1 + 2^-40): this double evaluation's own rounding
}

I64 fft_conv_depth(const ConvProblem& problem, int t) {
  require(problem, t);
  const ConvProblem p = winograd_fwd_equivalent(problem);  // bwd-data: C = p's K
  const double phi = fft_conv_factor(t, p.c, p.filter[0], p.filter[1]);
  return static_cast<I64>(std::ceil(phi + static_cast<double>(p.c * p.filter[0] * p.filter[1]) * 0x1p-29));
}

double fft_conv_underflow(int t, I64 channels, double norms) {
  const double u = kUnitFp32, sq2 = std::sqrt(2.0), n = static_cast<double>(t) * t, eta0 = 0x1p-150;
  const double lg = std::log2(static_cast<double>(t)), eta = u + 0x1p-50 + gamma_n(4, u) * (sq2 + u + 0x1p-50);
  const double d2 = 2 * lg * eta / (1 - 2 * lg * eta), d1 = lg * eta / (1 - lg * eta);
  const double af = 7.3 * n * eta0, g = 1 + sq2 * gamma_n(2 * channels, u), c = static_cast<double>(channels);
  const double spectrum = (1 + d2) * g * af * std::sqrt(n) * norms + c * g * af * af + 2 * sq2 * c * n * eta0;
  return (2 / n * (1 + d1 * (2 + d1) * t) * spectrum + 12 * eta0) * (1 + 0x1p-40);
}

std::vector<double> fft_conv_abs_sum(const ConvProblem& p, int t, const HostTensor& x, const HostTensor& w) {
  if (p.dir == ConvDir::bwd_data && fft_conv_refusal(p, t).empty())  // dy by the flipped, swapped filter; y' is p's dx
    return fft_conv_abs_sum(winograd_fwd_equivalent(p), t, x, winograd_equivalent_filter(p, w));
  const double gamma_l = gamma_n(fft_conv_depth(p, t), kUnitFp32);  // (also checks p)
  const FftTiling g = fft_tiling(p, t);
  const I64 C = p.c, K = p.k, R = p.filter[0], S = p.filter[1];
  std::vector<double> wn(static_cast<std::size_t>(K * C), 0.0);  // ||w[k][c]||_2
  for (I64 k = 0; k < K; ++k)
    for (I64 c = 0; c < C; ++c) {
      double s2 = 0;
      for (I64 r = 0; r < R; ++r)
        for (I64 s = 0; s < S; ++s) s2 += static_cast<double>(w.at({k, c, r, s})) * w.at({k, c, r, s});
      wn[static_cast<std::size_t>(k * C + c)] = std::sqrt(s2);
    }
  const double raise = 1 + static_cast<double>(t * t + C + 8) * 0x1p-52;
  const TensorDesc yd = p.y_desc();
  std::vector<double> out(static_cast<std::size_t>(yd.storage_elements()), 0.0), xn(static_cast<std::size_t>(C));
  const Dims o = p.out();
  for (I64 n = 0; n < p.n; ++n)
    for (I64 th = 0; th < g.tiles_h; ++th)
      for (I64 tw = 0; tw < g.tiles_w; ++tw) {
        const I64 h0 = th * g.out_h - p.pad[0], w0 = tw * g.out_w - p.pad[1];
        for (I64 c = 0; c < C; ++c) {  // ||window of channel c||_2
          double s2 = 0;
          for (I64 i = 0; i < t; ++i)
            for (I64 j = 0; j < t; ++j) {
              const double v = x_at(x, n, c, h0 + i, w0 + j);
              s2 += v * v;
            }
          xn[static_cast<std::size_t>(c)] = std::sqrt(s2);
        }
        for (I64 k = 0; k < K; ++k) {
          double s = 0, norms = 0;
          for (I64 c = 0; c < C; ++c) {
            s += xn[static_cast<std::size_t>(c)] * wn[static_cast<std::size_t>(k * C + c)];
            norms += xn[static_cast<std::size_t>(c)] + wn[static_cast<std::size_t>(k * C + c)];
          }
          // gamma(L) * this >= gamma(L) * S + the underflow term
          const double bound_s = s * raise + fft_conv_underflow(t, C, norms * raise) / gamma_l;
          for (I64 a = th * g.out_h; a < std::min<I64>(o[0], (th + 1) * g.out_h); ++a)
            for (I64 b = tw * g.out_w; b < std::min<I64>(o[1], (tw + 1) * g.out_w); ++b)
              out[static_cast<std::size_t>(yd.offset({n, k, a, b}))] = bound_s;
        }
      }
  return out;
}

FftConvPlan fft_conv_plan(const ConvProblem& p, int t) {
  require(p, t);
  FftConvPlan pl;
  pl.tiling = fft_tiling(p, t);
  pl.twiddles = fft_twiddles(t);
  pl.read_step_h = pl.tiling.out_h;
  pl.read_step_w = pl.tiling.out_w;
  return pl;
}

std::vector<float> fft_conv_fp32(const ConvProblem& p, const FftConvPlan& pl, const HostTensor& x, const HostTensor& w) {
  require(p, pl.tiling.t);
  if (p.dir == ConvDir::bwd_data) return fft_conv_fp32(winograd_fwd_equivalent(p), pl, x, winograd_equivalent_filter(p, w));
  const int t = pl.tiling.t, nf = pl.tiling.freqs();
  const I64 C = p.c, K = p.k, R = p.filter[0], S = p.filter[1];
  std::vector<std::vector<std::complex<float>>> wf(static_cast<std::size_t>(K * C));  // W_kc, half spectrum
  for (I64 k = 0; k < K; ++k)
    for (I64 c = 0; c < C; ++c) {
      std::vector<float> f(static_cast<std::size_t>(t * t), 0.0f);
      for (I64 r = 0; r < R; ++r)
        for (I64 s = 0; s < S; ++s) f[static_cast<std::size_t>(r * t + s)] = w.at({k, c, r, s});
      wf[static_cast<std::size_t>(k * C + c)] = forward2d(f, pl);
    }
  const TensorDesc yd = p.y_desc();
  std::vector<float> y(static_cast<std::size_t>(yd.storage_elements()), 0.0f);
  const Dims o = p.out();
  std::vector<std::vector<std::complex<float>>> df(static_cast<std::size_t>(C));
  for (I64 n = 0; n < p.n; ++n)
    for (I64 th = 0; th < pl.tiling.tiles_h; ++th)
      for (I64 tw = 0; tw < pl.tiling.tiles_w; ++tw) {
        const I64 h0 = th * pl.read_step_h - p.pad[0], w0 = tw * pl.read_step_w - p.pad[1];
        for (I64 c = 0; c < C; ++c) {
          std::vector<float> d(static_cast<std::size_t>(t * t));
          for (int i = 0; i < t; ++i)
            for (int j = 0; j < t; ++j) d[static_cast<std::size_t>(i * t + j)] = x_at(x, n, c, h0 + i, w0 + j);
          df[static_cast<std::size_t>(c)] = forward2d(d, pl);
        }
        for (I64 k = 0; k < K; ++k) {
          std::vector<std::complex<float>> yk(static_cast<std::size_t>(nf));
          for (int z = 0; z < nf; ++z) {  // the GEMM's two rows k and K + k over [Dr | Di]
            float yr = 0.0f, yi = 0.0f;
            for (I64 c = 0; c < C; ++c) {
              const std::complex<float> wv = wf[static_cast<std::size_t>(k * C + c)][static_cast<std::size_t>(z)];
              const float dr = df[static_cast<std::size_t>(c)][static_cast<std::size_t>(z)].real();
              yr = std::fma(dr, wv.real(), yr);
              yi = std::fma(dr, -wv.imag(), yi);
            }
            for (I64 c = 0; c < C; ++c) {
              const std::complex<float> wv = wf[static_cast<std::size_t>(k * C + c)][static_cast<std::size_t>(z)];
              const float di = df[static_cast<std::size_t>(c)][static_cast<std::size_t>(z)].imag();
              yr = std::fma(di, wv.imag(), yr);
              yi = std::fma(di, wv.real(), yi);
            }
            yk[static_cast<std::size_t>(z)] = {yr, yi};
          }
          const std::vector<float> tile = inverse2d(yk, pl);
          for (int a = 0; a < pl.tiling.out_h; ++a)
            for (int b = 0; b < pl.tiling.out_w; ++b) {
              const I64 oh = th * pl.tiling.out_h + a, ow = tw * pl.tiling.out_w + b;
              if (oh < o[0] && ow < o[1]) y[static_cast<std::size_t>(yd.offset({n, k, oh, ow}))] = tile[static_cast<std::size_t>(a * t + b)];
            }
        }
      }
  return y;
}

}  // namespace hiprim::ref
