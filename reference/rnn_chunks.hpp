// The fixed summation order of the RNN reference's sums over samples, and its threads (internal to
// reference/rnn*.cpp). A weight gradient sums over every step and sample: it is formed per chunk of
// samples (chunk c: samples [N c / C, N (c+1) / C), C = min(N, kRnnChunks); inside a chunk steps
// T-1 down to 0, samples ascending within a step), and the chunk sums are added in chunk order.
// The order depends on N only. The threads split work so that every result element is computed by
// one thread in its fixed order (rnn_gemm.hpp, for_rnn_parts): results do not depend on the
// machine's thread count.
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

#include "reference/parallel.hpp"
#include "reference/rnn_gemm.hpp"

namespace hiprim::ref {

inline constexpr long long kRnnChunks = 16;

inline long long rnn_chunks(long long n) { return std::min(n, kRnnChunks); }

// The (step s, sample n) pairs chunk c of a batch of n sums over, in its order.
inline std::vector<std::pair<long long, long long>> rnn_chunk_order(long long steps, long long n, long long c) {
  const long long chunks = rnn_chunks(n), lo = n * c / chunks, hi = n * (c + 1) / chunks;
  std::vector<std::pair<long long, long long>> order;
  for (long long s = steps - 1; s >= 0; --s)
    for (long long k = lo; k < hi; ++k) order.emplace_back(s, k);
  return order;
}

// A view of the rows (s, n) of the pairs of order, row(s, n) each.
template <typename Row>
RowsView rows_by(const std::vector<std::pair<long long, long long>>& order, Row&& row, bool transposed = false, bool abs = false) {
  RowsView v{{}, transposed, abs};
  v.rows.reserve(order.size());
  for (auto [s, n] : order) v.rows.push_back(row(s, n));
  return v;
}

// The rows (u, n), u < steps, n < batch, of a sequence [steps][batch][ld] read in the other order
// when reverse: row (u, n) is base + ((reverse ? steps-1-u : u) batch + n) ld (processing step s to
// time t, or back).
inline RowsView sequence_rows(const double* base, long long steps, long long batch, long long ld, bool reverse, bool abs = false) {
  RowsView v{std::vector<const double*>(static_cast<std::size_t>(steps * batch)), false, abs};
  for (long long u = 0; u < steps; ++u)
    for (long long n = 0; n < batch; ++n) v.rows[u * batch + n] = base + ((reverse ? steps - 1 - u : u) * batch + n) * ld;
  return v;
}

// f(lo, hi) over contiguous parts of [0, count), one part per thread: up to hardware_concurrency
// threads, fewer where the work (about `work` operations in all) would not pay for starting them.
inline constexpr double kRnnWorkPerThread = 1 << 20;
inline constexpr double kRnnElementWork = 64;  // one gate element's cell (exp, tanh; the bound's terms)
template <typename F>
void for_rnn_parts(long long count, double work, F&& f) {
  for_parts(count, work, kRnnWorkPerThread, f);
}

}  // namespace hiprim::ref
