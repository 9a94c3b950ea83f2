// Tests of the tiled GEMM (gpu/gemm): argument checks, and on the device (skipped without a GPU)
// exact results on odd sizes, layouts, batches and split views against a double-precision CPU loop.
// Operand placement on the host uses explicit formulas, never DimMap. The index layer's tests are
// host-only (test_gemm_index.cpp, built without nvcc too).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>
#include <vector>

#include "core/error.hpp"
#include "gpu/gemm/gemm.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/gemm_test_util.hpp"

namespace hiprim::gpu {
namespace {

using test_gemm::decode;
using test_gemm::encode;
using test_gemm::exact_equal;
using test_gemm::small_int;

// ---- host: argument checks (no device call happens before them) ----

TEST(GemmArgs, RejectsBadSizesDtypesAndNullPointers) {
  float dummy = 0.0f;
  GemmCall c;
  c.a = c.b = &dummy;
  c.c = &dummy;
  c.shape = GemmShape{-1, 2, 2, 1};
  EXPECT_THROW(
      {
        try {
          gemm(c);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("GEMM M = -1"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  c.shape = GemmShape{2, 2, kGemmMaxSize + 1, 1};
  EXPECT_THROW(gemm(c), InputError);
  c.shape = GemmShape{2, 2, 2, 1};
  c.ab_dtype = DType::bf16;
  c.c_dtype = DType::fp16;
  EXPECT_THROW(
      {
        try {
          gemm(c);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("c_dtype fp16"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  c.c_dtype = DType::bf16;
  c.k_splits = 65;
  EXPECT_THROW(gemm(c), InputError);
  c.k_splits = 2;  // no workspace
  EXPECT_THROW(gemm(c), InputError);
  c.k_splits = 1;
  c.c = nullptr;
  EXPECT_THROW(gemm(c), InputError);
}

// ---- device ----

struct DeviceMatrices {
  test_gemm::GuardedBuffer a, b, c;
  DeviceMatrices(std::size_t a_bytes, std::size_t b_bytes, std::size_t c_bytes)
      : a(a_bytes, "gemm test A"), b(b_bytes, "gemm test B"), c(c_bytes, "gemm test C") {}
};

// C = A x B on odd sizes, every dtype, all 8 row/column-major combinations (by the case index).
class GemmSizes : public ::testing::TestWithParam<DType> {};

TEST_P(GemmSizes, ExactOnOddSizesAndLayouts) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const DType dt = GetParam();
  const std::vector<int> sizes{1, 7, 63, 64, 65, 129};
  const std::size_t es = dtype_size(dt), maxe = 129 * 129;
  const std::size_t tail = 64;  // C elements past M*N that must stay poisoned
  DeviceMatrices dev(maxe * es, maxe * es, (maxe + tail) * es);
  std::mt19937 rng(1234);
  int case_index = 0, failures = 0;
  for (int M : sizes)
    for (int N : sizes)
      for (int K : sizes) {
        const bool a_cm = case_index & 1, b_cm = case_index & 2, c_cm = case_index & 4;
        ++case_index;
        std::vector<float> A(M * K), B(K * N), a_store(M * K), b_store(K * N);
        for (auto& v : A) v = small_int(rng);
        for (auto& v : B) v = small_int(rng);
        for (int m = 0; m < M; ++m)
          for (int k = 0; k < K; ++k) a_store[a_cm ? m + k * M : m * K + k] = A[m * K + k];
        for (int k = 0; k < K; ++k)
          for (int n = 0; n < N; ++n) b_store[b_cm ? k + n * K : k * N + n] = B[k * N + n];
        dev.a.buf.upload(encode(dt, a_store).data(), a_store.size() * es);
        dev.b.buf.upload(encode(dt, b_store).data(), b_store.size() * es);
        dev.c.buf.fill_bytes(0xFF);
        GemmCall call;
        call.shape = GemmShape{M, N, K, 1};
        call.ab_dtype = call.c_dtype = dt;
        call.a = dev.a.data();
        call.a_map = {DimMap::plain(a_cm ? 1 : K), DimMap::plain(a_cm ? M : 1), DimMap::plain(0)};
        call.b = dev.b.data();
        call.b_map = {DimMap::plain(b_cm ? 1 : N), DimMap::plain(b_cm ? K : 1), DimMap::plain(0)};
        call.c = dev.c.data();
        call.c_map = {DimMap::plain(c_cm ? 1 : N), DimMap::plain(c_cm ? M : 1), DimMap::plain(0)};
        gemm(call);
        gpu::synchronize("gemm size sweep");
        std::vector<unsigned char> cb((M * N + tail) * es);
        dev.c.buf.download(cb.data(), cb.size());
        const std::vector<float> C = decode(dt, cb);
        for (int m = 0; m < M && failures < 10; ++m)
          for (int n = 0; n < N && failures < 10; ++n) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * B[k * N + n];
            const float want = round_to(dt, s), got = C[c_cm ? m + n * M : m * N + n];
            if (!exact_equal(got, want))
              ADD_FAILURE() << "M=" << M << " N=" << N << " K=" << K << " layouts " << a_cm << b_cm << c_cm
                            << ": C[" << m << "][" << n << "] = " << got << ", want " << want << " (" << ++failures
                            << ")";
          }
        for (std::size_t i = M * N; i < C.size(); ++i)
          if (!std::isnan(C[i])) ADD_FAILURE() << "M=" << M << " N=" << N << ": wrote past C at element " << i;
      }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, GemmSizes, ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Batched GEMM through split views: A transposed with a batch gap, B an NCHW-like view (column =
// (image, pixel), batch = channel group), C an NHWC-like view with a gap after each image. The gaps
// must stay poisoned.
TEST(GemmDevice, BatchedSplitViewsAllDtypes) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const int batch = 3, M = 37, K = 45, images = 3, P = 23, N = images * P;
  const int a_bstride = K * M + 5, c_istride = P * batch * M + 7;
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    std::mt19937 rng(99);
    const auto a_off = [&](int b, int m, int k) { return b * a_bstride + k * M + m; };
    const auto b_off = [&](int b, int k, int n) { return (n / P) * (batch * K * P) + (b * K + k) * P + n % P; };
    const auto c_off = [&](int b, int m, int n) { return (n / P) * c_istride + (n % P) * (batch * M) + b * M + m; };
    std::vector<float> a(batch * a_bstride, 0.0f), b(images * batch * K * P, 0.0f);
    for (int bb = 0; bb < batch; ++bb)
      for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) a[a_off(bb, m, k)] = small_int(rng);
    for (auto& v : b) v = small_int(rng);
    const std::size_t es = dtype_size(dt), c_elems = images * c_istride;
    DeviceMatrices dev(a.size() * es, b.size() * es, c_elems * es);
    dev.a.buf.upload(encode(dt, a).data(), a.size() * es);
    dev.b.buf.upload(encode(dt, b).data(), b.size() * es);
    GemmCall call;
    call.shape = GemmShape{M, N, K, batch};
    call.ab_dtype = call.c_dtype = dt;
    call.a = dev.a.data();
    call.a_map = {DimMap::plain(1), DimMap::plain(M), DimMap::plain(a_bstride)};
    call.b = dev.b.data();
    call.b_map = {DimMap::plain(P), DimMap::split(P, 1, batch * K * P), DimMap::plain(K * P)};
    call.c = dev.c.data();
    call.c_map = {DimMap::plain(1), DimMap::split(P, batch * M, c_istride), DimMap::plain(M)};
    gemm(call);
    gpu::synchronize("batched gemm");
    const std::vector<float> C = decode(dt, dev.c.download());
    EXPECT_TRUE(dev.c.guard_intact());
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
      if (!written[i] && !std::isnan(C[i]) && ++failures <= 10) ADD_FAILURE() << "gap element " << i << " was written";
  }
}

// fp16/bf16 inputs with an fp32 C: with entries in {1, 2} and K = 1000 the sums are integers in
// [1000, 4000], exact in fp32, but most need more than bf16's 8 or fp16's 11 significant bits.
TEST(GemmDevice, Fp32OutputKeepsTheExactSum) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const int M = 33, N = 17, K = 1000;
  for (DType dt : {DType::fp16, DType::bf16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    std::vector<float> A(M * K), B(K * N);
    std::mt19937 rng(5);
    for (auto& v : A) v = (rng() & 1) ? 2.0f : 1.0f;
    for (auto& v : B) v = (rng() & 1) ? 2.0f : 1.0f;
    const std::size_t es = dtype_size(dt);
    DeviceMatrices dev(A.size() * es, B.size() * es, M * N * sizeof(float));
    dev.a.buf.upload(encode(dt, A).data(), A.size() * es);
    dev.b.buf.upload(encode(dt, B).data(), B.size() * es);
    GemmCall call;
    call.shape = GemmShape{M, N, K, 1};
    call.ab_dtype = dt;
    call.c_dtype = DType::fp32;
    call.a = dev.a.data();
    call.a_map = {DimMap::plain(K), DimMap::plain(1), DimMap::plain(0)};
    call.b = dev.b.data();
    call.b_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(0)};
    call.c = dev.c.data();
    call.c_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(0)};
    gemm(call);
    gpu::synchronize("fp32-output gemm");
    const std::vector<float> C = decode(DType::fp32, dev.c.download());
    EXPECT_TRUE(dev.c.guard_intact());
    int failures = 0, not_in_dtype = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * B[k * N + n];
        not_in_dtype += round_to(dt, s) != static_cast<float>(s);
        if (!exact_equal(C[m * N + n], static_cast<float>(s)) && ++failures <= 10)
          ADD_FAILURE() << "C[" << m << "][" << n << "] = " << C[m * N + n] << ", want " << s;
      }
    EXPECT_GT(not_in_dtype, M * N / 4) << "too few sums need fp32: the test could not tell a 16-bit store";
  }
}

// Deterministic split-K: slices of K summed in a second pass; 64 splits leave the last slice empty.
TEST(GemmDevice, SplitKIsExactIncludingEmptySlices) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const int batch = 2, M = 37, N = 29, K = 3000;
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16})
    for (std::int64_t splits : {2, 7, 64}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " splits " + std::to_string(splits));
      std::mt19937 rng(static_cast<std::uint32_t>(splits));
      std::vector<float> A(batch * M * K), B(batch * K * N);  // [b][m][k] and [b][k][n]
      for (auto& v : A) v = small_int(rng);
      for (auto& v : B) v = small_int(rng);
      const std::size_t es = dtype_size(dt);
      DeviceMatrices dev(A.size() * es, B.size() * es, batch * M * N * es);
      dev.a.buf.upload(encode(dt, A).data(), A.size() * es);
      dev.b.buf.upload(encode(dt, B).data(), B.size() * es);
      GemmCall call;
      call.shape = GemmShape{M, N, K, batch};
      call.ab_dtype = call.c_dtype = dt;
      call.a = dev.a.data();
      call.a_map = {DimMap::plain(K), DimMap::plain(1), DimMap::plain(M * K)};
      call.b = dev.b.data();
      call.b_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(K * N)};
      call.c = dev.c.data();
      call.c_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(M * N)};
      call.k_splits = splits;
      test_gemm::GuardedBuffer ws(gemm_workspace_bytes(call), "split-K workspace");
      call.workspace = ws.data();
      gemm(call);
      gpu::synchronize("split-K gemm");
      const std::vector<float> C = decode(dt, dev.c.download());
      EXPECT_TRUE(dev.c.guard_intact());
      EXPECT_TRUE(ws.guard_intact());
      int failures = 0;
      for (int b = 0; b < batch; ++b)
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            double sum = 0;
            for (int k = 0; k < K; ++k) sum += double(A[(b * M + m) * K + k]) * B[(b * K + k) * N + n];
            const float got = C[(b * M + m) * N + n];
            if (!exact_equal(got, round_to(dt, sum)) && ++failures <= 10)
              ADD_FAILURE() << "C[" << b << "][" << m << "][" << n << "] = " << got << ", want " << sum;
          }
    }
}

TEST(GemmDevice, EmptyReductionGivesZero) {
  HIPRIM_SKIP_WITHOUT_GPU();
  test_gemm::GuardedBuffer c(5 * 6 * sizeof(float), "gemm K=0 C");
  GemmCall call;
  call.shape = GemmShape{5, 6, 0, 1};
  call.c = c.data();
  call.c_map = {DimMap::plain(6), DimMap::plain(1), DimMap::plain(0)};
  gemm(call);  // a and b stay null: nothing may be read
  gpu::synchronize("gemm K=0");
  for (float v : decode(DType::fp32, c.download())) EXPECT_EQ(v, 0.0f);
  EXPECT_TRUE(c.guard_intact());
}

}  // namespace
}  // namespace hiprim::gpu
