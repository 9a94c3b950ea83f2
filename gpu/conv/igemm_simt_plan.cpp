// conv.igemm.simt's plan: refusals, GEMM sizes, configs, heuristic, workspace (see the header).
#include "gpu/conv/igemm_simt_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "gpu/conv/subpixel_taps.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kTiles[][2] = {{128, 128}, {128, 64}, {64, 128}, {64, 64}};
constexpr int kMaxSplits = 512;
constexpr std::int64_t kMaxPartialBytes = std::int64_t{512} << 20;  // split-K partial sums in the workspace
constexpr std::int64_t kMaxGridY = 65535;
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max() - 1024;
constexpr std::int64_t kMaxColBytes = std::int64_t{1} << 30;  // .col's column buffer
constexpr std::size_t kAlign = 256;
// Wave model (H200-sized; it only ranks configs). A block of BM x BN has BM*BN/64 threads (8x8
// outputs each); registers (~128 per thread) let 65536 / (threads * 128) blocks share an SM. An SM
// that holds b of the launch's blocks runs them at the fp32 FMA rate times util(w) = min(1, w / 16),
// w the warps resident at once (fewer warps leave the load latency unhidden: measured on the H200,
// one 4-warp block runs a third as fast per SM as the full SM), times the tile's loop efficiency
// (twelfth session's tune: 128x64 at or up to 20% ahead of 128x128 on every ResNet-50 layer where
// both fill N; 64x64 within 3% of 128x64 when the SM is full in fwd, 15-25% behind in bwd-weights,
// whose activation rows are gathered). A split adds the partial sums'
// traffic (S + 1 passes over M x N floats) and the reduction's launch.
constexpr double kSms = 132, kSmFmaPerS = 128 * 1.9e9, kCopyBytesPerS = 3.5e12, kLaunchS = 2e-6;

std::size_t aligned(std::int64_t bytes) { return (static_cast<std::size_t>(bytes) + kAlign - 1) / kAlign * kAlign; }

int threads_of(int bm, int bn) { return bm * bn / 64; }
int resident_blocks(int bm, int bn) { return 65536 / (threads_of(bm, bn) * 128); }
double tile_efficiency(int bm, int bn, bool wgrad) {
  return bm * bn == 128 * 128 ? 0.96 : bm * bn == 128 * 64 ? 1.0 : wgrad ? 0.85 : 0.97;  // 64x128: as 128x64
}
// The NCHW mode (rows = out channels, columns = pixels), fit to the fourteenth session's tune of six
// ResNet-50 1x1 fwd layers (call 2): unit stride, every tile within 10% (128x128 and 64x64 ahead);
// stride 2 (pixel columns gathered at stride 2) 64x128 ran 20-35% ahead of the others. Its split
// reduction maps every element through a division: sk2 measured 2.4x the traffic model's cost.
double nchw_tile_efficiency(int bm, int bn, bool strided) {
  if (strided) return bm == 64 && bn == 128 ? 1.0 : bm * bn == 128 * 128 ? 0.65 : 0.8;
  return bm * bn == 128 * 128 ? 0.8 : bm == bn ? 1.0 : bm == 128 ? 0.95 : 0.92;
}
constexpr double kNchwSplitCost = 2.4;

}  // namespace

std::string SimtConvConfig::str() const {
  return "t" + std::to_string(bm) + "x" + std::to_string(bn) + ".sk" + std::to_string(splits) + (col ? ".col" : "");
}

SimtConvConfig parse_simt_conv_config(const std::string& s) {
  SimtConvConfig c;
  int used = 0;
  if (std::sscanf(s.c_str(), "t%dx%d.sk%d%n", &c.bm, &c.bn, &c.splits, &used) != 3 ||
      (used != static_cast<int>(s.size()) && s.compare(static_cast<std::size_t>(used), std::string::npos, ".col") != 0))
    throw InputError("conv.igemm.simt config '" + s + "' is not t<BM>x<BN>.sk<S>[.col] (e.g. t128x64.sk4)");
  c.col = used != static_cast<int>(s.size());
  bool tile = false;
  for (const auto& t : kTiles) tile = tile || (t[0] == c.bm && t[1] == c.bn);
  if (!tile) throw InputError("conv.igemm.simt config '" + s + "': tile " + std::to_string(c.bm) + "x" +
                              std::to_string(c.bn) + " is not one of 128x128, 128x64, 64x128, 64x64");
  if (c.splits < 1 || c.splits > kMaxSplits || (c.splits & (c.splits - 1)) != 0)
    throw InputError("conv.igemm.simt config '" + s + "': K slices " + std::to_string(c.splits) +
                     " is not a power of two in [1, 512]");
  return c;
}

namespace {

// .col for C < 16 when the column buffer fits: its GEMM sizes and workspace (see the header).
void plan_col_mode(const ConvProblem& p, SimtConvPlan& pl) {
  if (p.c >= 16) return;
  const Dims o = p.out();
  const std::int64_t pixels = p.n * o[0] * o[1], rsc = p.filter[0] * p.filter[1] * p.c, ld = (rsc + 3) / 4 * 4;
  if (pixels * ld > kMaxInt || pixels * ld * 4 > kMaxColBytes || (pixels + 63) / 64 > kMaxGridY) return;
  pl.col_ok = true;
  pl.col_ld = ld;
  pl.col_bytes = aligned(pixels * ld * 4);
  if (p.dir == ConvDir::fwd) pl.col_m = pixels, pl.col_n = p.k, pl.col_kred = ld;
  if (p.dir == ConvDir::bwd_weights) pl.col_m = p.k, pl.col_n = rsc, pl.col_kred = pixels;
  if (p.dir == ConvDir::bwd_data) pl.col_m = pixels, pl.col_n = ld, pl.col_kred = p.k;
  pl.col_w_bytes = p.dir == ConvDir::bwd_weights ? 0 : aligned(p.k * ld * 4);
  pl.col_preferred = !pl.direct_refusal.empty() || p.x_desc().elements() >= (std::int64_t{1} << 20);
}

}  // namespace

SimtConvPlan plan_simt_conv(const ConvProblem& p) {
  SimtConvPlan pl;
  auto no = [&](std::string why) {
    pl.refusal = std::move(why);
    return pl;
  };
  if (auto errors = p.validate(); !errors.empty()) return no("invalid problem: " + errors.front());
  if (p.dtype != DType::fp32) return no("dtype " + std::string(dtype_name(p.dtype)) + ": fp32 only (an FMA path)");
  if (p.rank() != 2) return no("3D problem: 2D only");
  if (p.groups != 1) return no("groups " + std::to_string(p.groups) + ": groups 1 only");
  if (p.mode != ConvMode::conv) return no("mode trans: mode conv only");
  const Dims o = p.out();
  pl.wgrad = p.dir == ConvDir::bwd_weights;
  pl.relation = p;
  for (const std::int64_t v : {p.x_desc().elements(), p.y_desc().elements(), p.w_desc().elements()})
    if (v > kMaxInt) return no("a tensor of " + std::to_string(v) + " elements exceeds 2^31 - 1025");
  if (!p.channels_last) {  // NCHW: 1x1 pad-0 fwd (any stride) and stride-1 bwd-data read in place
    const bool one = p.filter[0] == 1 && p.filter[1] == 1 && p.pad[0] == 0 && p.pad[1] == 0;
    const bool unit = p.stride[0] == 1 && p.stride[1] == 1;
    if (!one || p.dir == ConvDir::bwd_weights || (p.dir == ConvDir::bwd_data && !unit))
      return no("layout " + p.layout_name() + ": NHWC only, except 1x1 pad-0 fwd and stride-1 bwd-data "
                "(conv.igemm.simt.nchw runs the rest on NHWC copies)");
    pl.nchw_run = true;
    const bool fwd = p.dir == ConvDir::fwd;
    pl.m = fwd ? p.k : p.c;
    pl.n = p.n * o[0] * o[1];
    pl.kred = fwd ? p.c : p.k;
  } else if (p.dir == ConvDir::bwd_data) {
    // dx's C is the GEMM's N: under 16 columns a 64-wide tile wastes over 3/4 of its FMAs, which on
    // a large dx costs more than another solver's copies (the stem, C = 3: 14.7 ms here against 1.9
    // for conv.gemm.im2col on the H200, thirteenth session); small ones stay (tests, odd shapes)
    if (p.c < 16 && p.x_desc().elements() >= (std::int64_t{1} << 20))
      pl.direct_refusal = "bwd-data with C = " + std::to_string(p.c) + " < 16 on a dx of " +
                          std::to_string(p.x_desc().elements()) +
                          " elements: too few GEMM columns for a 64-wide tile (the .col configs run it)";
    pl.classes_run = true;
    pl.n = p.c;
    const int sh = static_cast<int>(p.stride[0]), sw = static_cast<int>(p.stride[1]);
    std::size_t at = 0;
    for (int a = 0; a < sh; ++a)
      for (int b = 0; b < sw; ++b) {
        const AxisTaps th = axis_taps(a, sh, static_cast<int>(p.pad[0]), static_cast<int>(p.dilation[0]),
                                      static_cast<int>(p.filter[0]), static_cast<int>(p.in[0]));
        const AxisTaps tw = axis_taps(b, sw, static_cast<int>(p.pad[1]), static_cast<int>(p.dilation[1]),
                                      static_cast<int>(p.filter[1]), static_cast<int>(p.in[1]));
        SimtConvClass z;
        z.a = a, z.b = b, z.rows_h = th.rows, z.rows_w = tw.rows;
        z.taps_h = th.n, z.taps_w = tw.n, z.r0 = th.r0, z.s0 = tw.r0, z.step_h = th.step, z.step_w = tw.step;
        z.dil_h = -th.tstep, z.dil_w = -tw.tstep;
        z.pad_h = (th.n - 1) * z.dil_h - th.add, z.pad_w = (tw.n - 1) * z.dil_w - tw.add;
        z.m = p.n * z.rows_h * z.rows_w;
        z.kred = static_cast<std::int64_t>(z.taps_h) * z.taps_w * p.k;
        z.w_offset = at;
        at += (static_cast<std::size_t>(z.kred * p.c) * 4 + 255) / 256 * 256;
        if (z.m == 0) continue;  // no dx rows in this class (str > the image)
        pl.m = std::max(pl.m, z.m), pl.kred = std::max(pl.kred, z.kred);
        pl.classes.push_back(z);
      }
    pl.filter_bytes = at;
  } else {
    const std::int64_t pixels = p.n * o[0] * o[1], rsc = p.filter[0] * p.filter[1] * p.c;
    pl.m = pl.wgrad ? p.k : pixels;
    pl.n = pl.wgrad ? rsc : p.k;
    pl.kred = pl.wgrad ? pixels : rsc;
  }
  for (const std::int64_t v : {pl.m, pl.n, pl.kred})
    if (v > kMaxInt) return no("a GEMM size of " + std::to_string(v) + " exceeds 2^31 - 1025");
  if ((pl.m + 63) / 64 > kMaxGridY) return no("M = " + std::to_string(pl.m) + " needs more than 65535 row tiles");
  if (p.channels_last) plan_col_mode(p, pl);
  if (!pl.direct_refusal.empty() && !pl.col_ok) return no(pl.direct_refusal);
  return pl;
}

std::int64_t simt_conv_chunk(std::int64_t kred, const SimtConvConfig& c) {
  const std::int64_t per = (kred + c.splits - 1) / c.splits;
  return std::max<std::int64_t>(8, (per + 7) / 8 * 8);
}

namespace {

struct GemmSizes {
  std::int64_t m, n, kred;
};
GemmSizes gemm_of(const SimtConvPlan& pl, bool col) {
  return col ? GemmSizes{pl.col_m, pl.col_n, pl.col_kred} : GemmSizes{pl.m, pl.n, pl.kred};
}

void add_configs(std::vector<SimtConvConfig>& out, const GemmSizes& g, bool col) {
  for (int s = 1; s <= kMaxSplits; s *= 2) {
    if (s > 1 && g.kred < 8LL * s) break;                    // every slice holds at least 8 kk
    if (s > 1 && 4 * s * g.m * g.n > kMaxPartialBytes) break;  // the partial sums fit 512 MiB
    for (const auto& t : kTiles) {
      const SimtConvConfig c{t[0], t[1], s, col};
      if ((g.m + c.bm - 1) / c.bm <= kMaxGridY) out.push_back(c);
    }
  }
}

}  // namespace

std::vector<SimtConvConfig> simt_conv_configs(const SimtConvPlan& pl) {
  std::vector<SimtConvConfig> out;
  if (!pl.refusal.empty()) return out;
  if (pl.direct_refusal.empty()) add_configs(out, gemm_of(pl, false), false);
  if (pl.col_ok) add_configs(out, gemm_of(pl, true), true);
  return out;
}

SimtConvConfig simt_conv_default(const SimtConvPlan& pl) {
  SimtConvConfig best;
  double best_s = std::numeric_limits<double>::infinity();
  for (const SimtConvConfig& c : simt_conv_configs(pl)) {
    if (c.col != pl.col_preferred) continue;  // the mode is chosen first, then tile and split
    // 64x128 (rows = out channels) for the NCHW mode only: the NHWC defaults stay on the tiles the
    // model was fit to (twelfth/thirteenth sessions' tunes) until a tune measures it there
    if (c.bm == 64 && c.bn == 128 && !pl.nchw_run) continue;
    const GemmSizes g = gemm_of(pl, c.col);
    const double tiles = static_cast<double>((g.m + c.bm - 1) / c.bm) * ((g.n + c.bn - 1) / c.bn);
    const double per_sm = std::ceil(tiles * c.splits / kSms);  // blocks each SM runs
    const double warps = std::min<double>(per_sm, resident_blocks(c.bm, c.bn)) * threads_of(c.bm, c.bn) / 32;
    const bool strided = pl.relation.stride[0] > 1 || pl.relation.stride[1] > 1;
    const double eff = pl.nchw_run ? nchw_tile_efficiency(c.bm, c.bn, strided) : tile_efficiency(c.bm, c.bn, pl.wgrad);
    const double util = std::min(1.0, warps / 16) * eff;
    // an SM holding more blocks than fit at once runs them in rounds of `resident` (NCHW mode only:
    // its tune showed 128x128.sk4 at 3 blocks per SM (2 resident) 36% behind 64x64.sk2 at 6 (8 resident))
    const double resident = resident_blocks(c.bm, c.bn);
    const double rounds = pl.nchw_run && per_sm > resident ? std::ceil(per_sm / resident) * resident : per_sm;
    double t = rounds * c.bm * c.bn * static_cast<double>(simt_conv_chunk(g.kred, c)) / (kSmFmaPerS * util);
    if (c.splits > 1)
      t += (pl.nchw_run ? kNchwSplitCost : 1.0) * (c.splits + 1.0) * static_cast<double>(g.m * g.n) * 4 / kCopyBytesPerS +
           kLaunchS;
    if (t < best_s * 0.97) best_s = t, best = c;  // ties: the earlier (bigger tile, fewer slices)
  }
  return best;
}

std::size_t simt_conv_workspace(const SimtConvPlan& pl, const SimtConvConfig& c) {
  const GemmSizes g = gemm_of(pl, c.col);
  const std::size_t partial = c.splits > 1 ? static_cast<std::size_t>(c.splits * g.m * g.n) * 4 : 0;
  return simt_conv_partial_offset(pl, c) + partial;
}

}  // namespace hiprim::gpu
