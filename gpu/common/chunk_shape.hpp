// The shape of a one-pass walk (stream_chunks<U>, gpu/common/stream_loop.hpp): U items per thread
// in flight, B threads per block, one block per chunk of U*B items. Perf configs:
//   "b<B>"       U = 4, B in {64, 128, 256, 512} (the s19 copy shape)
//   "u<U>.b<B>"  U in {1, 2}, B in {128, 256}: smaller chunks per block and fewer registers per thread
//                (u1.b128 is the shape of PyTorch's vectorized elementwise kernels: one 16-byte pack
//                per thread and tensor, 128-thread blocks).
// with_unroll(U, f) calls f.template operator()<U>() with U as a constant (1, 2 or 4).
#pragma once
#include <string>
#include <vector>

#include "core/error.hpp"

namespace hiprim::gpu {

struct ChunkShape {
  int unroll = 4;
  int block = 256;
};

inline const std::vector<std::string>& chunk_shape_configs() {
  static const std::vector<std::string> configs = {"b64", "b128", "b256", "b512", "u1.b128", "u1.b256", "u2.b128", "u2.b256"};
  return configs;
}

// The shape of a config of chunk_shape_configs() (InputError naming the list otherwise).
inline ChunkShape chunk_shape_of(const std::string& config) {
  for (const std::string& c : chunk_shape_configs()) {
    if (c != config) continue;
    if (c[0] == 'b') return {4, std::stoi(c.substr(1))};
    return {std::stoi(c.substr(1, 1)), std::stoi(c.substr(4))};
  }
  std::string all;
  for (const std::string& c : chunk_shape_configs()) all += (all.empty() ? "" : ", ") + c;
  throw InputError("unknown one-pass walk config '" + config + "' (" + all + ")");
}

// The default walk for a tensor of `bytes` bytes per streamed tensor: u1.b256 at every size. Measured
// (H100, s23 call 1, hiprim tune over every config beside PyTorch in the same run, ResNet-50's ReLU fwd
// and residual-add lines at batch 32, inputs rotated over 3x the L2): fp32 ReLU u1 1.1-1.4 us faster
// than b256 from 3 MB to 103 MB (32x512x7x7: 4.19 vs 5.13 us, PyTorch 3.61; 32x64x112x112: 69.85 vs
// 71.02, PyTorch 70.11); bf16 ReLU every config within 1%; 16-bit add u1 5-10% faster than the
// resident loop (32x256x56x56: 52.43 vs 55.78 us, PyTorch 52.13) and 20-25% faster than b256; fp32 add
// every config within 1.5% (the resident loop 7% slower on the largest).
inline std::string default_chunk_shape(long long /*bytes*/) { return "u1.b256"; }

template <typename F>
decltype(auto) with_unroll(int unroll, F&& f) {
  switch (unroll) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 4: return f.template operator()<4>();
  }
  throw InputError("one-pass walk: unroll " + std::to_string(unroll) + " is not 1, 2 or 4");
}

}  // namespace hiprim::gpu
