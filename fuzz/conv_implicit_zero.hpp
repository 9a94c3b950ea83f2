// The solver-declared part of the special-value contract of convolution.
//
// An implicit zero is a term the convolution's definition leaves out: the padding, and the taps of
// a computed P position that no Q position reaches (core/conv_solver.hpp, ImplicitZeros, names the
// three kinds and the relation P[q*stride - pad + f*dil] ~ Q[q] ~ W[f]). The reference sums only the
// real terms; a solver that multiplies such a zero by an Inf or NaN partner gets 0*Inf = 0*NaN = NaN
// there. Each solver declares per problem which kinds it multiplies, and the expected answer is
// exactly its own: NaN at an output element where a multiplied kind meets a non-finite partner, the
// reference's value (finite, Inf or NaN from the real terms) everywhere else. The meetings per
// direction (P = the zero-padded activation: x in mode conv, y in mode trans; Q = the other):
//   - padding: P positions outside P's extent that a (q, f) pair reaches; they meet w[f] when Q is
//     computed (fwd, resp. bwd-data in mode trans) and Q[q] when w is computed (bwd-weights);
//   - border taps and stride holes: (p, f) pairs with no q inside Q (q*stride = p + pad - f*dil);
//     when P is computed (bwd-data, resp. fwd in mode trans) they meet w[f]. A border tap divides
//     exactly on every axis (q is an integer outside Q); a stride hole is inexact on some axis.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "reference/conv.hpp"

namespace hiprim::fuzz {

// Bits of implicit_zero_kinds().
inline constexpr std::uint8_t kZeroPadding = 1, kZeroBorderTap = 2, kZeroStrideHole = 4;

// One byte per storage offset of out_desc (the desc of the direction's output): the OR of the kinds
// of implicit zero that meet a non-finite partner in that element's dot product (0: none).
// Inputs as for ref::conv_naive (the output's is unused).
std::vector<std::uint8_t> implicit_zero_kinds(const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc& out_desc);

// The bits of the kinds `z` declares multiplied.
std::uint8_t multiplied_kinds(const ImplicitZeros& z);
// The name of the first kind present in `kinds` that `z` leaves undeclared ("padding",
// "border_taps", "stride_holes"), or nullopt when every present kind is declared.
std::optional<std::string> undeclared_kind(const ImplicitZeros& z, std::uint8_t kinds);

// The answer of a solver declaring `z`: the reference's output with NaN wherever
// kinds[offset] & multiplied_kinds(z) != 0 (abs_sum kept). InputError when the sizes differ.
ref::ConvOutput solver_expected(const ref::ConvOutput& reference, const std::vector<std::uint8_t>& kinds, const ImplicitZeros& z);

// A Winograd F(m x m, 3 x 3) solver (ConvErrorModel::winograd_m, 2D fwd) multiplies every value of an
// input tile, and every filter value, by the transforms' zeros as well, so a non-finite value spreads:
// one in x makes every output of each tile that reads it NaN (tile (th, tw) of image n reads the
// a x a window from (th*m - pad_h, tw*m - pad_w), a = m + 2, in every channel of its group, for
// every output channel of the group), one in w every output of its output channel. (Each output is
// a sum over A^T's rows, and every row of A^T has a zero entry: 0 * (Inf or NaN) = NaN.)
// bwd-data runs as its fwd equivalent (core/winograd_transforms.hpp): dy in place of x, the flipped,
// channel-swapped filter in place of w, dx as the output. bwd-weights (dw = G^T [sum_t (A dy A^T) .
// (B^T x B)] G): a non-finite x inside a tile's window makes all of dw[k][c] for its channel c and every
// k of the group, a non-finite dy all of dw[k][.] for its channel k.
// 1 per storage offset of out_desc where that happens, else 0. Inputs as for ref::conv_naive.
std::vector<std::uint8_t> winograd_nonfinite_outputs(const ConvProblem& p, int m, const ref::ConvInputs& in, const TensorDesc& out_desc);
// An FFT solver with T x T tiles (ConvErrorModel::fft_tile, 2D fwd; core/fft_tiles.hpp): the same
// spread with tiles of (T - R + 1) x (T - S + 1) outputs reading T x T windows (the transforms add
// every window value, zero-padded filter tap and spectrum entry into every output of the tile);
// bwd-data as its fwd equivalent (dy in place of x, the flipped, channel-swapped filter, dx the output).
std::vector<std::uint8_t> fft_nonfinite_outputs(const ConvProblem& p, int t, const ref::ConvInputs& in, const TensorDesc& out_desc);
// The reference's output with NaN wherever mask[offset] != 0 (abs_sum kept); InputError when the sizes differ.
ref::ConvOutput nan_where(const ref::ConvOutput& reference, const std::vector<std::uint8_t>& mask);

}  // namespace hiprim::fuzz
