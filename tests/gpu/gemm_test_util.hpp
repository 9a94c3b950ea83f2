// Helpers of the GEMM and GEMM-conv tests: integer fills, dtype encoding, the exact-tier comparison,
// and the batched split-view case both GEMM engines run. Device buffers: tests/gpu/guarded_device.hpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/dtype.hpp"
#include "gpu/gemm/gemm.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

namespace hiprim::test_gemm {

// Whole numbers in [-2, 2]: every product is in [-4, 4], so a dot product of length L has
// |sum| <= 4L, exact in fp32 (and in every partial sum) while 4L < 2^24 — the exact tier.
inline float small_int(std::mt19937& rng) { return static_cast<float>(static_cast<int>(rng() % 5) - 2); }

inline std::vector<unsigned char> encode(DType t, const std::vector<float>& v) {
  std::vector<unsigned char> bytes(v.size() * dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) store_element(t, bytes.data() + i * dtype_size(t), v[i]);
  return bytes;
}

inline std::vector<float> decode(DType t, const std::vector<unsigned char>& bytes) {
  std::vector<float> v(bytes.size() / dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_element(t, bytes.data() + i * dtype_size(t));
  return v;
}

// Exact-tier comparison: got must equal expected (already rounded to the dtype) and not be NaN.
inline bool exact_equal(float got, float expected) { return !std::isnan(got) && got == expected; }

// Batched GEMM through split views, exact tier, on the device: batch 3, M 37, K, 3 images of P
// pixels (N = 3P). A is transposed, [b][k][m] with a_gap elements after each batch; B an NCHW-like
// view (column = (image, pixel), batch = channel group); C an NHWC-like view, [image][pixel][b][m]
// with 7 elements after each image. Every C element must equal the rounded double product, the gaps
// of C must still hold the poison, the inputs be unmodified and every guard intact (gtest failures,
// at most 10 of the values).
inline void check_batched_split_views(gpu::GemmEngine engine, DType dt, int P, int K, int a_gap, std::uint32_t seed) {
  const int batch = 3, M = 37, images = 3, N = images * P;
  const int a_bstride = K * M + a_gap, c_istride = P * batch * M + 7;
  std::mt19937 rng(seed);
  const auto a_off = [&](int b, int m, int k) { return b * a_bstride + k * M + m; };
  const auto b_off = [&](int b, int k, int n) { return (n / P) * (batch * K * P) + (b * K + k) * P + n % P; };
  const auto c_off = [&](int b, int m, int n) { return (n / P) * c_istride + (n % P) * (batch * M) + b * M + m; };
  std::vector<float> a(batch * a_bstride), b(images * batch * K * P);
  for (auto& v : a) v = small_int(rng);  // the gaps too: reading one changes a sum
  for (auto& v : b) v = small_int(rng);
  const std::size_t c_elems = images * c_istride;
  const std::vector<unsigned char> a_bytes = encode(dt, a), b_bytes = encode(dt, b);
  gputest::GuardedBuffer da = gputest::guarded_input(a_bytes, "A"), db = gputest::guarded_input(b_bytes, "B");
  gputest::GuardedBuffer dc = gputest::guarded_output(c_elems * dtype_size(dt), dt, "C");
  gpu::GemmCall call;
  call.engine = engine;
  call.shape = gpu::GemmShape{M, N, K, batch};
  call.ab_dtype = call.c_dtype = dt;
  call.a = da.data();
  call.a_map = {gpu::DimMap::plain(1), gpu::DimMap::plain(M), gpu::DimMap::plain(a_bstride)};
  call.b = db.data();
  call.b_map = {gpu::DimMap::plain(P), gpu::DimMap::split(P, 1, batch * K * P), gpu::DimMap::plain(K * P)};
  call.c = dc.data();
  call.c_map = {gpu::DimMap::plain(1), gpu::DimMap::split(P, batch * M, c_istride), gpu::DimMap::plain(M)};
  gpu::gemm(call);
  gpu::synchronize("batched split-view gemm");
  const gputest::Readback rc = gputest::read_back(dc);
  EXPECT_EQ(rc.guard_error, "");
  EXPECT_EQ(gputest::input_error(da, a_bytes), "");
  EXPECT_EQ(gputest::input_error(db, b_bytes), "");
  const std::vector<float> C = decode(dt, rc.payload);
  std::vector<char> written(c_elems, 0);
  int failures = 0;
  for (int bb = 0; bb < batch; ++bb)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += double(a[a_off(bb, m, k)]) * b[b_off(bb, k, n)];
        const int o = c_off(bb, m, n);
        written[o] = 1;
        if (!exact_equal(C[o], round_to(dt, s)) && ++failures <= 10)
          ADD_FAILURE() << "C[" << bb << "][" << m << "][" << n << "] = " << C[o] << ", want " << s;
      }
  for (std::size_t i = 0; i < c_elems; ++i)
    if (!written[i] && !gputest::still_poison(dt, rc.payload, i) && ++failures <= 10)
      ADD_FAILURE() << "gap element " << i << " was written";
}

}  // namespace hiprim::test_gemm
