// Host check of the GPU activation formulas (gpu/activ/activ_math.hpp, compiled here by the host
// compiler against the host's libm) against the CPU reference's values and per-element bounds
// (reference/activ.cpp): the error model the bounds are derived from must hold for this code.
// Inputs: a dense grid over [-20, 20], powers of two up to 2^20, and the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/activ_problem.hpp"
#include "gpu/activ/activ_math.hpp"
#include "gpu/common/channel_stream.hpp"
#include "gpu/common/fast_div.hpp"
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

// gpu/common/fast_div.hpp: n / d by multiply and shift must equal the division for every divisor
// kind (1, small, powers of two and their neighbours, large, 2^31 - 1) and numerators at and
// around multiples of d, up to 2^31 - 1.
TEST(FastDiv, EqualsDivisionBelowTwoToThe31) {
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= 1000; ++d) divisors.push_back(d);
  for (int e = 1; e <= 30; ++e)
    for (std::int64_t off : {-1, 0, 1}) divisors.push_back(static_cast<std::uint32_t>((std::int64_t{1} << e) + off));
  for (std::uint32_t d : {3025u, 12544u, 49u, 196u, 100003u, 65537u, 2147483647u, 1073741825u}) divisors.push_back(d);
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any(1, 0x7FFFFFFFu);
  for (int i = 0; i < 200; ++i) divisors.push_back(any(rng));
  std::int64_t checked = 0;
  for (std::uint32_t d : divisors) {
    const gpu::FastDiv f(d);
    std::vector<std::uint32_t> ns{0, 1, 2, 0x7FFFFFFFu, 0x7FFFFFFEu, d - 1, d};
    for (std::uint64_t m : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{1000}, std::uint64_t{0x7FFFFFFFu} / d})
      for (std::int64_t off : {-1, 0, 1}) {
        const std::int64_t n = static_cast<std::int64_t>(m * d) + off;
        if (n >= 0 && n < (std::int64_t{1} << 31)) ns.push_back(static_cast<std::uint32_t>(n));
      }
    for (int i = 0; i < 50; ++i) ns.push_back(any(rng) - 1);
    for (std::uint32_t n : ns) {
      if (n >= 0x80000000u) continue;  // outside the contract
      std::uint32_t q, r;
      f.divmod(n, q, r);
      ASSERT_EQ(q, n / d) << n << " / " << d;
      ASSERT_EQ(r, n % d) << n << " % " << d;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50000);
}

// gpu/common/channel_stream.hpp: the channel of every pack equals the one its first element's
// coordinates give (channels-last: element e has channel e % C; channels-first: (e / S) % C), on
// both decodes (FastDiv below 2^31 packs, 64-bit above: forced by clearing `fast`).
TEST(ChannelStream, PackChannelMatchesCoordinates) {
  struct Shape {
    long long N, C, S;
    bool last;
    int V;
  };
  const Shape shapes[] = {{2, 64, 49, true, 8},  {3, 3, 17, true, 1},   {2, 40, 9, true, 8},  {4, 2048, 1, true, 4},
                          {2, 3, 196, false, 4}, {5, 7, 1024, false, 4}, {3, 5, 49, false, 1}, {1, 1, 8, false, 8},
                          {2, 16, 256, false, 8}};
  long long checked = 0;
  for (const Shape& sh : shapes)
    for (bool fast : {true, false}) {
      gpu::ChannelStream cs = gpu::channel_stream(sh.N, sh.C, sh.S, sh.last, sh.V);
      ASSERT_EQ(cs.packs, sh.N * sh.C * sh.S / sh.V);
      ASSERT_TRUE(cs.fast);
      cs.fast = fast;
      for (long long i = 0; i < cs.packs; ++i) {
        const long long e = i * sh.V, want = sh.last ? e % sh.C : (e / sh.S) % sh.C;
        ASSERT_EQ(cs.channel(i), want) << "pack " << i << " of N" << sh.N << " C" << sh.C << " S" << sh.S << " V" << sh.V;
        ++checked;
      }
    }
  EXPECT_GT(checked, 10000);
}

// stationary_grid: a multiple of q = C / gcd(C, block V) (so grid * block * V is a multiple of C and
// every pack t + k T of a thread has the channel of pack t), the smallest one >= want, within the
// resident blocks; 0 when not even q blocks are resident.
TEST(ChannelStream, StationaryGrid) {
  EXPECT_EQ(gpu::stationary_quantum(64, 256, 8), 1);
  EXPECT_EQ(gpu::stationary_quantum(2048, 256, 8), 1);
  EXPECT_EQ(gpu::stationary_quantum(4096, 256, 8), 2);
  EXPECT_EQ(gpu::stationary_quantum(3, 256, 1), 3);
  EXPECT_EQ(gpu::stationary_quantum(40, 256, 8), 5);
  EXPECT_EQ(gpu::stationary_grid(64, 256, 8, 10, 1056), 10);
  EXPECT_EQ(gpu::stationary_grid(64, 256, 8, 5000, 1056), 1056);  // capped at the resident grid
  EXPECT_EQ(gpu::stationary_grid(3, 256, 1, 10, 1056), 12);       // rounded up to a multiple of 3
  EXPECT_EQ(gpu::stationary_grid(3, 256, 1, 5000, 1056), 1056);   // 1056 = 3 * 352
  EXPECT_EQ(gpu::stationary_grid(3, 256, 1, 5000, 1057), 1056);   // rounded down within the resident grid
  EXPECT_EQ(gpu::stationary_grid(40, 256, 8, 1, 4), 0);           // q = 5 > 4 resident blocks
  EXPECT_EQ(gpu::stationary_grid(40, 256, 8, 0, 5), 5);
  // Every thread's packs keep their channels, for grids the rule gives.
  for (long long C : {3LL, 5LL, 12LL, 40LL, 64LL, 96LL, 1000LL, 4096LL})
    for (int V : {1, 4, 8}) {
      if (C % V) continue;
      for (int block : {64, 256}) {
        const long long grid = gpu::stationary_grid(C, block, V, 7, 100000);
        ASSERT_GT(grid, 0);
        ASSERT_GE(grid, 7);
        const gpu::ChannelStream cs = gpu::channel_stream(3, C, 5, true, V);
        const long long T = grid * block;
        for (long long t = 0; t < std::min<long long>(T, 300); ++t)
          for (long long i = t; i < cs.packs; i += T) ASSERT_EQ(cs.channel(i), cs.channel(t)) << "C" << C << " V" << V;
      }
    }
}
