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

// The kernel's GEMM rows and columns.
void gemm_dims(const SimtBatchedGemm& g, std::int64_t& m, std::int64_t& n) {
  m = g.wgrad || !g.channels_last ? g.k : g.p;
  n = g.wgrad ? g.c : g.channels_last ? g.k : g.p;
}

SimtConvConfig tile_config(const std::string& tile) {
  SimtConvConfig c;
  int used = 0;
  if (std::sscanf(tile.c_str(), "t%dx%d%n", &c.bm, &c.bn, &used) != 2 || used != static_cast<int>(tile.size()) ||
      std::find(simt_batched_gemm_tiles().begin(), simt_batched_gemm_tiles().end(), tile) == simt_batched_gemm_tiles().end())
    throw InputError("batched GEMM tile '" + tile + "' is not one of t128x128, t128x64, t64x128, t64x64");
  return c;
}

}  // namespace

std::string simt_batched_gemm_default(const SimtBatchedGemm& g) {
  std::int64_t m = 0, n = 0;
  gemm_dims(g, m, n);
  for (const std::string& tile : simt_batched_gemm_tiles()) {
    const SimtConvConfig c = tile_config(tile);
    const std::int64_t tm = (m + c.bm - 1) / c.bm, tn = (n + c.bn - 1) / c.bn;
    const bool snug = 5 * m * n >= 4 * tm * c.bm * tn * c.bn;  // at most a fifth of the area is padding
    if (snug && g.batch * tm * tn >= 264) return tile;
  }
  return "t64x64";
}

void launch_simt_batched_gemm(const SimtBatchedGemm& g, const std::string& tile, hipStream_t stream,
                              const std::string& context) {
  const SimtConvConfig c = tile_config(tile);
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
  a.k_chunk = std::max(8, (a.kred + 7) / 8 * 8);  // one slice: the whole reduction
  for (std::int64_t z0 = 0; z0 < g.batch; z0 += 65535) {
    const int nz = static_cast<int>(std::min<std::int64_t>(65535, g.batch - z0));
    a.a = a_ptr + z0 * a.a_batch, a.b = b_ptr + z0 * a.b_batch, a.out = g.out + z0 * a.out_batch;
    switch (dir) {
      case SimtConvDir::wgrad: launch_simt_widths<SimtConvDir::wgrad>(a, c, nz, vec_a, vec_b, stream, context); break;
      case SimtConvDir::nchw_fwd: launch_simt_widths<SimtConvDir::nchw_fwd>(a, c, nz, vec_a, vec_b, stream, context); break;
      default: launch_simt_widths<SimtConvDir::fwd>(a, c, nz, vec_a, vec_b, stream, context); break;
    }
  }
}

}  // namespace hiprim::gpu
