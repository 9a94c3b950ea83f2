// Winograd minimal filtering F(m, r) (Lavin & Gray, arXiv 1509.09308): the transforms, from Toom-Cook
// over rational points, and which convolutions they take. The evaluation in double and fp32 and its
// error bound are reference/winograd.hpp's; a GPU solver uses these same matrices.
//
// 1D, F(m, r): y_i = sum_{j<r} d_{i+j} g_j for i < m from a = m + r - 1 inputs d. Correlation is the
// transpose of linear convolution: with T_g the (a x m) convolution matrix of g, y = T_g^T d, and
// Toom-Cook gives T_g = C diag(D g) E (evaluate at a-1 points p_k and at infinity, multiply,
// interpolate), so y = E^T [(D g) . (C^T d)]:
//   A^T = E^T  (m x a): A^T[i][k] = p_k^i (k < a-1),  A^T[i][a-1] = [i == m-1]
//   G   = D/N  (a x r): G[k][j] = p_k^j / N_k, N_k = prod_{l != k} (p_k - p_l);  G[a-1][j] = [j == r-1]
//   B^T = C^T  (a x a): B^T[k][i] = coeff of x^i in prod_{l != k} (x - p_l);  B^T[a-1][i] = coeff of x^i
//                       in prod_l (x - p_l)
// (the 1/N_k of the Lagrange basis moved into G). 2D: Y = A^T [(G g G^T) . (B^T d B)] A per m x m
// output tile and its a x a input tile (rows/columns ty*m - pad .. + a - 1, zero outside the image),
// the product summed over the input channels of the group in the transformed domain.
//
// Points (the usual ones; all but G's entries are dyadic, so exact in binary):
//   F(2,3): 0, 1, -1        F(4,3): 0, 1, -1, 2, -2        F(6,3): 0, 1, -1, 2, -2, 1/2, -1/2
//   F(5,3): 0, 1, -1, 2, -2, 1/2 (a = 7: 14 = 3 x 5 - 1, so 14x14 layers tile with one wasted row and column)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"

namespace hiprim {

// An exact rational (64-bit numerator and denominator, lowest terms, den > 0) for the transforms.
struct Rational {
  std::int64_t num = 0, den = 1;
  Rational() = default;
  Rational(std::int64_t n, std::int64_t d = 1);  // InputError for d == 0
  double value() const { return static_cast<double>(num) / static_cast<double>(den); }
  bool fp32_exact() const;  // den a power of two and |num| < 2^24
  bool operator==(const Rational&) const = default;
};
Rational operator+(Rational a, Rational b);
Rational operator-(Rational a, Rational b);
Rational operator*(Rational a, Rational b);
Rational operator/(Rational a, Rational b);

// Row-major matrices of F(m, r): at [m][a], g [a][r], bt [a][a].
struct WinogradTransforms {
  int m = 0, r = 0, a = 0;
  std::vector<Rational> points;  // the a-1 finite points
  std::vector<Rational> at, g, bt;
  bool fp32_exact(const std::vector<Rational>& mat) const;
};
// F(m, r) over the given a-1 distinct finite points (InputError otherwise).
WinogradTransforms winograd_transforms(int m, int r, const std::vector<Rational>& points);
// F(2,3), F(4,3), F(5,3), F(6,3) over the points above; InputError for other m with r = 3.
WinogradTransforms winograd_f3(int m);

// Which problems the Winograd evaluation takes: 2D conv (mode conv), fwd or bwd-data, stride 1,
// dilation 1, square r x r filter equal to t.r, any groups, no bias; fwd with any padding, bwd-data
// with pad <= r - 1 (it runs as winograd_fwd_equivalent); "" when taken, else the reason.
std::string winograd_refusal(const ConvProblem& p, const WinogradTransforms& t);

// bwd-weights by the same transforms (reference/winograd.hpp's wgrad order): 2D conv (mode conv),
// bwd-weights, stride 1, dilation 1, r x r filter equal to t.r, any padding and groups, no bias.
std::string winograd_wgrad_refusal(const ConvProblem& p, const WinogradTransforms& t);

// The fwd convolution that computes p's output (p itself when p is fwd). For bwd-data with stride 1
// and dilation 1 (the transpose of the fwd relation): the convolution of dy ([N, K, P, Q]: K input
// channels) by w' with C output channels, pad' = R - 1 - pad, same groups, dtype and layout, where
//   w'[g*C/G + c][k][r][s] = w[g*K/G + k][c][R-1-r][S-1-s]   (flipped, channels swapped per group);
// its x is p's dy and its y p's dx (same dims and layout). Refused problems are returned unchanged.
ConvProblem winograd_fwd_equivalent(const ConvProblem& p);

}  // namespace hiprim
