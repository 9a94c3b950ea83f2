// The matrix products of the RNN reference and its bound (internal to reference/rnn*.cpp): blocked
// for the caches and split over threads, but every element's sum runs in the order of the naive loop
//   for r = 0, 1, ..., K-1:  C[i][j] = C[i][j] + term(A(i, r), B(r, j))
// with one rounding per product and per addition (no FMA, no reassociation; vectorised across j
// only), so the result is that loop's bit for bit, whatever the blocking, instruction set and thread
// count (each element of C is summed by one thread). A product's operand order does not matter
// (IEEE multiplication commutes): a caller's w x may be computed as x w.
#pragma once
#include <vector>

namespace hiprim::ref {

// A matrix by its row pointers: element (i, j) = rows[i][j], or rows[j][i] when transposed; its
// absolute value when abs.
struct RowsView {
  std::vector<const double*> rows;
  bool transposed = false, abs = false;
};
// rows[i] = base + i * ld for i < count.
RowsView rows_of(const double* base, long long count, long long ld, bool transposed = false, bool abs = false);

// What one pair of operands adds to a sum:
//   product  a b
//   cross    e_a |b| + |a| e_b + e_a e_b with A's components (e_a, |a|) and B's (|b|, e_b): the
//            propagated error of a product of two perturbed values (rnn_bound.cpp's Sum::term)
enum class GemmTerm { product, cross };

// The right operand B [K][N] (B(r, j) = comps[c] element (r, j)), packed for ordered_gemm: panels
// of kGemmLanes lanes, zero-padded. Components: 1 (product) or 2 (cross).
inline constexpr long long kGemmLanes = 8;
struct PackedB {
  PackedB(GemmTerm term, const std::vector<RowsView>& comps, long long K, long long N);
  GemmTerm term;
  long long K, N, panels;
  std::vector<double> data;  // [panel][r][component][kGemmLanes]
};

// C[i][j] (i < M, j < b.N; row i at c + i * ldc) continues its sum with term(A(i, r), B(r, j)) for
// r = 0 .. b.K-1 in turn; A(i, r) = a[c] element (i, r), components as b's term asks.
void ordered_gemm(double* c, long long ldc, long long M, const std::vector<RowsView>& a, const PackedB& b);

}  // namespace hiprim::ref
