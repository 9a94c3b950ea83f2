// conv.igemm.simt's plan: refusals, GEMM sizes, configs, heuristic, workspace (see the header).
#include "gpu/conv/igemm_simt_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kTiles[][2] = {{128, 128}, {128, 64}, {64, 64}};
constexpr int kMaxSplits = 512;
constexpr std::int64_t kMaxPartialBytes = std::int64_t{512} << 20;  // split-K partial sums in the workspace
constexpr std::int64_t kMaxGridY = 65535;
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max() - 1024;
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

int threads_of(int bm, int bn) { return bm * bn / 64; }
int resident_blocks(int bm, int bn) { return 65536 / (threads_of(bm, bn) * 128); }
double tile_efficiency(int bm, int bn, bool wgrad) {
  return bm * bn == 128 * 128 ? 0.96 : bm * bn == 128 * 64 ? 1.0 : wgrad ? 0.85 : 0.97;
}

std::string dims_str(const Dims& d) { return std::to_string(d[0]) + "x" + std::to_string(d[1]); }

}  // namespace

std::string SimtConvConfig::str() const {
  return "t" + std::to_string(bm) + "x" + std::to_string(bn) + ".sk" + std::to_string(splits);
}

SimtConvConfig parse_simt_conv_config(const std::string& s) {
  SimtConvConfig c;
  int used = 0;
  if (std::sscanf(s.c_str(), "t%dx%d.sk%d%n", &c.bm, &c.bn, &c.splits, &used) != 3 ||
      used != static_cast<int>(s.size()))
    throw InputError("conv.igemm.simt config '" + s + "' is not t<BM>x<BN>.sk<S> (e.g. t128x64.sk4)");
  bool tile = false;
  for (const auto& t : kTiles) tile = tile || (t[0] == c.bm && t[1] == c.bn);
  if (!tile) throw InputError("conv.igemm.simt config '" + s + "': tile " + std::to_string(c.bm) + "x" +
                              std::to_string(c.bn) + " is not one of 128x128, 128x64, 64x64");
  if (c.splits < 1 || c.splits > kMaxSplits || (c.splits & (c.splits - 1)) != 0)
    throw InputError("conv.igemm.simt config '" + s + "': K slices " + std::to_string(c.splits) +
                     " is not a power of two in [1, 512]");
  return c;
}

SimtConvPlan plan_simt_conv(const ConvProblem& p) {
  SimtConvPlan pl;
  auto no = [&](std::string why) {
    pl.refusal = std::move(why);
    return pl;
  };
  if (auto errors = p.validate(); !errors.empty()) return no("invalid problem: " + errors.front());
  if (p.dtype != DType::fp32) return no("dtype " + std::string(dtype_name(p.dtype)) + ": fp32 only (an FMA path)");
  if (!p.channels_last) return no("layout " + p.layout_name() + ": NHWC only");
  if (p.rank() != 2) return no("3D problem: 2D only");
  if (p.groups != 1) return no("groups " + std::to_string(p.groups) + ": groups 1 only");
  if (p.mode != ConvMode::conv) return no("mode trans: mode conv only");
  const Dims o = p.out();
  pl.wgrad = p.dir == ConvDir::bwd_weights;
  pl.relation = p;
  if (p.dir == ConvDir::bwd_data) {
    if (p.stride[0] != 1 || p.stride[1] != 1)
      return no("bwd-data with stride " + dims_str(p.stride) + ": stride 1 only (run as the flipped fwd conv)");
    ConvProblem q = p;
    q.dir = ConvDir::fwd;
    q.c = p.k, q.k = p.c;
    q.in = o;
    q.bias = false;
    for (std::size_t i = 0; i < 2; ++i) {
      q.pad[i] = p.dilation[i] * (p.filter[i] - 1) - p.pad[i];
      if (q.pad[i] < 0)
        return no("bwd-data with pad " + dims_str(p.pad) + " past dilation x (filter - 1): the flipped conv needs pad <= " +
                  std::to_string(p.dilation[i] * (p.filter[i] - 1)));
    }
    pl.flip = true;
    pl.relation = q;
    pl.flip_bytes = (static_cast<std::size_t>(p.k * p.c * p.filter[0] * p.filter[1]) * 4 + 255) / 256 * 256;
  }
  const ConvProblem& f = pl.relation;
  const std::int64_t pixels = f.n * (pl.wgrad ? o[0] * o[1] : f.out()[0] * f.out()[1]);
  const std::int64_t rsc = f.filter[0] * f.filter[1] * f.c;
  pl.m = pl.wgrad ? f.k : pixels;
  pl.n = pl.wgrad ? rsc : f.k;
  pl.kred = pl.wgrad ? pixels : rsc;
  const std::int64_t in_elems = f.n * f.c * f.in[0] * f.in[1];
  for (const std::int64_t v : {pl.m, pl.n, pl.kred, in_elems, f.k * rsc, pixels * f.k})
    if (v > kMaxInt) return no("a GEMM size or tensor of " + std::to_string(v) + " elements exceeds 2^31 - 1025");
  if ((pl.m + 63) / 64 > kMaxGridY) return no("M = " + std::to_string(pl.m) + " needs more than 65535 row tiles");
  return pl;
}

std::int64_t simt_conv_chunk(const SimtConvPlan& pl, const SimtConvConfig& c) {
  const std::int64_t per = (pl.kred + c.splits - 1) / c.splits;
  return std::max<std::int64_t>(8, (per + 7) / 8 * 8);
}

std::vector<SimtConvConfig> simt_conv_configs(const SimtConvPlan& pl) {
  std::vector<SimtConvConfig> out;
  if (!pl.refusal.empty()) return out;
  for (int s = 1; s <= kMaxSplits; s *= 2) {
    if (s > 1 && pl.kred < 8LL * s) break;                     // every slice holds at least 8 kk
    if (s > 1 && 4 * s * pl.m * pl.n > kMaxPartialBytes) break;  // the partial sums fit 512 MiB
    for (const auto& t : kTiles) {
      const SimtConvConfig c{t[0], t[1], s};
      if ((pl.m + c.bm - 1) / c.bm <= kMaxGridY) out.push_back(c);
    }
  }
  return out;
}

SimtConvConfig simt_conv_default(const SimtConvPlan& pl) {
  SimtConvConfig best;
  double best_s = std::numeric_limits<double>::infinity();
  for (const SimtConvConfig& c : simt_conv_configs(pl)) {
    const double tiles = static_cast<double>((pl.m + c.bm - 1) / c.bm) * ((pl.n + c.bn - 1) / c.bn);
    const double per_sm = std::ceil(tiles * c.splits / kSms);  // blocks each SM runs
    const double warps = std::min<double>(per_sm, resident_blocks(c.bm, c.bn)) * threads_of(c.bm, c.bn) / 32;
    const double util = std::min(1.0, warps / 16) * tile_efficiency(c.bm, c.bn, pl.wgrad);
    double t = per_sm * c.bm * c.bn * static_cast<double>(simt_conv_chunk(pl, c)) / (kSmFmaPerS * util);
    if (c.splits > 1) t += (c.splits + 1.0) * static_cast<double>(pl.m * pl.n) * 4 / kCopyBytesPerS + kLaunchS;
    if (t < best_s * 0.97) best_s = t, best = c;  // ties: the earlier (bigger tile, fewer slices)
  }
  return best;
}

std::size_t simt_conv_workspace(const SimtConvPlan& pl, const SimtConvConfig& c) {
  const std::size_t partial = c.splits > 1 ? static_cast<std::size_t>(c.splits * pl.m * pl.n) * 4 : 0;
  return pl.flip_bytes + partial;
}

}  // namespace hiprim::gpu
