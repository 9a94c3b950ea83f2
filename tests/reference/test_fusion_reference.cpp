// The fusion reference (reference/fusion.hpp): under the unfused model it equals the steps'
// registered references run one after another on rounded intermediates, exactly; under both
// models its bound holds for an fp32 emulation of a solver of that model (conv accumulated in
// float, each step in float, intermediates kept in fp32 or stored in the dtype) and, for the fused
// model, for the exact chain recomputed in double, on random chains of every activation mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/bnorm_problem.hpp"
#include "core/fusion_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "reference/activ.hpp"
#include "reference/conv.hpp"
#include "reference/fusion.hpp"
#include "reference/op_reference.hpp"

namespace hiprim {
namespace {


struct Data {
  std::vector<HostTensor> t;  // tensors() order, the output zero
  std::vector<const HostTensor*> ptrs() const {
    std::vector<const HostTensor*> v;
    for (const auto& h : t) v.push_back(&h);
    v.back() = nullptr;
    return v;
  }
};

// Reals in [-1, 1) (integers in [-3, 3] when `integers`) rounded to each tensor's dtype; bnorm's
// scale in [0.5, 1.5), variance in [0.1, 2).
Data random_data(const FusionProblem& p, std::mt19937_64& rng, bool integers) {
  Data d;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const OpTensor& ts : p.tensors()) {
    HostTensor h(ts.desc);
    if (ts.role != OpTensor::Role::output)
      for_each_index(ts.desc.dims, [&](const Dims& i) {
        const double u = unit(rng);
        double v = integers ? std::floor(u * 7) - 3 : 2 * u - 1;
        if (ts.name == "bn_scale") v = 0.5 + u;
        if (ts.name == "bn_var") v = 0.1 + 1.9 * u;
        h.at(i) = round_to(ts.desc.dtype, v);
      });
    d.t.push_back(std::move(h));
  }
  return d;
}

const HostTensor& named(const FusionProblem& p, const Data& d, const char* name) {
  const auto ts = p.tensors();
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (ts[i].name == name) return d.t[i];
  throw std::runtime_error(std::string("no tensor ") + name);
}

FusionProblem random_chain(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  FusionProblem p;
  p.dtype = static_cast<DType>(pick(3));
  p.channels_last = pick(2) == 1;
  p.rounding = pick(2) ? FusionRounding::unfused : FusionRounding::fused;
  FusionStep c;
  c.conv.n = 1 + pick(2);
  c.conv.groups = 1 + pick(2);
  c.conv.c = c.conv.groups * (1 + pick(4));
  c.conv.k = c.conv.groups * (1 + pick(4));
  const std::int64_t f = 1 + 2 * pick(2);
  c.conv.filter = {f, f};
  c.conv.pad = {pick(2), pick(2)};
  c.conv.stride = {1 + pick(2), 1};
  c.conv.in = {f + pick(5), f + pick(5)};
  c.conv.dtype = p.dtype;
  c.conv.channels_last = p.channels_last;
  p.steps = {c};
  if (pick(2)) p.steps.push_back(fusion_step(FusionOp::bias));
  if (pick(2)) {
    FusionStep b = fusion_step(FusionOp::bnorm_infer);
    b.epsilon = pick(2) ? 1e-5 : 1e-3;
    p.steps.push_back(b);
  }
  if (pick(2)) {
    FusionStep a = fusion_step(FusionOp::add);
    a.alpha = pick(2) ? 1.0 : 0.5, a.beta = pick(2) ? 1.0 : -1.0;
    p.steps.push_back(a);
  }
  if (pick(4)) {
    FusionStep a = fusion_step(FusionOp::activ);
    a.mode = static_cast<ActivMode>(pick(kActivModeCount));
    if (activ_uses_alpha(a.mode)) a.activ_alpha = a.mode == ActivMode::clippedrelu ? 2.0 : 0.5;
    if (activ_uses_beta(a.mode)) a.activ_beta = pick(2) ? 2.0 : -1.0;
    if (activ_uses_gamma(a.mode)) a.activ_gamma = 2.0 + pick(2);
    p.steps.push_back(a);
  }
  EXPECT_TRUE(p.validate().empty()) << to_string(p);
  return p;
}

// y of the chain computed element by element: the conv sum in T (float: an fp32 solver; double:
// the exact chain), each step in T, intermediates rounded to `store` when given (unfused).
template <typename T>
std::vector<double> emulate(const FusionProblem& p, const Data& d, std::optional<DType> store) {
  const ConvProblem c = p.conv();
  const HostTensor &x = named(p, d, "x"), &w = named(p, d, "w");
  const TensorDesc yd = p.y_desc();
  std::vector<double> out(static_cast<std::size_t>(yd.storage_elements()));
  const std::int64_t cg = c.c / c.groups, kg = c.k / c.groups;
  auto keep = [&](T v) { return store ? static_cast<T>(round_to(*store, static_cast<double>(v))) : v; };
  for_each_index(yd.dims, [&](const Dims& i) {
    const std::int64_t k = i[1], g = k / kg;
    T v = 0;
    for (std::int64_t cc = 0; cc < cg; ++cc)
      for (std::int64_t r = 0; r < c.filter[0]; ++r)
        for (std::int64_t s = 0; s < c.filter[1]; ++s) {
          const std::int64_t h = i[2] * c.stride[0] - c.pad[0] + r * c.dilation[0], ww = i[3] * c.stride[1] - c.pad[1] + s * c.dilation[1];
          if (h < 0 || ww < 0 || h >= c.in[0] || ww >= c.in[1]) continue;
          v += static_cast<T>(x.at({i[0], g * cg + cc, h, ww})) * static_cast<T>(w.at({k, cc, r, s}));
        }
    v = keep(v);
    for (std::size_t st = 1; st < p.steps.size(); ++st) {
      const FusionStep& s = p.steps[st];
      if (s.op == FusionOp::bias) v = keep(v + static_cast<T>(named(p, d, "bias").data[k]));
      if (s.op == FusionOp::bnorm_infer) {
        const T sc = named(p, d, "bn_scale").data[k], sh = named(p, d, "bn_shift").data[k], m = named(p, d, "bn_mean").data[k];
        const T inv = T(1) / std::sqrt(static_cast<T>(named(p, d, "bn_var").data[k]) + static_cast<T>(s.epsilon));
        v = keep((v - m) * (sc * inv) + sh);
      }
      if (s.op == FusionOp::add)
        v = keep(static_cast<T>(static_cast<float>(s.alpha)) * v + static_cast<T>(static_cast<float>(s.beta)) * static_cast<T>(named(p, d, "residual").at(i)));
      if (s.op == FusionOp::activ) v = keep(static_cast<T>(ref::activ_value(p.activ(), static_cast<double>(v))));
    }
    out[static_cast<std::size_t>(yd.offset(i))] = static_cast<double>(v);
  });
  return out;
}

// The steps' registered references one after another, each result rounded to the dtype.
std::vector<double> steps_by_registry(const FusionProblem& p, const Data& d) {
  const ConvProblem c = p.conv();
  const TensorDesc yd = p.y_desc();
  HostTensor v(yd);
  const ref::ConvOutput o = ref::conv(c, {.x = &named(p, d, "x"), .w = &named(p, d, "w")});
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = round_to(p.dtype, o.value[i]);
  std::vector<double> last = o.value;
  auto run = [&](const OpProblemPtr& q, std::vector<const HostTensor*> in) {
    const auto e = ref::op_expected(*q, in);
    last = e[0].value;
    for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = round_to(p.dtype, last[i]);
  };
  for (std::size_t st = 1; st < p.steps.size(); ++st) {
    const FusionStep& s = p.steps[st];
    TensorOpProblem t;
    t.dtype = p.dtype;
    t.channels_last = p.channels_last;
    t.a = yd.dims;
    if (s.op == FusionOp::bias) {
      t.b = {1, c.k, 1, 1};
      HostTensor b(t.b_desc());
      b.data = named(p, d, "bias").data;
      HostTensor in = v;
      run(make_op_problem(t), {&in, &b, nullptr});
    } else if (s.op == FusionOp::add) {
      t.b = yd.dims;
      t.alpha1 = s.alpha;
      t.alpha2 = s.beta;
      HostTensor in = v;
      run(make_op_problem(t), {&in, &named(p, d, "residual"), nullptr});
    } else if (s.op == FusionOp::bnorm_infer) {
      BnormProblem b;
      b.dir = BnormDir::fwd_infer;
      b.shape = p.y_shape();
      b.epsilon = s.epsilon;
      b.momentum = std::nullopt;
      HostTensor in = v;
      run(make_op_problem(b), {&in, &named(p, d, "bn_scale"), &named(p, d, "bn_shift"), &named(p, d, "bn_mean"), &named(p, d, "bn_var"), nullptr});
    } else if (s.op == FusionOp::activ) {
      HostTensor in = v;
      run(make_op_problem(p.activ()), {&in, nullptr});
    }
  }
  return last;
}

TEST(FusionReference, UnfusedIsTheStepsReferencesOneAfterAnother) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 60; ++i) {
    FusionProblem p = random_chain(rng);
    p.rounding = FusionRounding::unfused;
    SCOPED_TRACE(to_string(p));
    const Data d = random_data(p, rng, i % 2 == 0);
    const auto e = ref::op_expected(*make_op_problem(p), d.ptrs());
    ASSERT_EQ(e.size(), 1u);
    const auto want = steps_by_registry(p, d);
    ASSERT_EQ(e[0].value.size(), want.size());
    for (std::size_t j = 0; j < want.size(); ++j)
      if (!(std::isnan(want[j]) && std::isnan(e[0].value[j]))) {
        ASSERT_EQ(e[0].value[j], want[j]) << "element " << j;
      }
  }
}

// |got - value| <= bound wherever the value is finite (NaN/Inf must match).
int violations(const ref::OpExpected& e, const std::vector<double>& got, DType t, bool round, std::string& first) {
  int bad = 0;
  for (std::size_t j = 0; j < got.size(); ++j) {
    const double g = round ? round_to(t, got[j]) : got[j];
    const double v = e.value[j];
    const bool ok = std::isfinite(v) ? std::fabs(g - v) <= e.bound[j] : (std::isnan(v) ? std::isnan(g) : g == v);
    if (!ok && bad++ == 0) first = "element " + std::to_string(j) + ": got " + std::to_string(g) + ", value " + std::to_string(v) + ", bound " + std::to_string(e.bound[j]);
  }
  return bad;
}

TEST(FusionReference, BoundsHoldForBothModelsAndTheExactChain) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const FusionProblem p = random_chain(rng);
    SCOPED_TRACE(to_string(p));
    const Data d = random_data(p, rng, i % 3 == 0);
    const auto e = ref::op_expected(*make_op_problem(p), d.ptrs())[0];
    const bool unfused = p.rounding == FusionRounding::unfused;
    std::string first;
    // A solver of the problem's model: fp32 arithmetic, intermediates in fp32 (fused) or stored in the dtype.
    const auto solver = emulate<float>(p, d, unfused ? std::optional<DType>(p.dtype) : std::nullopt);
    EXPECT_EQ(violations(e, solver, p.dtype, true, first), 0) << first;
    if (!unfused) {
      const auto exact = emulate<double>(p, d, std::nullopt);
      EXPECT_EQ(violations(e, exact, p.dtype, false, first), 0) << "exact chain: " << first;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

// The bound is not vacuous: a fused-model solver storing every intermediate in bf16 breaks the
// fused bound of a long bf16 chain somewhere (the test above could fail).
TEST(FusionReference, FusedBoundRejectsAnUnfusedSolver) {
  const FusionProblem p = parse_fusion_problem(
      "fusion fwd bf16 nchw conv(n2 c8 k8 in8x8 f3x3 pad1x1 str1x1 dil1x1 g1) bias bnorm-infer(eps1e-05) add(alpha1 beta1) activ(gelu)");
  std::mt19937_64 rng(3);
  const Data d = random_data(p, rng, false);
  const auto e = ref::op_expected(*make_op_problem(p), d.ptrs())[0];
  std::string first;
  EXPECT_GT(violations(e, emulate<float>(p, d, DType::bf16), p.dtype, true, first), 0);
  EXPECT_EQ(violations(e, emulate<float>(p, d, std::nullopt), p.dtype, true, first), 0) << first;
}

// A tensor-core solver (accumulation factor 2) is judged by the same values with the conv step's
// gamma(L) bound doubled: every bound at least the factor-1 one, larger wherever the conv sums anything.
TEST(FusionReference, AccumulationFactorScalesTheConvBound) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {
    const FusionProblem p = random_chain(rng);
    SCOPED_TRACE(to_string(p));
    const Data d = random_data(p, rng, false);
    const auto one = ref::op_expected(*make_op_problem(p), d.ptrs())[0];
    const auto two = ref::op_expected(*make_op_problem(p), d.ptrs(), ref::OpReferenceOptions{2.0})[0];
    ASSERT_EQ(one.value.size(), two.value.size());
    int larger = 0, finite = 0;
    for (std::size_t j = 0; j < one.value.size(); ++j) {
      if (!std::isnan(one.value[j])) {
        ASSERT_EQ(one.value[j], two.value[j]) << "element " << j;
      }
      ASSERT_GE(two.bound[j], one.bound[j]) << "element " << j;
      if (std::isfinite(one.value[j])) ++finite;
      if (two.bound[j] > one.bound[j]) ++larger;
    }
    if (finite > 0) {
      EXPECT_GT(larger, 0);
    }
  }
}

TEST(FusionReference, LipschitzOfTheActivations) {
  ActivProblem a;
  a.mode = ActivMode::gelu;
  double sup = 0;
  for (double x = -8; x <= 8; x += 1e-3) sup = std::max(sup, std::fabs(ref::activ_derivative(a, x)));
  EXPECT_LE(sup, ref::activ_lipschitz(a, 0, 1));
  a.mode = ActivMode::gelu_tanh;
  for (double x = -8; x <= 8; x += 1e-3) sup = std::max(sup, std::fabs(ref::activ_derivative(a, x)));
  EXPECT_LE(sup, ref::activ_lipschitz(a, 0, 1));
  a.mode = ActivMode::silu;
  sup = 0;
  for (double x = -20; x <= 20; x += 1e-3) sup = std::max(sup, std::fabs(ref::activ_derivative(a, x)));
  EXPECT_LE(sup, ref::activ_lipschitz(a, 0, 1));
  a.mode = ActivMode::power;
  a.alpha = 0;
  a.beta = 1;
  a.gamma = 0.5;
  EXPECT_TRUE(std::isinf(ref::activ_lipschitz(a, 0.1, 0.2))) << "sqrt's slope is unbounded at 0";
  EXPECT_DOUBLE_EQ(ref::activ_lipschitz(a, 4, 0), 0.25);
  a.gamma = 3;
  EXPECT_DOUBLE_EQ(ref::activ_lipschitz(a, 1, 1), 12.0);  // 3 * 2^2 at the far end
}

}  // namespace
}  // namespace hiprim
