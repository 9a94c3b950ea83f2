// The fusion problem (core/fusion_problem.hpp): canonical strings round trip, the parser's and
// validate()'s refusals name what is wrong, tensors() lists the chain's tensors with their roles.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/fusion_problem.hpp"
#include "tests/core/op_problem_checks.hpp"

namespace hiprim {
namespace {

const char* kFull = "fusion fwd bf16 nhwc conv(n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1) bias bnorm-infer(eps1e-05) add(alpha1 beta1) activ(relu)";

std::string message_of(const std::string& s) {
  try {
    parse_fusion_problem(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FusionProblem, CanonicalStringsRoundTrip) {
  for (const char* s : {kFull,
                        "fusion fwd fp32 nchw conv(n1 c3 k5 in6x6 f1x1 pad0x0 str1x1 dil1x1 g1)",
                        "fusion fwd fp16 nhwc conv(n1 c4 k8 in7x7 f3x3 pad0x0 str2x2 dil1x1 g2) bias activ(leakyrelu alpha0.5) rounding=unfused",
                        "fusion fwd fp32 nchw conv(n1 c2 k2 in5x5 f3x3 pad1x1 str1x1 dil2x2 g1) add(alpha0.5 beta-1) activ(power alpha1 beta2 gamma3)",
                        "fusion fwd bf16 ncdhw conv(n1 c2 k3 in4x5x5 f3x3x3 pad1x1x1 str1x1x1 dil1x1x1 g1) bnorm-infer(eps0.001) activ(gelu_tanh)"}) {
    SCOPED_TRACE(s);
    const FusionProblem p = parse_fusion_problem(s);
    EXPECT_EQ(to_string(p), s);
    EXPECT_EQ(parse_fusion_problem(to_string(p)), p);
    const OpProblemPtr op = parse_op_problem(s);
    EXPECT_EQ(op->str(), s);
    EXPECT_TRUE(op->equals(*make_op_problem(p)));
  }
}

TEST(FusionProblem, ShortFormsReadAsTheirDefaults) {
  const FusionProblem p = parse_fusion_problem("fusion nhwc fwd bf16 conv(n2 c8 k16 in9x9 f3x3 pad1x1) bias bnorm-infer add activ(relu) rounding=fused");
  EXPECT_EQ(to_string(p), kFull);
  EXPECT_EQ(p.rounding, FusionRounding::fused);
  ASSERT_EQ(p.steps.size(), 5u);
  EXPECT_EQ(p.steps[2].epsilon, 1e-5);
  EXPECT_EQ(p.steps[3].alpha, 1.0);
  EXPECT_EQ(p.steps[3].beta, 1.0);
  EXPECT_EQ(p.conv().pad, (Dims{1, 1}));
  EXPECT_TRUE(p.conv().channels_last);
  EXPECT_EQ(p.conv().dtype, DType::bf16);
}

TEST(FusionProblem, ParserRefusalsNameTheToken) {
  const std::pair<const char*, const char*> cases[] = {
      {"fusion fwd fp32 nchw", "missing the chain"},
      {"fusion fwd nchw conv(n1 c1 k1 in3x3 f1x1)", "missing dtype"},
      {"fusion bwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1)", "inference only"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ(swish)", "token 10 'activ(swish)': in activ(...): 'swish': unknown token"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ(alpha2)", "in activ(...): '<end>': missing an activation mode"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ", "activ needs its mode"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) bias(2)", "bias takes no parameters"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) scale(2)", "unknown fusion step 'scale'"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1", "has no closing ')'"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1 q7)", "unknown token"},
      {"fusion fwd fp32 nchw conv(n1 c1 in3x3 f1x1)", "missing output channels"},
      {"fusion fwd fp32 nchw conv", "conv needs its geometry"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) add(gamma2)", "in add(...)"},
      {"fusion fwd fp32 ncdhw conv(n1 c1 k1 in3x3 f1x1)", "layout is for 3D"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) relu", "unknown token"},
      {"fusion fwd fp32 fp16 nchw conv(n1 c1 k1 in3x3 f1x1)", "dtype given twice"},
      {"fusion fwd fp32 nchw conv(fp16 n1 c1 k1 in3x3 f1x1)", "in conv(...): the dtype and layout are the fusion's"},
      {"fusion fwd fp32 conv(n1 c1 k1 in3x3 f1x1 nhwc)", "in conv(...): the dtype and layout are the fusion's"},
  };
  for (auto [s, want] : cases) {
    const std::string m = message_of(s);
    EXPECT_NE(m.find(want), std::string::npos) << s << "\n  got: " << m;
  }
}

TEST(FusionProblem, ValidateNamesEveryBrokenRule) {
  const std::pair<const char*, const char*> cases[] = {
      {"fusion fwd fp32 nchw bias activ(relu)", "it must start with conv(...)"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) bias bias", "bias given twice (steps 2 and 3)"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ(relu) add", "add (step 3) comes after activ"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) bias bnorm-infer bias", "bias given twice (steps 2 and 4)"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) conv(n1 c1 k1 in3x3 f1x1)", "conv given twice"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ(relu alpha2)", "activ: alpha = 2 is not used by mode relu"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) activ(clippedrelu alpha-1)", "clipping ceiling"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) bnorm-infer(eps0)", "bnorm-infer: eps = 0 must be finite and > 0"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1) add(alpha1e300)", "add: alpha = 1e+300 must be finite in fp32"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1 trans)", "transposed convolution is not supported"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f1x1 bias)", "write the bias step after it"},
      {"fusion fwd fp32 nchw conv(bwd-data n1 c1 k1 in3x3 f1x1)", "the chain is a forward convolution"},
      {"fusion fwd fp32 nchw conv(n1 c1 k1 in3x3 f5x5)", "conv: output height is 0"},
      {"fusion fwd fp32 nchw conv(n1 c3 k4 in3x3 f1x1 g2)", "conv: input channels c = 3 is not divisible by groups g = 2"},
  };
  for (auto [s, want] : cases) {
    const FusionProblem p = parse_fusion_problem_unchecked(s);
    const std::string all = test_op::all_errors(p.validate());
    EXPECT_NE(all.find(want), std::string::npos) << s << "\n  got: " << all;
    // The unchecked string round-trips too, and the checked parser throws with the same messages.
    EXPECT_EQ(parse_fusion_problem_unchecked(to_string(p)), p) << to_string(p);
    EXPECT_NE(message_of(s).find(want), std::string::npos) << s;
  }
}

TEST(FusionProblem, TensorsFollowTheChain) {
  const FusionProblem p = parse_fusion_problem(kFull);
  const auto ts = p.tensors();
  std::vector<std::string> names;
  for (const auto& t : ts) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "w", "bias", "bn_scale", "bn_shift", "bn_mean", "bn_var", "residual", "y"}));
  using R = OpTensor::Role;
  for (std::size_t i = 0; i + 1 < ts.size(); ++i) EXPECT_EQ(ts[i].role, R::input) << ts[i].name;
  EXPECT_EQ(ts.back().role, R::output);
  EXPECT_EQ(ts[0].desc, p.conv().x_desc());
  EXPECT_EQ(ts[1].desc, p.conv().w_desc());
  EXPECT_EQ(ts[2].desc, TensorDesc::packed(DType::bf16, Dims{16}, false));
  EXPECT_EQ(ts[3].desc, TensorDesc::packed(DType::fp32, Dims{16}, false));
  EXPECT_EQ(ts[7].desc, p.conv().y_desc());
  EXPECT_EQ(ts[8].desc.dims, (Dims{2, 16, 9, 9}));
  EXPECT_EQ(ts[8].desc.strides[1], 1) << "nhwc: channels innermost";
  // conv's 2*MACs plus bias 1, bnorm-infer 2, add 3, activ 1 per output element.
  EXPECT_DOUBLE_EQ(p.flops(), p.conv().flops() + 7.0 * 2 * 16 * 81);
  const FusionProblem only = parse_fusion_problem("fusion fwd fp32 nchw conv(n1 c1 k2 in3x3 f1x1)");
  EXPECT_EQ(only.tensors().size(), 3u);
}

}  // namespace
}  // namespace hiprim
