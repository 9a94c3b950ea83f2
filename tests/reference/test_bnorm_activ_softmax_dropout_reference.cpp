// Properties of the bnorm, activ, softmax and dropout references: training output normalized,
// backward passes against central finite differences of the forward (in double), activation
// derivatives and special values, softmax rows and log-softmax, stability at magnitude 1e4, the
// dropout keep rate (a binomial test) and mask layout independence.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <algorithm>
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

constexpr double kFdStep = 1.0 / 1024;  // h of the softmax central differences below

// The finite-difference check of the bnorm backward below, with its tolerance derived per case
// (issue 21: a fixed 1e-4 * (1 + |d|) at h = 2^-10 failed for groups of small variance, where the
// third derivative is large; the difference converged to the analytic value as h^2). For one
// coordinate, |fd - analytic| <= T + R + S:
// T, truncation: the central difference errs by h^2/6 |L'''(t)| for some |t| <= h. Moving x_i by t
//   moves only its group: with M its size, d_j = x_j - mu, A = sum dy_j d_j, B = dy_i - mean(dy),
//   a = 2 d_i / M, b = (M - 1) / M^2, q(t) = var + eps + a t + b t^2 (the biased variance plus eps),
//   L(t) = const + s (A + B t) q(t)^(-1/2), so L''' = s [(A + B t) g3 + 3 B g2] with g = q^(-1/2),
//   g2 = g'' = 3/4 q^(-5/2) q'^2 - 1/2 q^(-3/2) q'',  g3 = g''' = -15/8 q^(-7/2) q'^3 + 9/4 q^(-5/2) q' q'',
//   bounded over |t| <= h by q >= min_{|t|<=h} q(t) (>= eps), |q'| <= |a| + 2 b h, q'' = 2 b.
//   L is linear in scale and bias: T = 0 there.
// R, rounding of the difference: L is a double sum of N terms dy_k y_k, each y_k within (2M + 10)
//   eps_d relative of exact (two M-term sums, sqrt, divide, multiply, add), so each evaluation errs
//   by E <= (N + 2M + 10) eps_d sum |dy_k y_k| and the quotient by 2E / 2h; doubled for second-order
//   terms.
// S, the analytic side: the backward reads the saved mean and 1/sqrt(var + eps) rounded to fp32
//   (relative u = 2^-24 each), which moves xhat_j by at most D_j = u |xhat_j| + u |mu| inv (1 + u)
//   and so dx_i by |s| inv [u (|G_i| + (X + D)(|m| + Y D)) + D (|m| + Y D) + X Y D] (G_i = dy_i -
//   mean(dy), m = mean(dy xhat), X = max |xhat_j|, Y = max |dy_j|, D = max D_j), dscale by
//   sum |dy_j| D_j; dbias reads no statistic.
struct BnormFdBounds {
  double dx = 0, dscale = 0, dbias = 0;
};

// grp: the storage offsets of one group; i: a member of it (the x coordinate checked); rounding: R.
BnormFdBounds bnorm_fd_bounds(const std::vector<std::int64_t>& grp, std::int64_t i, const HostTensor& x,
                              const HostTensor& dy, double scale, double eps, double h, double rounding) {
  const double m_sz = static_cast<double>(grp.size()), u = std::ldexp(1.0, -24);
  double mu = 0, dy_mean = 0;
  for (auto o : grp) mu += x.data[o], dy_mean += dy.data[o];
  mu /= m_sz, dy_mean /= m_sz;
  double var = 0, a_sum = 0;
  for (auto o : grp) var += (x.data[o] - mu) * (x.data[o] - mu), a_sum += dy.data[o] * (x.data[o] - mu);
  var /= m_sz;
  const double inv = 1 / std::sqrt(var + eps);
  double x_max = 0, y_max = 0, m = 0, d_max = 0, dscale_s = 0;
  for (auto o : grp) {
    const double xh = (x.data[o] - mu) * inv;
    const double dj = u * std::fabs(xh) + u * std::fabs(mu) * inv * (1 + u);
    x_max = std::max(x_max, std::fabs(xh)), y_max = std::max(y_max, std::fabs(static_cast<double>(dy.data[o])));
    d_max = std::max(d_max, dj), m += dy.data[o] * xh, dscale_s += std::fabs(dy.data[o]) * dj;
  }
  m /= m_sz;
  BnormFdBounds b;
  b.dbias = rounding;
  b.dscale = rounding + dscale_s;
  const double di = x.data[i] - mu, bq = (m_sz - 1) / (m_sz * m_sz), aq = 2 * di / m_sz;
  const double big_b = dy.data[i] - dy_mean;
  auto q = [&](double t) { return var + eps + aq * t + bq * t * t; };
  double q_lo = std::min(q(-h), q(h));
  if (bq > 0 && std::fabs(aq / (2 * bq)) <= h) q_lo = std::min(q_lo, q(-aq / (2 * bq)));
  q_lo = std::max(q_lo, eps);
  const double qp = std::fabs(aq) + 2 * bq * h, qpp = 2 * bq;
  const double g2 = 0.75 * std::pow(q_lo, -2.5) * qp * qp + 0.5 * std::pow(q_lo, -1.5) * qpp;
  const double g3 = 15.0 / 8 * std::pow(q_lo, -3.5) * qp * qp * qp + 9.0 / 4 * std::pow(q_lo, -2.5) * qp * qpp;
  const double l3 = std::fabs(scale) * ((std::fabs(a_sum) + std::fabs(big_b) * h) * g3 + 3 * std::fabs(big_b) * g2);
  const double stats = std::fabs(scale) * inv *
                       (u * (std::fabs(big_b) + (x_max + d_max) * (std::fabs(m) + y_max * d_max)) +
                        d_max * (std::fabs(m) + y_max * d_max) + x_max * y_max * d_max);
  b.dx = h * h / 6 * l3 + rounding + stats;
  return b;
}

}  // namespace

// dx, dscale, dbias of the backward (with the batch statistics saved, rounded to fp32) against
// central differences of L = sum dy * y(x, scale, bias) of the training forward, all in double,
// within the bound derived above. h = 2^-14: the inputs are multiples of 2^-10 below 4 in
// magnitude, so x +- h stays exact in fp32.
RC_GTEST_PROP(BnormReference, BackwardMatchesFiniteDifferences, ()) {
  constexpr double h = 1.0 / 16384;
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
  auto forward_y = [&](const std::vector<HostTensor>& t) { return ref::bnorm_expected(*make_op_problem(fwd), ptrs(t, 5))[2].value; };
  auto loss = [&](const std::vector<HostTensor>& t) {
    const auto y = forward_y(t);
    double l = 0;
    for (std::size_t i = 0; i < y.size(); ++i) l += dy.data[i] * y[i];
    return l;
  };
  const auto stats = ref::bnorm_expected(*make_op_problem(fwd), ptrs(in, 5));
  HostTensor mean(bwd.param_desc()), inv(bwd.param_desc());
  for (std::size_t g = 0; g < mean.data.size(); ++g) {
    mean.data[g] = static_cast<float>(stats[3].value[g]);
    inv.data[g] = static_cast<float>(stats[4].value[g]);
  }
  std::vector<const HostTensor*> bin{&in[0], &dy, &in[1], &mean, &inv, nullptr, nullptr, nullptr};
  const auto grads = ref::bnorm_expected(*make_op_problem(bwd), bin);
  const auto groups = ref::bnorm_groups(fwd);
  // R of the derivation: (N + 2M + 10) eps_d sum |dy_k y_k| per evaluation, over h, doubled.
  double abs_sum = 0;
  const auto y0 = forward_y(in);
  for (std::size_t k = 0; k < y0.size(); ++k) abs_sum += std::fabs(dy.data[k] * y0[k]);
  const double m_max = static_cast<double>(groups.front().size());
  const double rounding = 2 * (static_cast<double>(y0.size()) + 2 * m_max + 10) * std::ldexp(1.0, -53) * abs_sum / h;
  auto check = [&](std::size_t tensor, std::size_t i, double analytic, double bound) {
    auto t = in;
    t[tensor].data[i] += static_cast<float>(h);
    const double up = loss(t);
    t[tensor].data[i] -= static_cast<float>(2 * h);
    const double fd = (up - loss(t)) / (2 * h);
    RC_ASSERT(std::fabs(fd - analytic) <= bound + 1e-12 * std::fabs(analytic));
  };
  const std::size_t i = *rc::gen::inRange<std::size_t>(0, in[0].data.size());
  std::size_t gi = 0;
  while (std::find(groups[gi].begin(), groups[gi].end(), static_cast<std::int64_t>(i)) == groups[gi].end()) ++gi;
  check(0, i, grads[0].value[i],
        bnorm_fd_bounds(groups[gi], static_cast<std::int64_t>(i), in[0], dy, in[1].data[gi], fwd.epsilon, h, rounding).dx);
  const std::size_t g = *rc::gen::inRange<std::size_t>(0, in[1].data.size());
  const BnormFdBounds pb = bnorm_fd_bounds(groups[g], groups[g].front(), in[0], dy, in[1].data[g], fwd.epsilon, h, rounding);
  check(1, g, grads[1].value[g], pb.dscale);
  check(2, g, grads[2].value[g], pb.dbias);
}

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
