// Which fusion chains the fusion bench's cuDNN peer takes, and the graph epilogue each becomes
// (bench/fusion_peer.hpp): the chain's formula v3 = alpha * (conv + bias) + beta * residual, y = f(v3)
// against the graph's y = act(alpha1 * conv + bias + alpha2 * z).
#include <gtest/gtest.h>

#include "bench/fusion_peer.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using gpu::CudnnActivation;

namespace {

const std::string kConv = "fusion fwd bf16 nhwc conv(n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1)";

Applicability map(const std::string& tail, gpu::CudnnGraphEpilogue* ep) { return fusion_peer_epilogue(parse_fusion_problem(kConv + tail), ep); }

TEST(FusionPeer, TheResNetBlocksMapOntoTheGraphEpilogue) {
  gpu::CudnnGraphEpilogue ep;
  ASSERT_TRUE(map("", &ep));  // the plain conv through the fusion path
  EXPECT_FALSE(ep.any());
  ASSERT_TRUE(map(" bias activ(relu)", &ep));
  EXPECT_TRUE(ep.bias);
  EXPECT_FALSE(ep.add);
  EXPECT_EQ(ep.activation, CudnnActivation::relu);
  EXPECT_EQ(ep.alpha1, 1.0);
  ASSERT_TRUE(map(" bias add(alpha1 beta0.5) activ(relu)", &ep));
  EXPECT_TRUE(ep.bias && ep.add);
  EXPECT_EQ(ep.alpha1, 1.0);
  EXPECT_EQ(ep.alpha2, 0.5);
  ASSERT_TRUE(map(" add(alpha2 beta3)", &ep));  // no bias: the chain's alpha scales the conv alone
  EXPECT_FALSE(ep.bias);
  EXPECT_EQ(ep.alpha1, 2.0);
  EXPECT_EQ(ep.alpha2, 3.0);
  EXPECT_EQ(ep.activation, CudnnActivation::none);
}

TEST(FusionPeer, ActivationsMapOnlyWhereTheFormulaIsTheSame) {
  gpu::CudnnGraphEpilogue ep;
  const std::pair<std::string, CudnnActivation> same[] = {{"passthru", CudnnActivation::none}, {"logistic", CudnnActivation::sigmoid},
                                                          {"tanh alpha1 beta1", CudnnActivation::tanh}, {"elu alpha1", CudnnActivation::elu},
                                                          {"gelu", CudnnActivation::gelu}, {"silu", CudnnActivation::swish}};
  for (const auto& [mode, act] : same) {
    ASSERT_TRUE(map(" bias activ(" + mode + ")", &ep)) << mode;
    EXPECT_EQ(ep.activation, act) << mode;
  }
  EXPECT_NE(map(" activ(tanh alpha2 beta1)", &ep).reason.find("alpha = beta = 1"), std::string::npos);
  EXPECT_NE(map(" activ(elu alpha0.5)", &ep).reason.find("alpha = 1"), std::string::npos);
  for (const std::string mode : {"clippedrelu alpha6", "leakyrelu alpha0.01", "softrelu", "abs", "power alpha0 beta1 gamma2", "gelu_tanh"}) {
    const Applicability a = map(" activ(" + mode + ")", &ep);
    EXPECT_FALSE(a) << mode;
    EXPECT_NE(a.reason.find("no pointwise node"), std::string::npos) << mode << ": " << a.reason;
  }
}

TEST(FusionPeer, ChainsTheGraphCannotComputeAreRefusedWithTheRule) {
  gpu::CudnnGraphEpilogue ep;
  ep.bias = true;  // untouched by a refusal
  Applicability a = map(" bias bnorm-infer activ(relu)", &ep);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("bnorm-infer"), std::string::npos) << a.reason;
  a = map(" bias activ(relu) rounding=unfused", &ep);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("rounding=unfused"), std::string::npos) << a.reason;
  a = map(" bias add(alpha0.5 beta1) activ(relu)", &ep);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("needs alpha 1"), std::string::npos) << a.reason;
  EXPECT_TRUE(ep.bias);
  EXPECT_FALSE(ep.add);
}

}  // namespace
