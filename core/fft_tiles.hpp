// FFT convolution by tiled overlap-save (issue 17): the tiling, the twiddle table and the problems it
// takes, shared by the solvers conv.fft.t16/.t32/.t64 (gpu/conv/fft.hip) and their fp32 model and
// error bound (reference/fft_conv.hpp).
//
// Forward, mode conv (cross-correlation, reference/conv_naive.cpp):
//   y[n,k,oh,ow] = sum_{c,r,s} x[n,c,oh - pad_h + r, ow - pad_w + s] * w[k,c,r,s]
// With a T x T transform (T a power of two) and an R x S filter, a tile (th, tw) of image n owns the
// out_h x out_w outputs from (th*out_h, tw*out_w), out_h = T - R + 1, out_w = T - S + 1, and reads the
// T x T window d of x from (th*out_h - pad_h, tw*out_w - pad_w) (zeros outside the image). The circular
// cross-correlation of d with the zero-padded filter f,
//   z[a][b] = sum_{i,j} d[(a+i) mod T][(b+j) mod T] f[i][j] = IDFT( DFT(d) . conj(DFT(f)) ),
// equals y on a < out_h, b < out_w (a + r <= T - 1: no wrap-around). Real data: only the frequencies
// (u, v), v <= T/2, are stored (Hermitian symmetry), T/2 + 1 columns.
// Backward data (stride 1, pad <= filter - 1) runs as its fwd equivalent (winograd_fwd_equivalent,
// core/winograd_transforms.hpp): dy convolved with the flipped filter, channels swapped, pad' = R - 1 - pad.
#pragma once
#include <string>
#include <vector>

#include "core/conv_problem.hpp"

namespace hiprim {

struct FftTiling {
  int t = 0;                    // transform size T (a power of two)
  int log2t = 0;
  int out_h = 0, out_w = 0;     // outputs per tile: T - R + 1, T - S + 1
  int tiles_h = 0, tiles_w = 0; // per image: ceil(P / out_h), ceil(Q / out_w)
  long long tiles = 0;          // N * tiles_h * tiles_w
  int freq_cols() const { return t / 2 + 1; }
  int freqs() const { return t * freq_cols(); }  // the half spectrum, (u, v) -> u * freq_cols() + v
};

// The tiling of p (2D, valid; bwd-data: of its fwd equivalent) for transform size t.
FftTiling fft_tiling(const ConvProblem& p, int t);

// "" when the FFT solvers of transform size t take p, else the reason: fp32, 2D fwd or bwd-data, mode
// conv, groups 1, stride 1, dilation 1, no bias, filter R, S in [2, t - 1], pad < filter, exact math.
std::string fft_conv_refusal(const ConvProblem& p, int t);

// The twiddles w_k = exp(-2 pi i k / t), k < t/2, each part computed in double (the quadrant's exact
// values 1, 0, -1 kept exact) and rounded to fp32 once: |w^_k - w_k| <= 2^-24 + 2^-50.
struct FftTwiddleTable {
  std::vector<float> re, im;
};
FftTwiddleTable fft_twiddles(int t);

// i with its low `bits` bits reversed.
constexpr int fft_bitrev(int i, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

}  // namespace hiprim
