// Shared pieces of the device bench tests (test_bench_device.cpp, test_bench_ops_device.cpp).
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "bench/bench.hpp"
#include "core/error.hpp"

namespace hiprim::test_bench {

// A bench that finishes fast: one warm-up, 5 reps, 3 replays, 2 repeats, 4 host calls, 50 ms budget.
inline verify::BenchOptions quick_options() {
  verify::BenchOptions o;
  o.warmup = 1;
  o.reps = 5;
  o.replays = 3;
  o.repeats = 2;
  o.host_calls = 4;
  o.budget_ms = 50;
  return o;
}

// Without a GPU, make() (constructing a bench) must throw a RuntimeError saying the bench needs one.
inline void expect_refused_without_a_gpu(const std::function<void()>& make) {
  try {
    make();
    ADD_FAILURE() << "the bench was constructed without a GPU";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("hiprim bench needs a GPU"), std::string::npos) << e.what();
  }
}

}  // namespace hiprim::test_bench
