// Conv problem descriptor: geometry, validation messages, canonical string round trip and parse
// errors, and its tensors() / bytes() / OpProblem wrapping (core/op_problem.hpp).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/activ_problem.hpp"
#include "core/conv_problem.hpp"
#include "core/error.hpp"

using namespace hiprim;

namespace {

// Random valid problems, built so validate() passes: small sizes, every feature.
rc::Gen<ConvProblem> gen_valid_problem() {
  return rc::gen::exec([] {
    ConvProblem p;
    int r = *rc::gen::element(2, 3);
    p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
    p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
    p.channels_last = *rc::gen::arbitrary<bool>();
    p.mode = *rc::gen::element(ConvMode::conv, ConvMode::trans);
    p.groups = *rc::gen::inRange<std::int64_t>(1, 4);
    p.n = *rc::gen::inRange<std::int64_t>(1, 5);
    p.c = p.groups * *rc::gen::inRange<std::int64_t>(1, 4);
    p.k = p.groups * *rc::gen::inRange<std::int64_t>(1, 4);
    p.in.assign(r, 0);
    p.filter = p.pad = p.stride = p.dilation = p.out_pad = Dims(r, 0);
    for (int i = 0; i < r; ++i) {
      p.filter[i] = *rc::gen::inRange<std::int64_t>(1, 5);
      p.dilation[i] = *rc::gen::inRange<std::int64_t>(1, 3);
      p.stride[i] = *rc::gen::inRange<std::int64_t>(1, 4);
      p.pad[i] = *rc::gen::inRange<std::int64_t>(0, 3);
      std::int64_t span = p.dilation[i] * (p.filter[i] - 1) + 1;
      // conv needs in + 2 pad >= span; trans needs a positive output.
      std::int64_t lo = std::max<std::int64_t>(1, span - 2 * p.pad[i]);
      p.in[i] = *rc::gen::inRange<std::int64_t>(lo, lo + 9);
      if (p.mode == ConvMode::trans) {
        std::int64_t lim = std::max(p.stride[i], p.dilation[i]);
        p.out_pad[i] = *rc::gen::inRange<std::int64_t>(0, lim);
      }
    }
    p.bias = p.dir == ConvDir::fwd && *rc::gen::arbitrary<bool>();
    RC_PRE(p.valid());  // trans with large pad can still give an empty output; discard those
    return p;
  });
}

bool mentions(const std::vector<std::string>& errs, const std::string& needle) {
  for (auto& e : errs)
    if (e.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

RC_GTEST_PROP(ConvProblemString, ParseOfPrintIsIdentity, ()) {
  ConvProblem p = *gen_valid_problem();
  std::string s = to_string(p);
  ConvProblem q = parse_conv_problem(s);
  RC_ASSERT(q == p);
  RC_ASSERT(to_string(q) == s);
}

TEST(ConvProblemString, CanonicalFormOfAKnownProblem) {
  ConvProblem p;
  p.n = 32;
  p.c = 256;
  p.k = 256;
  p.in = {14, 14};
  p.filter = {3, 3};
  p.pad = {1, 1};
  EXPECT_EQ(to_string(p), "conv fwd fp32 nchw n32 c256 k256 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1");
}

TEST(ConvProblemString, AcceptsAnyOrderAndDefaultsButPrintsCanonically) {
  auto p = parse_conv_problem("conv k8 c4 n2 in9x9 f3x3 bf16 nhwc bwd-data str2x2");
  EXPECT_EQ(to_string(p), "conv bwd-data bf16 nhwc n2 c4 k8 in9x9 f3x3 pad0x0 str2x2 dil1x1 g1");
  auto t = parse_conv_problem("conv fwd fp16 ndhwc n1 c2 k4 in3x5x5 f1x3x3 str1x2x2 trans opad0x1x1 g2 bias");
  EXPECT_EQ(t.mode, ConvMode::trans);
  EXPECT_EQ(t.out(), (Dims{3, 12, 12}));  // (5-1)*2 - 0 + 1*(3-1) + 1 + 1 = 12
  EXPECT_EQ(to_string(t), "conv fwd fp16 ndhwc n1 c2 k4 in3x5x5 f1x3x3 pad0x0x0 str1x2x2 dil1x1x1 g2 trans opad0x1x1 bias");
}

TEST(ConvProblemString, ParseErrorsNameTheToken) {
  auto expect_error = [](const std::string& s, const std::string& needle) {
    try {
      parse_conv_problem(s);
      ADD_FAILURE() << "no error for: " << s;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("", "empty");
  expect_error("pool fwd", "token 1 'pool'");
  expect_error("conv fwd n1 c1 k1 in4x4 f3x3 bogus", "token 8 'bogus': unknown token");
  expect_error("conv n1 n2 c1 k1 in4x4 f3x3", "token 3 'n2': given twice");
  expect_error("conv n1 c1 k1 in4x4 f3xq", "token 6 'f3xq'");
  expect_error("conv n1 c1 k1 in4x4", "missing filter size");
  expect_error("conv n1 c1 k1 in4x4 f3x3 ncdhw", "token 7 'ncdhw': layout is for 3D");
  expect_error("conv n1 c1 k1 in4x4 f3x3 opad1x1", "opad<..> given without 'trans'");
  expect_error("conv n99999999999999999999 c1 k1 in4x4 f3x3", "too large");
  expect_error("conv n-1 c1 k1 in4x4 f3x3", "negative");
  expect_error("conv n1 c1 k1 in4x4 f5x5", "output height is 0");
  expect_error("conv fwd bwd-data n1 c1 k1 in4x4 f3x3", "token 3 'bwd-data': direction given twice (also token 2 'fwd')");
  expect_error("conv n1 c1 k1 in4x4x4x4 f3x3", "token 5 'in4x4x4x4': more than 3 sizes");
  expect_error("conv n1 c1 k1 in4 f3x3", "token 7 '<end>': input size needs 2 (HxW) or 3 (DxHxW) entries");
}

// The number syntax is the op strings' (core/op_grammar.hpp): an explicit '+' is accepted, any '-' is negative.
TEST(ConvProblemString, NumbersReadLikeTheOpStrings) {
  EXPECT_EQ(to_string(parse_conv_problem("conv n+2 c1 k1 in4x+4 f3x3")), "conv fwd fp32 nchw n2 c1 k1 in4x4 f3x3 pad0x0 str1x1 dil1x1 g1");
  try {
    parse_conv_problem("conv n1 c1 k1 in4x4 f3x3 pad-0x0");
    ADD_FAILURE() << "pad-0x0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("token 7 'pad-0x0': '-0' is negative"), std::string::npos) << e.what();
  }
}

TEST(ConvProblemValidate, NamesEveryBrokenRule) {
  ConvProblem p;
  p.c = 6;
  p.k = 5;
  p.groups = 4;
  p.in = {3, 3};
  p.filter = {5, 1};
  auto e = p.validate();
  EXPECT_TRUE(mentions(e, "input channels c = 6 is not divisible by groups g = 4"));
  EXPECT_TRUE(mentions(e, "output channels k = 5 is not divisible by groups g = 4"));
  p.c = 4;
  p.k = 4;
  e = p.validate();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(mentions(e, "output height is 0"));  // span 3 + 0 - 4 - 1 < 0: no output
}

TEST(ConvProblemValidate, RejectsBiasOutsideFwdAndOpadOutsideTrans) {
  ConvProblem p;
  p.dir = ConvDir::bwd_data;
  p.bias = true;
  EXPECT_TRUE(mentions(p.validate(), "bias is only defined for direction fwd"));
  ConvProblem q;
  q.out_pad = {1, 0};
  EXPECT_TRUE(mentions(q.validate(), "only defined for transposed"));
  ConvProblem t;
  t.mode = ConvMode::trans;
  t.out_pad = {1, 0};  // stride 1, dilation 1: opad must be < 1
  EXPECT_TRUE(mentions(t.validate(), "must be smaller than stride"));
}

TEST(ConvProblemGeometry, OutputSizesAndMacs) {
  auto p = parse_conv_problem("conv fwd fp32 nchw n2 c3 k4 in7x9 f3x2 pad1x0 str2x3 dil2x1 g1");
  // H: (7 + 2 - 2*2 - 1)/2 + 1 = 3; W: (9 - 1 - 1)/3 + 1 = 3
  EXPECT_EQ(p.out(), (Dims{3, 3}));
  EXPECT_EQ(p.y_desc().dims, (Dims{2, 4, 3, 3}));
  EXPECT_EQ(p.w_desc().dims, (Dims{4, 3, 3, 2}));
  EXPECT_DOUBLE_EQ(p.macs(), 2.0 * 4 * 9 * 3 * 6);
  EXPECT_EQ(p.reduction_length(), 18);
  auto t = parse_conv_problem("conv fwd fp32 nchw n1 c4 k6 in5x5 f3x3 g2 trans");
  EXPECT_EQ(t.w_desc().dims, (Dims{4, 3, 3, 3}));  // [C, K/G, R, S]
  EXPECT_EQ(t.out(), (Dims{7, 7}));
}

namespace {

// name, role and desc of each tensor, in order.
void expect_tensors(const ConvProblem& p, const std::vector<OpTensor>& want) {
  const std::vector<OpTensor> got = p.tensors();
  ASSERT_EQ(got.size(), want.size()) << to_string(p);
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << to_string(p) << " tensor " << i;
    EXPECT_EQ(got[i].role, want[i].role) << to_string(p) << " tensor " << i;
    EXPECT_EQ(got[i].desc, want[i].desc) << to_string(p) << " tensor " << i;
  }
}

}  // namespace

TEST(ConvProblemTensors, EachDirectionsRolesInTheDocumentedOrder) {
  using R = OpTensor::Role;
  auto p = parse_conv_problem("conv fwd fp16 nhwc n2 c3 k4 in5x5 f3x3 pad1x1");
  expect_tensors(p, {{"x", p.x_desc(), R::input}, {"w", p.w_desc(), R::input}, {"y", p.y_desc(), R::output}});
  p.bias = true;
  expect_tensors(p, {{"x", p.x_desc(), R::input},
                     {"w", p.w_desc(), R::input},
                     {"bias", p.bias_desc(), R::input},
                     {"y", p.y_desc(), R::output}});
  p.bias = false;
  p.dir = ConvDir::bwd_data;
  expect_tensors(p, {{"dy", p.y_desc(), R::input}, {"w", p.w_desc(), R::input}, {"dx", p.x_desc(), R::output}});
  p.dir = ConvDir::bwd_weights;
  expect_tensors(p, {{"x", p.x_desc(), R::input}, {"dy", p.y_desc(), R::input}, {"dw", p.w_desc(), R::output}});
  EXPECT_EQ(p.tensors()[1].desc.dims, (Dims{2, 4, 5, 5}));  // dy has y's dims and nhwc strides: c innermost
  EXPECT_EQ(p.tensors()[1].desc.strides[1], 1);
}

TEST(ConvProblemTensors, BytesAreEveryTensorOnce) {
  // x 2*3*5*5 = 150, w 4*3*3*3 = 108, y 2*4*5*5 = 200 elements of 2 bytes; bias 4 more elements.
  auto p = parse_conv_problem("conv fwd fp16 nchw n2 c3 k4 in5x5 f3x3 pad1x1");
  EXPECT_DOUBLE_EQ(p.bytes(), (150 + 108 + 200) * 2.0);
  p.bias = true;
  EXPECT_DOUBLE_EQ(p.bytes(), (150 + 108 + 200 + 4) * 2.0);
  p.dir = ConvDir::bwd_weights;
  p.bias = false;
  p.dtype = DType::fp32;
  EXPECT_DOUBLE_EQ(p.bytes(), (150 + 108 + 200) * 4.0);  // same tensors in every direction
  p.dir = ConvDir::bwd_data;
  EXPECT_DOUBLE_EQ(p.bytes(), (150 + 108 + 200) * 4.0);
}

// make_op_problem keeps the value: same string, rules, tensors, counts; op_problem_cast gives it back.
RC_GTEST_PROP(ConvProblemAsOp, WrappingKeepsTheProblem, ()) {
  const ConvProblem p = *gen_valid_problem();
  const OpProblemPtr op = make_op_problem(p);
  RC_ASSERT(op->op() == "conv");
  RC_ASSERT(op->str() == to_string(p));
  RC_ASSERT(op->valid());
  RC_ASSERT(op->tensors() == p.tensors());
  RC_ASSERT(op->flops() == p.flops());
  RC_ASSERT(op->bytes() == p.bytes());
  const ConvProblem* back = op_problem_cast<ConvProblem>(*op);
  RC_ASSERT(back != nullptr);
  RC_ASSERT(*back == p);
  RC_ASSERT(op->equals(*op->clone()));
  RC_ASSERT(op->equals(*make_op_problem(p)));
}

TEST(ConvProblemAsOp, InvalidProblemsKeepTheirMessagesAndOtherTypesDoNotCast) {
  ConvProblem bad;
  bad.dir = ConvDir::bwd_data;
  bad.bias = true;
  const OpProblemPtr op = make_op_problem(bad);
  EXPECT_FALSE(op->valid());
  EXPECT_EQ(op->validate(), bad.validate());
  ConvProblem other = bad;
  other.bias = false;
  EXPECT_FALSE(op->equals(*make_op_problem(other)));
  // a problem of another op is not a ConvProblem, and a ConvProblem is none of theirs
  const OpProblemPtr relu = parse_op_problem("activ fwd relu fp32 nchw n1 c3 in8x8");
  EXPECT_EQ(op_problem_cast<ConvProblem>(*relu), nullptr);
  EXPECT_EQ(op_problem_cast<ActivProblem>(*op), nullptr);
  EXPECT_FALSE(relu->equals(*op));
}

// The registry reads conv strings to the same problem, with parse_conv_problem's messages.
RC_GTEST_PROP(ConvProblemAsOp, RegistryParsesTheCanonicalString, ()) {
  const ConvProblem p = *gen_valid_problem();
  const OpProblemPtr op = parse_op_problem(to_string(p));
  RC_ASSERT(op->equals(*make_op_problem(p)));
  const ConvProblem* back = op_problem_cast<ConvProblem>(*op);
  RC_ASSERT(back != nullptr);
  RC_ASSERT(*back == p);
}

TEST(ConvProblemAsOp, RegistryErrorsAreParseConvProblems) {
  auto error_of = [](ConvProblem (*parse)(std::string_view), std::string_view s) -> std::string {
    try {
      parse(s);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  auto via_registry = [](std::string_view s) { return *op_problem_cast<ConvProblem>(*parse_op_problem(s)); };
  for (const char* s : {"conv n1 c1 k1 in4x4 f5x5", "conv fwd n1 c1 k1 in4x4 f3x3 bogus", "conv n1 c1 k1 in4x4",
                        "conv bwd-data n1 c6 k5 in4x4 f3x3 g4 bias"}) {
    const std::string want = error_of(&parse_conv_problem, s);
    EXPECT_FALSE(want.empty()) << s;
    EXPECT_EQ(error_of(via_registry, s), want) << s;
  }
  EXPECT_NE(error_of(via_registry, "conv n1 c1 k1 in4x4 f5x5").find("invalid convolution problem"), std::string::npos);
}

// math=tf32 (the opt-in TF32 mode): printed last, read in any position, fp32 data only.
TEST(ConvProblemString, MathTf32RoundTripsAndIsFp32Only) {
  const std::string s = "conv fwd fp32 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1 bias math=tf32";
  const ConvProblem p = parse_conv_problem(s);
  EXPECT_EQ(p.math, ConvMath::tf32);
  EXPECT_EQ(to_string(p), s);
  EXPECT_EQ(parse_conv_problem("conv math=tf32 fwd fp32 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 bias"), p);
  EXPECT_EQ(parse_conv_problem("conv fwd fp32 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 bias").math, ConvMath::exact);
  EXPECT_NE(parse_conv_problem("conv fwd fp32 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 bias"), p);  // a different problem
  ConvProblem q = p;
  q.dtype = DType::bf16;
  EXPECT_TRUE(mentions(q.validate(), "math=tf32 is defined for fp32 data only (got bf16"));
  EXPECT_THROW(parse_conv_problem("conv fwd fp16 nchw n1 c4 k4 in8x8 f3x3 math=tf32"), InputError);
  EXPECT_THROW(parse_conv_problem("conv fwd fp32 nchw n1 c4 k4 in8x8 f3x3 math=tf16"), InputError);  // unknown token
}
