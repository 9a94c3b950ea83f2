// Pooling and LRN references: hand-computed cases (tie and NaN rules, padding counts), the
// adjoint identity <fwd(x), dy> = <x, bwd(dy)> of pooling, and LRN's backward against central
// finite differences of its forward (all in double).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "reference/lrn.hpp"
#include "reference/pool.hpp"

namespace hiprim::ref {
namespace {

HostTensor tensor_of(const TensorDesc& d, const std::vector<float>& logical) {
  HostTensor t(d);
  std::size_t i = 0;
  for_each_index(d.dims, [&](const Dims& idx) { t.at(idx) = logical.at(i++); });
  return t;
}

// Logical-order values of an expected tensor.
std::vector<double> logical(const OpExpected& e, const TensorDesc& d) {
  std::vector<double> v;
  for_each_index(d.dims, [&](const Dims& idx) { v.push_back(e.value[static_cast<std::size_t>(d.offset(idx))]); });
  return v;
}

double dot(const std::vector<double>& a, const HostTensor& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b.data[i];
  return s;
}

// Small integers, so every sum and the adjoint identity of max pooling are exact in double.
HostTensor random_tensor(const TensorDesc& d, int range) {
  HostTensor t(d);
  for_each_index(d.dims, [&](const Dims& idx) { t.at(idx) = static_cast<float>(*rc::gen::inRange(-range, range + 1)); });
  return t;
}

PoolProblem pool2d(PoolMode mode, Dims in, Dims win, Dims pad, Dims str) {
  PoolProblem p;
  p.mode = mode;
  p.shape.in = std::move(in);
  p.window = std::move(win);
  p.pad = std::move(pad);
  p.stride = std::move(str);
  return p;
}

TEST(PoolReference, MaxTakesTheFirstMaximumInScanOrder) {
  const PoolProblem p = pool2d(PoolMode::max, {3, 3}, {2, 2}, {0, 0}, {1, 1});
  const HostTensor x = tensor_of(p.x_desc(), {1, 3, 3, 0, 3, 2, 1, 1, 1});
  const auto r = pool_forward(p, x);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(logical(r[0], p.y_desc()), (std::vector<double>{3, 3, 3, 3}));
  // Windows {1,3,0,3}, {3,3,3,2}, {0,3,1,1}, {3,2,1,1}: the first 3 is at k = 1, 0, 1, 0.
  EXPECT_EQ(logical(r[1], p.idx_desc()), (std::vector<double>{1, 0, 1, 0}));
  for (double b : r[0].bound) EXPECT_EQ(b, 0.0);
}

TEST(PoolReference, MaxIndexCountsPaddedPositionsAndNaNWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const PoolProblem p = pool2d(PoolMode::max, {3, 3}, {2, 2}, {1, 1}, {2, 2});
  const HostTensor x = tensor_of(p.x_desc(), {1, 2, 3, 4, 5, nan, 7, 8, 9});
  const auto r = pool_forward(p, x);
  const auto y = logical(r[0], p.y_desc()), idx = logical(r[1], p.idx_desc());
  // Window (0,0) covers rows/cols -1..0: only x[0][0] (k = 1*2+1 = 3).
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(idx[0], 3);
  // Window (0,1) covers row -1..0, cols 1..2: x[0][1], x[0][2] at k = 2, 3.
  EXPECT_EQ(y[1], 3);
  EXPECT_EQ(idx[1], 3);
  // Window (1,1) covers rows 1..2, cols 1..2: 5, NaN, 8, 9 -> NaN at k = 1.
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(idx[3], 1);
}

TEST(PoolReference, AverageIncludingAndExcludingPadding) {
  PoolProblem p = pool2d(PoolMode::avg_excl, {3, 3}, {3, 3}, {1, 1}, {1, 1});
  const HostTensor ones = tensor_of(p.x_desc(), std::vector<float>(9, 1.0f));
  EXPECT_EQ(logical(pool_forward(p, ones)[0], p.y_desc()), std::vector<double>(9, 1.0));
  p.mode = PoolMode::avg_incl;
  const auto y = logical(pool_forward(p, ones)[0], p.y_desc());
  EXPECT_EQ(y, (std::vector<double>{4 / 9., 6 / 9., 4 / 9., 6 / 9., 1, 6 / 9., 4 / 9., 6 / 9., 4 / 9.}));
}

PoolProblem gen_pool_problem() {
  PoolProblem p;
  const int rank = *rc::gen::inRange(2, 4);
  p.mode = *rc::gen::element(PoolMode::max, PoolMode::avg_incl, PoolMode::avg_excl);
  p.shape.channels_last = *rc::gen::arbitrary<bool>();
  p.shape.n = *rc::gen::inRange(1, 3);
  p.shape.c = *rc::gen::inRange(1, 4);
  p.shape.in.clear();
  p.window.clear();
  p.pad.clear();
  p.stride.clear();
  for (int i = 0; i < rank; ++i) {
    const std::int64_t w = *rc::gen::inRange(1, 4);
    const std::int64_t pad = *rc::gen::inRange<std::int64_t>(0, w);
    p.window.push_back(w);
    p.pad.push_back(pad);
    p.stride.push_back(*rc::gen::inRange(1, 4));
    p.shape.in.push_back(std::max<std::int64_t>(w, *rc::gen::inRange(1, 7)));
  }
  RC_PRE(p.validate().empty());
  return p;
}

// Pooling is linear in x (average) or routes by idx (max): <fwd(x), dy> = <x, bwd(dy)>.
RC_GTEST_PROP(PoolReference, BackwardIsTheAdjointOfForward, ()) {
  PoolProblem p = gen_pool_problem();
  const HostTensor x = random_tensor(p.x_desc(), 4), dy = random_tensor(p.y_desc(), 4);
  const auto fwd = pool_forward(p, x);
  HostTensor idx(p.idx_desc());
  if (p.mode == PoolMode::max)
    for (std::size_t i = 0; i < idx.data.size(); ++i) idx.data[i] = static_cast<float>(fwd[1].value[i]);
  p.dir = PoolDir::bwd;
  const auto bwd = pool_backward(p, dy, p.mode == PoolMode::max ? &idx : nullptr);
  const double lhs = dot(fwd[0].value, dy), rhs = dot(bwd[0].value, x);
  if (p.mode == PoolMode::max)
    RC_ASSERT(lhs == rhs);  // integer sums: exact
  else
    RC_ASSERT(std::fabs(lhs - rhs) <= 1e-12 * (1 + std::fabs(lhs)));
}

// A 3D problem of depth 1 (window 1, pad 0, stride 1 in depth) is its 2D problem.
RC_GTEST_PROP(PoolReference, DepthOneEqualsTwoD, ()) {
  PoolProblem p = gen_pool_problem();
  RC_PRE(p.rank() == 2);
  PoolProblem q = p;
  q.shape.in.insert(q.shape.in.begin(), 1);
  q.window.insert(q.window.begin(), 1);
  q.pad.insert(q.pad.begin(), 0);
  q.stride.insert(q.stride.begin(), 1);
  const HostTensor x = random_tensor(p.x_desc(), 4);
  HostTensor x3(q.x_desc());
  for_each_index(p.x_desc().dims, [&](const Dims& i) { x3.at(Dims{i[0], i[1], 0, i[2], i[3]}) = x.at(i); });
  const auto a = pool_forward(p, x), b = pool_forward(q, x3);
  RC_ASSERT(logical(a[0], p.y_desc()) == logical(b[0], q.y_desc()));
  if (p.mode == PoolMode::max) RC_ASSERT(logical(a[1], p.idx_desc()) == logical(b[1], q.idx_desc()));
}

TEST(LrnReference, WindowOfOneIsTheClosedForm) {
  for (auto mode : {LrnMode::across, LrnMode::within}) {
    LrnProblem p;
    p.mode = mode;
    p.shape.c = 2;
    p.shape.in = {1, 2};
    p.size = 1;
    p.alpha = 0.5;
    p.beta = 0.75;
    p.k = 2;
    const HostTensor x = tensor_of(p.shape.desc(), {1, -2, 3, 0.5f});
    const auto y = logical(lrn_forward(p, x)[0], p.shape.desc());
    const std::vector<double> xs{1, -2, 3, 0.5};
    for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_DOUBLE_EQ(y[i], xs[i] * std::pow(2 + 0.5 * xs[i] * xs[i], -0.75));
  }
}

TEST(LrnReference, AcrossChannelWindowIsClippedAndAveragedOverN) {
  LrnProblem p;
  p.shape.c = 3;
  p.shape.in = {1, 1};
  p.size = 3;
  p.alpha = 3;  // alpha / n = 1
  p.beta = 1;
  p.k = 1;
  const HostTensor x = tensor_of(p.shape.desc(), {1, 2, 3});
  const auto y = logical(lrn_forward(p, x)[0], p.shape.desc());
  EXPECT_DOUBLE_EQ(y[0], 1 / (1 + 1 + 4.0));      // channels 0..1
  EXPECT_DOUBLE_EQ(y[1], 2 / (1 + 1 + 4 + 9.0));  // channels 0..2
  EXPECT_DOUBLE_EQ(y[2], 3 / (1 + 4 + 9.0));      // channels 1..2
}

// <dx, v> = d/dh <dy, y(x + h v)> at h = 0, by central differences (error O(h^2)).
RC_GTEST_PROP(LrnReference, BackwardMatchesFiniteDifferencesOfForward, ()) {
  LrnProblem p;
  p.mode = *rc::gen::element(LrnMode::within, LrnMode::across);
  p.shape.channels_last = *rc::gen::arbitrary<bool>();
  p.shape.c = *rc::gen::inRange(1, 6);
  p.shape.in = {*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 4)};
  p.size = 2 * *rc::gen::inRange(0, 3) + 1;
  p.alpha = *rc::gen::element(0.5, 1.0, 2.0);
  p.beta = *rc::gen::element(0.75, 0.5, 1.5);
  p.k = *rc::gen::element(1.0, 2.0);
  const TensorDesc d = p.shape.desc();
  const HostTensor x = random_tensor(d, 8), dy = random_tensor(d, 4), v = random_tensor(d, 2);
  const double h = 1.0 / 1024;  // x +- h v stays exact in float (|x| <= 8, |v| <= 2)
  HostTensor xp = x, xm = x;
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    xp.data[i] = static_cast<float>(x.data[i] + h * v.data[i]);
    xm.data[i] = static_cast<float>(x.data[i] - h * v.data[i]);
  }
  const double fd = (dot(lrn_forward(p, xp)[0].value, dy) - dot(lrn_forward(p, xm)[0].value, dy)) / (2 * h);
  p.dir = LrnDir::bwd;
  const double an = dot(lrn_backward(p, x, dy)[0].value, v);
  double scale = 0;
  for (std::size_t i = 0; i < x.data.size(); ++i) scale += std::fabs(dy.data[i] * v.data[i]);
  // Third derivatives of y are O(1) here, so the O(h^2) truncation is ~1e-6 * scale.
  RC_ASSERT(std::fabs(fd - an) <= 1e-4 * (1 + scale));
}

TEST(LrnReference, BoundsArePositiveAndRelativeToTheValue) {
  LrnProblem p;
  p.shape.c = 4;
  p.shape.in = {2, 2};
  p.size = 3;
  p.alpha = 1;
  p.shape.dtype = DType::fp16;
  HostTensor x(p.shape.desc());
  for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i) - 7;
  const auto y = lrn_forward(p, x)[0];
  for (std::size_t i = 0; i < y.value.size(); ++i) {
    EXPECT_GE(y.bound[i], 0x1p-11 * std::fabs(y.value[i]));         // at least the fp16 rounding
    EXPECT_LE(y.bound[i], 0x1p-11 * std::fabs(y.value[i]) + 1e-4);  // and not much more
  }
}

}  // namespace
}  // namespace hiprim::ref
