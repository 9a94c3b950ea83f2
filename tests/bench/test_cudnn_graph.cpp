// The graph-API cuDNN peer. Host: the graph as data (tensor dims, strides, uids and roles, the
// convolution's geometry, the fused chain), the static refusals, names and the loader's refusal.
// The device tests are in test_cudnn_graph_device.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/cudnn_graph.hpp"
#include "bench/fusion_peer.hpp"
#include "core/error.hpp"
#include "verify/suite.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

namespace {

const CudnnGraphTensor* find_role(const CudnnGraphSpec& s, CudnnGraphRole r) {
  for (const auto& t : s.tensors)
    if (t.role == r) return &t;
  return nullptr;
}

CudnnGraphSpec spec_of(const std::string& problem, const CudnnGraphEpilogue& ep = {}) {
  CudnnGraphSpec s;
  const auto a = cudnn_graph_spec(parse_conv_problem(problem), ep, &s);
  EXPECT_TRUE(a) << problem << ": " << a.reason;
  return s;
}

}  // namespace

// ---- Host: the graph as data ----

TEST(CudnnGraphSpec, ForwardNhwcBf16TensorsAndGeometry) {
  const auto s = spec_of("conv fwd bf16 nhwc n2 c8 k6 in10x12 f3x5 pad1x2 str2x1 dil1x2 g2");
  EXPECT_EQ(s.op, CudnnConvOp::forward);
  EXPECT_FALSE(s.swapped);
  EXPECT_EQ(s.compute_type, 0);  // FLOAT
  ASSERT_EQ(s.tensors.size(), 3u);
  const auto& x = s.tensor(s.conv_x);
  const auto& w = s.tensor(s.conv_w);
  const auto& y = s.tensor(s.conv_y);
  EXPECT_EQ(x.role, CudnnGraphRole::x);
  EXPECT_EQ(y.role, CudnnGraphRole::y);
  EXPECT_EQ(x.data_type, 9);  // BFLOAT16
  EXPECT_EQ(x.dims, (Dims{2, 8, 10, 12}));
  // NHWC: C innermost, then W, H, N
  EXPECT_EQ(x.strides, (Dims{10 * 12 * 8, 1, 12 * 8, 8}));
  // filter [K, C/G, R, S] = [6, 4, 3, 5] stored as [K, R, S, C/G]
  EXPECT_EQ(w.dims, (Dims{6, 4, 3, 5}));
  EXPECT_EQ(w.strides, (Dims{3 * 5 * 4, 1, 5 * 4, 4}));
  // out: H (10 + 2 - 2 - 1)/2 + 1 = 5, W (12 + 4 - 8 - 1)/1 + 1 = 8
  EXPECT_EQ(y.dims, (Dims{2, 6, 5, 8}));
  EXPECT_EQ(y.strides, (Dims{5 * 8 * 6, 1, 8 * 6, 6}));
  EXPECT_EQ(s.pre_pad, (Dims{1, 2}));
  EXPECT_EQ(s.post_pad, (Dims{1, 2}));
  EXPECT_EQ(s.stride, (Dims{2, 1}));
  EXPECT_EQ(s.dilation, (Dims{1, 2}));
  EXPECT_TRUE(s.pointwise.empty());
  // unique ids, none virtual
  for (std::size_t i = 0; i < s.tensors.size(); ++i) {
    EXPECT_FALSE(s.tensors[i].is_virtual);
    for (std::size_t j = i + 1; j < s.tensors.size(); ++j) EXPECT_NE(s.tensors[i].uid, s.tensors[j].uid);
  }
}

TEST(CudnnGraphSpec, DirectionsPickTheBackendOperation) {
  auto s = spec_of("conv bwd-data fp16 nchw n1 c3 k4 in5x5 f3x3");
  EXPECT_EQ(s.op, CudnnConvOp::backward_data);
  EXPECT_EQ(s.tensor(s.conv_x).role, CudnnGraphRole::x);  // DX
  EXPECT_EQ(s.tensor(s.conv_y).role, CudnnGraphRole::y);  // DY
  EXPECT_EQ(s.tensor(s.conv_x).data_type, 2);             // HALF
  EXPECT_EQ(s.tensor(s.conv_x).strides, (Dims{75, 25, 5, 1}));
  s = spec_of("conv bwd-weights fp32 ndhwc n1 c4 k2 in3x4x5 f1x2x3 pad0x1x1 str1x1x2");
  EXPECT_EQ(s.op, CudnnConvOp::backward_filter);
  EXPECT_EQ(s.tensor(s.conv_w).dims, (Dims{2, 4, 1, 2, 3}));
  EXPECT_EQ(s.tensor(s.conv_w).strides, (Dims{24, 1, 24, 12, 4}));  // [K, T, R, S, C]
  EXPECT_EQ(s.tensor(s.conv_x).strides, (Dims{240, 1, 80, 20, 4}));
  EXPECT_EQ(s.stride, (Dims{1, 1, 2}));
  EXPECT_EQ(s.pre_pad, (Dims{0, 1, 1}));
}

TEST(CudnnGraphSpec, TransposedProblemsAreTheSwappedConvolution) {
  // trans: x [1, 4, 3, 3], w [C, K/G, f] = [4, 3, 3, 3], y [1, 6, 6, 6]
  const std::string base = "fp32 nchw n1 c4 k6 in3x3 f3x3 pad1x1 str2x2 g2 trans opad1x1";
  auto s = spec_of("conv fwd " + base);
  EXPECT_TRUE(s.swapped);
  EXPECT_EQ(s.op, CudnnConvOp::backward_data);  // trans fwd = the mapped conv's data gradient
  EXPECT_EQ(s.tensor(s.conv_x).role, CudnnGraphRole::y);  // cuDNN's x (its dx) is our y
  EXPECT_EQ(s.tensor(s.conv_x).dims, (Dims{1, 6, 6, 6}));
  EXPECT_EQ(s.tensor(s.conv_y).role, CudnnGraphRole::x);  // cuDNN's dy is our x
  EXPECT_EQ(s.tensor(s.conv_y).dims, (Dims{1, 4, 3, 3}));
  EXPECT_EQ(s.tensor(s.conv_w).dims, (Dims{4, 3, 3, 3}));  // the mapped conv's [K', C'/G]: 6/2 = 3
  EXPECT_EQ(spec_of("conv bwd-data " + base).op, CudnnConvOp::forward);
  s = spec_of("conv bwd-weights " + base);
  EXPECT_EQ(s.op, CudnnConvOp::backward_filter);
  EXPECT_EQ(s.tensor(s.conv_x).role, CudnnGraphRole::y);
}

// The fusion bench's peer end to end on the host: a ResNet-50 residual block's chain through
// fusion_peer_epilogue (bench/fusion_peer.hpp) into the graph: bias, the residual at beta, relu; no
// scale node (alpha 1).
TEST(CudnnGraphSpec, AFusionChainBecomesTheGraphItsPeerRuns) {
  const FusionProblem f =
      parse_fusion_problem("fusion fwd bf16 nhwc conv(n2 c8 k16 in9x9 f3x3 pad1x1 str1x1 dil1x1 g1) bias add(alpha1 beta0.5) activ(relu)");
  CudnnGraphEpilogue ep;
  ASSERT_TRUE(verify::fusion_peer_epilogue(f, &ep));
  const auto s = spec_of(to_string(f.conv()), ep);
  ASSERT_EQ(s.pointwise.size(), 3u);
  EXPECT_EQ(s.pointwise[0].name, "add_bias");
  EXPECT_EQ(s.pointwise[1].name, "add_z");
  EXPECT_EQ(s.pointwise[1].alpha2, 0.5);
  EXPECT_EQ(s.pointwise[2].name, "relu");
  EXPECT_EQ(s.tensor(s.pointwise[2].out).role, CudnnGraphRole::y);
  EXPECT_EQ(s.tensor(s.pointwise[2].out).data_type, 9);  // y in bf16
}

TEST(CudnnGraphSpec, FusedChainScaleBiasAddActivation) {
  CudnnGraphEpilogue ep;
  ep.bias = ep.add = true;
  ep.alpha1 = 2.0;
  ep.alpha2 = 0.5;
  ep.activation = CudnnActivation::relu;
  const auto s = spec_of("conv fwd fp16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1", ep);
  ASSERT_EQ(s.pointwise.size(), 4u);
  EXPECT_EQ(s.pointwise[0].name, "scale");
  EXPECT_EQ(s.pointwise[0].mode, 1);  // MUL
  EXPECT_EQ(s.pointwise[1].name, "add_bias");
  EXPECT_EQ(s.pointwise[1].mode, 0);  // ADD
  EXPECT_EQ(s.pointwise[2].name, "add_z");
  EXPECT_EQ(s.pointwise[2].alpha2, 0.5);
  EXPECT_EQ(s.pointwise[3].name, "relu");
  EXPECT_EQ(s.pointwise[3].mode, 100);  // RELU_FWD
  EXPECT_EQ(s.pointwise[3].b, -1);
  // The chain: conv -> t0 -> scale -> t1 -> +bias -> t2 -> +z -> t3 -> relu -> y
  const auto& t0 = s.tensor(s.conv_y);
  EXPECT_TRUE(t0.is_virtual);
  EXPECT_EQ(t0.data_type, 0);  // fp32 intermediate
  EXPECT_EQ(s.pointwise[0].in, s.conv_y);
  for (std::size_t i = 1; i < s.pointwise.size(); ++i) {
    EXPECT_EQ(s.pointwise[i].in, s.pointwise[i - 1].out);
    EXPECT_TRUE(s.tensor(s.pointwise[i].in).is_virtual);
    EXPECT_EQ(s.tensor(s.pointwise[i].in).dims, (Dims{2, 16, 9, 9}));
  }
  EXPECT_EQ(s.tensor(s.pointwise[3].out).role, CudnnGraphRole::y);
  EXPECT_EQ(s.tensor(s.pointwise[3].out).data_type, 2);
  const auto* bias = find_role(s, CudnnGraphRole::bias);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->dims, (Dims{1, 16, 1, 1}));
  EXPECT_EQ(bias->strides, (Dims{16, 1, 16, 16}));
  EXPECT_EQ(s.pointwise[1].b, bias->uid);
  const auto* z = find_role(s, CudnnGraphRole::z);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->dims, s.tensor(kCudnnUidY).dims);
  EXPECT_EQ(z->strides, s.tensor(kCudnnUidY).strides);
  const auto* a1 = find_role(s, CudnnGraphRole::alpha1);
  ASSERT_NE(a1, nullptr);
  EXPECT_TRUE(a1->by_value);
  EXPECT_EQ(a1->data_type, 0);
  EXPECT_EQ(s.pointwise[0].b, a1->uid);
  for (std::size_t i = 0; i < s.tensors.size(); ++i)
    for (std::size_t j = i + 1; j < s.tensors.size(); ++j) EXPECT_NE(s.tensors[i].uid, s.tensors[j].uid);
}

TEST(CudnnGraphSpec, ProblemBiasBecomesTheBiasNode) {
  const auto s = spec_of("conv fwd bf16 nchw n1 c3 k5 in6x6 f1x1 bias");
  ASSERT_EQ(s.pointwise.size(), 1u);
  EXPECT_EQ(s.pointwise[0].name, "add_bias");
  EXPECT_EQ(s.pointwise[0].out, kCudnnUidY);
  EXPECT_EQ(s.tensor(kCudnnUidBias).strides, (Dims{5, 1, 1, 1}));
  EXPECT_TRUE(s.tensor(s.conv_y).is_virtual);
  EXPECT_THROW(s.tensor(999), InputError);
}

TEST(CudnnGraphSupports, RefusesWhatTheGraphCannotExpress) {
  // output padding 1 < dilation 2 is a valid problem, but it is not below stride 1
  auto a = cudnn_graph_supports(parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 str1x1 dil2x2 trans opad1x1"));
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("output padding"), std::string::npos) << a.reason;
  CudnnGraphEpilogue bias;
  bias.bias = true;
  a = cudnn_graph_supports(parse_conv_problem("conv bwd-data fp32 nchw n1 c2 k2 in4x4 f3x3"), bias);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("bwd-data"), std::string::npos) << a.reason;
  a = cudnn_graph_supports(parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 str2x2 trans opad1x1"), bias);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("transposed"), std::string::npos) << a.reason;
  CudnnGraphEpilogue scale;
  scale.alpha1 = 2.0;  // a scale alone is a pointwise node too
  EXPECT_FALSE(cudnn_graph_supports(parse_conv_problem("conv bwd-weights fp32 nchw n1 c2 k2 in4x4 f3x3"), scale));
  CudnnGraphEpilogue nan_alpha;
  nan_alpha.add = true;
  nan_alpha.alpha2 = std::nan("");
  a = cudnn_graph_supports(parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3"), nan_alpha);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("finite"), std::string::npos) << a.reason;
  auto bad = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3");
  bad.c = 3;
  bad.groups = 2;
  a = cudnn_graph_supports(bad);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("invalid problem"), std::string::npos) << a.reason;
  // what it does express
  EXPECT_TRUE(cudnn_graph_supports(parse_conv_problem("conv bwd-weights bf16 ndhwc n1 c4 k4 in3x3x3 f3x3x3 str2x2x2 trans opad1x1x1")));
  EXPECT_TRUE(cudnn_graph_supports(parse_conv_problem("conv fwd fp16 nhwc n1 c4 k4 in5x5 f3x3 bias"), bias));
}

TEST(CudnnGraphNames, NotesAndKnobs) {
  EXPECT_EQ(cudnn_numerical_note_name(0), "TENSOR_CORE");
  EXPECT_EQ(cudnn_numerical_note_name(2), "REDUCED_PRECISION_REDUCTION");
  EXPECT_EQ(cudnn_numerical_note_name(9), "STRICT_NAN_PROP");
  EXPECT_EQ(cudnn_numerical_note_name(10), "NOTE(10)");
  EXPECT_EQ(cudnn_behavior_note_name(0), "RUNTIME_COMPILATION");
  EXPECT_EQ(cudnn_knob_type_name(2), "TILE_SIZE");
  EXPECT_EQ(cudnn_knob_type_name(17), "SPLIT_K_SLC");
  EXPECT_EQ(cudnn_knob_type_name(40), "TILE_M");
  EXPECT_EQ(cudnn_knob_type_name(43), "SWAP_AB");
  EXPECT_EQ(cudnn_knob_type_name(44), "KNOB(44)");
  EXPECT_EQ(cudnn_conv_op_name(CudnnConvOp::backward_filter), "BACKWARD_FILTER");
  EXPECT_EQ(cudnn_graph_role_name(CudnnGraphRole::intermediate), "virtual");
}

TEST(CudnnGraphLoader, MissingLibraryIsAReasonNotACrash) {
  std::string why;
  EXPECT_EQ(CudnnGraphPeer::open("/nonexistent/libcudnn.so.9", &why), nullptr);
  EXPECT_NE(why.find("/nonexistent/libcudnn.so.9"), std::string::npos) << why;
  EXPECT_THROW(CudnnGraphConv(nullptr, parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3")), InputError);
}

// cuDNN's own shape rules, without a device: every tensor, the convolution and each node of the
// graph of every problem we express finalizes (a wrong dim, stride or role swap is refused there:
// the output size must follow from x, w, padding, stride and dilation). Skipped without libcudnn.
TEST(CudnnGraphValidate, CudnnAcceptsTheGraphOfEveryProblemWeExpress) {
  std::string why;
  auto lib = CudnnGraphPeer::open_library("", &why);
  if (!lib) GTEST_SKIP() << why;
  EXPECT_EQ(lib->handle(), nullptr);
  EXPECT_GE(lib->version(), 90000);
  EXPECT_THROW(CudnnGraphConv(lib, parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3")), InputError);
  verify::SuiteOptions all;
  all.batch = 32;
  all.dtypes = {DType::fp32, DType::fp16, DType::bf16};
  all.channels_last = {false, true};
  std::vector<ConvProblem> problems = verify::conv_problems(verify::load_suite("resnet50", all));
  for (const auto& p : verify::conv_problems(verify::load_suite("edge", all))) problems.push_back(p);
  for (const auto& p : verify::conv_problems(verify::load_suite("smoke", all))) problems.push_back(p);
  int validated = 0, refused = 0;
  for (const ConvProblem& p : problems) {
    if (!cudnn_graph_supports(p)) {
      ++refused;
      continue;
    }
    const auto a = cudnn_graph_validate(*lib, p);
    EXPECT_TRUE(a) << to_string(p) << ": " << a.reason;
    ++validated;
  }
  CudnnGraphEpilogue fused;
  fused.bias = fused.add = true;
  fused.alpha1 = 2.0;
  fused.alpha2 = 0.5;
  fused.activation = CudnnActivation::relu;
  for (const ConvProblem& p : problems) {
    if (p.dir != ConvDir::fwd || p.mode != ConvMode::conv) continue;
    const auto a = cudnn_graph_validate(*lib, p, fused);
    EXPECT_TRUE(a) << to_string(p) << " (fused): " << a.reason;
    ++validated;
  }
  std::printf("cuDNN %ld: %d graphs validated, %d problems refused by the static rules\n", lib->version(), validated,
              refused);
  EXPECT_GT(validated, 400);
}
