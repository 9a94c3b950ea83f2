// Host tests (no GPU, no nvcc) of conv.igemm.wgmma's index layer: the 128B-swizzled tile layouts
// against the PTX canonical layouts evaluated from the descriptors, descriptor bit packing, the
// accumulator fragment map, the producers' thread splits, the gathers against TensorDesc offsets,
// the bwd-data sub-pixel decomposition, and an end-to-end host emulation of every direction's GEMM
// through the plan's index functions against the CPU reference (exact, integer data); configs,
// split-K plans, the heuristic and the refusals.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "core/conv_problem.hpp"
#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "reference/conv.hpp"

namespace hiprim::gpu::sm90 {
namespace {

constexpr std::uint32_t kBase = 0x6000;  // a 1024-aligned tile start

TEST(WgmmaLayout, DescriptorBitPacking) {
  const std::uint64_t d = make_desc(0x12340, 8192, 1024, Swizzle::b128);
  EXPECT_EQ(d, 0x4000004002001234ull);
  const DescFields f = decode_desc(d);
  EXPECT_EQ(f.start, 0x12340u);
  EXPECT_EQ(f.lbo, 8192u);
  EXPECT_EQ(f.sbo, 1024u);
  EXPECT_EQ(f.base_offset, 0u);
  EXPECT_EQ(f.swizzle, Swizzle::b128);
  EXPECT_EQ(desc_kmajor(0x2000), make_desc(0x2000, 16, 1024, Swizzle::b128));
  EXPECT_EQ(decode_desc(desc_advance(desc_kmajor(0x2000), 96)).start, 0x2000u + 96);
  EXPECT_EQ(make_desc(0x100, 128, 256, Swizzle::none) >> 62, 0u);
  // The 14-bit start field holds addresses below 256 KiB (every stage start of the kernels).
  EXPECT_EQ(decode_desc(desc_kmajor(0x3FFF0)).start, 0x3FFF0u);
}

// For every instruction of a stage (k16 step j, warpgroup sub-tile w) and element, the address the
// tensor core reads (canonical layout + swizzle, from the descriptor) is where the producer wrote.
TEST(WgmmaLayout, KMajorTileMatchesCanonicalLayoutForEveryInstruction) {
  for (int rows : {64, 128, 256})
    for (int w = 0; w * 64 < rows; ++w)
      for (int j = 0; j < 4; ++j) {
        const std::uint64_t d = desc_advance(desc_kmajor(kBase + w * 64 * kRowBytes), j * kKStepBytesK);
        for (int mn = 0; mn < 64; ++mn)
          for (int k = 0; k < 16; ++k)
            ASSERT_EQ(wgmma_canonical_address(d, Major::k, mn, k), kBase + kmajor_offset(64 * w + mn, 16 * j + k))
                << "rows " << rows << " w " << w << " j " << j << " mn " << mn << " k " << k;
      }
  // B operand: one descriptor spans all N rows (N = 256 here).
  for (int j = 0; j < 4; ++j) {
    const std::uint64_t d = desc_advance(desc_kmajor(kBase), j * kKStepBytesK);
    for (int n = 0; n < 256; ++n)
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(wgmma_canonical_address(d, Major::k, n, k), kBase + kmajor_offset(n, 16 * j + k));
  }
}

TEST(WgmmaLayout, MnMajorTileMatchesCanonicalLayoutForEveryInstruction) {
  for (int j = 0; j < 4; ++j) {
    for (int w = 0; w < 4; ++w) {  // A: warpgroup w's 64 m = atom column w
      const std::uint64_t d = desc_advance(desc_mnmajor(kBase + w * kMnAtomColBytes), j * kKStepBytesMN);
      for (int mn = 0; mn < 64; ++mn)
        for (int k = 0; k < 16; ++k)
          ASSERT_EQ(wgmma_canonical_address(d, Major::mn, mn, k), kBase + mnmajor_offset(64 * w + mn, 16 * j + k));
    }
    const std::uint64_t d = desc_advance(desc_mnmajor(kBase), j * kKStepBytesMN);  // B: N = 256 over 4 atoms
    for (int n = 0; n < 256; ++n)
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(wgmma_canonical_address(d, Major::mn, n, k), kBase + mnmajor_offset(n, 16 * j + k));
  }
}

TEST(WgmmaLayout, InterleaveTileMatchesCanonicalLayout) {
  const std::uint64_t d = make_desc(kBase, kInterleaveLbo, kInterleaveSbo, Swizzle::none);
  for (int mn = 0; mn < 64; ++mn)
    for (int k = 0; k < 16; ++k) ASSERT_EQ(wgmma_canonical_address(d, Major::k, mn, k), kBase + interleave_offset(mn, k));
}

TEST(WgmmaLayout, TileOffsetsAreABijectionOntoTheTile) {
  for (int rows : {64, 128, 256}) {
    std::vector<int> km(rows * 64, 0), mnm(rows * 64, 0);
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < 64; ++k) {
        const std::uint32_t a = kmajor_offset(r, k), b = mnmajor_offset(r, k);
        ASSERT_EQ(a % 2, 0u);
        ASSERT_LT(a / 2, km.size());
        ASSERT_LT(b / 2, mnm.size());
        ++km[a / 2], ++mnm[b / 2];
      }
    for (std::size_t i = 0; i < km.size(); ++i) ASSERT_TRUE(km[i] == 1 && mnm[i] == 1) << "rows " << rows << " slot " << i;
  }
  // A 16-byte chunk (8 consecutive k, K-major; 8 consecutive mn, MN-major) stays contiguous.
  for (int r = 0; r < 128; ++r)
    for (int k0 = 0; k0 < 64; k0 += 8)
      for (int e = 0; e < 8; ++e) {
        ASSERT_EQ(kmajor_offset(r, k0 + e), kmajor_offset(r, k0) + 2 * e);
        ASSERT_EQ(mnmajor_offset((r / 8) * 8 + e, k0), mnmajor_offset((r / 8) * 8, k0) + 2 * e);
      }
}

TEST(WgmmaLayout, AccumulatorFragmentCoversTheTileOnce) {
  for (int n : {64, 128, 256}) {
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < n / 2; ++v) {
        const int r = acc_row(t, v), c = acc_col(t, v);
        ASSERT_TRUE(r >= 0 && r < 64 && c >= 0 && c < n);
        ASSERT_TRUE(seen.insert({r, c}).second) << "t " << t << " v " << v;
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(64 * n));
  }
  // Known points (PTX figure for D of m64nNk16: warp w owns rows 16w..16w+15; lane quad = row).
  EXPECT_EQ(acc_row(0, 0), 0);
  EXPECT_EQ(acc_col(0, 0), 0);
  EXPECT_EQ(acc_col(0, 1), 1);
  EXPECT_EQ(acc_col(1, 0), 2);
  EXPECT_EQ(acc_row(4, 0), 1);
  EXPECT_EQ(acc_row(0, 2), 8);
  EXPECT_EQ(acc_col(0, 4), 8);
  EXPECT_EQ(acc_row(32, 0), 16);
  EXPECT_EQ(acc_row(127, 3), 63);
  EXPECT_EQ(acc_col(127, 3), 7);
}

template <int ROWS, int THREADS>
void check_splits() {
  std::set<std::pair<int, int>> k, mn;
  for (int t = 0; t < THREADS; ++t) {
    for (int i = 0; i < KMajorSplit<ROWS, THREADS>::per; ++i)
      ASSERT_TRUE(k.insert({KMajorSplit<ROWS, THREADS>::row(t, i), KMajorSplit<ROWS, THREADS>::chunk(t)}).second);
    for (int i = 0; i < MnMajorSplit<ROWS, THREADS>::per; ++i)
      ASSERT_TRUE(mn.insert({MnMajorSplit<ROWS, THREADS>::krow(t, i), MnMajorSplit<ROWS, THREADS>::chunk(t)}).second);
  }
  EXPECT_EQ(k.size(), static_cast<std::size_t>(ROWS * 8));
  EXPECT_EQ(mn.size(), static_cast<std::size_t>(64 * ROWS / 8));
  for (auto [r, c] : k) ASSERT_TRUE(r < ROWS && c < 8);
  for (auto [r, c] : mn) ASSERT_TRUE(r < 64 && c < ROWS / 8);
}
TEST(WgmmaLayout, ProducerThreadSplitsCoverEveryChunkOnce) {
  check_splits<64, 128>(), check_splits<128, 128>(), check_splits<64, 256>(), check_splits<128, 256>();
  check_splits<256, 256>(), check_splits<128, 512>(), check_splits<64, 512>(), check_splits<256, 512>();
}

// ---- gathers and the host emulation of the GEMMs ----

HostTensor small_ints(const TensorDesc& d, unsigned seed) {
  HostTensor t(d);
  unsigned h = seed * 2654435761u + 12345u;
  for (auto& v : t.data) {
    h = h * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>((h >> 24) % 5) - 2);
  }
  return t;
}

// C of every class through the plan's index functions (A via act_offset / dense, B via weight /
// pixel / dense offsets), scattered through out_row_offset; cells never written stay NaN.
std::vector<double> emulate(const ConvProblem& p, const IgemmPlan& pl, const HostTensor& x, const HostTensor& w,
                            const HostTensor& y) {
  const IgemmParams& q = pl.params;
  const HostTensor& out_t = q.dir == IgemmDir::fwd ? y : q.dir == IgemmDir::bwd_data ? x : w;
  std::vector<double> out(out_t.data.size(), std::nan(""));
  for (int ci = 0; ci < q.classes; ++ci) {
    const IgemmClass& cl = q.cls[ci];
    for (int m = 0; m < cl.m; ++m) {
      const ActRow row = q.dir == IgemmDir::bwd_weights ? ActRow{} : act_row(cl.act, m, cl.m);
      for (int n = 0; n < q.n_cols; ++n) {
        double s = 0;
        for (int kk = 0; kk < cl.kred; ++kk) {
          double av = 0, bv = 0;
          if (q.dir == IgemmDir::bwd_weights) {
            av = y.data[static_cast<std::size_t>(kk) * q.a_ld + m];
            const long long o = pixel_offset(q.pix, filter_col(q.pix, n, q.n_cols), kk);
            bv = o < 0 ? 0 : x.data[o];
          } else {
            const HostTensor& src = q.dir == IgemmDir::fwd ? x : y;
            const long long o = act_offset(cl.act, row, tap_of(kk, cl.act.sc, cl.act.ns), true);
            av = o < 0 ? 0 : src.data[o];
            bv = q.dir == IgemmDir::fwd ? w.data[static_cast<std::size_t>(cl.b_row0 + n) * q.a_ld + kk]
                                        : w.data[weight_offset(cl.wt, kk, n)];
          }
          s += av * bv;
        }
        const long long off = out_row_offset(cl.out, m, q.n_cols) + n;
        EXPECT_TRUE(std::isnan(out[off])) << "output " << off << " written twice";
        out[off] = s;
      }
    }
  }
  if (p.bias && q.dir == IgemmDir::fwd) ADD_FAILURE() << "emulate() is called without bias";
  return out;
}

// The solver's channel padding, on the host: [rows][c] -> [rows][cp] with zeros, and the cut back.
HostTensor pad_channels(const HostTensor& t, const TensorDesc& padded, int c, int cp) {
  HostTensor o(padded);
  const std::size_t rows = t.data.size() / c;
  for (std::size_t r = 0; r < rows; ++r)
    for (int ch = 0; ch < c; ++ch) o.data[r * cp + ch] = t.data[r * c + ch];
  return o;
}

// The flipped, transposed filter of .flip on the host, written from its definition:
// w'[c][r][s][k] = w[k][R-1-r][S-1-s][c] (both NHWC-style: [K][R][S][C] -> [C][R][S][K]).
HostTensor flip_filter_host(const ConvProblem& p, const HostTensor& w, const TensorDesc& flipped) {
  HostTensor o(flipped);
  const long long K = p.k, C = p.c, R = p.filter[0], S = p.filter[1];
  for (long long k = 0; k < K; ++k)
    for (long long r = 0; r < R; ++r)
      for (long long s = 0; s < S; ++s)
        for (long long c = 0; c < C; ++c)
          o.data[((c * R + r) * S + s) * K + k] = w.data[((k * R + (R - 1 - r)) * S + (S - 1 - s)) * C + c];
  return o;
}

// The strided .flip's sub-filters on the host, from the definition: B'[z*C + c][kk] = w[k][r][s][c]
// with kk = (tr*ns + ts)*K + k and the class's taps r = r0 + tr*rstep, s = s0 + ts*sstep; 0 past kred.
// Stored as x of a 1-image fwd problem [1][classes*C][1][ld] (the shape only).
HostTensor subpixel_filters_host(const ConvProblem& p, const IgemmPlan& pl, const HostTensor& w) {
  const IgemmParams& q = pl.flip->params;  // the fwd plan's class order
  const int ld = pl.flip->params.a_ld;
  const long long K = p.k, C = p.c, R = p.filter[0], S = p.filter[1];
  ConvProblem shape = p;
  shape.dir = ConvDir::fwd, shape.n = 1, shape.c = ld, shape.in = {q.classes * C, 1}, shape.filter = {1, 1};
  shape.pad = {0, 0}, shape.stride = {1, 1}, shape.dilation = {1, 1};
  HostTensor o(shape.x_desc());
  for (int z = 0; z < q.classes; ++z) {
    const WeightTaps& t = q.cls[z].wt;
    for (long long c = 0; c < C; ++c)
      for (int kk = 0; kk < ld; ++kk) {
        float v = 0;
        if (kk < q.cls[z].kred) {
          const long long tap = kk / K, k = kk % K, r = t.r0 + tap / t.ns * t.rstep, s = t.s0 + tap % t.ns * t.sstep;
          v = w.data[((k * R + r) * S + s) * C + c];
        }
        o.data[(z * C + c) * ld + kk] = v;
      }
  }
  return o;
}

void expect_emulation_matches_reference(const ConvProblem& p) {
  const IgemmPlan pl = plan_igemm(p);
  ASSERT_EQ(pl.refusal, "") << to_string(p);
  const HostTensor x = small_ints(p.x_desc(), 1), w = small_ints(p.w_desc(), 2), y = small_ints(p.y_desc(), 3);
  const ref::ConvOutput r = ref::conv(p, ref::ConvInputs{&x, &w, &y, nullptr}, false);
  std::vector<double> got;
  if (pl.c_pad == 0) {
    got = emulate(p, pl, x, w, y);
  } else {  // the GEMM runs on padded copies; the padded output is cut back to c_real channels
    ASSERT_EQ(pl.c_real, p.c);
    ConvProblem q = p;
    q.c = pl.c_pad;
    EXPECT_EQ(pl.act_pad_bytes, static_cast<std::size_t>(q.x_desc().elements()) * 2);
    EXPECT_EQ(pl.w_pad_bytes, static_cast<std::size_t>(q.w_desc().elements()) * 2);
    const std::vector<double> padded =
        emulate(q, pl, pad_channels(x, q.x_desc(), pl.c_real, pl.c_pad), pad_channels(w, q.w_desc(), pl.c_real, pl.c_pad), y);
    if (p.dir == ConvDir::fwd) {
      got = padded;
    } else {
      got.resize(padded.size() / pl.c_pad * pl.c_real);
      for (std::size_t i = 0; i < got.size(); ++i) got[i] = padded[(i / pl.c_real) * pl.c_pad + i % pl.c_real];
    }
  }
  ASSERT_EQ(got.size(), r.value.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], r.value[i]) << to_string(p) << " element " << i;
  std::string why;
  const ConvProblem f = flip_problem(p, &why);
  const bool strided = p.dir == ConvDir::bwd_data && pl.params.classes > 1 && pl.kred_max > 0;
  EXPECT_EQ(pl.flip != nullptr, (why.empty() || strided) && p.c % 8 == 0) << to_string(p) << ": " << why;
  EXPECT_EQ(pl.flip_subpixel, pl.flip != nullptr && strided) << to_string(p);
  if (pl.flip && pl.flip_subpixel) {  // strided .flip: the classes' fwd GEMMs over the sub-filters B'
    const IgemmPlan& f = *pl.flip;
    ASSERT_EQ(f.params.dir, IgemmDir::fwd);
    ASSERT_EQ(f.params.classes, pl.params.classes);
    EXPECT_FALSE(f.params.a_im2col);
    const HostTensor bp = subpixel_filters_host(p, pl, w);
    EXPECT_EQ(pl.flip_w_bytes, bp.data.size() * 2);
    const std::vector<double> got_f = emulate(p, f, y, bp, HostTensor(p.x_desc()));
    ASSERT_EQ(got_f.size(), r.value.size());
    for (std::size_t i = 0; i < got_f.size(); ++i) ASSERT_EQ(got_f[i], r.value[i]) << "strided flip of " << to_string(p) << " element " << i;
    if (f.params.a_dense) {  // A by TMA as dy [N*P*Q][K]: the one class with taps reads row m at m*K
      const IgemmClass& cl = f.params.cls[0];
      for (int m = 0; m < cl.m; m += 7) {
        const ActRow row = act_row(cl.act, m, cl.m);
        ASSERT_EQ(act_offset(cl.act, row, tap_of(0, cl.act.sc, cl.act.ns), true), static_cast<long long>(m) * p.k) << to_string(p);
      }
    }
  } else if (pl.flip) {  // .flip: the fwd GEMM of dy with w' through the fwd plan's index functions
    ASSERT_EQ(pl.flip->refusal, "");
    EXPECT_EQ(pl.flip->params.dir, IgemmDir::fwd);
    EXPECT_EQ(pl.flip_w_bytes, static_cast<std::size_t>(p.w_desc().elements()) * 2);
    const std::vector<double> flipped = emulate(f, *pl.flip, y, flip_filter_host(p, w, f.w_desc()), HostTensor(f.y_desc()));
    ASSERT_EQ(flipped.size(), r.value.size());
    for (std::size_t i = 0; i < flipped.size(); ++i)
      ASSERT_EQ(flipped[i], r.value[i]) << "flip of " << to_string(p) << " element " << i;
  }
  const long long J = p.filter[0] * p.filter[1] * p.c;
  const long long pixels = p.n * p.out()[0] * p.out()[1];
  EXPECT_EQ(pl.col2im != nullptr, p.dir == ConvDir::bwd_data && J <= 256 && pixels % 8 == 0) << to_string(p);
  if (pl.col2im) {  // .col2im: dcol = dy x w^T through the dcol GEMM's plan, then the col2im gather
    const Col2im& g = pl.col2im_geom;
    ASSERT_EQ(g.jp, (J + 7) / 8 * 8);
    ConvProblem gp;  // the dcol GEMM as a fwd 1x1 problem (for the tensor shapes only)
    gp.dir = ConvDir::fwd, gp.dtype = p.dtype, gp.channels_last = true, gp.n = 1, gp.c = p.k, gp.k = g.pixels;
    gp.in = {g.jp, 1}, gp.filter = {1, 1}, gp.pad = {0, 0}, gp.stride = {1, 1}, gp.dilation = {1, 1}, gp.out_pad = {0, 0};
    HostTensor wt(gp.x_desc());  // w^T [Jp][K], zero rows past J
    for (long long j = 0; j < J; ++j)
      for (long long k = 0; k < p.k; ++k) wt.data[j * p.k + k] = w.data[k * J + j];
    const std::vector<double> dcol = emulate(gp, *pl.col2im, wt, y, HostTensor(gp.y_desc()));
    ASSERT_EQ(pl.dcol_bytes, dcol.size() * 4);
    const std::vector<float> dcol_f(dcol.begin(), dcol.end());
    // Every dx element exactly once through the gather's thread order, equal to the reference.
    std::vector<int> seen(r.value.size(), 0);
    for (long long t = 0; t < col2im_threads(g); ++t) {
      const Col2imElement el = col2im_element(g, t);
      if (!el.valid) continue;
      const std::size_t e = static_cast<std::size_t>(((static_cast<long long>(el.img) * g.h + el.y) * g.w + el.x) * g.c + el.ch);
      ASSERT_LT(e, r.value.size());
      ++seen[e];
      ASSERT_EQ(col2im_sum(g, dcol_f.data(), el.img, el.y, el.x, el.ch), r.value[e]) << "col2im of " << to_string(p) << " element " << e;
    }
    for (std::size_t e = 0; e < seen.size(); ++e) ASSERT_EQ(seen[e], 1) << "col2im of " << to_string(p) << " element " << e;
  }
  const bool plain = p.filter[0] == 1 && p.filter[1] == 1 && p.stride[0] == 1 && p.stride[1] == 1 && p.pad[0] == 0 &&
                     p.pad[1] == 0 && p.c % 8 == 0;
  EXPECT_EQ(pl.im2col != nullptr, p.dir == ConvDir::bwd_weights && J <= 256 && !plain) << to_string(p);
  if (pl.im2col) {  // .im2col: col from x through im2col_source, the 1x1 GEMM's plan, the cut to J columns
    const Im2col& g = pl.im2col_geom;
    ConvProblem gp = p;
    gp.c = g.jp, gp.in = p.out(), gp.filter = {1, 1}, gp.pad = {0, 0}, gp.stride = {1, 1}, gp.dilation = {1, 1};
    HostTensor col(gp.x_desc());
    const long long pixels = p.n * p.out()[0] * p.out()[1];
    ASSERT_EQ(pl.col_bytes, static_cast<std::size_t>(pixels * g.jp) * 2);
    for (long long px = 0; px < pixels; ++px)
      for (int j = 0; j < g.jp; ++j) {
        const long long src = im2col_source(g, px, j);
        col.data[px * g.jp + j] = src < 0 ? 0.0f : x.data[src];
      }
    const std::vector<double> dwp = emulate(gp, *pl.im2col, col, HostTensor(gp.w_desc()), y);
    ASSERT_EQ(dwp.size(), static_cast<std::size_t>(p.k * g.jp));
    for (long long k = 0; k < p.k; ++k)
      for (long long j = 0; j < J; ++j)
        ASSERT_EQ(dwp[k * g.jp + j], r.value[k * J + j]) << "im2col of " << to_string(p) << " element " << k * J + j;
  }
}

TEST(IgemmPlan, EmulatedGemmEqualsReferenceOnFixedProblems) {
  for (const char* s : {
           "conv fwd bf16 nhwc n2 c8 k16 in7x6 f3x3 pad1x1 str1x1",
           "conv fwd fp16 nhwc n1 c16 k8 in9x9 f3x2 pad1x0 str2x3 dil2x1",
           "conv fwd bf16 nhwc n2 c24 k8 in5x5 f1x1 pad0x0 str2x2",
           "conv bwd-data bf16 nhwc n2 c8 k16 in7x6 f3x3 pad1x1 str1x1",
           "conv bwd-data bf16 nhwc n1 c8 k8 in9x8 f3x3 pad1x1 str2x2",          // ResNet's strided 3x3
           "conv bwd-data fp16 nhwc n2 c16 k8 in8x8 f1x1 pad0x0 str2x2",         // classes without taps
           "conv bwd-data bf16 nhwc n1 c8 k8 in11x10 f3x3 pad2x1 str3x2 dil2x3", // gcd(dil, str) > 1 cases
           "conv bwd-data bf16 nhwc n1 c8 k8 in9x9 f2x3 pad0x2 str4x2 dil2x2",
           "conv bwd-weights bf16 nhwc n2 c8 k16 in7x6 f3x3 pad1x1 str1x1",
           "conv bwd-weights fp16 nhwc n2 c16 k8 in9x8 f3x2 pad1x0 str2x3 dil1x2",
           "conv fwd bf16 nhwc n2 c3 k8 in12x11 f7x7 pad3x3 str2x2",  // the stem: C padded to 8
           "conv bwd-data bf16 nhwc n2 c3 k8 in12x11 f7x7 pad3x3 str2x2",
           "conv bwd-weights bf16 nhwc n2 c3 k8 in12x11 f7x7 pad3x3 str2x2",
           "conv fwd fp16 nhwc n1 c12 k16 in6x6 f3x3 pad1x1",
           "conv bwd-data bf16 nhwc n2 c16 k8 in6x5 f1x1 pad0x0 str1x1",          // flip: a dense 1x1 GEMM
           "conv bwd-data bf16 nhwc n2 c16 k8 in7x6 f1x1 pad0x0 str2x2",          // strided flip: dense A, odd H
           "conv bwd-data fp16 nhwc n1 c8 k16 in9x8 f3x2 pad2x0 str1x1 dil2x3",   // flip: pad' = 2, 3
           "conv bwd-data bf16 nhwc n1 c8 k8 in7x7 f3x3 pad3x1 str1x1",           // pad > R-1: no flip
           "conv bwd-data fp16 nhwc n2 c8 k8 in8x9 f3x3 pad1x1 str2x3",           // col2im: 24 dy pixels
           "conv bwd-data bf16 nhwc n8 c8 k8 in11x10 f3x3 pad2x1 str3x2 dil2x3",  // col2im, gcd(dil, str) > 1
           "conv bwd-data bf16 nhwc n8 c5 k8 in9x7 f2x3 pad0x2 str4x2 dil2x2",
           "conv bwd-data fp16 nhwc n8 c3 k16 in13x12 f7x7 pad3x3 str2x2",         // the stem's shape
           "conv bwd-weights bf16 nhwc n2 c3 k16 in13x12 f7x7 pad3x3 str2x2",      // im2col: J = 147
           "conv bwd-weights fp16 nhwc n1 c5 k8 in9x8 f3x2 pad1x0 str2x3 dil1x2",
       })
    expect_emulation_matches_reference(parse_conv_problem(s));
}

RC_GTEST_PROP(IgemmPlan, EmulatedGemmEqualsReferenceOnRandomProblems, ()) {
  ConvProblem p;
  p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
  p.dtype = *rc::gen::element(DType::fp16, DType::bf16);
  p.channels_last = true;
  p.n = *rc::gen::inRange(1, 3);
  p.c = *rc::gen::element<std::int64_t>(3, 8, 12, 16);  // 3 and 12 run on channel-padded copies
  p.k = 8 * *rc::gen::inRange(1, 3);
  p.in = p.filter = p.pad = p.stride = p.dilation = p.out_pad = Dims(2);
  for (int i = 0; i < 2; ++i) {
    p.in[i] = *rc::gen::inRange(1, 10);
    p.filter[i] = *rc::gen::inRange(1, 4);
    p.pad[i] = *rc::gen::inRange(0, 3);
    p.stride[i] = *rc::gen::inRange(1, 5);
    p.dilation[i] = *rc::gen::inRange(1, 4);
  }
  RC_PRE(p.valid());
  expect_emulation_matches_reference(p);
}

// Every dx pixel is in exactly one class, and each class's taps are exactly the taps that reach it
// (gpu/conv/conv_index.hpp's out_pos is the independent statement of "tap r reaches h").
TEST(IgemmPlan, SubPixelClassesPartitionPixelsAndTaps) {
  for (const char* s : {"conv bwd-data bf16 nhwc n1 c8 k8 in13x11 f3x3 pad1x1 str2x2",
                        "conv bwd-data bf16 nhwc n1 c8 k8 in11x10 f3x3 pad2x1 str3x2 dil2x3",
                        "conv bwd-data bf16 nhwc n1 c8 k8 in12x12 f4x4 pad3x0 str4x4 dil2x1"}) {
    const ConvProblem p = parse_conv_problem(s);
    const IgemmPlan pl = plan_igemm(p);
    ASSERT_EQ(pl.refusal, "");
    const long long H = p.in[0], W = p.in[1], P = p.out()[0], Q = p.out()[1];
    std::map<long long, int> hits;
    for (int ci = 0; ci < pl.params.classes; ++ci) {
      const IgemmClass& cl = pl.params.cls[ci];
      for (int m = 0; m < cl.m; ++m) {
        const long long off = out_row_offset(cl.out, m, pl.params.n_cols) / p.c;  // pixel index
        ++hits[off];
        const int h = static_cast<int>((off / W) % H), x = static_cast<int>(off % W);
        std::set<std::pair<int, int>> want, got;
        for (int r = 0; r < p.filter[0]; ++r)
          for (int s2 = 0; s2 < p.filter[1]; ++s2)
            if (out_pos(h, r, p.stride[0], p.pad[0], p.dilation[0], P) >= 0 &&
                out_pos(x, s2, p.stride[1], p.pad[1], p.dilation[1], Q) >= 0)
              want.insert({r, s2});
        const ActRow row = act_row(cl.act, m, cl.m);
        for (int tr = 0; tr < cl.act.nr; ++tr)
          for (int ts = 0; ts < cl.act.ns; ++ts) {
            const int r = cl.wt.r0 + tr * cl.wt.rstep, s2 = cl.wt.s0 + ts * cl.wt.sstep;
            const int oy = row.yb + tr * cl.act.ty_step, ox = row.xb + ts * cl.act.tx_step;
            ASSERT_EQ(in_pos(oy, r, p.stride[0], p.pad[0], p.dilation[0]), h) << s;
            ASSERT_EQ(in_pos(ox, s2, p.stride[1], p.pad[1], p.dilation[1]), x) << s;
            if (oy >= 0 && oy < P && ox >= 0 && ox < Q) got.insert({r, s2});
          }
        ASSERT_EQ(got, want) << s << " pixel " << h << "," << x;
      }
    }
    ASSERT_EQ(hits.size(), static_cast<std::size_t>(p.n * H * W)) << s;
    for (auto [pix, n] : hits) ASSERT_EQ(n, 1) << s << " pixel " << pix;
  }
}

// ---- configs, split-K, heuristic, refusals ----

TEST(IgemmPlan, DenseActivationOperandOnlyForUnitStridedOneByOne) {
  for (const char* s : {"conv fwd bf16 nhwc n2 c64 k64 in7x7 f1x1", "conv fwd bf16 nhwc n2 c64 k64 in7x7 f1x1 dil2x2",
                        "conv bwd-data bf16 nhwc n2 c64 k64 in7x7 f1x1"})
    EXPECT_TRUE(plan_igemm(parse_conv_problem(s)).params.a_dense) << s;
  for (const char* s : {"conv fwd bf16 nhwc n2 c64 k64 in7x7 f1x1 str2x2", "conv fwd bf16 nhwc n2 c64 k64 in7x7 f1x1 pad1x1",
                        "conv fwd bf16 nhwc n2 c64 k64 in7x7 f3x3 pad1x1", "conv bwd-data bf16 nhwc n2 c64 k64 in7x7 f1x1 str2x2",
                        "conv bwd-data bf16 nhwc n2 c64 k64 in7x7 f3x3 pad1x1", "conv bwd-weights bf16 nhwc n2 c64 k64 in7x7 f1x1"})
    EXPECT_FALSE(plan_igemm(parse_conv_problem(s)).params.a_dense) << s;
  EXPECT_TRUE(plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n2 c64 k64 in7x7 f1x1")).params.b_dense);
  for (const char* s : {"conv bwd-weights bf16 nhwc n2 c64 k64 in7x7 f1x1 str2x2", "conv bwd-weights bf16 nhwc n2 c64 k64 in7x7 f3x3 pad1x1",
                        "conv fwd bf16 nhwc n2 c64 k64 in7x7 f1x1"})
    EXPECT_FALSE(plan_igemm(parse_conv_problem(s)).params.b_dense) << s;
  const IgemmPlan wg = plan_igemm(parse_conv_problem("conv bwd-weights bf16 nhwc n2 c64 k64 in7x7 f3x3 pad1x1"));
  EXPECT_EQ(igemm_config_refusal(wg, {128, 128, 4, 2, true, true}), "");  // dy by TMA, x gathered
  // Where it is set, the gather is the dense matrix: A[m][kk] at m*C + kk.
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n2 c16 k8 in5x3 f1x1");
  const IgemmPlan pl = plan_igemm(p);
  for (int m = 0; m < pl.params.cls[0].m; ++m)
    for (int kk = 0; kk < pl.params.cls[0].kred; ++kk)
      ASSERT_EQ(act_offset(pl.params.cls[0].act, act_row(pl.params.cls[0].act, m, pl.params.cls[0].m),
                           tap_of(kk, 16, 1), true),
                m * 16 + kk);
  // bwd-data 1x1 (TMA without .flip): A = dy [M][K] at m*K + kk, B = w [K][C] at kk*C + c (MN-major).
  const ConvProblem d = parse_conv_problem("conv bwd-data bf16 nhwc n2 c16 k24 in5x3 f1x1");
  const IgemmPlan pd = plan_igemm(d);
  const IgemmClass& cl = pd.params.cls[0];
  ASSERT_EQ(pd.params.classes, 1);
  for (int m = 0; m < cl.m; ++m)
    for (int kk = 0; kk < cl.kred; ++kk) {
      ASSERT_EQ(act_offset(cl.act, act_row(cl.act, m, cl.m), tap_of(kk, 24, 1), true), m * 24 + kk);
      for (int c = 0; c < 16; c += 5) ASSERT_EQ(weight_offset(cl.wt, kk, c), kk * 16 + c);
    }
  EXPECT_EQ(igemm_config_refusal(pd, {128, 128, 4, 1, true, true}), "");
  EXPECT_NE(igemm_config_refusal(plan_igemm(parse_conv_problem("conv bwd-data bf16 nhwc n2 c16 k24 in5x3 f3x3 pad1x1")),
                                 {128, 128, 4, 1, true, true}),
            "");
}

TEST(IgemmPlan, RefusesWithReasons) {
  const std::pair<const char*, const char*> cases[] = {
      {"conv fwd fp32 nhwc n1 c8 k8 in5x5 f3x3", "fp32"},
      {"conv fwd bf16 nchw n1 c8 k8 in5x5 f3x3", "NHWC"},
      {"conv fwd bf16 nhwc n1 c16 k16 in5x5 f3x3 g2", "groups"},
      {"conv fwd bf16 nhwc n1 c8 k12 in9x9 f3x3", "multiple of 8"},
      {"conv bwd-data bf16 nhwc n1 c3 k12 in9x9 f3x3", "multiple of 8"},
      {"conv fwd bf16 nhwc n1 c8 k8 in5x5 f3x3 trans", "trans"},
      {"conv fwd bf16 ndhwc n1 c8 k8 in4x5x5 f1x3x3", "3D"},
      {"conv bwd-data bf16 nhwc n1 c8 k8 in20x20 f3x3 str5x4", "sub-pixel classes"},
  };
  for (auto [s, why] : cases) {
    const IgemmPlan pl = plan_igemm(parse_conv_problem(s));
    EXPECT_NE(pl.refusal.find(why), std::string::npos) << s << ": '" << pl.refusal << "'";
  }
}

}  // namespace
}  // namespace hiprim::gpu::sm90

// The tuned defaults (igemm_sm90_tuned.cpp): a problem the H200 sweep timed gets the sweep's fastest
// verified config, in fp16 as in bf16; any other problem (another batch, fp32) gets the cost model's.
TEST(IgemmTuned, SweptProblemsGetTheSweepsConfigOthersTheModels) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  const ConvProblem bf = parse_conv_problem("conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1");
  const IgemmPlan pl = plan_igemm(bf);
  ASSERT_TRUE(pl.refusal.empty());
  const auto tuned = igemm_tuned_config(bf, pl);
  ASSERT_TRUE(tuned.has_value());
  EXPECT_EQ(to_string(igemm_default_config(bf, pl)), to_string(*tuned));
  ConvProblem fp = bf;
  fp.dtype = DType::fp16;
  ASSERT_TRUE(igemm_tuned_config(fp, plan_igemm(fp)).has_value());
  EXPECT_EQ(to_string(*igemm_tuned_config(fp, plan_igemm(fp))), to_string(*tuned));
  const ConvProblem other = parse_conv_problem("conv fwd bf16 nhwc n8 c1024 k256 in14x14 f1x1");
  const IgemmPlan opl = plan_igemm(other);
  EXPECT_FALSE(igemm_tuned_config(other, opl).has_value());
  EXPECT_EQ(to_string(igemm_default_config(other, opl)), to_string(igemm_default_config(opl)));
  // Every table entry parses, names a problem the solver takes and a config its plan accepts.
  EXPECT_TRUE(igemm_tuned_config(parse_conv_problem("conv bwd-data bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2"),
                                 plan_igemm(parse_conv_problem("conv bwd-data bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2")))
                  ->col2im);  // the stem's bwd-data: the dcol GEMM and col2im
  for (const char* s : {"conv bwd-weights bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1", "conv bwd-data bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2",
                        "conv fwd bf16 nhwc n32 c512 k512 in7x7 f3x3 pad1x1"}) {
    const ConvProblem q = parse_conv_problem(s);
    EXPECT_TRUE(igemm_tuned_config(q, plan_igemm(q)).has_value()) << s;
  }
}

// The tf32 table (igemm_sm90_tuned_tf32.inc, from s30's hiprim tune): an fp32 math=tf32 problem the tune timed
// gets its best config; the same shape without math=tf32 and a shape where the tune's best did not beat the
// model's pick by 3% get none.
TEST(IgemmTuned, Tf32ProblemsTheTuneImprovedGetTheTunesConfig) {
  using namespace hiprim;
  using namespace hiprim::gpu::sm90;
  const ConvProblem t = parse_conv_problem("conv bwd-data fp32 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str2x2 math=tf32");
  const IgemmPlan pl = plan_igemm(t);
  ASSERT_TRUE(pl.refusal.empty()) << pl.refusal;
  const auto tuned = igemm_tuned_config(t, pl);
  ASSERT_TRUE(tuned.has_value());
  EXPECT_EQ(to_string(*tuned), "m128n256k32.s4.splitk2.ws.tma.flip");
  EXPECT_EQ(to_string(igemm_default_config(t, pl)), to_string(*tuned));
  ConvProblem exact = t;
  exact.math = ConvMath::exact;
  EXPECT_FALSE(igemm_tuned_config(exact, plan_igemm(exact)).has_value());
  const ConvProblem kept = parse_conv_problem("conv fwd fp32 nhwc n32 c256 k256 in14x14 f3x3 pad1x1 math=tf32");
  EXPECT_FALSE(igemm_tuned_config(kept, plan_igemm(kept)).has_value());
}

