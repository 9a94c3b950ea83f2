// Pooling and LRN problems: canonical strings round-trip, validation names the quantities, the
// parser names the bad token, tensors() lists what the solvers receive.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/error.hpp"
#include "core/lrn_problem.hpp"
#include "core/pool_problem.hpp"
#include "tests/core/op_problem_checks.hpp"

namespace hiprim {
namespace {

using test_op::all_errors;

OpShape gen_shape() {
  OpShape s;
  const int rank = *rc::gen::inRange(2, 4);
  s.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  s.channels_last = *rc::gen::arbitrary<bool>();
  s.n = *rc::gen::inRange(1, 4);
  s.c = *rc::gen::inRange(1, 9);
  s.in.clear();
  for (int i = 0; i < rank; ++i) s.in.push_back(*rc::gen::inRange(1, 13));
  return s;
}

PoolProblem gen_pool() {
  PoolProblem p;
  p.dir = *rc::gen::element(PoolDir::fwd, PoolDir::bwd);
  p.mode = *rc::gen::element(PoolMode::max, PoolMode::avg_incl, PoolMode::avg_excl);
  p.shape = gen_shape();
  p.window.clear();
  p.pad.clear();
  p.stride.clear();
  for (std::size_t i = 0; i < p.shape.in.size(); ++i) {
    const std::int64_t w = *rc::gen::inRange<std::int64_t>(1, p.shape.in[i] + 3);
    const std::int64_t pad = *rc::gen::inRange<std::int64_t>(0, w);  // < w
    p.window.push_back(w);
    p.pad.push_back(pad);
    p.stride.push_back(*rc::gen::inRange(1, 4));
    if (w > p.shape.in[i] + 2 * pad) p.shape.in[i] = w;  // keep the window inside the padded input
  }
  return p;
}

RC_GTEST_PROP(PoolProblem, RoundTripsThroughItsCanonicalString, ()) {
  test_op::check_round_trip(gen_pool(), parse_pool_problem);
}

RC_GTEST_PROP(PoolProblem, OutputSizeIsTheNumberOfWindowsInsideThePaddedInput, ()) {
  const PoolProblem p = gen_pool();
  const Dims o = p.out();
  for (std::size_t i = 0; i < o.size(); ++i) {
    // The last window ends inside the padded input, the next one would not.
    RC_ASSERT((o[i] - 1) * p.stride[i] + p.window[i] <= p.shape.in[i] + 2 * p.pad[i]);
    RC_ASSERT(o[i] * p.stride[i] + p.window[i] > p.shape.in[i] + 2 * p.pad[i]);
  }
}

TEST(PoolProblem, CanonicalStringOfAnExample) {
  PoolProblem p;
  p.dir = PoolDir::bwd;
  p.mode = PoolMode::avg_excl;
  p.shape.dtype = DType::bf16;
  p.shape.channels_last = true;
  p.shape.n = 2;
  p.shape.c = 16;
  p.shape.in = {32, 30};
  p.window = {3, 2};
  p.pad = {1, 0};
  p.stride = {2, 2};
  EXPECT_EQ(to_string(p), "pool bwd avg_excl bf16 nhwc n2 c16 in32x30 win3x2 pad1x0 str2x2");
  EXPECT_EQ(p.out(), (Dims{16, 15}));
  // Defaults: direction fwd, pad 0, stride 1; tokens in any order.
  const PoolProblem q = parse_pool_problem("pool win2x2 max in4x4 c1 n1 fp32");
  EXPECT_EQ(q.dir, PoolDir::fwd);
  EXPECT_EQ(q.pad, (Dims{0, 0}));
  EXPECT_EQ(q.stride, (Dims{1, 1}));
}

TEST(PoolProblem, TensorsPerDirectionAndMode) {
  PoolProblem p = parse_pool_problem("pool fwd max fp16 nchw n1 c2 in4x4 win2x2 pad0x0 str2x2");
  auto t = p.tensors();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "x");
  EXPECT_EQ(t[1].name, "y");
  EXPECT_EQ(t[2].name, "idx");
  EXPECT_EQ(t[2].desc.dtype, DType::fp32);
  EXPECT_EQ(t[2].desc.dims, (Dims{1, 2, 2, 2}));
  EXPECT_EQ(t[2].role, OpTensor::Role::output);
  p.dir = PoolDir::bwd;
  t = p.tensors();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "dy");
  EXPECT_EQ(t[1].name, "idx");
  EXPECT_EQ(t[1].role, OpTensor::Role::input);
  EXPECT_EQ(t[2].name, "dx");
  p.mode = PoolMode::avg_incl;
  EXPECT_EQ(p.tensors().size(), 2u);
}

TEST(PoolProblem, ValidationNamesTheQuantities) {
  auto errors = [](const char* s) { return all_errors(parse_pool_problem_unchecked(s).validate()); };
  EXPECT_NE(errors("pool max fp32 nchw n1 c1 in4x4 win9x2 pad1x0").find("window height = 9 is larger than the padded input height"),
            std::string::npos);
  EXPECT_NE(errors("pool max fp32 nchw n1 c1 in4x4 win2x2 pad2x0").find("pad (height) = 2 must be smaller than the window height = 2"),
            std::string::npos);
  EXPECT_NE(errors("pool max fp32 nchw n1 c1 in4x4 win2x2 str0x1").find("stride (height) = 0 must be >= 1"), std::string::npos);
  EXPECT_NE(errors("pool max fp32 nchw n1 c1 in4x4 win2x2x2").find("window has 3 entries but the input has 2"),
            std::string::npos);
  EXPECT_NE(errors("pool max fp32 nchw n0 c1 in4x4 win2x2").find("batch n = 0"), std::string::npos);
  EXPECT_THROW(parse_pool_problem("pool max fp32 nchw n1 c1 in4x4 win9x2"), InputError);
}

TEST(PoolProblem, ParserNamesTheBadToken) {
  auto message = [](const char* s) {
    try {
      parse_pool_problem(s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("pool max fp32 nchw n1 c1 in4x4 win2x2 bogus").find("token 9 'bogus'"), std::string::npos);
  EXPECT_NE(message("pool max fp32 nchw n1 c1 in4x4").find("missing window size"), std::string::npos);
  EXPECT_NE(message("pool fwd fp32 nchw n1 c1 in4x4 win2x2").find("missing pooling mode"), std::string::npos);
  EXPECT_NE(message("pool max avg_incl fp32 nchw n1 c1 in4x4 win2x2").find("avg_incl"), std::string::npos);
  EXPECT_NE(message("pool max fp32 nchw n1 c1 in4x4 win2xq").find("win2xq"), std::string::npos);
}

LrnProblem gen_lrn() {
  LrnProblem p;
  p.dir = *rc::gen::element(LrnDir::fwd, LrnDir::bwd);
  p.mode = *rc::gen::element(LrnMode::within, LrnMode::across);
  p.shape = gen_shape();
  p.size = 2 * *rc::gen::inRange(0, 4) + 1;
  // Reals that exercise the shortest round-trip printing.
  p.alpha = *rc::gen::inRange(0, 100000) / 997.0;
  p.beta = *rc::gen::inRange(-3000, 3000) / 1024.0 + 1e-7;
  p.k = *rc::gen::inRange(1, 100000) / 313.0;
  return p;
}

RC_GTEST_PROP(LrnProblem, RoundTripsThroughItsCanonicalString, ()) {
  test_op::check_round_trip(gen_lrn(), parse_lrn_problem);
}

TEST(LrnProblem, CanonicalStringAndArea) {
  LrnProblem p = parse_lrn_problem("lrn bwd within fp16 ncdhw n1 c4 in3x5x5 size3 alpha0.0001 beta0.75 k2");
  EXPECT_EQ(to_string(p), "lrn bwd within fp16 ncdhw n1 c4 in3x5x5 size3 alpha1e-04 beta0.75 k2");
  EXPECT_EQ(p.area(), 27);  // n^3 within (MIOpen's alpha/(n*n) in 2D)
  p.mode = LrnMode::across;
  EXPECT_EQ(p.area(), 3);
  // MIOpenDriver's defaults for omitted size/alpha/beta/k.
  const LrnProblem q = parse_lrn_problem("lrn across fp32 nchw n1 c4 in3x3");
  EXPECT_EQ(q.size, 5);
  EXPECT_EQ(q.alpha, 0.001);
  EXPECT_EQ(q.beta, 0.75);
  EXPECT_EQ(q.k, 1.0);
  auto t = p.tensors();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "x");
  EXPECT_EQ(t[1].name, "dy");
  EXPECT_EQ(t[2].name, "dx");
}

TEST(LrnProblem, ValidationNamesTheQuantities) {
  auto errors = [](const char* s) { return all_errors(parse_lrn_problem_unchecked(s).validate()); };
  EXPECT_NE(errors("lrn across fp32 nchw n1 c4 in3x3 size4").find("LRN size n = 4 must be odd"), std::string::npos);
  EXPECT_NE(errors("lrn across fp32 nchw n1 c4 in3x3 k0").find("LRN k = 0 must be finite and > 0"), std::string::npos);
  EXPECT_NE(errors("lrn across fp32 nchw n1 c4 in3x3 alpha-1").find("LRN alpha = -1 must be finite and >= 0"), std::string::npos);
  EXPECT_NE(errors("lrn across fp32 nchw n1 c4 in3x3 betanan").find("LRN beta = nan must be finite"), std::string::npos);
  EXPECT_NE(errors("lrn across fp32 nchw n1 c4 in3x3 k1e300").find("overflows fp32"), std::string::npos);
  EXPECT_THROW(parse_lrn_problem("lrn across fp32 nchw n1 c4 in3x3 size2"), InputError);
}

}  // namespace
}  // namespace hiprim
