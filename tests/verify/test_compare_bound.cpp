// The bounded tier's bound against real fp32 dot products: it must hold (never flag a correct
// fp32-accumulated result) and must not be absurdly loose.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

#include "verify/compare.hpp"

using namespace hiprim;
using namespace hiprim::verify;

namespace {

enum class Order { sequential, shuffled, random_tree, fma };

struct DotResult {
  float got;            // fp32 accumulation, stored in the dtype
  double exact, abs_sum;
};

// sum_j a_j*b_j (+ bias) of dtype values uniform in [-1, 1]: float products and sums in the given
// order, the result rounded to the dtype; and the same sum in double.
DotResult dot(DType dt, int len, bool bias, Order order, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<float> terms;
  DotResult r{0, 0, 0};
  for (int j = 0; j < len + (bias ? 1 : 0); ++j) {
    const float a = round_to(dt, val(rng));
    const float b = j < len ? round_to(dt, val(rng)) : 1.0f;  // the bias term is a*1
    terms.push_back(a * b);  // exact for fp16/bf16, one rounding for fp32
    r.exact += double(a) * double(b);
    r.abs_sum += std::fabs(double(a) * double(b));
    if (order == Order::fma && j < len) terms.back() = a, terms.push_back(b);  // keep the factors
  }
  float s = 0;
  if (order == Order::fma) {
    for (std::size_t i = 0; i + 1 < terms.size(); i += 2) s = std::fma(terms[i], terms[i + 1], s);
    if (bias) s += terms.back();
  } else if (order == Order::random_tree) {  // add two random partial sums until one is left
    while (terms.size() > 1) {
      std::size_t i = rng() % terms.size();
      std::swap(terms[i], terms.back());
      const float x = terms.back();
      terms.pop_back();
      std::size_t k = rng() % terms.size();
      terms[k] = terms[k] + x;
    }
    s = terms[0];
  } else {
    if (order == Order::shuffled) std::shuffle(terms.begin(), terms.end(), rng);
    for (float t : terms) s += t;
  }
  r.got = round_to(dt, s);
  return r;
}

Verdict check(DType dt, const std::vector<DotResult>& rs, std::int64_t len) {
  HostTensor got(TensorDesc::packed(dt, {1, static_cast<std::int64_t>(rs.size()), 1, 1}, false));
  std::vector<double> e, a;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    got.data[i] = rs[i].got;
    e.push_back(rs[i].exact);
    a.push_back(rs[i].abs_sum);
  }
  return compare(got, e, a, got.desc, Tolerance{FillTier::bounded, dt, len, 1.0});
}

}  // namespace

RC_GTEST_PROP(CompareBound, HoldsForFloatDotProducts, ()) {
  const int len = *rc::gen::inRange(1, 4097);
  const DType dt = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  const Order order = *rc::gen::element(Order::sequential, Order::shuffled, Order::random_tree, Order::fma);
  const bool bias = *rc::gen::arbitrary<bool>();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const DotResult r = dot(dt, len, bias, order, seed);
  const Verdict v = check(dt, {r}, len + (bias ? 1 : 0));
  RC_ASSERT(v.status != Status::failed);
  RC_ASSERT(v.metrics.worst_ratio <= 1.0);
}

// The bound is within 4 orders of magnitude of errors that really occur: fp32, L = 4096,
// sequential accumulation. (The worst-case bound grows like L*u*abs_sum while typical rounding
// errors grow like sqrt(L)*u*|partial sums|, so a ratio near 1e-3..1e-4 is expected here.)
TEST(CompareBound, IsNotAbsurdlyLoose) {
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::vector<DotResult> rs;
    for (int out = 0; out < 16; ++out) rs.push_back(dot(DType::fp32, 4096, false, Order::sequential, seed * 1000 + out));
    const Verdict v = check(DType::fp32, rs, 4096);
    EXPECT_EQ(v.status, Status::passed) << v.reason;
    worst = std::max(worst, v.metrics.worst_ratio);
  }
  EXPECT_GT(worst, 1e-4);
  EXPECT_LE(worst, 1.0);
  std::printf("fp32 L=4096 sequential: worst error/bound over 96 dot products = %.3g\n", worst);
}

// A dot product computed with one term missing (a typical indexing bug) fails the bound.
TEST(CompareBound, CatchesADroppedTerm) {
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    DotResult r = dot(DType::fp32, 576, false, Order::sequential, seed);
    std::mt19937_64 rng(seed);  // the same first term dot() drew
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    const float a = static_cast<float>(val(rng)), b = static_cast<float>(val(rng));
    r.got -= a * b;
    caught += check(DType::fp32, {r}, 576).status == Status::failed;
  }
  // |a*b| < 1e-3 happens for ~1% of draws; every other drop must be caught.
  EXPECT_GE(caught, 18);
}
