// Host check of the GPU activation formulas (gpu/activ/activ_math.hpp, compiled here by the host
// compiler against the host's libm) against the CPU reference's values and per-element bounds
// (reference/activ.cpp): the error model the bounds are derived from must hold for this code.
// Inputs: a dense grid over [-20, 20], powers of two up to 2^20, and the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/activ_problem.hpp"
#include "gpu/activ/activ_math.hpp"
#include "reference/activ.hpp"

using namespace hiprim;

namespace {

std::vector<float> sample_inputs() {
  std::vector<float> v;
  for (int i = -20000; i <= 20000; ++i) v.push_back(static_cast<float>(i / 1000.0));
  for (int e = -20; e <= 20; ++e) {
    v.push_back(std::ldexp(1.0f, e));
    v.push_back(-std::ldexp(1.0f, e));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {inf, -inf, std::nanf(""), 0.0f, -0.0f, 1e4f, -1e4f, 88.5f, -88.5f, 1e30f, -1e30f}) v.push_back(s);
  return v;
}

struct ModeCase {
  ActivMode mode;
  double alpha, beta, gamma;
};

const ModeCase kCases[] = {
    {ActivMode::passthru, 1, 1, 1},  {ActivMode::logistic, 1, 1, 1},     {ActivMode::tanh, 0.5, 2, 1},
    {ActivMode::tanh, 1.7, -0.3, 1}, {ActivMode::relu, 1, 1, 1},         {ActivMode::softrelu, 1, 1, 1},
    {ActivMode::abs, 1, 1, 1},       {ActivMode::power, 1, 0.5, 1.5},    {ActivMode::power, 2, 0.1, -2.5},
    {ActivMode::clippedrelu, 1.5, 1, 1}, {ActivMode::clippedrelu, 0.1, 1, 1}, {ActivMode::leakyrelu, 0.1, 1, 1},
    {ActivMode::elu, 1, 1, 1},       {ActivMode::elu, 0.7, 1, 1},        {ActivMode::gelu, 1, 1, 1},
    {ActivMode::gelu_tanh, 1, 1, 1}, {ActivMode::silu, 1, 1, 1},
};

void check_mode(const ModeCase& mc, ActivDir dir) {
  ActivProblem p;
  p.dir = dir;
  p.mode = mc.mode;
  p.alpha = mc.alpha, p.beta = mc.beta, p.gamma = mc.gamma;
  const auto xs = sample_inputs();
  p.shape.n = 1, p.shape.c = 1, p.shape.in = {1, static_cast<std::int64_t>(xs.size())};
  HostTensor x(p.shape.desc()), dy(p.shape.desc());
  x.data = xs;
  for (std::size_t i = 0; i < xs.size(); ++i) dy.data[i] = static_cast<float>(((i * 7919) % 2001) / 1000.0 - 1.0);
  const auto e = dir == ActivDir::fwd ? ref::activ_expected(*make_op_problem(p), {&x, nullptr})[0]
                                      : ref::activ_expected(*make_op_problem(p), {&x, &dy, nullptr})[0];
  const gpu::ActivCoeffs k{static_cast<float>(mc.alpha), static_cast<float>(mc.beta), static_cast<float>(mc.gamma)};
  int bad = 0;
  for (std::size_t i = 0; i < xs.size() && bad < 5; ++i) {
    const int m = static_cast<int>(mc.mode);
    const float got = dir == ActivDir::fwd ? gpu::activ_fwd(m, xs[i], k) : dy.data[i] * gpu::activ_derivative(m, xs[i], k);
    const double want = e.value[i];
    // As compare_with_bounds: NaN for NaN; an infinity where the expected value rounds to it in fp32
    // (overflow); else within the bound.
    const float rounded = static_cast<float>(want);
    const bool ok = std::isnan(want)               ? std::isnan(got)
                    : !std::isfinite(rounded)      ? got == rounded
                                                   : std::isfinite(got) && std::fabs(double(got) - want) <= e.bound[i];
    if (!ok) {
      ++bad;
      ADD_FAILURE() << activ_mode_name(mc.mode) << (dir == ActivDir::fwd ? " fwd" : " bwd") << " alpha " << mc.alpha << " beta "
                    << mc.beta << " gamma " << mc.gamma << " x " << xs[i] << " dy " << dy.data[i] << ": got " << got << ", expected "
                    << want << " +- " << e.bound[i];
    }
  }
}

}  // namespace

TEST(ActivMath, ForwardWithinTheReferenceBounds) {
  for (const auto& mc : kCases) check_mode(mc, ActivDir::fwd);
}

TEST(ActivMath, BackwardWithinTheReferenceBounds) {
  for (const auto& mc : kCases) check_mode(mc, ActivDir::bwd);
}
