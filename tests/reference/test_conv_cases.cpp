// Hand-computed cases, tiling-sized cases and bad inputs for the CPU convolution oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "tests/reference/conv_property_tools.hpp"

using namespace hiprim;
using namespace hiprim::test;

namespace {

// Both implementations with every default (fast: hardware threads).
template <class F>
void for_both(F&& f) {
  f("naive", [](const ConvProblem& p, const ref::ConvInputs& in) { return ref::conv_naive(p, in); });
  f("fast", [](const ConvProblem& p, const ref::ConvInputs& in) { return ref::conv_fast(p, in); });
}

HostTensor tensor_2d(DType dt, std::int64_t h, std::int64_t w, std::vector<float> v) {
  HostTensor t(TensorDesc::packed(dt, {1, 1, h, w}, false));
  t.data = std::move(v);
  return t;
}

// x = [[1,-2,3],[-4,5,-6],[7,-8,9]], w = [[1,2],[-1,0.5]], dy = [[1,-1],[2,0.5]] (one channel).
const std::vector<float> kX{1, -2, 3, -4, 5, -6, 7, -8, 9};
const std::vector<float> kW{1, 2, -1, 0.5f};
const std::vector<float> kDy{1, -1, 2, 0.5f};

void expect_output(const ref::ConvOutput& o, const std::vector<double>& value, const std::vector<double>& abs_sum,
                   const char* name) {
  ASSERT_EQ(o.value.size(), value.size()) << name;
  for (std::size_t i = 0; i < value.size(); ++i) {
    EXPECT_EQ(o.value[i], value[i]) << name << " element " << i;
    EXPECT_EQ(o.abs_sum[i], abs_sum[i]) << name << " element " << i;
  }
}

}  // namespace

// y[o] = sum_f x[o+f] w[f] on paper, e.g. y[0,0] = 1*1 + (-2)*2 + (-4)*(-1) + 5*0.5 = 3.5 with
// |terms| 1+4+4+2.5 = 11.5; bias -0.25 adds -0.25 and 0.25.
TEST(ReferenceConvHand, Fwd3x3By2x2WithBias) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in3x3 f2x2 bias");
  const HostTensor x = tensor_2d(DType::fp32, 3, 3, kX), w = tensor_2d(DType::fp32, 2, 2, kW);
  HostTensor b(p.bias_desc());
  b.data = {-0.25f};
  for_both([&](const char* name, auto run) {
    expect_output(run(p, {&x, &w, nullptr, &b}), {3.25, -4.25, -5.25, 5.25}, {11.75, 16.25, 25.25, 29.75}, name);
  });
}

// pad 1, stride 2: y[o] = sum_f x[2o - 1 + f] w[f]; y[0,0] = x[0,0]*w[1,1] = 0.5,
// y[0,1] = x[0,1]*w[1,0] + x[0,2]*w[1,1] = 2 + 1.5, y[1,0] = -4*2 + 7*0.5 = -4.5 (|.| 8 + 3.5),
// y[1,1] = 5*1 - 6*2 - 8*(-1) + 9*0.5 = 5.5 (|.| 29.5).
TEST(ReferenceConvHand, FwdPadStride) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in3x3 f2x2 pad1x1 str2x2");
  const HostTensor x = tensor_2d(DType::fp32, 3, 3, kX), w = tensor_2d(DType::fp32, 2, 2, kW);
  for_both([&](const char* name, auto run) {
    expect_output(run(p, {&x, &w, nullptr, nullptr}), {0.5, 3.5, -4.5, 5.5}, {0.5, 3.5, 11.5, 29.5}, name);
  });
}

// Inputs are rounded to the dtype: 1 + 2^-10 is 1 in bf16 (7 mantissa bits) but kept in fp32.
TEST(ReferenceConvHand, InputsAreRoundedToTheDtype) {
  std::vector<float> x = kX;
  x[0] = 1.0f + std::ldexp(1.0f, -10);
  for (DType dt : {DType::bf16, DType::fp32}) {
    ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in3x3 f2x2");
    p.dtype = dt;
    const HostTensor xt = tensor_2d(dt, 3, 3, x), wt = tensor_2d(dt, 2, 2, kW);
    const double y00 = dt == DType::bf16 ? 3.5 : 3.5 + std::ldexp(1.0, -10);
    for_both([&](const char* name, auto run) { EXPECT_EQ(run(p, {&xt, &wt, nullptr, nullptr}).value[0], y00) << name; });
  }
}

// dx[i] = sum_{o+f=i} dy[o] w[f]: dx[1,1] = 1*0.5 + (-1)*(-1) + 2*2 + 0.5*1 = 6, dx[1,2] = -1*0.5 +
// 0.5*2 = 0.5 (|.| 0.5 + 1), ... The transposed fwd of the same numbers is the same sum.
TEST(ReferenceConvHand, BwdDataAndTransposedFwd) {
  const std::vector<double> value{1, 1, -2, 1, 6, 0.5, -2, 0.5, 0.25};
  const std::vector<double> abs_sum{1, 3, 2, 3, 6, 1.5, 2, 1.5, 0.25};
  const HostTensor dy = tensor_2d(DType::fp32, 2, 2, kDy), w = tensor_2d(DType::fp32, 2, 2, kW);
  const ConvProblem bd = parse_conv_problem("conv bwd-data fp32 nchw n1 c1 k1 in3x3 f2x2");
  const ConvProblem tf = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in2x2 f2x2 trans");
  for_both([&](const char* name, auto run) {
    expect_output(run(bd, {nullptr, &w, &dy, nullptr}), value, abs_sum, name);
    expect_output(run(tf, {&dy, &w, nullptr, nullptr}), value, abs_sum, name);
  });
}

// dw[f] = sum_o x[o+f] dy[o]: dw[0,0] = 1*1 + (-2)(-1) + (-4)*2 + 5*0.5 = -2.5 (|.| 13.5),
// dw[0,1] = -2 - 3 + 10 - 3 = 2 (18), dw[1,0] = -4 - 5 + 14 - 4 = 1 (27), dw[1,1] = 5 + 6 - 16 + 4.5 = -0.5 (31.5).
TEST(ReferenceConvHand, BwdWeights) {
  const ConvProblem p = parse_conv_problem("conv bwd-weights fp32 nchw n1 c1 k1 in3x3 f2x2");
  const HostTensor x = tensor_2d(DType::fp32, 3, 3, kX), dy = tensor_2d(DType::fp32, 2, 2, kDy);
  for_both([&](const char* name, auto run) {
    expect_output(run(p, {&x, nullptr, &dy, nullptr}), {-2.5, 2, 1, -0.5}, {13.5, 18, 27, 31.5}, name);
  });
}

// Dilation 2x2, width padding 1, one channel: x 3x4, w 2x2, taps at rows {0, 2} and columns
// {o-1, o+1} of output column o (row 1 of x is never read: a dilation hole).
//   x = [[1, 2, -1, 3], [0, -2, 4, 1], [2, 1, -3, -1]],  w = [[1, -1], [2, 0.5]],  dy = [1, -2, 0.5, 3]
// fwd, y[0,o] = x[0,o-1]*1 + x[0,o+1]*(-1) + x[2,o-1]*2 + x[2,o+1]*0.5 (absent outside x):
//   y[0] = -2 + 0.5 = -1.5 (|.| 2.5); y[1] = 1 + 1 + 4 - 1.5 = 4.5 (7.5); y[2] = 2 - 3 + 2 - 0.5 = 0.5 (7.5);
//   y[3] = -1 - 6 = -7 (7).
// bwd-data, dx[2r, i] = dy[i+1]*w[r,0] + dy[i-1]*w[r,1] (dy absent outside [0, 4)), dx row 1 = 0:
//   row 0: [-2, 0.5 - 1, 3 + 2, -0.5] = [-2, -0.5, 5, -0.5] (|.| 2, 1.5, 5, 0.5);
//   row 2: [-4, 1 + 0.5, 6 - 1, 0.25] = [-4, 1.5, 5, 0.25] (|.| 4, 1.5, 7, 0.25).
// bwd-weights, dw[r,s] = sum_o dy[o] * x[2r, o-1+2s]:
//   dw[0,0] = -2*1 + 0.5*2 + 3*(-1) = -4 (6); dw[0,1] = 1*2 + (-2)(-1) + 0.5*3 = 5.5 (5.5);
//   dw[1,0] = -2*2 + 0.5*1 + 3*(-3) = -12.5 (13.5); dw[1,1] = 1*1 + (-2)(-3) + 0.5*(-1) = 6.5 (7.5).
// Adjoint check of the arithmetic: <y, dy> = <x, dx> = <w, dw> = -31.25.
TEST(ReferenceConvHand, DilationEveryDirection) {
  const HostTensor x = tensor_2d(DType::fp32, 3, 4, {1, 2, -1, 3, 0, -2, 4, 1, 2, 1, -3, -1});
  const HostTensor w = tensor_2d(DType::fp32, 2, 2, {1, -1, 2, 0.5f});
  const HostTensor dy = tensor_2d(DType::fp32, 1, 4, {1, -2, 0.5f, 3});
  const std::string geometry = " fp32 nchw n1 c1 k1 in3x4 f2x2 pad0x1 dil2x2";
  const ConvProblem fwd = parse_conv_problem("conv fwd" + geometry), bwd_data = parse_conv_problem("conv bwd-data" + geometry),
                    bwd_weights = parse_conv_problem("conv bwd-weights" + geometry);
  for_both([&](const char* name, auto run) {
    expect_output(run(fwd, {&x, &w, nullptr, nullptr}), {-1.5, 4.5, 0.5, -7}, {2.5, 7.5, 7.5, 7}, name);
    expect_output(run(bwd_data, {nullptr, &w, &dy, nullptr}), {-2, -0.5, 5, -0.5, 0, 0, 0, 0, -4, 1.5, 5, 0.25},
                  {2, 1.5, 5, 0.5, 0, 0, 0, 0, 4, 1.5, 7, 0.25}, name);
    expect_output(run(bwd_weights, {&x, nullptr, &dy, nullptr}), {-4, 5.5, -12.5, 6.5}, {6, 5.5, 13.5, 7.5}, name);
  });
}

// 3D, one channel: x [D3][H2][W2], w [T2][R1][S2], depth stride 2 and depth padding 1, so output
// depth od reads x depths 2od-1+t (depth -1 is padding); y [D2][H2][W1].
//   x: d0 = [[1, -1], [2, 3]], d1 = [[0, 4], [-2, 1]], d2 = [[5, -3], [1, -1]];  w: t0 = [1, 2], t1 = [-1, 0.5];
//   dy: od0 = [1, -2], od1 = [0.5, 3] (over oh).
// fwd, y[od][oh] = sum_{t,s} x[2od-1+t][oh][s] * w[t][s]:
//   y[0][0] = -1 - 0.5 = -1.5 (1.5), y[0][1] = -2 + 1.5 = -0.5 (3.5) (only t = 1 is inside);
//   y[1][0] = 0 + 8 - 5 - 1.5 = 1.5 (14.5), y[1][1] = -2 + 2 - 1 - 0.5 = -1.5 (5.5).
// bwd-data, dx[d][h][s] = dy[od][h] * w[t][s] for the one (od, t) with 2od-1+t = d:
//   d0 (od0, t1) = [[-1, 0.5], [2, -1]], d1 (od1, t0) = [[0.5, 1], [3, 6]], d2 (od1, t1) = [[-0.5, 0.25], [-3, 1.5]]
//   (one term each: |.| = the values' magnitudes).
// bwd-weights, dw[t][s] = sum_{od,oh} dy[od][oh] * x[2od-1+t][oh][s] (depth -1 absent):
//   dw[0][0] = 0.5*0 + 3*(-2) = -6 (6), dw[0][1] = 0.5*4 + 3*1 = 5 (5),
//   dw[1][0] = 1*1 - 2*2 + 0.5*5 + 3*1 = 2.5 (10.5), dw[1][1] = -1 - 6 - 1.5 - 3 = -11.5 (11.5).
// Adjoint check: <y, dy> = <x, dx> = <w, dw> = -4.25. The transposed fwd with dy as its input
// (output padding 1 restores depth 3) is the same sum as bwd-data.
TEST(ReferenceConvHand, ThreeDimensionalEveryDirection) {
  auto tensor_3d = [](std::int64_t d, std::int64_t h, std::int64_t w, std::vector<float> v) {
    HostTensor t(TensorDesc::packed(DType::fp32, {1, 1, d, h, w}, false));
    t.data = std::move(v);
    return t;
  };
  const HostTensor x = tensor_3d(3, 2, 2, {1, -1, 2, 3, 0, 4, -2, 1, 5, -3, 1, -1});
  const HostTensor w = tensor_3d(2, 1, 2, {1, 2, -1, 0.5f});
  const HostTensor dy = tensor_3d(2, 2, 1, {1, -2, 0.5f, 3});
  const std::string geometry = " fp32 ncdhw n1 c1 k1 in3x2x2 f2x1x2 pad1x0x0 str2x1x1";
  const ConvProblem fwd = parse_conv_problem("conv fwd" + geometry), bwd_data = parse_conv_problem("conv bwd-data" + geometry),
                    bwd_weights = parse_conv_problem("conv bwd-weights" + geometry),
                    trans_fwd = parse_conv_problem("conv fwd fp32 ncdhw n1 c1 k1 in2x2x1 f2x1x2 pad1x0x0 str2x1x1 trans opad1x0x0");
  const std::vector<double> dx{-1, 0.5, 2, -1, 0.5, 1, 3, 6, -0.5, 0.25, -3, 1.5};
  std::vector<double> dx_abs;
  for (double v : dx) dx_abs.push_back(std::fabs(v));
  for_both([&](const char* name, auto run) {
    expect_output(run(fwd, {&x, &w, nullptr, nullptr}), {-1.5, -0.5, 1.5, -1.5}, {1.5, 3.5, 14.5, 5.5}, name);
    expect_output(run(bwd_data, {nullptr, &w, &dy, nullptr}), dx, dx_abs, name);
    expect_output(run(trans_fwd, {&dy, &w, nullptr, nullptr}), dx, dx_abs, name);
    expect_output(run(bwd_weights, {&x, nullptr, &dy, nullptr}), {-6, 5, 2.5, -11.5}, {6, 5, 10.5, 11.5}, name);
  });
}

// Problems large enough that conv_fast cuts the columns into several tiles, the channels into
// several chunks (bwd-weights also over S channels) and the batch into several units; it must
// still match the naive loops. Both sum the same L terms in double, so they differ by at most
// 2*gamma_L*abs_sum (gamma_L ~ L*2^-53); the longest sums here are bwd-weights with L = 2*96*96 =
// 18432 terms, 2*gamma_L < 4.1e-12, hence 1e-11.
TEST(ReferenceConvTiling, FastEqualsNaiveOnMultiTileProblems) {
  const char* shapes[] = {
      "n2 c16 k16 in96x96 f3x3 pad1x1",
      "n1 c4 k130 in6x6 f3x3 pad1x1 g2",
      "n1 c70 k8 in40x40 f3x3 pad1x1 str2x2 dil1x2",
      "n1 c8 k6 in4x12x12 f3x3x3 pad1x1x1 trans str2x2x2 opad1x1x1",
      "n1 c4 k16 in96x96 f2x2 str2x2 trans",
      "n2 c66 k4 in8x8 f1x1 trans",
  };
  for (const char* shape : shapes)
    for (const char* dir : {"fwd", "bwd-data", "bwd-weights"}) {
      const ConvProblem p = parse_conv_problem(std::string("conv ") + dir + " fp32 " + shape);
      const auto t = random_tensors(p, 7);
      const auto a = ref::conv_naive(p, t.inputs()), b = ref::conv_fast(p, t.inputs(), true, nullptr, 2);
      EXPECT_EQ(count_mismatches(a, b, 1e-11), 0) << to_string(p);
    }
}

TEST(ReferenceConvTiling, ConvPicksAnImplementationByMacs) {
  const ConvProblem small = parse_conv_problem("conv fwd fp32 nchw n1 c3 k4 in5x5 f3x3 pad1x1");
  const ConvProblem large = parse_conv_problem("conv fwd fp32 nchw n1 c64 k64 in32x32 f3x3 pad1x1");
  ASSERT_LT(small.macs(), ref::kFastThresholdMacs);
  ASSERT_GT(large.macs(), ref::kFastThresholdMacs);
  for (const ConvProblem& p : {small, large}) {
    const auto t = random_tensors(p, 3);
    const auto fast = ref::conv_fast(p, t.inputs()), naive = ref::conv_naive(p, t.inputs()), any = ref::conv(p, t.inputs());
    EXPECT_EQ(any.value, p.macs() < ref::kFastThresholdMacs ? naive.value : fast.value);
  }
}

// Each malformed call throws InputError whose message names the bad quantity.
TEST(ReferenceConvBadInput, ThrowsInputErrorNamingTheQuantity) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nhwc n2 c4 k6 in5x5 f3x3 g2 bias");
  const auto t = random_tensors(p, 1);
  HostTensor x_wrong(TensorDesc::packed(DType::fp32, {2, 5, 5, 5}, true));
  HostTensor w_short = t.w;
  w_short.data.resize(w_short.data.size() - 1);
  TensorDesc out_wrong = p.y_desc();
  out_wrong.dims[1] = 7;
  TensorDesc out_overlap = p.y_desc();
  out_overlap.strides[1] = 0;
  ConvProblem bad = p;
  bad.c = 5;  // not divisible by g2
  ConvProblem bwd_data = p;
  bwd_data.dir = ConvDir::bwd_data;
  bwd_data.bias = false;
  struct Case {
    const char* what;
    ConvProblem p;
    ref::ConvInputs in;
    const TensorDesc* out;
  };
  const Case cases[] = {
      {"input tensor x has dims", p, {&x_wrong, &t.w, nullptr, &t.bias}, nullptr},
      {"input tensor w is missing", p, {&t.x, nullptr, nullptr, &t.bias}, nullptr},
      {"input tensor bias is missing", p, {&t.x, &t.w, nullptr, nullptr}, nullptr},
      {"input tensor w holds", p, {&t.x, &w_short, nullptr, &t.bias}, nullptr},
      {"input tensor y (dy) is missing", bwd_data, {&t.x, &t.w, nullptr, nullptr}, nullptr},
      {"output desc (y) has dims", p, t.inputs(), &out_wrong},
      {"output desc (y)", p, t.inputs(), &out_overlap},
      {"not divisible by groups", bad, t.inputs(), nullptr},
  };
  for (const Case& c : cases) {
    for (int impl = 0; impl < 2; ++impl) {
      try {
        if (impl == 0)
          ref::conv_naive(c.p, c.in, true, c.out);
        else
          ref::conv_fast(c.p, c.in, true, c.out, 2);
        ADD_FAILURE() << "no InputError for: " << c.what;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
      }
    }
  }
}
