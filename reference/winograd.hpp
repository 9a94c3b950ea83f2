// Winograd minimal filtering for stride-1 2D convolution (Lavin & Gray, arXiv 1509.09308), the math a
// Winograd solver implements and the error bound its comparator uses. Not a solver: no GPU kernel
// exists yet (issue 17); this fixes the transforms, the evaluation order and the bound on the CPU.
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
//
// fp32 evaluation order (winograd_conv_fp32, the order a solver follows):
//   U = G g G^T per (k, c): rows t = G g (t[i][l] = sum_j G[i][j] g[j][l], j ascending), then t G^T
//   V = B^T d B per (c, tile): the same two levels;  M = sum_c U . V (c ascending)
//   Y = A^T M A (two levels), then the store (rounded to the output dtype).
// Error bound: each path of the exact sum, |A||A| |U-path| |V-path| (a product of constants and two
// data values), passes at most L roundings, so |Y_fp32 - Y| <= gamma(L) * S with
//   S = sum_c |A^T| [(|G| |g| |G^T|) . (|B^T| |d| |B|)] |A|   (winograd_abs_sum: the algorithm on |.|)
//   L = 2r + 2a + C + 2a + 2*(c_G + c_B + c_A)
// (levels: r or a terms -> 1 product + (terms - 1) additions each; the channel sum C; c_X = 1 when
// matrix X has an entry fp32 cannot hold, whose rounding multiplies each of its terms once more).
// Higham, Accuracy and Stability, Lemma 3.1: |prod_{i<=L}(1 + d_i) - 1| <= gamma(L). The comparator
// takes S in place of the direct sum of |w x| (stored_sum_bound(out, L, 1, e, S)); S >= that sum and
// grows with the tile (the transforms' |.| norms): winograd_abs_sum reports both.
//
// For the solver (next steps, issue 17): the comparator takes a declared model (S and L above) in
// place of tolerance_for's direct sum (verify/conv_check.cpp's judge, bench/bench_check.cpp and
// bench/bench_conv.cpp each call compare with the direct one today); a non-finite input spreads to
// the whole a x a tile (the transforms add it to every transformed value, and inf - inf = NaN), so
// the special-value judge must expect NaN per tile, not per window; the exact tier holds only for
// F(2,3) with integers small enough that B^T d B and the products stay below 2^24.
#pragma once
#include <cstdint>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim::ref {

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
// F(2,3), F(4,3), F(6,3) over the points above; InputError for other m with r = 3.
WinogradTransforms winograd_f3(int m);

// Which problems the Winograd evaluation takes: 2D fwd conv (mode conv), stride 1, dilation 1,
// square r x r filter equal to t.r, any padding and groups, no bias; "" when taken, else the reason.
std::string winograd_refusal(const ConvProblem& p, const WinogradTransforms& t);

// The depth L of the bound above for a group's C/G input channels.
std::int64_t winograd_depth(const WinogradTransforms& t, std::int64_t channels);

struct WinogradOutput {
  std::vector<double> value;    // y by y_desc() storage offset
  std::vector<double> abs_sum;  // S per element (winograd_abs_sum), or empty
};
// The algorithm in double (the transforms' doubles, exact for the dyadic ones): y and, when asked, S.
WinogradOutput winograd_conv_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                    const HostTensor& w, bool abs_sum);
// The algorithm in fp32 arithmetic in the order above (constants rounded to fp32), y in fp32 (not
// rounded to the dtype), by y_desc() storage offset: the model a solver's output is held to.
std::vector<float> winograd_conv_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                      const HostTensor& w);

}  // namespace hiprim::ref
