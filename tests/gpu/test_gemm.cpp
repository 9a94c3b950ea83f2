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

using gputest::guarded_input;
using gputest::guarded_output;
using gputest::GuardedBuffer;
using gputest::read_back;

// C = A x B on odd sizes, every dtype, all 8 row/column-major combinations (by the case index);
// each case in its own guarded buffers, C poisoned: every C element compared, the guards around C
// intact (nothing written past or before it), A and B unmodified.
class GemmSizes : public ::testing::TestWithParam<DType> {};

TEST_P(GemmSizes, ExactOnOddSizesAndLayouts) {
  HIPRIM_SKIP_WITHOUT_GPU();
  const DType dt = GetParam();
  const std::vector<int> sizes{1, 7, 63, 64, 65, 129};
  const std::size_t es = dtype_size(dt);
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
        const std::vector<unsigned char> a_bytes = encode(dt, a_store), b_bytes = encode(dt, b_store);
        GuardedBuffer da = guarded_input(a_bytes, "gemm test A"), db = guarded_input(b_bytes, "gemm test B");
        GuardedBuffer dc = guarded_output(std::size_t(M) * N * es, dt, "gemm test C");
        GemmCall call;
        call.shape = GemmShape{M, N, K, 1};
        call.ab_dtype = call.c_dtype = dt;
        call.a = da.data();
        call.a_map = {DimMap::plain(a_cm ? 1 : K), DimMap::plain(a_cm ? M : 1), DimMap::plain(0)};
        call.b = db.data();
        call.b_map = {DimMap::plain(b_cm ? 1 : N), DimMap::plain(b_cm ? K : 1), DimMap::plain(0)};
        call.c = dc.data();
        call.c_map = {DimMap::plain(c_cm ? 1 : N), DimMap::plain(c_cm ? M : 1), DimMap::plain(0)};
        gemm(call);
        gpu::synchronize("gemm size sweep");
        const gputest::Readback rc = read_back(dc);
        const std::string where = "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
        if (!rc.guard_error.empty()) ADD_FAILURE() << where << ": " << rc.guard_error;
        if (const std::string bad = gputest::input_error(da, a_bytes); !bad.empty()) ADD_FAILURE() << where << ": " << bad;
        if (const std::string bad = gputest::input_error(db, b_bytes); !bad.empty()) ADD_FAILURE() << where << ": " << bad;
        const std::vector<float> C = decode(dt, rc.payload);
        for (int m = 0; m < M && failures < 10; ++m)
          for (int n = 0; n < N && failures < 10; ++n) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * B[k * N + n];
            const float want = round_to(dt, s), got = C[c_cm ? m + n * M : m * N + n];
            if (!exact_equal(got, want))
              ADD_FAILURE() << where << " layouts " << a_cm << b_cm << c_cm << ": C[" << m << "][" << n << "] = " << got
                            << ", want " << want << " (" << ++failures << ")";
          }
      }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, GemmSizes, ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Batched GEMM through split views (test_gemm::check_batched_split_views): the gaps of C must stay
// poisoned.
TEST(GemmDevice, BatchedSplitViewsAllDtypes) {
  HIPRIM_SKIP_WITHOUT_GPU();
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    test_gemm::check_batched_split_views(GemmEngine::simt, dt, 23, 45, 5, 99);
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
    GuardedBuffer da = guarded_input(encode(dt, A), "gemm test A"), db = guarded_input(encode(dt, B), "gemm test B");
    GuardedBuffer dc = guarded_output(M * N * sizeof(float), DType::fp32, "gemm test C");
    GemmCall call;
    call.shape = GemmShape{M, N, K, 1};
    call.ab_dtype = dt;
    call.c_dtype = DType::fp32;
    call.a = da.data();
    call.a_map = {DimMap::plain(K), DimMap::plain(1), DimMap::plain(0)};
    call.b = db.data();
    call.b_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(0)};
    call.c = dc.data();
    call.c_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(0)};
    gemm(call);
    gpu::synchronize("fp32-output gemm");
    const gputest::Readback rc = read_back(dc);
    EXPECT_EQ(rc.guard_error, "");
    const std::vector<float> C = decode(DType::fp32, rc.payload);
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
      GuardedBuffer da = guarded_input(encode(dt, A), "gemm test A"), db = guarded_input(encode(dt, B), "gemm test B");
      GuardedBuffer dc = guarded_output(batch * M * N * dtype_size(dt), dt, "gemm test C");
      GemmCall call;
      call.shape = GemmShape{M, N, K, batch};
      call.ab_dtype = call.c_dtype = dt;
      call.a = da.data();
      call.a_map = {DimMap::plain(K), DimMap::plain(1), DimMap::plain(M * K)};
      call.b = db.data();
      call.b_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(K * N)};
      call.c = dc.data();
      call.c_map = {DimMap::plain(N), DimMap::plain(1), DimMap::plain(M * N)};
      call.k_splits = splits;
      GuardedBuffer ws(Backend::device, gemm_workspace_bytes(call), "split-K workspace");
      call.workspace = ws.data();
      gemm(call);
      gpu::synchronize("split-K gemm");
      const gputest::Readback rc = read_back(dc);
      EXPECT_EQ(rc.guard_error, "");
      EXPECT_EQ(gputest::guard_error(ws), "");
      const std::vector<float> C = decode(dt, rc.payload);
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
  GuardedBuffer c = guarded_output(5 * 6 * sizeof(float), DType::fp32, "gemm K=0 C");
  GemmCall call;
  call.shape = GemmShape{5, 6, 0, 1};
  call.c = c.data();
  call.c_map = {DimMap::plain(6), DimMap::plain(1), DimMap::plain(0)};
  gemm(call);  // a and b stay null: nothing may be read
  gpu::synchronize("gemm K=0");
  const gputest::Readback rc = read_back(c);
  for (float v : decode(DType::fp32, rc.payload)) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(rc.guard_error, "");
}

}  // namespace
}  // namespace hiprim::gpu
