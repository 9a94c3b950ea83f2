// Winograd minimal filtering for stride-1 2D convolution (Lavin & Gray, arXiv 1509.09308): the
// evaluation a Winograd solver implements and the error bound its comparator uses. Not a solver: the
// solvers conv.winograd.f2x3/f4x3/f6x3 (gpu/conv/winograd.hip) follow this order.
//
// The transforms and the problems they take: core/winograd_transforms.hpp.
//
// fp32 evaluation order (winograd_conv_fp32, the order a solver follows):
//   U = G g G^T per (k, c): rows t = G g (t[i][l] = sum_j G[i][j] g[j][l], j ascending), then t G^T
//   V = B^T d B per (c, tile): the same two levels;  M = sum_c U . V (c ascending, each step one
//   fused multiply-add, as the batched GEMM the solvers run it on: gpu/conv/simt_batched_gemm.hpp)
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
// Underflow: a product below fp32's normal range is off by up to eta = 2^-150 beyond that model
// (subnormal inputs: the transforms' fractions take them off their grid). The abs_sum reported is
//   S + (1 + gamma(L)) / gamma(L) * eta * E,   E = the algorithm's eta units (reference/winograd.cpp:
// each nonzero product adds one, later products scale it by their |other factor|, sums add),
// so gamma(L) * abs_sum >= gamma(L) * S + (1 + gamma(L)) * eta * E; for normal-range data E * eta is
// below 1e-40 of S's scale. (The s19 H100 fuzz found F(6x6) on subnormal inputs 3% past the bound without it.)
//
// For the solver (issue 17): the runner's conv check (verify/conv_check.cpp) takes the model a solver
// declares (ConvSolver::error_model: S and L above in place of the direct sum), and so does `hiprim
// bench --verify full` (through the runner; --verify quick refuses to judge it); a non-finite input spreads to
// the whole a x a tile (the transforms add it to every transformed value, and inf - inf = NaN), so
// the special-value judge must expect NaN per tile, not per window; the exact tier holds only for
// F(2,3) with integers small enough that B^T d B and the products stay below 2^24.
//
// 16-bit transformed operands (conv.winograd.tc.*: the GEMMs on tensor cores): U and V (bwd-weights: D and
// V) are stored in a 16-bit dtype T after their fp32 transforms (`operands` below; fp32: not rounded).
// Each path of the sum takes one U (D) and one V value, so two more roundings |fl_T(v) - v| <= u_T |v| +
// eta_T: the bound becomes stored_sum_bound's input_unit form, [eta + f gamma(L) (1 + eta)] * S with
// eta = (1 + u_T)^2 - 1 (the comparator takes u_T from the model's winograd_operands and f from the
// solver's accumulation factor: 2 for the tensor core's truncating adds), and eta_T (T's subnormal
// half-spacing, bf16 2^-134) enters S's underflow account once per rounded nonzero value.
#pragma once
#include <cstdint>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"
#include "core/winograd_transforms.hpp"

namespace hiprim::ref {

// The depth L of the bound above for a group's C/G input channels.
std::int64_t winograd_depth(const WinogradTransforms& t, std::int64_t channels);

// bwd-data runs as its fwd equivalent (core/winograd_transforms.hpp: dy convolved with the flipped,
// channel-swapped filter): `in` below is the convolution's input, x for fwd and dy for bwd-data, and
// the output is p's (y, resp. dx) by that tensor's storage offsets.
struct WinogradOutput {
  std::vector<double> value;    // the output by its desc's storage offset
  std::vector<double> abs_sum;  // S per element with the underflow account (above), or empty
};
// The algorithm in double (the transforms' doubles, exact for the dyadic ones): the output and, when asked, S
// (winograd_abs_sum).
WinogradOutput winograd_conv_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& in,
                                    const HostTensor& w, bool abs_sum);
// S per output element (with the underflow account above), by its desc's storage offset: the bound's
// input alone, without the double evaluation of the output.
std::vector<double> winograd_abs_sum(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& in,
                                     const HostTensor& w, DType operands = DType::fp32);
// The algorithm in fp32 arithmetic in the order above (constants rounded to fp32), the output in fp32
// (not rounded to the dtype), by its desc's storage offset: the model a solver's output is held to.
// operands != fp32: U and V rounded to that dtype after their transforms (above).
std::vector<float> winograd_conv_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& in,
                                      const HostTensor& w, DType operands = DType::fp32);
// The filter of winograd_fwd_equivalent(p): w' of bwd-data (flipped, channels swapped per group), w for fwd.
HostTensor winograd_equivalent_filter(const ConvProblem& p, const HostTensor& w);

// bwd-weights (core/winograd_transforms.hpp: winograd_wgrad_refusal) by the same F(m x m, 3 x 3)
// matrices, transposed (the trilinear form sum y' . y of the fwd algorithm, differentiated by g):
//   dw[k][c] = G^T [ sum_{n, tiles t} (A dy_t A^T) . (B^T x_t B) ] G
// dy_t the m x m tile of dy (zeros past P x Q), x_t the a x a tile of x at (th*m - pad_h, tw*m - pad_w)
// (zeros outside), the fwd input tiles. fp32 order (winograd_wgrad_fp32): D = A dy A^T by rows
// (t = A dy over the m rows, then t A^T), V = B^T x B as fwd, the tile sum in (n, th, tw) ascending
// order, one fused multiply-add a step, then G^T M G by rows. Bound as fwd's, gamma(L) * S with
//   S = |G^T| [ sum_t (|A| |dy| |A^T|) . (|B^T| |x| |B|) ] |G|     L = 2m + 4a + T + 2*(c_G + c_B + c_A)
// (T = N * tiles: the tile sum's terms; levels of m and a terms as above), with the underflow account.
std::int64_t winograd_wgrad_depth(const WinogradTransforms& t, std::int64_t tile_terms);
// T of p: N * ceil(P/m) * ceil(Q/m).
std::int64_t winograd_wgrad_terms(const ConvProblem& p, int m);
// dw in double by its desc's storage offset and, when asked, S (winograd_wgrad_abs_sum).
WinogradOutput winograd_wgrad_double(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                     const HostTensor& dy, bool abs_sum);
std::vector<double> winograd_wgrad_abs_sum(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                           const HostTensor& dy, DType operands = DType::fp32);
// dw in fp32 arithmetic in the order above, by its desc's storage offset. chunk > 0 (< T): the tile
// sum as a split GEMM runs it: runs of `chunk` terms each summed from 0, the runs' sums added in order
// to a total from 0. The bound's L stays valid: a term passes at most chunk + (runs - 1) <= T additions.
// operands != fp32: D and V rounded to that dtype after their transforms.
std::vector<float> winograd_wgrad_fp32(const ConvProblem& p, const WinogradTransforms& t, const HostTensor& x,
                                       const HostTensor& dy, std::int64_t chunk = 0, DType operands = DType::fp32);

}  // namespace hiprim::ref
