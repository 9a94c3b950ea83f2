// Device tests of conv.igemm.wgmma (skip without an sm_90 GPU), graded so a failure isolates itself:
//   WgmmaProbe.*      one warpgroup, one stage: unswizzled K-major, 128B K-major, B MN-major, both
//                     MN-major, each against A*B^T on the host, with a diagnosis of the wrong cells
//   IgemmGemm.*       the pipelined kernels as plain GEMMs (1x1 convolutions) of several sizes and
//                     every tile, stage count, split and both variants (all threads produce, or
//                     a warp-specialised producer), against a reference GEMM on the GPU
//   IgemmConv.*       every direction on small problems (strides, padding, dilation, sub-pixel
//                     classes, bias) against the CPU reference, exactly, plus a determinism check
//   IgemmTf32.*       math=tf32 (fp32, k32 configs): fwd and bwd-data (.flip) exactly on integer
//                     data, and through the runner's conv check on bounded data (the TF32 bound)
//   IgemmSweep.*      (only with HIPRIM_IGEMM_SWEEP=1) times configs on the ResNet-50 layers at N=32
//                     by CUDA-graph replay over rotating inputs (test_igemm_sm90_sweep.cpp)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/conv/registry.hpp"
#include "gpu/gemm/sm90/wgmma_probe.hpp"
#include "gpu/runtime/device.hpp"
#include "reference/conv.hpp"
#include "reference/error_model.hpp"
#include "tests/gpu/conv_exact_cases.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "verify/runner.hpp"

namespace hiprim::gpu {
namespace {

using gputest::GuardedBuffer;

#define SKIP_WITHOUT_SM90()                                                        \
  do {                                                                             \
    if (const std::string why = igemm_sm90_unavailable(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

std::uint16_t bits_of(DType t, float v) { return t == DType::bf16 ? float_to_bf16_bits(v) : float_to_fp16_bits(v); }

// "" when got == want (64 x n, row-major); else the first wrong cell and which rows/cols are wrong.
std::string diagnose(const std::vector<float>& got, const std::vector<float>& want, int rows, int cols) {
  std::vector<int> bad_rows(rows, 0), bad_cols(cols, 0);
  long long bad = 0;
  std::ostringstream first;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (!(got[r * cols + c] == want[r * cols + c])) {
        if (bad++ == 0) first << "first wrong (" << r << "," << c << ") = " << got[r * cols + c] << " want " << want[r * cols + c];
        ++bad_rows[r], ++bad_cols[c];
      }
  if (bad == 0) return "";
  std::ostringstream o;
  o << bad << " of " << rows * cols << " wrong; " << first.str() << "; wrong rows:";
  for (int r = 0; r < rows; ++r) if (bad_rows[r]) o << ' ' << r;
  o << "; wrong cols:";
  for (int c = 0; c < cols; ++c) if (bad_cols[c]) o << ' ' << c;
  // A permutation (every value present, misplaced) points at a layout/fragment map, not the math.
  std::vector<float> a = got, b = want;
  std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
  o << (a == b ? "; values are a permutation of the expected ones (layout or fragment map)" : "; values differ");
  return o.str();
}

class WgmmaProbe : public ::testing::TestWithParam<std::tuple<sm90::WgmmaProbeKind, DType>> {};

TEST_P(WgmmaProbe, MatchesHostProduct) {
  SKIP_WITHOUT_SM90();
  const auto [kind, dt] = GetParam();
  const int K = sm90::probe_k(kind), N = sm90::probe_n(kind);
  std::mt19937 rng(7);
  std::vector<float> a(64 * K), b(static_cast<std::size_t>(N) * K);
  for (float& v : a) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  for (float& v : b) v = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  std::vector<std::uint16_t> ab(a.size()), bb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ab[i] = bits_of(dt, a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bb[i] = bits_of(dt, b[i]);
  std::vector<float> want(static_cast<std::size_t>(64) * N, 0.0f);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) want[m * N + n] += a[m * K + k] * b[n * K + k];
  const std::vector<float> got = sm90::wgmma_probe(kind, dt, ab, bb);
  EXPECT_EQ(diagnose(got, want, 64, N), "") << sm90::probe_kind_name(kind) << " " << dtype_name(dt);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WgmmaProbe,
                         ::testing::Combine(::testing::Values(sm90::WgmmaProbeKind::interleave_k16,
                                                              sm90::WgmmaProbeKind::kmajor_b128,
                                                              sm90::WgmmaProbeKind::kmajor_a_mn_b,
                                                              sm90::WgmmaProbeKind::mnmajor_b128,
                                                              sm90::WgmmaProbeKind::mn_b_n128),
                                            ::testing::Values(DType::bf16, DType::fp16)),
                         [](const auto& info) {
                           return std::string(sm90::probe_kind_name(std::get<0>(info.param))) + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

// Device tensors of a problem filled with integers in [-2, 2] (exact tier), in guarded buffers
// (tests/gpu/guarded_device.hpp), the output poisoned.
struct DeviceCase {
  ConvProblem p;
  gputest::ConvCase host;
  std::vector<unsigned char> x_bytes, w_bytes, y_bytes, bias_bytes;  // what the inputs must still hold
  GuardedBuffer x, w, y, bias, ws;
  explicit DeviceCase(const ConvProblem& prob, std::uint32_t seed, std::size_t ws_bytes)
      : p(prob), host(gputest::make_case(prob, seed)), x_bytes(host.x.to_bytes()), w_bytes(host.w.to_bytes()),
        y_bytes(host.y.to_bytes()), bias_bytes(host.bias.to_bytes()), x(make(x_bytes, "x", ConvDir::bwd_data)),
        w(make(w_bytes, "w", ConvDir::bwd_weights)), y(make(y_bytes, "y", ConvDir::fwd)),
        bias(gputest::guarded_input(bias_bytes, "bias")), ws(Backend::device, std::max<std::size_t>(ws_bytes, 16), "workspace") {}
  ConvTensors tensors() {
    return ConvTensors{x.data(), w.data(), y.data(), p.bias ? bias.data() : nullptr, ws.data(), ws.payload(), nullptr, {}};
  }
  GuardedBuffer& out() { return p.dir == ConvDir::fwd ? y : p.dir == ConvDir::bwd_data ? x : w; }
  // The output's bytes after a run; *problem: "" or what is wrong with a guard or an input.
  std::vector<unsigned char> read_output(std::string* problem) {
    const std::pair<GuardedBuffer*, const std::vector<unsigned char>*> bufs[] = {
        {&x, &x_bytes}, {&w, &w_bytes}, {&y, &y_bytes}, {&bias, &bias_bytes}};
    problem->clear();
    for (auto [b, bytes] : bufs)
      if (b != &out() && problem->empty()) *problem = gputest::input_error(*b, *bytes);
    if (problem->empty()) *problem = gputest::guard_error(ws);
    gputest::Readback r = gputest::read_back(out());
    if (problem->empty()) *problem = r.guard_error;
    return std::move(r.payload);
  }
  // The output as floats (storage order).
  std::vector<float> output_values(const std::vector<unsigned char>& bytes) const {
    HostTensor t(p.dir == ConvDir::fwd ? host.y.desc : p.dir == ConvDir::bwd_data ? host.x.desc : host.w.desc);
    t.from_bytes(bytes.data());
    return t.data;
  }

 private:
  // The output of p's direction (poisoned) or an input holding `bytes`.
  GuardedBuffer make(const std::vector<unsigned char>& bytes, const char* what, ConvDir out_of) const {
    return p.dir == out_of ? gputest::guarded_output(bytes.size(), p.dtype, what) : gputest::guarded_input(bytes, what);
  }
};

std::string check_conv(const ConvProblem& p, const std::string& config, std::uint32_t seed) {
  DeviceCase dc(p, seed, igemm_sm90_workspace_bytes(p, config));
  const std::vector<float> want = gputest::expected_output(p, dc.host);
  igemm_sm90_run(p, dc.tensors(), config);
  synchronize("igemm test");
  std::string problem;
  const std::vector<unsigned char> b1 = dc.read_output(&problem);
  const std::vector<float> got = dc.output_values(b1);
  long long bad = 0;
  std::string first;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]) && bad++ == 0)
      first = "storage element " + std::to_string(i) + " = " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
  if (bad) return std::to_string(bad) + " of " + std::to_string(got.size()) + " wrong, first " + first;
  if (!problem.empty()) return problem;
  // Determinism: a second run on the same inputs, the output poisoned again, is bitwise identical.
  dc.out().poison(p.dtype);
  igemm_sm90_run(p, dc.tensors(), config);
  synchronize("igemm test (second run)");
  const std::vector<unsigned char> b2 = dc.read_output(&problem);
  if (!problem.empty()) return "second run: " + problem;
  return b1 == b2 ? "" : "a second run is not bitwise identical";
}

// The pipelined kernels as plain GEMMs: fwd of a 1x1 conv is C[M][N] = x[M][C] * w[N][C]^T,
// bwd-data of it is dx[M][C] = dy[M][K] * w[K][C] (B MN-major), bwd-weights dw[K][C] = dy^T x (both
// MN-major); compared with reference_gemm_device on the same device buffers.
void check_gemm(ConvDir dir, DType dt, int M, int N, int K, const std::string& config) {
  ConvProblem p;
  p.dir = dir, p.dtype = dt, p.channels_last = true, p.n = 1;
  // fwd: M pixels, C = K (reduction), k = N. bwd-data: M pixels, C = N, k = K. bwd-weights: k = M, C = N, pixels = K.
  const int pixels = dir == ConvDir::bwd_weights ? K : M;
  p.c = dir == ConvDir::fwd ? K : N;
  p.k = dir == ConvDir::fwd ? N : dir == ConvDir::bwd_data ? K : M;
  p.in = {pixels, 1}, p.filter = {1, 1}, p.pad = {0, 0}, p.stride = {1, 1}, p.dilation = {1, 1}, p.out_pad = {0, 0};
  ASSERT_TRUE(p.valid()) << to_string(p);
  DeviceCase dc(p, 11, igemm_sm90_workspace_bytes(p, config));
  DeviceBuffer ref(static_cast<std::size_t>(M) * N * sizeof(float), "reference C");
  const long long C = p.c, Kc = p.k;
  switch (dir) {
    case ConvDir::fwd:  // A = x [M][C], B = w [N][C]
      sm90::reference_gemm_device(dt, M, N, K, dc.x.data(), C, 1, dc.w.data(), C, 1, static_cast<float*>(ref.data()));
      break;
    case ConvDir::bwd_data:  // A = dy [M][K], B[n=c][k] = w[k][c]
      sm90::reference_gemm_device(dt, M, N, K, dc.y.data(), Kc, 1, dc.w.data(), 1, C, static_cast<float*>(ref.data()));
      break;
    case ConvDir::bwd_weights:  // A[m=k][pix] = dy[pix][k], B[n=c][pix] = x[pix][c]
      sm90::reference_gemm_device(dt, M, N, K, dc.y.data(), 1, Kc, dc.x.data(), 1, C, static_cast<float*>(ref.data()));
      break;
  }
  std::vector<float> want(static_cast<std::size_t>(M) * N);
  ref.download(want.data(), want.size() * sizeof(float));
  for (float& v : want) v = round_to(dt, v);
  igemm_sm90_run(p, dc.tensors(), config);
  synchronize("igemm gemm test");
  std::string problem;
  const std::vector<float> got = dc.output_values(dc.read_output(&problem));
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(diagnose(got, want, M, N), "") << config << " " << to_string(p);
  EXPECT_EQ(problem, "") << config << " " << to_string(p);
}

TEST(IgemmGemm, EveryTileStagesAndSplitAgainstGpuReference) {
  SKIP_WITHOUT_SM90();
  // Small and medium sizes: every tile x stages {3, 4} x split {1, 3} x both variants; the large one:
  // every tile at 4 stages, split {1, 2}, both variants.
  const int sizes[][3] = {{128, 128, 64}, {64, 64, 64}, {200, 72, 136}, {1000, 264, 520}, {2048, 512, 1024}};
  for (ConvDir dir : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
    for (auto [M, N, K] : sizes) {
      const bool large = static_cast<long long>(M) * N * K > 100000000LL;
      for (int variant = 0; variant < 3; ++variant)  // all threads; warp-specialised; + TMA for fwd's weights
        for (const sm90::IgemmTile& t : sm90::kTiles)
          for (int stages : large ? std::vector<int>{4} : std::vector<int>{3, 4})
            for (int split : large ? std::vector<int>{1, 2} : std::vector<int>{1, 3}) {
              const bool ws = variant >= 1, tma = variant == 2;
              if (ws && t.bm > 128) continue;                // no warp-specialised 256-row tile
              if (tma && dir == ConvDir::bwd_data) continue;  // bwd-data takes TMA through .flip
              if (split > (K + 63) / 64) continue;           // more splits than k-blocks is not a listed config
              const bool se = split == 1 && (t.bn + stages + variant) % 2 == 0;  // the staged epilogue on half
              check_gemm(dir, DType::bf16, M, N, K, to_string(sm90::IgemmConfig{t.bm, t.bn, stages, split, ws, tma, se}));
              if (HasFailure()) return;  // the first failure is the diagnosis; the rest repeat it
            }
    }
  check_gemm(ConvDir::fwd, DType::fp16, 1000, 264, 520, "m128n128k64.s4.splitk1");
  check_gemm(ConvDir::bwd_weights, DType::fp16, 256, 1000, 2000, "m128n256k64.s4.splitk4");
  check_gemm(ConvDir::bwd_data, DType::fp16, 1000, 264, 520, "m128n128k64.s4.splitk1.ws");
  check_gemm(ConvDir::fwd, DType::fp16, 1000, 264, 520, "m128n256k64.s3.splitk2.ws.tma");
  check_gemm(ConvDir::bwd_weights, DType::fp16, 256, 1000, 2000, "m128n256k64.s4.splitk4.ws.tma");
  check_gemm(ConvDir::bwd_weights, DType::bf16, 72, 200, 136, "m128n128k64.s3.splitk2.ws.tma");  // M, N tails
  for (const char* cfg : {"m128n128k64.s4.splitk1.se", "m256n128k64.s3.splitk1.se", "m128n256k64.s4.splitk1.ws.se",
                          "m64n64k64.s3.splitk1.ws.tma.se"})
    check_gemm(ConvDir::fwd, DType::bf16, 1000, 264, 520, cfg);
  // bwd-data as the fwd GEMM of dy with the flipped (here: transposed) filter, both operands by TMA.
  for (const char* cfg : {"m128n128k64.s4.splitk1.flip", "m128n128k64.s4.splitk1.ws.tma.flip", "m64n128k64.s4.splitk3.ws.tma.flip",
                          "m128n256k64.s3.splitk1.ws.tma.se.flip"})
    check_gemm(ConvDir::bwd_data, DType::bf16, 1000, 264, 520, cfg);
  check_gemm(ConvDir::bwd_data, DType::fp16, 2048, 512, 1024, "m128n128k64.s4.splitk1.ws.tma.flip");
  // bwd-data without the copy: dy [M][K] and w [K][C] (MN-major) straight by TMA, tails in M, N and K.
  for (const char* cfg : {"m128n128k64.s4.splitk1.ws.tma", "m64n128k64.s4.splitk1.ws.tma.se", "m128n256k64.s4.splitk2.ws.tma",
                          "m64n64k64.s6.splitk1.ws.tma"})
    check_gemm(ConvDir::bwd_data, DType::bf16, 1000, 264, 520, cfg);
}

const char* const kConvShapes[] = {
    "n2 c8 k16 in7x6 f3x3 pad1x1 str1x1",
    "n2 c16 k24 in9x12 f3x5 pad1x0 str1x1 dil1x2",  // bwd-data .flip with pad' = 1 x 8
    "n2 c16 k8 in9x9 f3x2 pad1x0 str2x3 dil2x1",
    "n2 c24 k8 in5x5 f1x1 pad0x0 str2x2",
    "n1 c64 k64 in8x8 f3x3 pad1x1 str2x2",
    "n2 c8 k8 in11x10 f3x3 pad2x1 str3x2 dil2x3",
    "n1 c8 k16 in9x9 f2x3 pad0x2 str4x2 dil2x2",
    "n3 c72 k40 in13x11 f3x3 pad1x1 str1x1",
    "n2 c136 k264 in6x6 f1x1",
    "n1 c8 k8 in1x1 f1x1",
    "n2 c32 k32 in15x15 f5x5 pad2x2 str1x1",
    "n2 c3 k16 in12x11 f7x7 pad3x3 str2x2",  // the stem's shape: C padded to 8 in the workspace
    "n1 c12 k8 in7x7 f3x3 pad1x1 str1x1",
    // C % 64 == 0: fwd's .ws.tma reads x by TMA in im2col mode (image wrap, M tails, unequal axes)
    "n3 c64 k40 in13x11 f3x3 pad1x1 str1x1",
    "n2 c128 k64 in9x7 f3x3 pad2x1 str2x1 dil2x1",
    "n2 c64 k64 in10x9 f3x3 pad1x1 str1x1",  // .flip's fwd problem (C' = K = 64) takes it too
    "n2 c64 k32 in9x9 f1x1 pad0x0 str2x2",
    "n2 c192 k24 in5x6 f2x3 pad1x2 str3x1 dil2x3",
};

TEST(IgemmConv, EveryDirectionAgainstTheCpuReference) {
  SKIP_WITHOUT_SM90();
  std::uint32_t seed = 1;
  for (const char* shape : kConvShapes)
    for (const char* dir : {"fwd", "bwd-data", "bwd-weights"})
      for (const char* dt : {"bf16", "fp16"})
        for (bool bias : {false, true}) {
          if (bias && std::string(dir) != "fwd") continue;
          const ConvProblem p =
              parse_conv_problem(std::string("conv ") + dir + " " + dt + " nhwc " + shape + (bias ? " bias" : ""));
          const std::vector<std::string> configs = igemm_sm90_configs(p);
          ASSERT_FALSE(configs.empty()) << to_string(p);
          const std::string def = igemm_sm90_default_config(p);
          EXPECT_EQ(check_conv(p, def, ++seed), "") << def << " " << to_string(p);
          for (const char* other : {"m64n64k64.s3.splitk1", "m256n128k64.s4.splitk1", "m128n256k64.s3.splitk2",
                                    "m128n128k64.s4.splitk1.ws", "m64n128k64.s3.splitk2.ws",
                                    "m128n64k64.s4.splitk1.ws.tma", "m64n64k64.s5.splitk2.ws.tma",
                                    "m128n128k64.s3.splitk1.se", "m64n128k64.s4.splitk1.ws.se",
                                    "m128n128k64.s4.splitk1.ws.tma.se", "m128n128k64.s4.splitk1.flip",
                                    "m64n64k64.s4.splitk2.ws.tma.flip", "m128n128k64.s3.splitk1.ws.tma.se.flip",
                                    "m128n64k64.s4.splitk1.col2im", "m128n128k64.s4.splitk1.ws.tma.col2im",
                                    "m128n256k64.s3.splitk1.ws.col2im", "m64n128k64.s4.splitk1.im2col",
                                    "m128n128k64.s3.splitk2.ws.im2col", "m64n64k64.s4.splitk3.im2col",
                                    "m128n256k64.s3.splitk1.ws.tma.se.p", "m64n64k64.s4.splitk1.ws.tma.se.p"})
            if (std::find(configs.begin(), configs.end(), other) != configs.end()) {
              EXPECT_EQ(check_conv(p, other, ++seed), "") << other << " " << to_string(p);
            }
        }
}

// .p with its grid capped (HIPRIM_IGEMM_PERSIST_CTAS) to 1, 3 and 7 CTAs, so each walks many tiles
// (the ring's phases across tiles, the staging reused, M and N tails), fwd (x by TMA, by im2col-mode
// TMA and by the cp.async gather) and stride-1 1x1 bwd-data.
TEST(IgemmConv, PersistentGridWalksSeveralTilesPerCta) {
  SKIP_WITHOUT_SM90();
  std::uint32_t seed = 700;
  for (const char* cap : {"1", "3", "7"}) {
    setenv("HIPRIM_IGEMM_PERSIST_CTAS", cap, 1);
    for (const char* text : {"conv fwd bf16 nhwc n2 c64 k200 in13x11 f1x1", "conv fwd fp16 nhwc n3 c64 k40 in13x11 f3x3 pad1x1",
                             "conv fwd bf16 nhwc n2 c24 k72 in9x9 f3x3 pad1x1 bias", "conv bwd-data bf16 nhwc n2 c200 k64 in13x11 f1x1",
                             "conv bwd-data fp16 nhwc n2 c136 k264 in6x6 f1x1"}) {
      const ConvProblem p = parse_conv_problem(text);
      const std::vector<std::string> configs = igemm_sm90_configs(p);
      int ran = 0;
      for (const char* cfg : {"m128n256k64.s3.splitk1.ws.tma.se.p", "m128n128k64.s4.splitk1.ws.tma.se.p",
                              "m64n128k64.s4.splitk1.ws.tma.se.p", "m64n64k64.s3.splitk1.ws.tma.se.p"})
        if (std::find(configs.begin(), configs.end(), cfg) != configs.end()) {
          ++ran;
          EXPECT_EQ(check_conv(p, cfg, ++seed), "") << cfg << " " << to_string(p) << " with " << cap << " CTAs";
        }
      EXPECT_EQ(ran, 4) << text;
    }
  }
  unsetenv("HIPRIM_IGEMM_PERSIST_CTAS");
}

// A few runs of every variant and direction, small enough for compute-sanitizer (device_wgmma.sh).
TEST(IgemmConv, SanitizerSubset) {
  SKIP_WITHOUT_SM90();
  std::uint32_t seed = 900;
  setenv("HIPRIM_IGEMM_PERSIST_CTAS", "2", 1);  // .p: several tiles per CTA
  for (const char* dir : {"fwd", "bwd-data", "bwd-weights"})
    for (const char* shape : {"n2 c16 k24 in7x6 f3x3 pad1x1 str2x2", "n1 c3 k8 in9x9 f7x7 pad3x3 str2x2", "n2 c64 k8 in5x5 f1x1",
                              "n2 c64 k64 in7x6 f3x3 pad1x1 str2x1"}) {
      const ConvProblem p = parse_conv_problem(std::string("conv ") + dir + " bf16 nhwc " + shape);
      const std::vector<std::string> configs = igemm_sm90_configs(p);
      for (const char* cfg : {"m64n64k64.s3.splitk1", "m128n128k64.s4.splitk2", "m64n128k64.s3.splitk1.ws",
                              "m128n64k64.s4.splitk1.ws.tma", "m128n128k64.s3.splitk1.se", "m64n64k64.s3.splitk1.flip",
                              "m128n64k64.s4.splitk1.ws.tma.flip", "m128n64k64.s4.splitk1.ws.tma.col2im",
                              "m64n64k64.s3.splitk1.col2im", "m64n128k64.s4.splitk2.im2col",
                              "m64n64k64.s4.splitk1.ws.tma.se.p"})
        if (std::find(configs.begin(), configs.end(), cfg) != configs.end()) {
          EXPECT_EQ(check_conv(p, cfg, ++seed), "") << cfg << " " << to_string(p);
        }
    }
  unsetenv("HIPRIM_IGEMM_PERSIST_CTAS");
}

// math=tf32 (fp32 data, wgmma m64nNk8.tf32, k-blocks of 32 fp32): fwd, and bwd-data through .flip
// (stride 1 and the strided sub-filters), every k32 tile and variant and a split, two ways:
//   exact tier: integers in [-2, 2] are TF32 values, so the output must equal the reference bit for
//     bit (each element in its place: the geometry of the 32-fp32 k-block, the TMA boxes of 32);
//   the runner's conv check (verify::run_case, bounded fill: real-valued inputs that TF32 truncates),
//     judged by the solver's declared input_unit = kUnitTf32Truncated on the math=tf32 problem.
const char* const kTf32Problems[] = {
    "conv fwd fp32 nhwc n2 c64 k72 in9x9 f3x3 pad1x1 math=tf32",          // x by im2col TMA (C % 64 == 0)
    "conv fwd fp32 nhwc n2 c24 k40 in7x6 f3x3 pad1x1 str2x2 bias math=tf32",  // x gathered, K tail of 32
    "conv fwd fp32 nhwc n2 c128 k64 in7x7 f1x1 math=tf32",                // x dense (1x1 TMA)
    "conv fwd fp32 nhwc n1 c16 k136 in5x11 f2x3 pad1x2 dil2x1 math=tf32",
    "conv bwd-data fp32 nhwc n2 c32 k48 in9x9 f3x3 pad1x1 math=tf32",      // .flip (w' by transpose32)
    "conv bwd-data fp32 nhwc n2 c24 k40 in9x8 f3x3 pad1x1 str2x2 math=tf32",  // strided .flip (sub-filters)
};
const char* const kTf32Configs[] = {"m128n128k32.s4.splitk1", "m128n256k32.s3.splitk1.ws", "m64n128k32.s4.splitk2",
                                    "m64n64k32.s5.splitk1.ws.tma", "m128n128k32.s3.splitk3.ws.tma",
                                    "m64n128k32.s4.splitk1.flip", "m128n256k32.s4.splitk1.ws.tma.flip",
                                    "m64n64k32.s3.splitk2.ws.flip", "m128n128k32.s5.splitk1.ws.tma.flip"};

TEST(IgemmTf32, ExactDataEqualsTheReferenceForEveryListedConfig) {
  SKIP_WITHOUT_SM90();
  std::uint32_t seed = 1100;
  for (const char* text : kTf32Problems) {
    const ConvProblem p = parse_conv_problem(text);
    const std::vector<std::string> configs = igemm_sm90_configs(p);
    ASSERT_FALSE(configs.empty()) << text;
    const std::string def = igemm_sm90_default_config(p);
    EXPECT_NE(def.find("k32."), std::string::npos) << def;
    EXPECT_EQ(check_conv(p, def, ++seed), "") << def << " " << text;
    int ran = 0;
    for (const char* cfg : kTf32Configs)
      if (std::find(configs.begin(), configs.end(), cfg) != configs.end()) {
        ++ran;
        EXPECT_EQ(check_conv(p, cfg, ++seed), "") << cfg << " " << text;
      }
    EXPECT_GE(ran, 3) << text;
  }
}

TEST(IgemmTf32, TheRunnersCheckPassesBoundedDataByTheTf32Bound) {
  SKIP_WITHOUT_SM90();
  const ConvSolverList& all = gpu_conv_solvers();
  ASSERT_FALSE(all.empty());
  const ConvSolver& s = *all.front();  // conv.igemm.wgmma
  ASSERT_EQ(s.name(), kIgemmWgmmaName);
  std::uint64_t seed = 40;
  for (const char* text : kTf32Problems) {
    const ConvProblem p = parse_conv_problem(text);
    EXPECT_EQ(s.error_model(p).input_unit, ref::kUnitTf32Truncated) << text;
    for (const std::string& cfg : {std::string(), std::string(p.dir == ConvDir::fwd ? "m64n128k32.s4.splitk2" : "m128n128k32.s4.splitk1.ws.tma.flip")}) {
      verify::RunOptions o;
      o.seed = ++seed;
      o.fill = verify::FillTier::bounded;
      o.config = cfg;
      const verify::PreparedCase c(p, o);
      const verify::CaseRecord r = verify::run_case(c, s, o);
      EXPECT_EQ(r.verdict.status, verify::Status::passed) << text << " [" << cfg << "]: " << r.verdict.reason;
      EXPECT_NE(r.tolerance.find("TF32"), std::string::npos) << r.tolerance;
    }
  }
  // Without the token the solver refuses fp32 (the FMA solvers take it), so no TF32 result is ever
  // judged by fp32's bound.
  const Applicability a = s.applicable(parse_conv_problem("conv fwd fp32 nhwc n2 c64 k72 in9x9 f3x3 pad1x1"));
  EXPECT_FALSE(a);
  EXPECT_NE(a.reason.find("math=tf32"), std::string::npos) << a.reason;
}

TEST(IgemmConv, SolverIsRegisteredFirstAndUsesTheEnvironmentConfig) {
  const ConvSolverList& all = gpu_conv_solvers();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front()->name(), kIgemmWgmmaName);
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n1 c8 k8 in5x5 f3x3 pad1x1");
  EXPECT_THROW(igemm_sm90_workspace_bytes(p, "m96n128k64.s3.splitk1"), InputError);
  EXPECT_THROW(igemm_sm90_workspace_bytes(p, "bogus"), InputError);
}

}  // namespace
}  // namespace hiprim::gpu
