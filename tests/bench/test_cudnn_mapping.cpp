// The cuDNN legacy peer's pure part (bench/cudnn_mapping.hpp): the descriptor mapping, algorithm and
// math names, and the loader's candidate paths. Host-only: built and run without nvcc or cuDNN.
#include <gtest/gtest.h>

#include <cstdlib>

#include "bench/cudnn_mapping.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

TEST(CudnnMapping, ConvForwardNhwcBf16) {
  CudnnConvDesc d;
  const auto p = parse_conv_problem("conv fwd bf16 nhwc n2 c8 k6 in10x12 f3x5 pad1x2 str2x1 dil1x2 g2");
  ASSERT_TRUE(cudnn_conv_desc(p, &d));
  EXPECT_EQ(d.call, CudnnCall::forward);
  EXPECT_FALSE(d.swapped);
  EXPECT_EQ(d.data_type, 9);     // CUDNN_DATA_BFLOAT16
  EXPECT_EQ(d.compute_type, 0);  // CUDNN_DATA_FLOAT: fp32 accumulation
  EXPECT_EQ(d.math_type, 1);     // CUDNN_TENSOR_OP_MATH
  EXPECT_EQ(d.format, 1);        // CUDNN_TENSOR_NHWC
  EXPECT_EQ(d.x_dims, (std::vector<int>{2, 8, 10, 12}));
  EXPECT_EQ(d.w_dims, (std::vector<int>{6, 4, 3, 5}));  // [K, C/G, R, S]
  // out: H (10 + 2 - 2 - 1)/2 + 1 = 5, W (12 + 4 - 8 - 1)/1 + 1 = 8
  EXPECT_EQ(d.y_dims, (std::vector<int>{2, 6, 5, 8}));
  EXPECT_EQ(d.pad, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.stride, (std::vector<int>{2, 1}));
  EXPECT_EQ(d.dilation, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.groups, 2);
}

TEST(CudnnMapping, Fp32UsesFmaMathAndNchw) {
  CudnnConvDesc d;
  ASSERT_TRUE(cudnn_conv_desc(parse_conv_problem("conv bwd-weights fp32 nchw n1 c3 k4 in5x5 f3x3"), &d));
  EXPECT_EQ(d.call, CudnnCall::backward_filter);
  EXPECT_EQ(d.data_type, 0);
  EXPECT_EQ(d.math_type, 3);  // CUDNN_FMA_MATH: no TF32
  EXPECT_EQ(d.format, 0);
  ASSERT_TRUE(cudnn_conv_desc(parse_conv_problem("conv bwd-data fp16 ncdhw n1 c3 k4 in5x5x5 f3x3x3"), &d));
  EXPECT_EQ(d.call, CudnnCall::backward_data);
  EXPECT_EQ(d.data_type, 2);
  EXPECT_EQ(d.x_dims.size(), 5u);
}

TEST(CudnnMapping, TransposedSwapsXAndY) {
  CudnnConvDesc d;
  // trans: x [1, 4, 3, 3], w [4, 6/2, 3, 3], y [1, 6, out, out]
  const auto p = parse_conv_problem("conv fwd fp32 nchw n1 c4 k6 in3x3 f3x3 pad1x1 str2x2 g2 trans opad1x1");
  ASSERT_TRUE(cudnn_conv_desc(p, &d));
  EXPECT_TRUE(d.swapped);
  EXPECT_EQ(d.call, CudnnCall::backward_data);  // trans fwd = the conv's data gradient
  // out = (3 - 1)*2 - 2*1 + 1*(3 - 1) + 1 + 1 = 6; cuDNN's x is our y, its y our x
  EXPECT_EQ(d.x_dims, (std::vector<int>{1, 6, 6, 6}));
  EXPECT_EQ(d.y_dims, (std::vector<int>{1, 4, 3, 3}));
  EXPECT_EQ(d.w_dims, (std::vector<int>{4, 3, 3, 3}));  // [C, K/G, ...] = the conv's [K', C'/G, ...]
  auto q = p;
  q.dir = ConvDir::bwd_data;
  ASSERT_TRUE(cudnn_conv_desc(q, &d));
  EXPECT_EQ(d.call, CudnnCall::forward);
  q.dir = ConvDir::bwd_weights;
  ASSERT_TRUE(cudnn_conv_desc(q, &d));
  EXPECT_EQ(d.call, CudnnCall::backward_filter);
}

TEST(CudnnMapping, RefusesWhatTheLegacyApiCannotExpress) {
  CudnnConvDesc d;
  auto a = cudnn_conv_desc(parse_conv_problem("conv fwd fp32 nchw n1 c3 k4 in5x5 f1x1 bias"), &d);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("bias"), std::string::npos);
  // output padding 1 < dilation 2 is valid, but not below stride 1
  auto p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3 str1x1 dil2x2 trans opad1x1");
  a = cudnn_conv_desc(p, &d);
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("output padding"), std::string::npos) << a.reason;
}

TEST(CudnnNames, AlgorithmsMathAndTransforms) {
  EXPECT_EQ(cudnn_algo_name(CudnnCall::forward, 1), "IMPLICIT_PRECOMP_GEMM");
  EXPECT_EQ(cudnn_algo_name(CudnnCall::backward_filter, 3), "ALGO_3");
  EXPECT_EQ(cudnn_algo_name(CudnnCall::backward_data, 9), "ALGO(9)");
  EXPECT_TRUE(cudnn_algo_is_transform(CudnnCall::forward, 7));         // WINOGRAD_NONFUSED
  EXPECT_TRUE(cudnn_algo_is_transform(CudnnCall::backward_filter, 6)); // FFT_TILING
  EXPECT_FALSE(cudnn_algo_is_transform(CudnnCall::backward_data, 1));
  EXPECT_EQ(cudnn_math_name(3), "FMA_MATH");
  EXPECT_FALSE(cudnn_math_allowed(DType::fp32, kCudnnTensorOpMath));  // TF32
  EXPECT_TRUE(cudnn_math_allowed(DType::fp32, kCudnnFmaMath));
  EXPECT_TRUE(cudnn_math_allowed(DType::bf16, kCudnnTensorOpMath));
  EXPECT_FALSE(cudnn_math_allowed(DType::fp16, kCudnnTensorOpMathAllowConversion));
}

TEST(CudnnLoader, CandidatePaths) {
  EXPECT_EQ(cudnn_candidates("/x/libcudnn.so.9"), std::vector<std::string>{"/x/libcudnn.so.9"});
  setenv("HIPRIM_CUDNN_LIB", "/from/env/libcudnn.so.9", 1);
  EXPECT_EQ(cudnn_candidates(""), (std::vector<std::string>{"/from/env/libcudnn.so.9", "libcudnn.so.9"}));
  unsetenv("HIPRIM_CUDNN_LIB");
  EXPECT_EQ(cudnn_candidates(""), std::vector<std::string>{"libcudnn.so.9"});
}
