// Properties of the bnorm, activ, softmax and dropout references: training output normalized,
// backward passes against central finite differences of the forward (in double), activation
// derivatives and special values, softmax rows and log-softmax, stability at magnitude 1e4, the
// dropout keep rate (a binomial test) and mask layout independence.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/activ_problem.hpp"
#include "core/bnorm_problem.hpp"
#include "core/dropout_problem.hpp"
#include "core/softmax_problem.hpp"
#include "reference/activ.hpp"
#include "reference/bnorm.hpp"
#include "reference/dropout.hpp"
#include "reference/softmax.hpp"

using namespace hiprim;

namespace {

// Values k * 2^-10 in [lo, hi): exact in fp32, and x +- 2^-10 stays exact (finite differences).
HostTensor grid_tensor(const TensorDesc& d, std::mt19937& rng, double lo, double hi) {
  HostTensor t(d);
  std::uniform_int_distribution<int> k(static_cast<int>(lo * 1024), static_cast<int>(hi * 1024) - 1);
  for (auto& v : t.data) v = static_cast<float>(k(rng) / 1024.0);
  return t;
}

std::vector<const HostTensor*> ptrs(const std::vector<HostTensor>& ts, std::size_t outputs_from) {
  std::vector<const HostTensor*> p;
  for (std::size_t i = 0; i < ts.size(); ++i) p.push_back(i < outputs_from ? &ts[i] : nullptr);
  return p;
}

OpShape small_shape(int n, int c, int h, int w, bool cl) {
  OpShape s;
  s.n = n, s.c = c, s.in = {h, w}, s.channels_last = cl;
  return s;
}

constexpr double kFdStep = 1.0 / 1024;  // h of the central differences below

}  // namespace

// y = scale * xhat + bias with scale 1, bias 0: per group mean 0 and variance var/(var + eps).
RC_GTEST_PROP(BnormReference, TrainingOutputIsNormalized, ()) {
  BnormProblem p;
  p.mode = *rc::gen::element(BnormMode::spatial, BnormMode::per_activation);
  p.shape = small_shape(*rc::gen::inRange(2, 5), *rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4),
                        *rc::gen::arbitrary<bool>());
  std::mt19937 rng(*rc::gen::arbitrary<unsigned>());
  const auto ts = p.tensors();
  std::vector<HostTensor> in;
  for (std::size_t i = 0; i < 5; ++i) in.push_back(grid_tensor(ts[i].desc, rng, -2, 6));
  for (auto& v : in[1].data) v = 1.0f;  // scale
  for (auto& v : in[2].data) v = 0.0f;  // bias
  const auto out = ref::bnorm_expected(*make_op_problem(p), ptrs(in, 5));
  const auto& y = out[2].value;
  for (const auto& grp : ref::bnorm_groups(p)) {
    double mean = 0, var = 0, xm = 0, xv = 0;
    for (auto o : grp) mean += y[o], xm += in[0].data[o];
    mean /= grp.size(), xm /= grp.size();
    for (auto o : grp) var += (y[o] - mean) * (y[o] - mean), xv += (in[0].data[o] - xm) * (in[0].data[o] - xm);
    var /= grp.size(), xv /= grp.size();
    RC_ASSERT(std::fabs(mean) <= 1e-12);
    RC_ASSERT(std::fabs(var - xv / (xv + p.epsilon)) <= 1e-12);
    if (xv > 0.01) RC_ASSERT(std::fabs(var - 1.0) <= 1e-3);  // eps/var <= 1e-3
  }
}

// dx, dscale, dbias of the backward (with the true batch statistics saved) against central
// differences of L = sum dy * y(x, scale, bias) of the training forward, all in double. The
// difference's truncation error is h^2/6 |L'''| (~1e-6 here); the saved statistics are rounded to
// fp32 (relative 6e-8): tolerance 1e-4 * (1 + |derivative|).
RC_GTEST_PROP(BnormReference, BackwardMatchesFiniteDifferences, ()) {
  BnormProblem fwd;
  fwd.mode = *rc::gen::element(BnormMode::spatial, BnormMode::per_activation);
  fwd.shape = small_shape(*rc::gen::inRange(2, 4), *rc::gen::inRange(1, 3), *rc::gen::inRange(1, 4), *rc::gen::inRange(2, 4),
                          *rc::gen::arbitrary<bool>());
  fwd.epsilon = 1e-3;
  BnormProblem bwd = fwd;
  bwd.dir = BnormDir::bwd;
  bwd.momentum = std::nullopt;
  std::mt19937 rng(*rc::gen::arbitrary<unsigned>());
  const auto ft = fwd.tensors();
  std::vector<HostTensor> in;
  for (std::size_t i = 0; i < 5; ++i) in.push_back(grid_tensor(ft[i].desc, rng, -2, 2));
  for (auto& v : in[1].data) v = static_cast<float>(0.5 + std::fabs(v));  // scale in [0.5, 2.5)
  const HostTensor dy = grid_tensor(ft[0].desc, rng, -1, 1);
  auto loss = [&](const std::vector<HostTensor>& t) {
    const auto y = ref::bnorm_expected(*make_op_problem(fwd), ptrs(t, 5))[2].value;
    double l = 0;
    for (std::size_t i = 0; i < y.size(); ++i) l += dy.data[i] * y[i];
    return l;
  };
  const auto stats = ref::bnorm_expected(*make_op_problem(fwd), ptrs(in, 5));
  HostTensor mean(ft[0].desc.dims.size() ? bwd.param_desc() : bwd.param_desc()), inv(bwd.param_desc());
  for (std::size_t g = 0; g < mean.data.size(); ++g) {
    mean.data[g] = static_cast<float>(stats[3].value[g]);
    inv.data[g] = static_cast<float>(stats[4].value[g]);
  }
  std::vector<const HostTensor*> bin{&in[0], &dy, &in[1], &mean, &inv, nullptr, nullptr, nullptr};
  const auto grads = ref::bnorm_expected(*make_op_problem(bwd), bin);
  auto check = [&](std::size_t tensor, std::size_t i, double analytic) {
    auto t = in;
    t[tensor].data[i] += static_cast<float>(kFdStep);
    const double up = loss(t);
    t[tensor].data[i] -= static_cast<float>(2 * kFdStep);
    const double fd = (up - loss(t)) / (2 * kFdStep);
    RC_ASSERT(std::fabs(fd - analytic) <= 1e-4 * (1 + std::fabs(analytic)));
  };
  const std::size_t i = *rc::gen::inRange<std::size_t>(0, in[0].data.size());
  check(0, i, grads[0].value[i]);
  const std::size_t g = *rc::gen::inRange<std::size_t>(0, in[1].data.size());
  check(1, g, grads[1].value[g]);
  check(2, g, grads[2].value[g]);
}

// f' against (f(x+h) - f(x-h)) / 2h in double, h = 1e-6 |x| + 1e-6, away from kinks (|x| > 0.01,
// |x - alpha| > 0.01): truncation h^2/6 |f'''| plus rounding 1e-16/h: within 1e-6 (1 + |f'|).
RC_GTEST_PROP(ActivReference, DerivativeMatchesFiniteDifferences, ()) {
  ActivProblem p;
  p.mode = static_cast<ActivMode>(*rc::gen::inRange(0, kActivModeCount));
  p.alpha = activ_uses_alpha(p.mode) ? *rc::gen::inRange(1, 40) / 10.0 : 1.0;
  p.beta = activ_uses_beta(p.mode) ? *rc::gen::inRange(5, 20) / 10.0 : 1.0;
  p.gamma = activ_uses_gamma(p.mode) ? *rc::gen::inRange(-20, 30) / 10.0 : 1.0;
  double x = *rc::gen::inRange(-4000, 4000) / 1000.0;
  if (p.mode == ActivMode::power) x = (*rc::gen::inRange(250, 2000) / 1000.0 - p.alpha) / p.beta;  // base in [0.25, 2)
  RC_PRE(std::fabs(x) > 0.01 && std::fabs(x - p.alpha) > 0.01);
  const double h = 1e-6 * std::fabs(x) + 1e-6;
  const double fd = (ref::activ_value(p, x + h) - ref::activ_value(p, x - h)) / (2 * h);
  const double d = ref::activ_derivative(p, x);
  RC_ASSERT(std::fabs(fd - d) <= 1e-6 * (1 + std::fabs(d)));
}

TEST(ActivReference, SpecialValuesGiveTheMathematicalLimits) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto f = [](ActivMode m, double x, double alpha = 1, double beta = 1) {
    ActivProblem p;
    p.mode = m, p.alpha = alpha, p.beta = beta;
    return ref::activ_value(p, x);
  };
  auto d = [](ActivMode m, double x) {
    ActivProblem p;
    p.mode = m;
    return ref::activ_derivative(p, x);
  };
  EXPECT_EQ(f(ActivMode::relu, inf), inf);
  EXPECT_EQ(f(ActivMode::relu, -inf), 0.0);
  EXPECT_EQ(f(ActivMode::relu, -0.0), 0.0);
  EXPECT_EQ(f(ActivMode::logistic, inf), 1.0);
  EXPECT_EQ(f(ActivMode::logistic, -inf), 0.0);
  EXPECT_EQ(f(ActivMode::logistic, 0.0), 0.5);
  EXPECT_EQ(f(ActivMode::tanh, inf, 2.0, 3.0), 3.0);
  EXPECT_EQ(f(ActivMode::tanh, -inf, 2.0, 3.0), -3.0);
  EXPECT_EQ(f(ActivMode::softrelu, inf), inf);
  EXPECT_EQ(f(ActivMode::softrelu, -inf), 0.0);
  EXPECT_DOUBLE_EQ(f(ActivMode::softrelu, 0.0), std::log(2.0));
  EXPECT_EQ(f(ActivMode::abs, -inf), inf);
  EXPECT_EQ(f(ActivMode::clippedrelu, inf, 6.0), 6.0);
  EXPECT_EQ(f(ActivMode::leakyrelu, -inf, 0.1), -inf);
  EXPECT_EQ(f(ActivMode::elu, -inf, 0.5), -0.5);
  EXPECT_EQ(f(ActivMode::gelu, inf), inf);
  EXPECT_EQ(f(ActivMode::gelu, -inf), 0.0);
  EXPECT_EQ(f(ActivMode::gelu, 0.0), 0.0);
  EXPECT_EQ(f(ActivMode::gelu_tanh, -inf), 0.0);
  EXPECT_EQ(f(ActivMode::silu, -inf), 0.0);
  EXPECT_EQ(f(ActivMode::silu, inf), inf);
  EXPECT_EQ(d(ActivMode::logistic, inf), 0.0);
  EXPECT_EQ(d(ActivMode::silu, inf), 1.0);
  EXPECT_EQ(d(ActivMode::silu, -inf), 0.0);
  EXPECT_EQ(d(ActivMode::gelu, -inf), 0.0);
  EXPECT_EQ(d(ActivMode::relu, inf), 1.0);
  EXPECT_EQ(d(ActivMode::relu, 0.0), 0.0);
  for (int m = 0; m < kActivModeCount; ++m) {
    EXPECT_TRUE(std::isnan(f(static_cast<ActivMode>(m), nan))) << m;
    EXPECT_TRUE(std::isnan(d(static_cast<ActivMode>(m), nan))) << m;
  }
}

RC_GTEST_PROP(SoftmaxReference, RowsSumToOneAndLogIsLogOfSoftmax, ()) {
  SoftmaxProblem p;
  p.mode = *rc::gen::element(SoftmaxMode::instance, SoftmaxMode::channel);
  p.shape = small_shape(*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 6), *rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4),
                        *rc::gen::arbitrary<bool>());
  const double scale = *rc::gen::element(1.0, 1e4);  // 1e4: the stability requirement
  std::mt19937 rng(*rc::gen::arbitrary<unsigned>());
  HostTensor x = grid_tensor(p.shape.desc(), rng, -1, 1);
  for (auto& v : x.data) v = static_cast<float>(v * scale);
  const auto y = ref::softmax_expected(*make_op_problem(p), {&x, nullptr})[0].value;
  SoftmaxProblem lp = p;
  lp.algo = SoftmaxAlgo::log;
  const auto ly = ref::softmax_expected(*make_op_problem(lp), {&x, nullptr})[0].value;
  for (const auto& row : ref::softmax_rows(p)) {
    double s = 0;
    for (auto o : row) {
      RC_ASSERT(std::isfinite(y[o]) && std::isfinite(ly[o]));
      s += y[o];
      if (y[o] > 1e-300) RC_ASSERT(std::fabs(ly[o] - std::log(y[o])) <= 1e-12 * (1 + std::fabs(ly[o])));
    }
    RC_ASSERT(std::fabs(s - 1.0) <= 1e-13 * static_cast<double>(row.size()));
  }
}

// dx of the backward (given y = softmax(x) rounded to fp32) against central differences of
// L = sum dy * y(x): truncation ~h^2 and the fp32 rounding of y (6e-8): within 1e-5 (1 + |dx|).
RC_GTEST_PROP(SoftmaxReference, BackwardMatchesFiniteDifferences, ()) {
  SoftmaxProblem p;
  p.algo = *rc::gen::element(SoftmaxAlgo::accurate, SoftmaxAlgo::log);
  p.mode = *rc::gen::element(SoftmaxMode::instance, SoftmaxMode::channel);
  p.shape = small_shape(*rc::gen::inRange(1, 3), *rc::gen::inRange(2, 6), *rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3), false);
  std::mt19937 rng(*rc::gen::arbitrary<unsigned>());
  HostTensor x = grid_tensor(p.shape.desc(), rng, -2, 2), dy = grid_tensor(p.shape.desc(), rng, -1, 1);
  auto forward = [&](const HostTensor& in) { return ref::softmax_expected(*make_op_problem(p), {&in, nullptr})[0].value; };
  const auto yv = forward(x);
  HostTensor y(p.shape.desc());
  for (std::size_t i = 0; i < yv.size(); ++i) y.data[i] = static_cast<float>(yv[i]);
  SoftmaxProblem b = p;
  b.dir = SoftmaxDir::bwd;
  const auto dx = ref::softmax_expected(*make_op_problem(b), {&y, &dy, nullptr})[0].value;
  const std::size_t i = *rc::gen::inRange<std::size_t>(0, x.data.size());
  auto loss = [&](float delta) {
    HostTensor t = x;
    t.data[i] += delta;
    const auto v = forward(t);
    double l = 0;
    for (std::size_t j = 0; j < v.size(); ++j) l += dy.data[j] * v[j];
    return l;
  };
  const double fd = (loss(static_cast<float>(kFdStep)) - loss(static_cast<float>(-kFdStep))) / (2 * kFdStep);
  RC_ASSERT(std::fabs(fd - dx[i]) <= 1e-5 * (1 + std::fabs(dx[i])));
}

// Kept count of n elements ~ Binomial(n, 1 - rate): within 5 standard deviations (a false alarm has
// probability < 6e-7 per rate).
TEST(ActivReference, ClippedReluKinkIsAtTheFp32Alpha) {
  // alpha = 0.01 is not an fp32 value; the solver compares x with float(0.01) = 0.00999999977...,
  // so at x = float(0.01) the input sits on the kink (derivative 0, the right-hand side), just
  // below it the derivative is 1. (Found by the H200 op fuzz run: the reference used the double alpha.)
  ActivProblem p;
  p.mode = ActivMode::clippedrelu;
  p.alpha = 0.01;
  const double a32 = static_cast<float>(0.01);
  ASSERT_LT(a32, 0.01);
  EXPECT_EQ(ref::activ_derivative(p, a32), 0.0);
  EXPECT_EQ(ref::activ_derivative(p, std::nextafter(static_cast<float>(0.01), 0.0f)), 1.0);
  EXPECT_EQ(ref::activ_derivative(p, 0.0), 0.0);
}

TEST(DropoutReference, KeepRateMatchesTheBinomial) {
  for (double rate : {0.0, 0.1, 0.5, 0.9}) {
    DropoutProblem p;
    p.shape = small_shape(4, 8, 64, 100, false);
    p.rate = rate;
    p.seed = 12345;
    const auto n = static_cast<std::uint64_t>(p.shape.elements());
    std::uint64_t kept = 0;
    for (std::uint64_t i = 0; i < n; ++i) kept += ref::dropout_keep(p, i);
    const double mean = double(n) * (1 - rate), sd = std::sqrt(double(n) * rate * (1 - rate));
    EXPECT_LE(std::fabs(double(kept) - mean), 5 * sd + 1e-9) << "rate " << rate << ": kept " << kept << " of " << n;
  }
}

// The mask is a function of the logical index: NCHW and NHWC drop the same logical elements, and
// a dropped element is exactly 0.
TEST(DropoutReference, MaskIsLayoutIndependentAndExact) {
  DropoutProblem a;
  a.shape = small_shape(2, 5, 3, 7, false);
  a.rate = 0.4;
  a.seed = 99;
  DropoutProblem b = a;
  b.shape.channels_last = true;
  std::mt19937 rng(7);
  HostTensor xa = grid_tensor(a.shape.desc(), rng, 0.5, 1.5), xb(b.shape.desc());
  for_each_index(xa.desc.dims, [&](const Dims& idx) { xb.at(idx) = xa.at(idx); });
  const auto ya = ref::dropout_expected(*make_op_problem(a), {&xa, nullptr})[0];
  const auto yb = ref::dropout_expected(*make_op_problem(b), {&xb, nullptr})[0];
  std::int64_t dropped = 0;
  for_each_index(xa.desc.dims, [&](const Dims& idx) {
    const double va = ya.value[xa.desc.offset(idx)], vb = yb.value[xb.desc.offset(idx)];
    EXPECT_EQ(va, vb);
    if (va == 0.0) {
      ++dropped;
      EXPECT_EQ(ya.bound[xa.desc.offset(idx)], 0.0);
    } else {
      EXPECT_EQ(va, double(xa.at(idx)) * double(a.scale()));
    }
  });
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, xa.desc.elements());
}
