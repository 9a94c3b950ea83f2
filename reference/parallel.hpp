// The references' threads: f(lo, hi) over contiguous parts of [0, count), one part per thread, up to
// hardware_concurrency threads, fewer where the work (about `work` operations in all, at least
// `work_per_thread` each) would not pay for starting them. Callers give every result element to one
// part and keep its arithmetic order inside the part, so results never depend on the thread count.
#pragma once
#include <algorithm>
#include <thread>
#include <vector>

namespace hiprim::ref {

template <typename F>
void for_parts(long long count, double work, double work_per_thread, F&& f) {
  const long long threads = std::min<long long>(
      {count, std::max(1u, std::thread::hardware_concurrency()), std::max(1LL, static_cast<long long>(work / work_per_thread))});
  if (threads <= 1) {
    if (count > 0) f(0LL, count);
    return;
  }
  std::vector<std::thread> pool;
  for (long long t = 0; t < threads; ++t) pool.emplace_back([&, t] { f(count * t / threads, count * (t + 1) / threads); });
  for (auto& th : pool) th.join();
}

}  // namespace hiprim::ref
