// The work split of the spatial batch-norm kernels (gpu/bnorm/bnorm_persistent.hip): items of a
// channel tile x a row slice, each thread's packs of an item in a fixed order, and the
// deterministic tree that sums per-channel values over a block.
// Views of x (S = D*H*W, V = pack lanes):
//   channels-last: rows r in [0, N*S), each row C contiguous values = P = C/V packs. A block is
//     tx x ty threads (tx a power of two <= 32, >= P when P < 32); thread (tx_i, ty_i), t = ty_i*tx
//     + tx_i, owns the V channels c0 = (ctile*tx + tx_i)*V .. c0+V-1 (none when c0 >= C) and visits
//     rows r0 + ty_i, r0 + ty_i + ty, ... of the item's slice [r0, r1) (a warp reads whole row
//     segments). groups = ctiles = ceil(P / tx).
//   channels-first: channel c is N planes of S values at n*C*S + c*S; its packs q in [0, N*S/V)
//     (plane q / (S/V), pack q % (S/V)); thread t visits q0 + t, q0 + t + B, ... of the slice.
//     groups = C; tx = 1, ty = B.
// Items: item = slice * groups + group, slices = max(1, floor(G / groups)) for a grid of G
// blocks, so every block has at most one item when groups <= G; block b takes the items b,
// b + G, ... . Visit k of a thread counts its packs over all its items in that order.
#pragma once
#include <algorithm>
#include <initializer_list>

#include "core/bnorm_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/common/vec_pack.hpp"

namespace hiprim::gpu {

struct BnGeom {
  long long N, C, S;
  int V;                    // pack lanes
  bool channels_last;
  int block, tx, ty;        // threads per block; tx * ty = block
  long long groups;         // ctiles (channels-last) or C
  long long units;          // rows (channels-last) or packs per channel (channels-first)
  long long slices, slice;  // row/pack slices per group and units per slice
  long long items;          // slices * groups
  FastDiv packs_per_plane;  // channels-first: S / V (used when units < 2^31)
  float m_f, unbias, eps, momentum;
};

inline long long bn_ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// grid: the blocks of the launch (items are spread over them).
inline BnGeom bn_geom(long long N, long long C, long long S, bool channels_last, int V, int block, long long grid) {
  BnGeom g{};
  g.N = N, g.C = C, g.S = S, g.V = V, g.channels_last = channels_last, g.block = block;
  if (channels_last) {
    const long long packs = C / V;
    g.tx = 1;
    while (g.tx < 32 && g.tx < packs && g.tx < block) g.tx *= 2;
    g.ty = block / g.tx;
    g.groups = bn_ceil_div(packs, g.tx);
    g.units = N * S;
  } else {
    g.tx = 1, g.ty = block;
    g.groups = C;
    g.units = N * S / V;
    g.packs_per_plane = FastDiv(static_cast<std::uint32_t>(std::min<long long>(S / V, kFastDivLimit - 1)));
  }
  g.slices = std::clamp<long long>(grid / g.groups, 1, std::max<long long>(g.units, 1));
  g.slice = std::max<long long>(bn_ceil_div(g.units, g.slices), 1);
  g.slices = bn_ceil_div(g.units, g.slice);
  g.items = g.slices * g.groups;
  return g;
}

// Most visits one thread makes over its items (with `grid` blocks).
inline long long bn_max_visits(const BnGeom& g, long long grid) {
  const long long per_item = bn_ceil_div(g.slice, g.channels_last ? g.ty : g.block);
  return bn_ceil_div(g.items, grid) * per_item;
}

// The thread's first channel of an item (channels-last: c0, C or more when idle; first: c).
__device__ __forceinline__ long long bn_item_channel(const BnGeom& g, long long item) {
  const long long grp = item % g.groups;
  if (!g.channels_last) return grp;
  return (grp * g.tx + threadIdx.x % g.tx) * g.V;
}
__device__ __forceinline__ long long bn_item_slice(const BnGeom& g, long long item) { return item / g.groups; }

// Element offset of pack u of channel c in channels-first storage (N planes of S values per
// channel, V values per pack): plane n = u / (S/V), pack s = u % (S/V) (packs_per_plane = S/V, u < 2^31).
__device__ __forceinline__ long long bn_plane_pack_offset(const FastDiv& packs_per_plane, long long C, long long S, long long c,
                                                          long long u, int V) {
  std::uint32_t n, s;
  packs_per_plane.divmod(static_cast<std::uint32_t>(u), n, s);
  return n * (C * S) + c * S + static_cast<long long>(s) * V;
}

// Channel of lane j of a thread whose first channel is c0 (channels first: every lane is c0).
template <bool CL>
__device__ __forceinline__ long long lane_channel(long long c0, int j) {
  if constexpr (CL) return c0 + j;
  else return c0;
}

// fwd-train's per-channel outputs of channel ch: the saved statistics, and the running ones moved
// by the momentum (running_var takes the unbiased variance, var * M/(M-1)).
__device__ __forceinline__ void bn_store_train_stats(float* saved_mean, float* saved_inv, float* running_mean, float* running_var,
                                                     long long ch, float mean, float inv, float var, float momentum, float unbias) {
  const float keep = 1.0f - momentum;
  saved_mean[ch] = mean;
  saved_inv[ch] = inv;
  running_mean[ch] = keep * running_mean[ch] + momentum * mean;
  running_var[ch] = keep * running_var[ch] + momentum * var * unbias;
}

// The thread's visits of one item, as an arithmetic progression: units first + i * step for i in
// [0, n) (rows channels-last, packs channels-first), the thread's channel c0 (channels-last: its
// first lane's, C or more when idle; channels-first: the item's channel) and the item's slice.
// The kernels that take the layout as a template parameter (CL) use these; bn_walk is the same
// order for a layout known only at run time.
struct BnVisits {
  long long first, step, c0, slice;
  int n;
};

template <bool CL>
__device__ __forceinline__ BnVisits bn_visits(const BnGeom& g, long long item) {
  BnVisits v;
  const long long grp = item % g.groups;
  v.slice = item / g.groups;
  const long long u0 = v.slice * g.slice, u1 = std::min(u0 + g.slice, g.units);
  if constexpr (CL) {
    v.c0 = (grp * g.tx + threadIdx.x % g.tx) * g.V;
    v.first = u0 + threadIdx.x / g.tx;
    v.step = g.ty;
  } else {
    v.c0 = grp;
    v.first = u0 + threadIdx.x;
    v.step = g.block;
  }
  const bool live = (!CL || v.c0 < g.C) && v.first < u1;
  v.n = live ? static_cast<int>((u1 - v.first + v.step - 1) / v.step) : 0;
  return v;
}

// Element offset of the thread's visit i of an item (channels-first: plane n = u / (S/V), pack s = u % (S/V)).
template <bool CL>
__device__ __forceinline__ long long bn_offset(const BnGeom& g, const BnVisits& v, int i) {
  const long long u = v.first + static_cast<long long>(i) * v.step;
  if constexpr (CL) return u * g.C + v.c0;
  else return bn_plane_pack_offset(g.packs_per_plane, g.C, g.S, v.c0, u, g.V);
}

// Calls f(o, n, k) for the thread's packs of an item in batches of n = U (then n = 1 for the rest):
// o[0 .. n) the packs' element offsets, k the visit number of o[0]; advances k by the visits made.
// (n is a constant at each call: after inlining, the callback's loops over u < n unroll.)
template <int U, typename F>
__device__ __forceinline__ void bn_walk(const BnGeom& g, long long item, int& k, F&& f) {
  const long long slice = bn_item_slice(g, item);
  const long long u0 = slice * g.slice, u1 = std::min(u0 + g.slice, g.units);
  long long o[U];
  if (g.channels_last) {
    const long long c0 = bn_item_channel(g, item);
    if (c0 >= g.C) return;
    const long long ty = g.ty;
    long long r = u0 + threadIdx.x / g.tx;
    for (; r + (U - 1) * ty < u1; r += U * ty, k += U) {
#pragma unroll
      for (int u = 0; u < U; ++u) o[u] = (r + u * ty) * g.C + c0;
      f(o, U, k);
    }
    for (; r < u1; r += ty, ++k) {
      o[0] = r * g.C + c0;
      f(o, 1, k);
    }
  } else {
    const long long c = bn_item_channel(g, item), B = g.block;
    auto offset = [&](long long q) { return bn_plane_pack_offset(g.packs_per_plane, g.C, g.S, c, q, g.V); };
    long long q = u0 + threadIdx.x;
    for (; q + (U - 1) * B < u1; q += U * B, k += U) {
#pragma unroll
      for (int u = 0; u < U; ++u) o[u] = offset(q + u * B);
      f(o, U, k);
    }
    for (; q < u1; q += B, ++k) {
      o[0] = offset(q);
      f(o, 1, k);
    }
  }
}

// Sums W values per thread over the block's rows (column_reduce, gpu/common/block_reduce.hpp):
// the sums of each (tx_i, j) over ty_i go to the threads of row 0. scratch: (block / 2 + tx) * W.
template <int W, typename A>
__device__ void bn_column_sum(const BnGeom& g, A (&v)[W], A* scratch) {
  column_reduce<W>(g.tx, g.ty, v, scratch, SumOp{});
}

// Pack lanes for a problem and its buffers (host): 16 bytes, 8 bytes, then scalars, the widest that
// divides the contiguous extent (C channels-last, S channels-first) with every pointer aligned.
template <typename T>
int pick_lanes(const BnormProblem& p, std::initializer_list<const void*> data) {
  const long long C = p.shape.c, S = p.shape.elements() / (p.shape.n * C), along = p.shape.channels_last ? C : S;
  constexpr int V = kVec<T>;
  if (along % V == 0 && all_aligned<T, V>(data)) return V;
  if (along % (V / 2) == 0 && all_aligned<T, V / 2>(data)) return V / 2;
  return 1;
}

}  // namespace hiprim::gpu
