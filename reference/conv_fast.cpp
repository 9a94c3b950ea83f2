// Fast CPU reference: the same sums as conv_naive, as tiled im2col + Eigen GEMM in double.
//
// Both modes are one "correlation" between a small-side tensor S, a big-side tensor B and W:
//   term  S[n, gs, s] * W[gs, bb, f] * B[n, g*CBg + bb, s*stride - pad + f*dil],  g = gs / CSg
//   conv:  S = y (CS = K), B = x (CB = C), W = w [K, C/G, f]
//   trans: S = x (CS = C), B = y (CB = K), W = w [C, K/G, f]
// With col[(bb, f), s] = B[n, g*CBg + bb, s*stride - pad + f*dil] (0 outside B) and Wg the group's
// [CSg x CBg*F] slice of W, the three sums are GEMMs (the CUTLASS-style table):
//   gather   S = Wg * col         conv fwd,  trans bwd-data
//   scatter  col = Wg^T * S, B += col2im(col)  conv bwd-data, trans fwd
//   weights  Wg += S * col^T      bwd-weights (summed over n and s)
// abs_sum is the same GEMM on |W|, |S|, |col| (each product appears in exactly one term).
// Memory: S and B are packed once as rounded floats in logical order; im2col works on column tiles
// of at most kTileDoubles doubles per buffer, so the extra memory is a few tiles per thread.
// Work is cut into units that do not depend on the thread count (each output element belongs to one
// unit, summed in a fixed order), so the result is the same for any number of threads.
#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "reference/conv_common.hpp"

namespace hiprim::ref {

using detail::I64;
using detail::Vec3;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMat>;

constexpr I64 kTileDoubles = I64{1} << 19;  // 4 MiB per tile buffer
constexpr I64 kMinTileCols = 16;
constexpr I64 kChunkRows = 64;    // rows of W^T (B channels x taps) per scatter/weights unit
constexpr I64 kChunkSChans = 32;  // S channels per weights unit
constexpr int kMaxThreads = 32;   // bounds the tile memory (about 5 tiles x 4 MiB per thread)

I64 prod3(const Vec3& v) { return v[0] * v[1] * v[2]; }
I64 ceil_div(I64 a, I64 b) { return (a + b - 1) / b; }

// The correlation's geometry (see the file comment).
struct Corr {
  I64 n = 1, groups = 1, cs = 1, cb = 1, csg = 1, cbg = 1, taps = 1, s_size = 1, b_size = 1;
  Vec3 s_sp{}, b_sp{}, filter{}, stride{}, pad{}, dil{};
};

Corr make_corr(const ConvProblem& p) {
  const detail::Geom3 g = detail::geom3(p);
  Corr c;
  const bool conv = p.mode == ConvMode::conv;
  c.n = g.n;
  c.groups = g.groups;
  c.cs = conv ? g.k : g.c;
  c.cb = conv ? g.c : g.k;
  c.csg = c.cs / g.groups;
  c.cbg = c.cb / g.groups;
  c.s_sp = conv ? g.out : g.in;
  c.b_sp = conv ? g.in : g.out;
  c.filter = g.filter;
  c.stride = g.stride;
  c.pad = g.pad;
  c.dil = g.dil;
  c.taps = prod3(g.filter);
  c.s_size = prod3(c.s_sp);
  c.b_size = prod3(c.b_sp);
  return c;
}

// A tensor's values rounded to dt, in logical row-major order [d0][d1][D][H][W].
std::vector<float> pack_rounded(const HostTensor& t, DType dt) {
  const auto s = detail::strides5(t.desc);
  const Dims& d = t.desc.dims;
  const I64 dd = d.size() == 5 ? d[2] : 1, hh = d[d.size() - 2], ww = d[d.size() - 1];
  std::vector<float> out(static_cast<std::size_t>(t.desc.elements()));
  std::size_t i = 0;
  for (I64 a = 0; a < d[0]; ++a)
    for (I64 b = 0; b < d[1]; ++b)
      for (I64 z = 0; z < dd; ++z)
        for (I64 h = 0; h < hh; ++h)
          for (I64 w = 0; w < ww; ++w)
            out[i++] = round_to(dt, t.data[static_cast<std::size_t>(a * s[0] + b * s[1] + z * s[2] + h * s[3] + w * s[4])]);
  return out;
}

// Storage offset of each flat spatial position of a [D][H][W] grid under strides s[2..4].
std::vector<I64> spatial_offsets(const Vec3& sp, const std::array<I64, 5>& s) {
  std::vector<I64> off;
  off.reserve(static_cast<std::size_t>(prod3(sp)));
  for (I64 z = 0; z < sp[0]; ++z)
    for (I64 h = 0; h < sp[1]; ++h)
      for (I64 w = 0; w < sp[2]; ++w) off.push_back(z * s[2] + h * s[3] + w * s[4]);
  return off;
}

// For S positions [c0, c0+cols): which flat B position each filter tap reaches (b = s*stride - pad + f*dil).
struct TileMap {
  const Corr& cr;
  I64 c0, cols;
  std::vector<Vec3> base;  // s*stride - pad per column

  TileMap(const Corr& c, I64 first, I64 count) : cr(c), c0(first), cols(count) {
    base.resize(static_cast<std::size_t>(cols));
    for (I64 j = 0; j < cols; ++j) {
      I64 s = c0 + j;
      const Vec3 pos{s / (cr.s_sp[1] * cr.s_sp[2]), (s / cr.s_sp[2]) % cr.s_sp[1], s % cr.s_sp[2]};
      for (int a = 0; a < 3; ++a) base[static_cast<std::size_t>(j)][a] = pos[a] * cr.stride[a] - cr.pad[a];
    }
  }
  // f(j, b) for every column j whose tap-t position b (flat index into B's spatial grid) is inside B.
  template <class F>
  void for_tap(I64 t, F&& f) const {
    const Vec3 ft{t / (cr.filter[1] * cr.filter[2]), (t / cr.filter[2]) % cr.filter[1], t % cr.filter[2]};
    Vec3 shift;
    for (int a = 0; a < 3; ++a) shift[a] = ft[a] * cr.dil[a];
    for (I64 j = 0; j < cols; ++j) {
      const Vec3& bs = base[static_cast<std::size_t>(j)];
      const I64 z = bs[0] + shift[0], h = bs[1] + shift[1], w = bs[2] + shift[2];
      if (z < 0 || z >= cr.b_sp[0] || h < 0 || h >= cr.b_sp[1] || w < 0 || w >= cr.b_sp[2]) continue;
      f(j, (z * cr.b_sp[1] + h) * cr.b_sp[2] + w);
    }
  }
};

I64 tile_cols(I64 rows, I64 total) { return std::min(total, std::max(kMinTileCols, kTileDoubles / std::max<I64>(rows, 1))); }

// col rows [(bb - b0)*taps + t] for B channels [b0, b1) of sample n, group g: im2col of one tile.
void im2col(const Corr& cr, const TileMap& tm, const float* bp, I64 n, I64 g, I64 b0, I64 b1, RowMat& col) {
  col.setZero(static_cast<Eigen::Index>((b1 - b0) * cr.taps), static_cast<Eigen::Index>(tm.cols));
  for (I64 bb = b0; bb < b1; ++bb) {
    const float* plane = bp + ((n * cr.cb) + g * cr.cbg + bb) * cr.b_size;
    for (I64 t = 0; t < cr.taps; ++t) {
      double* row = col.data() + ((bb - b0) * cr.taps + t) * tm.cols;
      tm.for_tap(t, [&](I64 j, I64 b) { row[j] = plane[b]; });
    }
  }
}

// S channels [s0, s1) of group g, sample n, columns of the tile, as doubles.
void s_tile(const Corr& cr, const TileMap& tm, const float* sp, I64 n, I64 g, I64 s0, I64 s1, RowMat& out) {
  out.resize(static_cast<Eigen::Index>(s1 - s0), static_cast<Eigen::Index>(tm.cols));
  for (I64 ks = s0; ks < s1; ++ks) {
    const float* plane = sp + ((n * cr.cs) + g * cr.csg + ks) * cr.s_size + tm.c0;
    for (I64 j = 0; j < tm.cols; ++j) out(ks - s0, j) = plane[j];
  }
}

// Runs unit(u) for u in [0, units) on up to `threads` threads; units are taken in order.
template <class F>
void run_units(I64 units, int threads, F&& unit) {
  const int nt = static_cast<int>(std::min<I64>(units, threads));
  std::atomic<I64> next{0};
  auto worker = [&] {
    for (I64 u; (u = next.fetch_add(1)) < units;) unit(u);
  };
  if (nt <= 1) return worker();
  std::vector<std::thread> pool;
  for (int i = 0; i < nt; ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

struct Job {
  const Corr& cr;
  bool with_abs;
  const float* s = nullptr;  // packed S (input of scatter and weights)
  const float* b = nullptr;  // packed B (input of gather and weights)
  ConstRowMap w, w_abs;      // [CS x CBg*taps]
  std::array<I64, 5> os;     // output strides
  std::vector<I64> out_sp;   // output spatial (or tap) offsets
  const std::vector<double>* bias = nullptr;  // per output channel, fwd only
  ConvOutput& out;

  void put(I64 o, double v, double a) const {
    out.value[static_cast<std::size_t>(o)] += v;
    if (with_abs) out.abs_sum[static_cast<std::size_t>(o)] += a;
  }
  double bias_of(I64 ch) const { return bias ? (*bias)[static_cast<std::size_t>(ch)] : 0.0; }

  // S[n, g*CSg + ks, tile] = Wg * col (+ bias).
  void gather(int threads) const {
    const I64 rows = cr.cbg * cr.taps, cols = tile_cols(std::max(rows, cr.csg), cr.s_size);
    const I64 tiles = ceil_div(cr.s_size, cols);
    run_units(cr.n * cr.groups * tiles, threads, [&](I64 u) {
      const I64 tile = u % tiles, g = (u / tiles) % cr.groups, n = u / (tiles * cr.groups);
      const TileMap tm(cr, tile * cols, std::min(cols, cr.s_size - tile * cols));
      RowMat col, r, r_abs;
      im2col(cr, tm, b, n, g, 0, cr.cbg, col);
      const auto wg = w.middleRows(g * cr.csg, cr.csg);
      r.noalias() = wg * col;
      if (with_abs) r_abs.noalias() = w_abs.middleRows(g * cr.csg, cr.csg) * col.cwiseAbs();
      for (I64 ks = 0; ks < cr.csg; ++ks) {
        const I64 ch = g * cr.csg + ks;
        const double bv = bias_of(ch);
        for (I64 j = 0; j < tm.cols; ++j)
          put(n * os[0] + ch * os[1] + out_sp[static_cast<std::size_t>(tm.c0 + j)], r(ks, j) + bv,
              with_abs ? r_abs(ks, j) + std::fabs(bv) : 0.0);
      }
    });
  }

  // B[n, g*CBg + bb, :] for bb in one chunk: col = Wg[:, chunk]^T * S_tile, then col2im, (+ bias).
  void scatter(int threads) const {
    const I64 chunk = std::max<I64>(1, kChunkRows / cr.taps), chunks = ceil_div(cr.cbg, chunk);
    const I64 cols = tile_cols(std::max(chunk * cr.taps, cr.csg), cr.s_size), tiles = ceil_div(cr.s_size, cols);
    run_units(cr.n * cr.groups * chunks, threads, [&](I64 u) {
      const I64 ci = u % chunks, g = (u / chunks) % cr.groups, n = u / (chunks * cr.groups);
      const I64 b0 = ci * chunk, b1 = std::min(cr.cbg, b0 + chunk), rows = (b1 - b0) * cr.taps;
      const auto wt = w.block(g * cr.csg, b0 * cr.taps, cr.csg, rows).transpose();
      const auto wt_abs = w_abs.block(g * cr.csg, b0 * cr.taps, cr.csg, rows).transpose();
      RowMat st, col, col_abs;
      for (I64 tile = 0; tile < tiles; ++tile) {
        const TileMap tm(cr, tile * cols, std::min(cols, cr.s_size - tile * cols));
        s_tile(cr, tm, s, n, g, 0, cr.csg, st);
        col.noalias() = wt * st;
        if (with_abs) col_abs.noalias() = wt_abs * st.cwiseAbs();
        for (I64 bb = b0; bb < b1; ++bb) {
          const I64 base = n * os[0] + (g * cr.cbg + bb) * os[1];
          for (I64 t = 0; t < cr.taps; ++t) {
            const I64 r = (bb - b0) * cr.taps + t;
            tm.for_tap(t, [&](I64 j, I64 bpos) {
              put(base + out_sp[static_cast<std::size_t>(bpos)], col(r, j), with_abs ? col_abs(r, j) : 0.0);
            });
          }
        }
      }
      if (!bias) return;
      for (I64 bb = b0; bb < b1; ++bb) {
        const I64 ch = g * cr.cbg + bb, base = n * os[0] + ch * os[1];
        for (I64 bpos = 0; bpos < cr.b_size; ++bpos)
          put(base + out_sp[static_cast<std::size_t>(bpos)], bias_of(ch), std::fabs(bias_of(ch)));
      }
    });
  }

  // W[g*CSg + ks, bb, t] for one (S-channel chunk, B-channel chunk): sum over n, tiles of S_tile * col^T.
  void weights(int threads) const {
    const I64 chunk = std::max<I64>(1, kChunkRows / cr.taps), chunks = ceil_div(cr.cbg, chunk);
    const I64 s_chunks = ceil_div(cr.csg, kChunkSChans);
    const I64 cols = tile_cols(std::max(chunk * cr.taps, std::min(cr.csg, kChunkSChans)), cr.s_size);
    const I64 tiles = ceil_div(cr.s_size, cols);
    run_units(cr.groups * s_chunks * chunks, threads, [&](I64 u) {
      const I64 ci = u % chunks, si = (u / chunks) % s_chunks, g = u / (chunks * s_chunks);
      const I64 b0 = ci * chunk, b1 = std::min(cr.cbg, b0 + chunk), rows = (b1 - b0) * cr.taps;
      const I64 s0 = si * kChunkSChans, s1 = std::min(cr.csg, s0 + kChunkSChans);
      RowMat acc = RowMat::Zero(s1 - s0, rows), acc_abs, st, col;
      if (with_abs) acc_abs = RowMat::Zero(s1 - s0, rows);
      for (I64 n = 0; n < cr.n; ++n)
        for (I64 tile = 0; tile < tiles; ++tile) {
          const TileMap tm(cr, tile * cols, std::min(cols, cr.s_size - tile * cols));
          im2col(cr, tm, b, n, g, b0, b1, col);
          s_tile(cr, tm, s, n, g, s0, s1, st);
          acc.noalias() += st * col.transpose();
          if (with_abs) acc_abs.noalias() += st.cwiseAbs() * col.cwiseAbs().transpose();
        }
      for (I64 ks = s0; ks < s1; ++ks)
        for (I64 bb = b0; bb < b1; ++bb)
          for (I64 t = 0; t < cr.taps; ++t) {
            const I64 r = (bb - b0) * cr.taps + t;
            put((g * cr.csg + ks) * os[0] + bb * os[1] + out_sp[static_cast<std::size_t>(t)], acc(ks - s0, r),
                with_abs ? acc_abs(ks - s0, r) : 0.0);
          }
    });
  }
};

}  // namespace

ConvOutput conv_fast(const ConvProblem& p, const ConvInputs& in, bool with_abs_sum, const TensorDesc* out_desc,
                     int threads) {
  ConvOutput out;
  out.desc = detail::check_conv_call(p, in, out_desc);
  const auto n_out = static_cast<std::size_t>(out.desc.storage_elements());
  out.value.assign(n_out, 0.0);
  if (with_abs_sum) out.abs_sum.assign(n_out, 0.0);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, kMaxThreads);

  const Corr cr = make_corr(p);
  const bool conv = p.mode == ConvMode::conv;
  const HostTensor* s_in = conv ? in.y : in.x;
  const HostTensor* b_in = conv ? in.x : in.y;
  std::vector<float> s_packed, b_packed;
  std::vector<double> w_d, w_abs_d, bias_d;
  if (p.dir != ConvDir::bwd_weights) {
    const std::vector<float> wp = pack_rounded(*in.w, p.dtype);
    w_d.assign(wp.begin(), wp.end());
    w_abs_d.resize(w_d.size());
    for (std::size_t i = 0; i < w_d.size(); ++i) w_abs_d[i] = std::fabs(w_d[i]);
  }
  if (p.dir == ConvDir::fwd && p.bias) {
    const std::vector<float> bp = detail::rounded_storage(*in.bias, p.dtype);
    for (I64 k = 0; k < p.k; ++k) bias_d.push_back(bp[static_cast<std::size_t>(k * in.bias->desc.strides[0])]);
  }
  const I64 w_cols = cr.cbg * cr.taps;
  Job job{cr, with_abs_sum, nullptr, nullptr,
          ConstRowMap(w_d.data(), w_d.empty() ? 0 : cr.cs, w_cols),
          ConstRowMap(w_abs_d.data(), w_abs_d.empty() ? 0 : cr.cs, w_cols),
          detail::strides5(out.desc), {}, bias_d.empty() ? nullptr : &bias_d, out};
  const bool gather = p.dir != ConvDir::bwd_weights && (p.dir == ConvDir::fwd) == conv;
  if (p.dir == ConvDir::bwd_weights) {
    s_packed = pack_rounded(*s_in, p.dtype);
    b_packed = pack_rounded(*b_in, p.dtype);
    job.s = s_packed.data();
    job.b = b_packed.data();
    job.out_sp = spatial_offsets(cr.filter, job.os);
    job.weights(threads);
  } else if (gather) {
    b_packed = pack_rounded(*b_in, p.dtype);
    job.b = b_packed.data();
    job.out_sp = spatial_offsets(cr.s_sp, job.os);
    job.gather(threads);
  } else {
    s_packed = pack_rounded(*s_in, p.dtype);
    job.s = s_packed.data();
    job.out_sp = spatial_offsets(cr.b_sp, job.os);
    job.scatter(threads);
  }
  return out;
}

}  // namespace hiprim::ref
