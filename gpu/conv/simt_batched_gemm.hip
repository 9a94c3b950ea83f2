// Batched fp32 GEMMs on conv.igemm.simt's kernel: see simt_batched_gemm.hpp. channels_last runs the
// kernel's NHWC fwd mode over a 1 x P image of C channels (A = V_z, B = U_z as W [K][1][1][C], rows
// of out_z = pixels); else its NCHW fwd mode (A = U_z as W [K][C], B = V_z as one image [C][1][P],
// out_z [K][P]). blockIdx.z is the batch (SimtConvArgs::batched), at most 65535 a launch.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/conv/igemm_simt_launch.hpp"
#include "gpu/conv/simt_batched_gemm.hpp"

namespace hiprim::gpu {

const std::vector<std::string>& simt_batched_gemm_tiles() {
  static const std::vector<std::string> tiles{"t128x128", "t128x64", "t64x128", "t64x64"};
  return tiles;
}

namespace {

constexpr int kMaxSlices = 32;
constexpr std::int64_t kBlocksWanted = 264;  // two per SM of a 132-SM part
// bwd-weights (the s21 H100 sweep of every config on ResNet-50's four 3x3 layers, F(4) and F(6)):
// unsplit from 256 blocks and 32768 threads on; else the largest snug tile split to 65536 threads,
// >= 128 terms a slice (F(6) c128 28x28: t64x64 unsplit, 256 blocks of 64 threads, 152 us; t128x128.sk4 105).
constexpr std::int64_t kWgradBlocks = 256, kWgradThreads = 65536, kMinSliceTerms = 128;

// The kernel's GEMM rows and columns.
void gemm_dims(const SimtBatchedGemm& g, std::int64_t& m, std::int64_t& n) {
  m = g.wgrad || !g.channels_last ? g.k : g.p;
  n = g.wgrad ? g.c : g.channels_last ? g.k : g.p;
}

// A config's tile and slices asked ("t<BM>x<BN>", wgrad "t<BM>x<BN>.sk<S>").
SimtConvConfig parse_config(const SimtBatchedGemm& g, const std::string& config, int& slices) {
  const std::vector<std::string> all = simt_batched_gemm_configs(g);
  if (std::find(all.begin(), all.end(), config) == all.end())
    throw InputError("batched GEMM config '" + config + "' is not one of " + (g.wgrad ? "t<BM>x<BN>.sk<S> with " : "") +
                     "t128x128, t128x64, t64x128, t64x64" + (g.wgrad ? " and S in 1, 2, 4, 8, 16, 32" : ""));
  SimtConvConfig c;
  slices = 1;
  std::sscanf(config.c_str(), g.wgrad ? "t%dx%d.sk%d" : "t%dx%d", &c.bm, &c.bn, &slices);
  return c;
}

std::int64_t blocks_of(const SimtBatchedGemm& g, const SimtConvConfig& c) {
  std::int64_t m = 0, n = 0;
  gemm_dims(g, m, n);
  return g.batch * ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
}

}  // namespace

std::vector<std::string> simt_batched_gemm_configs(const SimtBatchedGemm& g) {
  if (!g.wgrad) return simt_batched_gemm_tiles();
  std::vector<std::string> all;
  for (const std::string& tile : simt_batched_gemm_tiles())
    for (int s = 1; s <= kMaxSlices; s *= 2) all.push_back(tile + ".sk" + std::to_string(s));
  return all;
}

std::string simt_batched_gemm_default(const SimtBatchedGemm& g) {
  std::int64_t m = 0, n = 0;
  gemm_dims(g, m, n);
  const std::string unsplit = g.wgrad ? ".sk1" : "";
  const std::int64_t wanted = g.wgrad ? kWgradBlocks : kBlocksWanted;
  std::string largest_snug;
  for (const std::string& tile : simt_batched_gemm_tiles()) {
    int ignored = 1;
    const SimtConvConfig c = parse_config(g, tile + unsplit, ignored);
    const std::int64_t tm = (m + c.bm - 1) / c.bm, tn = (n + c.bn - 1) / c.bn;
    const bool snug = 5 * m * n >= 4 * tm * c.bm * tn * c.bn;  // at most a fifth of the area is padding
    const std::int64_t blocks = blocks_of(g, c), threads = blocks * (c.bm / 8) * (c.bn / 8);  // one per 8 x 8 outputs
    if (snug && blocks >= wanted && (!g.wgrad || 2 * threads >= kWgradThreads)) return tile + unsplit;
    if (snug && largest_snug.empty()) largest_snug = tile;
  }
  if (!g.wgrad) return "t64x64";
  if (largest_snug.empty()) largest_snug = "t64x64";
  int ignored = 1;
  const SimtConvConfig c = parse_config(g, largest_snug + unsplit, ignored);
  const std::int64_t threads = blocks_of(g, c) * (c.bm / 8) * (c.bn / 8);
  int s = 1;
  while (s < kMaxSlices && threads * s < kWgradThreads && g.p / (2 * s) >= kMinSliceTerms) s *= 2;
  return largest_snug + ".sk" + std::to_string(s);
}

SimtBatchedSplit simt_batched_gemm_split(const SimtBatchedGemm& g, const std::string& config) {
  int slices = 1;
  (void)parse_config(g, config, slices);
  SimtBatchedSplit sp;
  const std::int64_t kred = g.wgrad ? g.p : g.c, per = (kred + slices - 1) / slices;
  sp.chunk = std::max<std::int64_t>(8, (per + 7) / 8 * 8);
  sp.slices = std::max<std::int64_t>(1, (kred + sp.chunk - 1) / sp.chunk);
  if (sp.slices == 1) sp.chunk = std::max<std::int64_t>(8, (kred + 7) / 8 * 8);
  return sp;
}

std::int64_t simt_batched_gemm_partial_floats(const SimtBatchedGemm& g, const std::string& config) {
  const SimtBatchedSplit sp = simt_batched_gemm_split(g, config);
  return sp.slices > 1 ? sp.slices * g.batch * g.k * g.c : 0;
}

void launch_simt_batched_gemm(const SimtBatchedGemm& g, const std::string& config, hipStream_t stream,
                              const std::string& context) {
  int asked = 1;
  const SimtConvConfig c = parse_config(g, config, asked);
  const SimtBatchedSplit sp = simt_batched_gemm_split(g, config);
  const std::int64_t limit = 0x7fffffffLL - 1024;  // int indices plus one tile
  if (g.p < 0 || g.c < 0 || g.k < 0 || g.batch < 0 || g.p > limit || g.c > limit || g.k > limit)
    throw InputError("batched GEMM sizes P " + std::to_string(g.p) + ", C " + std::to_string(g.c) + ", K " +
                     std::to_string(g.k) + " are outside what the kernel indexes while " + context);
  if (g.p == 0 || g.k == 0 || g.batch == 0) return;
  SimtConvArgs a;
  a.batched = true;
  SimtConvGeom& geo = a.g;  // one image, 1 x P pixels, C channels in, K out, a 1x1 filter
  geo.imgs = 1, geo.h = 1, geo.w = static_cast<int>(g.p), geo.c = static_cast<int>(g.c), geo.k = static_cast<int>(g.k);
  geo.r = geo.s = 1, geo.p = 1, geo.q = geo.w;
  // The kernel's operands per mode: A, B (each with its per-z stride) and its (M, N, reduction).
  const float* a_ptr = nullptr;
  const float* b_ptr = nullptr;
  bool vec_a = false, vec_b = false;
  SimtConvDir dir = SimtConvDir::fwd;
  const bool nhwc_vec = g.c % 4 == 0 && g.k % 4 == 0 && simt_aligned16(g.v) && simt_aligned16(g.u) && simt_aligned16(g.out);
  if (g.wgrad) {  // bwd-weights mode: A = U_z (dOut [pixel][k]), B = V_z (In at the 1x1 tap), out [K][C]
    if (!g.channels_last) throw InputError("batched bwd-weights GEMM: channels-last layouts only while " + context);
    dir = SimtConvDir::wgrad;
    a.m = static_cast<int>(g.k), a.n = static_cast<int>(g.c), a.kred = static_cast<int>(g.p);
    a_ptr = g.u, a.a_batch = g.p * g.k, b_ptr = g.v, a.b_batch = g.p * g.c, a.out_batch = g.k * g.c;
    vec_a = vec_b = nhwc_vec;
    a.vec_out = g.c % 4 == 0 && simt_aligned16(g.out);
  } else if (g.channels_last) {  // NHWC fwd mode: A = V_z (In), B = U_z (W), out [P][K]
    a.m = static_cast<int>(g.p), a.n = static_cast<int>(g.k), a.kred = static_cast<int>(g.c);
    a_ptr = g.v, a.a_batch = g.p * g.c, b_ptr = g.u, a.b_batch = g.k * g.c, a.out_batch = g.p * g.k;
    vec_a = vec_b = nhwc_vec;
    a.vec_out = g.k % 4 == 0 && simt_aligned16(g.out);
  } else {  // NCHW fwd mode: A = U_z (W [K][C]), B = V_z (one image [C][P]), out [K][P]
    dir = SimtConvDir::nchw_fwd;
    a.m = static_cast<int>(g.k), a.n = static_cast<int>(g.p), a.kred = static_cast<int>(g.c);
    a_ptr = g.u, a.a_batch = g.k * g.c, b_ptr = g.v, a.b_batch = g.p * g.c, a.out_batch = g.k * g.p;
    a.map.cols_pq = geo.q, a.map.rows = a.m;
    vec_a = g.c % 4 == 0 && simt_aligned16(g.u);
    vec_b = g.p % 4 == 0 && simt_aligned16(g.v);
    a.vec_out = g.p % 4 == 0 && simt_aligned16(g.out);
  }
  a.k_chunk = static_cast<int>(sp.chunk);
  // split: slice s of batch z at partial + (s * batch + z) * M * N, then the reduction into out
  a.partial = sp.slices > 1;
  a.batch_splits = static_cast<int>(sp.slices);
  float* const out = a.partial ? g.partial : g.out;
  if (a.partial) {
    if (g.partial == nullptr) throw InputError("batched GEMM config '" + config + "' splits the reduction but has no partial buffer while " + context);
    a.slice_pitch = g.batch * a.out_batch;
    a.vec_out = a.vec_out && simt_aligned16(g.partial);
  }
  const std::int64_t per_launch = 65535 / sp.slices;
  for (std::int64_t z0 = 0; z0 < g.batch; z0 += per_launch) {
    const int nz = static_cast<int>(std::min<std::int64_t>(per_launch, g.batch - z0)) * a.batch_splits;
    a.a = a_ptr + z0 * a.a_batch, a.b = b_ptr + z0 * a.b_batch, a.out = out + z0 * a.out_batch;
    switch (dir) {
      case SimtConvDir::wgrad: launch_simt_widths<SimtConvDir::wgrad>(a, c, nz, vec_a, vec_b, stream, context); break;
      case SimtConvDir::nchw_fwd: launch_simt_widths<SimtConvDir::nchw_fwd>(a, c, nz, vec_a, vec_b, stream, context); break;
      default: launch_simt_widths<SimtConvDir::fwd>(a, c, nz, vec_a, vec_b, stream, context); break;
    }
  }
  if (a.partial)
    launch_simt_conv_reduce(g.partial, g.batch * a.out_batch, a.n, a.batch_splits, nullptr, g.out, SimtOutMap{}, stream, context);
}

}  // namespace hiprim::gpu
