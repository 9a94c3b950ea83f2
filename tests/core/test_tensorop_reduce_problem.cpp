// Tensor-op and reduction problems: canonical strings round-trip, validation names the quantities,
// the parser names the bad token, tensors() lists what the solvers receive.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/error.hpp"
#include "core/reduce_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "tests/core/op_problem_checks.hpp"

namespace hiprim {
namespace {

using test_op::all_errors;

// Dims of rank 1..5 with a layout flag that is valid for the rank.
std::pair<Dims, bool> gen_dims() {
  const int rank = *rc::gen::inRange(1, 6);
  Dims d;
  for (int i = 0; i < rank; ++i) d.push_back(*rc::gen::inRange(1, 7));
  const bool channels_last = (rank == 4 || rank == 5) && *rc::gen::arbitrary<bool>();
  return {d, channels_last};
}

TensorOpProblem gen_tensorop() {
  TensorOpProblem p;
  p.op = *rc::gen::element(TensorOpKind::add, TensorOpKind::mul, TensorOpKind::min, TensorOpKind::max);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  std::tie(p.a, p.channels_last) = gen_dims();
  p.b = p.a;
  for (auto& v : p.b)
    if (*rc::gen::arbitrary<bool>()) v = 1;
  p.alpha1 = *rc::gen::inRange(-1000, 1000) / 64.0;
  p.alpha2 = *rc::gen::inRange(-1000, 1000) / 10.0;
  p.beta = *rc::gen::element(0.0, 1.0, -0.3, 1e-5);
  return p;
}

RC_GTEST_PROP(TensorOpProblem, RoundTripsThroughItsCanonicalString, ()) {
  test_op::check_round_trip(gen_tensorop(), parse_tensorop_problem);
}

TEST(TensorOpProblem, CanonicalStringTensorsAndRoles) {
  TensorOpProblem p = parse_tensorop_problem("tensorop mul bf16 nhwc a2x3x4x5 b1x3x1x1 alpha1=0.5 alpha2=2 beta=0");
  EXPECT_EQ(to_string(p), "tensorop mul bf16 nhwc a2x3x4x5 b1x3x1x1 alpha1=0.5 alpha2=2 beta=0");
  auto t = p.tensors();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].desc.dims, (Dims{1, 3, 1, 1}));
  EXPECT_EQ(t[2].role, OpTensor::Role::output);  // beta = 0: C is not read
  p.beta = 1;
  EXPECT_EQ(p.tensors()[2].role, OpTensor::Role::in_out);
  // Rank 2: no layout token; defaults b = a, alpha1 = alpha2 = 1, beta = 0.
  const TensorOpProblem q = parse_tensorop_problem("tensorop max fp32 a3x7");
  EXPECT_EQ(to_string(q), "tensorop max fp32 a3x7 b3x7 alpha1=1 alpha2=1 beta=0");
}

TEST(TensorOpProblem, ValidationAndParseErrors) {
  auto errors = [](const char* s) { return all_errors(parse_tensorop_problem_unchecked(s).validate()); };
  EXPECT_NE(errors("tensorop add fp32 a2x3x4x5 b2x2x1x1").find("B dim 1 = 2 must equal A's (3) or be 1"), std::string::npos);
  EXPECT_NE(errors("tensorop add fp32 a2x3 b2").find("B has 1 dims but A has 2"), std::string::npos);
  EXPECT_NE(errors("tensorop add fp32 a2x3 alpha1=1e300").find("alpha1 = 1e+300 must be finite in fp32"), std::string::npos);
  auto message = [](const char* s) {
    try {
      parse_tensorop_problem(s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("tensorop add fp32 nchw a2x3").find("token 4 'nchw'"), std::string::npos);
  EXPECT_NE(message("tensorop add fp32 a2x3x1x1x1x1").find("a2x3x1x1x1x1"), std::string::npos);
  EXPECT_NE(message("tensorop fp32 a2x3").find("missing tensor op"), std::string::npos);
}

ReduceProblem gen_reduce() {
  ReduceProblem p;
  p.op = *rc::gen::element(ReduceOp::add, ReduceOp::mul, ReduceOp::min, ReduceOp::max, ReduceOp::amax, ReduceOp::avg,
                           ReduceOp::norm1, ReduceOp::norm2);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  std::tie(p.dims, p.channels_last) = gen_dims();
  p.over.clear();
  for (int i = 0; i < p.rank(); ++i)
    if (*rc::gen::arbitrary<bool>()) p.over.push_back(i);
  if (p.over.empty()) p.over.push_back(*rc::gen::inRange(0, p.rank()));
  p.propagate_nan = *rc::gen::arbitrary<bool>();
  p.indices = reduce_op_selects(p.op) && *rc::gen::arbitrary<bool>();
  return p;
}

RC_GTEST_PROP(ReduceProblem, RoundTripsThroughItsCanonicalString, ()) {
  test_op::check_round_trip(gen_reduce(), parse_reduce_problem);
}

RC_GTEST_PROP(ReduceProblem, OutputKeepsTheRankWithReducedDimsOne, ()) {
  const ReduceProblem p = gen_reduce();
  const Dims o = p.out_dims();
  RC_ASSERT(o.size() == p.dims.size());
  std::int64_t in = 1, out = 1;
  for (std::size_t i = 0; i < o.size(); ++i) {
    in *= p.dims[i];
    out *= o[i];
  }
  RC_ASSERT(in == out * p.reduced_length());
}

TEST(ReduceProblem, CanonicalStringAndTensors) {
  const ReduceProblem p = parse_reduce_problem("reduce amax fp16 ndhwc dims2x3x4x5x6 over1x4 nan_propagate indices");
  EXPECT_EQ(to_string(p), "reduce amax fp16 ndhwc dims2x3x4x5x6 over1x4 nan_propagate indices");
  EXPECT_EQ(p.reduced_length(), 18);
  auto t = p.tensors();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].desc.dims, (Dims{2, 1, 4, 5, 1}));
  EXPECT_EQ(t[2].name, "idx");
  EXPECT_EQ(t[2].desc.dtype, DType::fp32);
  // Defaults: nan_ignore, no indices.
  EXPECT_EQ(to_string(parse_reduce_problem("reduce add fp32 dims7 over0")), "reduce add fp32 dims7 over0 nan_ignore");
}

TEST(ReduceProblem, ValidationNamesTheQuantities) {
  auto errors = [](const char* s) { return all_errors(parse_reduce_problem_unchecked(s).validate()); };
  EXPECT_NE(errors("reduce add fp32 dims2x3 over2").find("reduced dim 2 is not a dim of x (0..1)"), std::string::npos);
  EXPECT_NE(errors("reduce add fp32 dims2x3x4 over1x1").find("listed once each in increasing order"), std::string::npos);
  EXPECT_NE(errors("reduce add fp32 dims2x3 over0 indices").find("indices are only defined for min, max and amax"),
            std::string::npos);
  ReduceProblem p = parse_reduce_problem_unchecked("reduce max fp32 dims2x3 over0");
  p.channels_last = true;
  EXPECT_NE(all_errors(p.validate()).find("channels-last layout needs 4 or 5 dims (x has 2)"), std::string::npos);
  EXPECT_THROW(parse_reduce_problem_unchecked("reduce max fp32 nhwc dims2x3 over0"), InputError);  // names the layout token
  EXPECT_NE(errors("reduce max fp32 dims4096x4097x2 over0x1 indices").find("exceeds 2^24"), std::string::npos);
  EXPECT_THROW(parse_reduce_problem("reduce add fp32 dims2x3"), InputError);  // missing over
  EXPECT_THROW(parse_reduce_problem("reduce add fp32 dims2x3 over0 nan_ignore nan_propagate"), InputError);
}

}  // namespace
}  // namespace hiprim
