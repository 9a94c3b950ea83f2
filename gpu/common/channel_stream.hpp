// A packed N x C x S tensor (S = D*H*W) streamed as V-element packs in storage order, with the
// channel of every pack, for per-channel elementwise passes (e.g. batch norm's normalize):
//   channels-last (C % V == 0):  pack i holds channels (i*V) % C .. (i*V) % C + V - 1;
//   channels-first (S % V == 0): pack i lies in plane i / (S/V), channel (i / (S/V)) % C (all V lanes).
// Channel-stationary grids (channels-last): a grid-stride walk with T threads visits packs t, t + T,
// t + 2T, ...; when (T*V) % C == 0 all of them hold the same channels (t*V) % C .., so a thread
// loads its per-channel coefficients once. T = grid * block, so the grid must be a multiple of
// q = C / gcd(C, block*V) (1 for every C dividing block*V, e.g. C = 64 .. 2048 with 256 x 8).
// stationary_grid() picks such a grid. Host and device (tests/gpu/test_ops_math.cpp checks both
// decodes and the grid rule on the host).
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "core/host_device.hpp"
#include "gpu/common/fast_div.hpp"

namespace hiprim::gpu {

struct ChannelStream {
  long long packs = 0;  // N*C*S / V
  long long C = 1, SV = 1;  // channels; packs per plane (channels-first: S / V)
  int V = 1;
  bool channels_last = true;
  bool fast = false;         // packs < 2^31: the 32-bit decode (FastDiv)
  FastDiv plane_packs, channels;  // S/V and C (channels-first, fast)

  // First channel of pack i.
  HIPRIM_HOST_DEVICE long long channel(long long i) const {
    if (channels_last) return (i * V) % C;
    if (fast) {
      const std::uint32_t plane = plane_packs.div(static_cast<std::uint32_t>(i));
      std::uint32_t q, c;
      channels.divmod(plane, q, c);
      return c;
    }
    return (i / SV) % C;
  }
};

// C % V == 0 (channels-last) or S % V == 0 (channels-first) is the caller's precondition.
inline ChannelStream channel_stream(long long N, long long C, long long S, bool channels_last, int V) {
  ChannelStream s;
  s.packs = N * C * S / V;
  s.C = std::max<long long>(C, 1);
  s.SV = std::max<long long>(S / V, 1);
  s.V = V;
  s.channels_last = channels_last;
  s.fast = s.packs < kFastDivLimit;
  if (!channels_last && s.fast) {
    s.plane_packs = FastDiv(static_cast<std::uint32_t>(s.SV));
    s.channels = FastDiv(static_cast<std::uint32_t>(s.C));
  }
  return s;
}

// Blocks q a channel-stationary grid must be a multiple of: C / gcd(C, block * V).
inline long long stationary_quantum(long long C, int block, int V) {
  return C / std::gcd(C, static_cast<long long>(block) * V);
}

// A channel-stationary grid near `want` blocks (the grid-stride target): ceil(want / q) * q,
// at least q, at most the largest multiple of q within `resident` (the blocks the device keeps
// resident at once); 0 when q > resident (no such grid fits in one wave).
inline long long stationary_grid(long long C, int block, int V, long long want, long long resident) {
  const long long q = stationary_quantum(C, block, V), cap = resident / q * q;
  if (cap < q) return 0;
  const long long g = (std::max<long long>(want, 1) + q - 1) / q * q;
  return std::min(g, cap);
}

}  // namespace hiprim::gpu
