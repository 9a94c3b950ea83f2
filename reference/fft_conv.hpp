// FFT convolution by tiled overlap-save (core/fft_tiles.hpp has the tiling): the fp32 evaluation the
// solvers conv.fft.t16/.t32/.t64 (gpu/conv/fft.hip) follow, and the error bound their comparator uses.
//
// fp32 evaluation order (fft_conv_fp32), per tile p = (n, th, tw) of T x T, N = T^2 points:
//   2D DFT (forward: w_k = exp(-2 pi i k / T), the table of fft_twiddles) of a real T x T array a:
//     a loaded in bit-reversed order along both axes (a[i][j] -> [rev(i)][rev(j)]), imaginary parts 0;
//     a radix-2 decimation-in-time pass along every row (log2 T stages, stage h = 1, 2, .., T/2: the pair
//     (j0, j0 + h), j0 = (b / h) * 2h + b % h, twiddle w_{(b % h) * T / 2h}), then the same pass along
//     the columns v <= T/2 only (the half spectrum). One butterfly, in fp32 with explicit fused multiply-adds:
//       t = (fma(wr, br, -(wi*bi)), fma(wr, bi, wi*br));   b' = a - t;   a' = a + t
//   D_c = DFT(x tile of channel c),  W_kc = DFT(w[k][c] zero-padded to T x T)
//   Products + channel sum, one real GEMM per frequency z (the batched SIMT GEMM, 2C terms, one fmaf
//   chain from 0, index ascending): V = [Dr | Di] (P x 2C), U = [[Wr | Wi]; [-Wi | Wr]] (2K x 2C):
//     Yr = sum_c Dr Wr + Di Wi,  Yi = sum_c Di Wr - Dr Wi     (Y = sum_c D_c conj(W_kc): correlation)
//   Inverse (twiddles conjugated: wi -> -wi): the same pass along the columns v <= T/2 (Y in bit-reversed
//   u order), then each row a < out_h extended by Hermitian symmetry (v > T/2: conj of v' = T - v),
//   bit-reversed, one pass along it; the output is its real part times 1/N (exact, a power of two).
//
// Error bound (fft_conv_factor; Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 24.2:
// a radix-2 FFT of n points in t = log2 n stages, each butterfly's complex product within sqrt2 gamma_2
// (an fma form keeps that: each part within gamma_2 of |wr b| + |wi b|) and each addition within u, with
// twiddles within mu of exact, gives ||y^ - F x||_2 <= delta_t ||F x||_2, delta_t = t eta / (1 - t eta),
// eta = mu + gamma_4 (sqrt2 + mu)). The row-column 2D DFT of T x T is such an FFT of t = 2 log2 T
// stages (each stage a butterfly matrix of norm sqrt2). With d_c the T x T input window, f_kc the padded
// filter, ||.|| 2-norms, Parseval ||DFT a|| = sqrt(N) ||a||:
//   forward: ||D^_c - D_c|| <= d2 sqrt(N) ||d_c||, the same for W^; d2 = delta_{2 log2 T}
//   GEMM: each part of Y^(xi) within gamma_{2C} sum_c |D^_c(xi)| |W^_c(xi)| of the exact sum of the
//     computed factors (|ar br| + |ai bi| <= |a| |b|), so the complex error <= sqrt2 gamma_2C sum_c |D^_c||W^_c|
//   Y^ - Y summed over the half spectrum (Cauchy-Schwarz per channel):
//     sum_xi |Y^ - Y| <= N beta S,   beta = d2 (2 + d2) + sqrt2 gamma_2C (1 + d2)^2,   S = sum_c ||d_c|| ||f_kc||
//   inverse of the exact map G(H) = Re IDFT(Hermitian extension of H) / N: |G(dY)(a)| <= (2/N) sum_half |dY|
//     (each half-spectrum entry appears at most twice), and its own rounding (two passes of log2 T stages,
//     d1 = delta_{log2 T}, the extension at most doubling squared norms): ||out^ - G(Y^)||_2 <=
//     sqrt2 d1 (2 + d1) ||Y^||_F / T, with ||Y^||_F <= sqrt(N) sqrt(R S_f) S + N beta S (||W||_inf <= ||f||_1)
//   so every output element of the tile: |y^ - y| <= phi u S,
//     phi u = 2 beta + sqrt2 d1 (2 + d1) (sqrt(R S_f) + T beta)        (R x S_f the filter)
// The comparator takes S as abs_sum and L = fft_conv_depth >= phi + C R S_f 2^-29 (the double
// reference's own error gamma_d(C R S_f) sum|x w| <= that times u S: sum|x w| <= S by Cauchy-Schwarz),
// so gamma(L) S covers both. S is a normwise quantity: it exceeds the direct sum of |x w| by about
// sqrt(N / (R S_f)) on random data, so the bound is looser than a direct sum's; the observed errors are
// far below it (reports/cpu/fft_accuracy.md).
// Underflow: a product or fma below fp32's normal range is off by up to eta0 = 2^-150 beyond that model
// (a sum that underflows is exact). A butterfly's t then carries <= 2 sqrt2 eta0 <= 3 eta0, each stage
// injects a vector of 2-norm <= 3 eta0 sqrt(n) that the later stages scale by sqrt2 (1 + eta) each, so
// a 2D DFT carries A_f <= 3 eta0 sqrt(N) sqrt(N) / (sqrt2 - 1) (1 + eta)^t <= 7.3 N eta0 more; through
// the products (the same Cauchy-Schwarz steps, ||D^|| <= (1 + d2) sqrt(N) ||d|| + A_f) and the GEMM's
// own (2C eta0 per part), then the inverse's (<= 11 eta0 with the 1/N scaling) the output is off by
//   E = 2/N (1 + d1 (2 + d1) T) [(1 + d2) g A_f sqrt(N) sum_c (||d_c|| + ||f_kc||) + C g A_f^2
//       + 2 sqrt2 C N eta0] + 12 eta0,   g = 1 + sqrt2 gamma_2C      (fft_conv_underflow)
// more; fft_conv_abs_sum reports S + E / gamma(L), so gamma(L) * abs_sum >= phi u S + E.
// Not covered: overflow of the transforms (|D| up to N max|x|) where the direct sum would not overflow.
// bwd-data (stride 1, pad <= filter - 1) is its fwd equivalent (core/fft_tiles.hpp): below, `x` is the
// convolution's input (dy for bwd-data), w the problem's filter, the output p's (dx) by its storage offsets.
#pragma once
#include <cstdint>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/fft_tiles.hpp"
#include "core/tensor.hpp"

namespace hiprim::ref {

// phi of the bound above for transform size t, C input channels and an r x s filter.
double fft_conv_factor(int t, std::int64_t channels, std::int64_t r, std::int64_t s);
// L = ceil(phi + C R S 2^-29) for p (its C and filter) and transform size t.
std::int64_t fft_conv_depth(const ConvProblem& p, int t);

// S per output element of p (y's storage offsets): sum_c ||x window of its tile, channel c||_2 ||w[k][c]||_2,
// computed in double and raised by (T^2 + C + 8) 2^-52 relative (its own rounding), so >= the exact S,
// plus the underflow account E / gamma(L) (above).
std::vector<double> fft_conv_abs_sum(const ConvProblem& p, int t, const HostTensor& x, const HostTensor& w);
// E above for transform size t, C channels and norms = sum_c (||d_c|| + ||f_kc||).
double fft_conv_underflow(int t, std::int64_t channels, double norms);

// The evaluation's constants: the tiling, the twiddles and the tile read origin's step (out_h, out_w;
// a test may change them to check that a mutant fails the bound).
struct FftConvPlan {
  FftTiling tiling;
  FftTwiddleTable twiddles;
  int read_step_h = 0, read_step_w = 0;
};
FftConvPlan fft_conv_plan(const ConvProblem& p, int t);  // InputError when fft_conv_refusal(p, t) is not ""
// The evaluation above in fp32 arithmetic, y by its desc's storage offsets.
std::vector<float> fft_conv_fp32(const ConvProblem& p, const FftConvPlan& plan, const HostTensor& x, const HostTensor& w);

}  // namespace hiprim::ref
