// The plan of conv.<inner>.nchw (gpu/conv/nchw_via_nhwc.hpp), on the host: every tensor's NCHW and
// NHWC storage are one batched transpose apart by the plan's (d0, d1, s), the copies tile the
// workspace without overlap, and tensors whose two layouts are the same bytes stay in place.
#include <gtest/gtest.h>

#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/nchw_via_nhwc.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

namespace {

// The transpose the kernel does: dst[b][j][i] = src[b][i][j].
std::vector<int> transposed(const std::vector<int>& src, long long batch, long long rows, long long cols) {
  std::vector<int> dst(src.size());
  for (long long b = 0; b < batch; ++b)
    for (long long i = 0; i < rows; ++i)
      for (long long j = 0; j < cols; ++j) dst[(b * cols + j) * rows + i] = src[(b * rows + i) * cols + j];
  return dst;
}

// For each of x, w, y: an NCHW tensor whose element value is its logical index, laid out by its NCHW
// desc; the plan's transpose (or none, when not copied) must give the NHWC desc's storage.
void expect_plan_matches_layouts(const char* text) {
  const ConvProblem p = parse_conv_problem(text);
  const ConvProblem q = nhwc_twin(p);
  ASSERT_TRUE(q.channels_last);
  const NchwCopies cp = nchw_copies(p);
  const TensorDesc nchw[3] = {p.x_desc(), p.w_desc(), p.y_desc()}, nhwc[3] = {q.x_desc(), q.w_desc(), q.y_desc()};
  for (int t = 0; t < 3; ++t) {
    const TensorDesc &a = nchw[t], &b = nhwc[t];
    ASSERT_EQ(a.dims, b.dims);
    const long long n = a.elements();
    std::vector<int> src(n), want(n);
    Dims idx(a.dims.size(), 0);
    for (long long e = 0; e < n; ++e) {  // walk the logical indices in row-major order
      src[a.offset(idx)] = static_cast<int>(e);
      want[b.offset(idx)] = static_cast<int>(e);
      for (int d = static_cast<int>(idx.size()) - 1; d >= 0 && ++idx[d] == a.dims[d]; --d) idx[d] = 0;
    }
    const NchwCopy& c = cp.copy[t];
    EXPECT_EQ(c.d0 * c.d1 * c.s, n) << text << " tensor " << t;
    const std::vector<int> got = c.copied ? transposed(src, c.d0, c.d1, c.s) : src;
    EXPECT_EQ(got, want) << text << " tensor " << t << (c.copied ? " (copied)" : " (in place)");
    if (c.copied) {  // and back: the output's transpose is (d0, s, d1)
      EXPECT_EQ(transposed(want, c.d0, c.s, c.d1), src) << text << " tensor " << t;
    }
  }
}

}  // namespace

TEST(NchwViaNhwcPlan, TransposesTurnEveryTensorIntoItsChannelsLastStorage) {
  for (const char* s : {"conv fwd bf16 nchw n2 c3 k4 in5x6 f3x3 pad1x1", "conv bwd-data fp16 nchw n3 c16 k8 in7x7 f3x3 pad1x1 str2x2",
                        "conv bwd-weights bf16 nchw n2 c8 k16 in9x5 f1x1", "conv fwd bf16 nchw n1 c64 k32 in1x1 f1x1",
                        "conv fwd fp32 ncdhw n2 c3 k5 in3x4x5 f2x2x3", "conv bwd-data bf16 nchw n2 c8 k12 in6x6 f3x3 g4 trans"})
    expect_plan_matches_layouts(s);
}

TEST(NchwViaNhwcPlan, SameBytesStayInPlaceAndCopiesTileTheWorkspace) {
  const NchwCopies a = nchw_copies(parse_conv_problem("conv fwd bf16 nchw n2 c64 k32 in7x7 f1x1"));
  EXPECT_TRUE(a.copy[0].copied);
  EXPECT_FALSE(a.copy[1].copied);  // a 1x1 filter: KCRS == KRSC
  EXPECT_TRUE(a.copy[2].copied);
  EXPECT_EQ(a.elem_bytes, 2u);
  EXPECT_EQ(a.copy[0].offset, 0u);
  const std::size_t x_bytes = 2 * 64 * 49 * 2;  // 12544, 256-aligned: 12800
  EXPECT_EQ(a.copy[2].offset, (x_bytes + 255) / 256 * 256);
  EXPECT_EQ(a.inner_offset, a.copy[2].offset + (2 * 32 * 49 * 2 + 255) / 256 * 256);
  const NchwCopies b = nchw_copies(parse_conv_problem("conv fwd fp32 nchw n4 c1 k1 in1x1 f1x1"));
  for (const NchwCopy& c : b.copy) EXPECT_FALSE(c.copied);
  EXPECT_EQ(b.inner_offset, 0u);
  const NchwCopies c = nchw_copies(parse_conv_problem("conv fwd fp32 nchw n2 c1 k3 in4x4 f3x3 pad1x1"));
  EXPECT_FALSE(c.copy[0].copied);  // C = 1: [N][1][HW] is [N][HW][1]
  EXPECT_FALSE(c.copy[1].copied);
  EXPECT_TRUE(c.copy[2].copied);
  EXPECT_EQ(c.elem_bytes, 4u);
}

TEST(NchwViaNhwcPlan, RefusesChannelsLastWithTheReasonAndTakesEveryDtype) {
  const std::string nhwc = nchw_via_nhwc_refusal(parse_conv_problem("conv fwd bf16 nhwc n1 c8 k8 in4x4 f3x3"), "conv.igemm.wgmma");
  EXPECT_NE(nhwc.find("nhwc"), std::string::npos) << nhwc;
  EXPECT_NE(nhwc.find("conv.igemm.wgmma takes it directly"), std::string::npos) << nhwc;
  EXPECT_EQ(nchw_via_nhwc_refusal(parse_conv_problem("conv fwd bf16 nchw n1 c8 k8 in4x4 f3x3"), "x"), "");
  EXPECT_EQ(nchw_via_nhwc_refusal(parse_conv_problem("conv fwd fp16 nchw n1 c8 k8 in4x4 f3x3"), "x"), "");
  EXPECT_EQ(nchw_via_nhwc_refusal(parse_conv_problem("conv fwd fp32 nchw n1 c8 k8 in4x4 f3x3"), "x"), "");
}
