// The samples of a batch in fixed chunks, run on threads (internal to reference/rnn*.cpp): the
// recurrences of different samples never meet, so the forward and backward passes split over n.
// The chunking depends on N only (at most kRnnChunks chunks), and sums over samples (the weight
// gradients) are formed per chunk and added in chunk order: the results do not depend on the
// machine's thread count.
#pragma once
#include <algorithm>
#include <thread>
#include <vector>

namespace hiprim::ref {

inline constexpr long long kRnnChunks = 16;  // each chunk holds its own weight-gradient sums: memory x 16

inline long long rnn_chunks(long long n) { return std::min(n, kRnnChunks); }

// f(chunk, lo, hi) for every chunk [lo, hi) of [0, n), on up to hardware_concurrency threads.
template <typename F>
void for_rnn_chunks(long long n, F&& f) {
  const long long chunks = rnn_chunks(n);
  auto range = [&](long long c) { return std::pair{n * c / chunks, n * (c + 1) / chunks}; };
  const long long threads = std::min<long long>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (long long c = 0; c < chunks; ++c) f(c, range(c).first, range(c).second);
    return;
  }
  std::vector<std::thread> pool;
  for (long long t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (long long c = t; c < chunks; c += threads) f(c, range(c).first, range(c).second);
    });
  for (auto& th : pool) th.join();
}

}  // namespace hiprim::ref
