// Device tests of the tensor-core GEMM (gemm() with engine mma; gpu/gemm/gemm_mma.hpp), skipped
// without a GPU or where gemm_mma_unavailable() says why not (HIP/AMD, below sm_80):
//  - exact tier: whole numbers in [-2, 2] keep every partial sum exact in fp32, so C must equal the
//    double product rounded to c's dtype, bit for bit, on odd M/N/K tails, all row/column-major
//    combinations (generic per-element staging) and 8-aligned shapes (16-byte vector staging in both
//    orientations), batched split views, split-K (empty slices included), c as fp32 and ab_dtype;
//  - bounded tier: uniform data, fp32 C within 2*gamma(K)*sum|a*b| (factor 2: the tensor core's
//    adders may truncate), the comparator's bound for tensor-core results;
//  - determinism (two runs bitwise equal), untouched guard bytes and gaps;
//  - GemmMmaThroughput.*: prints TFLOP/s of the mma and SIMT kernels (asserts only correctness).
// Operand placement on the host uses explicit formulas, never DimMap.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/gemm/gemm.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/gemm_test_util.hpp"

namespace hiprim::gpu {
namespace {

using test_gemm::decode;
using test_gemm::encode;
using gputest::GuardedBuffer;
using test_gemm::small_int;

#define HIPRIM_SKIP_WITHOUT_MMA()                                                          \
  do {                                                                                     \
    HIPRIM_SKIP_WITHOUT_GPU();                                                             \
    if (const std::string why = gemm_mma_unavailable(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

enum class Fill { exact, bounded };

// One GEMM case: C[b] = A[b] x B[b] with A (M x K), B (K x N), C (M x N) each row- or column-major
// with leading dimension = rows or columns + pad, batches back to back.
struct Case {
  DType ab = DType::bf16, c = DType::fp32;
  int m = 1, n = 1, k = 1, batch = 1;
  bool a_cm = false, b_cm = false, c_cm = false;
  int pad = 0;
  std::int64_t splits = 1;
  Fill fill = Fill::exact;
  std::uint32_t seed = 1;
  std::string str() const {
    return std::string(dtype_name(ab)) + "->" + std::string(dtype_name(c)) + " M" + std::to_string(m) + " N" + std::to_string(n) +
           " K" + std::to_string(k) + " batch" + std::to_string(batch) + " layouts " + std::to_string(a_cm) +
           std::to_string(b_cm) + std::to_string(c_cm) + " pad" + std::to_string(pad) + " splits" +
           std::to_string(splits);
  }
};

struct Operands {
  int lda, ldb, ldc;
  std::int64_t a_size, b_size, c_size;  // per batch
  std::vector<float> a, b;              // values already representable in ab
  std::int64_t a_off(int bb, int m, int k) const { return bb * a_size + (cm_a ? m + std::int64_t(k) * lda : std::int64_t(m) * lda + k); }
  std::int64_t b_off(int bb, int k, int n) const { return bb * b_size + (cm_b ? k + std::int64_t(n) * ldb : std::int64_t(k) * ldb + n); }
  std::int64_t c_off(int bb, int m, int n) const { return bb * c_size + (cm_c ? m + std::int64_t(n) * ldc : std::int64_t(m) * ldc + n); }
  bool cm_a, cm_b, cm_c;
};

Operands make_operands(const Case& cs) {
  Operands o;
  o.cm_a = cs.a_cm, o.cm_b = cs.b_cm, o.cm_c = cs.c_cm;
  o.lda = (cs.a_cm ? cs.m : cs.k) + cs.pad;
  o.ldb = (cs.b_cm ? cs.k : cs.n) + cs.pad;
  o.ldc = (cs.c_cm ? cs.m : cs.n) + cs.pad;
  o.a_size = std::int64_t(o.lda) * (cs.a_cm ? cs.k : cs.m);
  o.b_size = std::int64_t(o.ldb) * (cs.b_cm ? cs.n : cs.k);
  o.c_size = std::int64_t(o.ldc) * (cs.c_cm ? cs.n : cs.m);
  std::mt19937 rng(cs.seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto value = [&] { return cs.fill == Fill::exact ? small_int(rng) : round_to(cs.ab, u(rng)); };
  o.a.assign(o.a_size * cs.batch, 0.0f);  // padding stays 0
  o.b.assign(o.b_size * cs.batch, 0.0f);
  for (int bb = 0; bb < cs.batch; ++bb) {
    for (int m = 0; m < cs.m; ++m)
      for (int k = 0; k < cs.k; ++k) o.a[o.a_off(bb, m, k)] = value();
    for (int k = 0; k < cs.k; ++k)
      for (int n = 0; n < cs.n; ++n) o.b[o.b_off(bb, k, n)] = value();
  }
  return o;
}

// A and B hold the operands, C is poisoned, ws is the split-K workspace (a_bytes, b_bytes: what A
// and B must still hold after a run).
struct DeviceCase {
  std::vector<unsigned char> a_bytes, b_bytes;
  GuardedBuffer a, b, c, ws;
  GemmCall call;
};

std::unique_ptr<DeviceCase> upload_case(const Case& cs, const Operands& o, GemmEngine engine) {
  const std::size_t cs_bytes = dtype_size(cs.c);
  GemmCall call;
  call.engine = engine;
  call.shape = GemmShape{cs.m, cs.n, cs.k, cs.batch};
  call.ab_dtype = cs.ab;
  call.c_dtype = cs.c;
  call.k_splits = cs.splits;
  std::vector<unsigned char> a_bytes = encode(cs.ab, o.a), b_bytes = encode(cs.ab, o.b);
  GuardedBuffer a = gputest::guarded_input(a_bytes, "mma test A"), b = gputest::guarded_input(b_bytes, "mma test B");
  auto dc = std::unique_ptr<DeviceCase>(new DeviceCase{
      std::move(a_bytes), std::move(b_bytes), std::move(a), std::move(b),
      gputest::guarded_output(o.c_size * cs.batch * cs_bytes, cs.c, "mma test C"),
      GuardedBuffer(Backend::device, split_k_workspace_bytes(call.shape, cs.splits), "mma test split-K workspace"), call});
  GemmCall& c = dc->call;
  c.a = dc->a.data();
  c.a_map = {DimMap::plain(cs.a_cm ? 1 : o.lda), DimMap::plain(cs.a_cm ? o.lda : 1), DimMap::plain(o.a_size)};
  c.b = dc->b.data();
  c.b_map = {DimMap::plain(cs.b_cm ? 1 : o.ldb), DimMap::plain(cs.b_cm ? o.ldb : 1), DimMap::plain(o.b_size)};
  c.c = dc->c.data();
  c.c_map = {DimMap::plain(cs.c_cm ? 1 : o.ldc), DimMap::plain(cs.c_cm ? o.ldc : 1), DimMap::plain(o.c_size)};
  c.workspace = cs.splits > 1 ? dc->ws.data() : nullptr;
  return dc;
}

// Runs the case on the mma engine and returns "" when C is right (exact: equal to the rounded
// double product; bounded: within the tensor-core bound), the gaps of C still poisoned, every guard
// intact, A and B unmodified, and a second run bitwise equal; else the first problem.
std::string run_and_check(const Case& cs) {
  const Operands o = make_operands(cs);
  auto dc = upload_case(cs, o, GemmEngine::mma);
  auto run = [&] {
    dc->c.poison(cs.c);
    gemm(dc->call);
    synchronize("mma gemm test");
    return gputest::read_back(dc->c);
  };
  const gputest::Readback first = run();
  const std::vector<unsigned char>& bytes = first.payload;
  const std::vector<float> C = decode(cs.c, bytes);
  if (!first.guard_error.empty()) return first.guard_error;
  if (const std::string bad = gputest::guard_error(dc->ws); !bad.empty()) return bad;
  if (const std::string bad = gputest::input_error(dc->a, dc->a_bytes); !bad.empty()) return bad;
  if (const std::string bad = gputest::input_error(dc->b, dc->b_bytes); !bad.empty()) return bad;
  std::vector<char> written(C.size(), 0);
  const double u = std::ldexp(1.0, -24);
  for (int bb = 0; bb < cs.batch; ++bb)
    for (int m = 0; m < cs.m; ++m)
      for (int n = 0; n < cs.n; ++n) {
        double s = 0, abs_sum = 0;
        for (int k = 0; k < cs.k; ++k) {
          const double t = double(o.a[o.a_off(bb, m, k)]) * o.b[o.b_off(bb, k, n)];
          s += t, abs_sum += std::fabs(t);
        }
        const std::int64_t off = o.c_off(bb, m, n);
        written[off] = 1;
        const float got = C[off];
        const std::string where = "C[" + std::to_string(bb) + "][" + std::to_string(m) + "][" + std::to_string(n) + "] = ";
        if (cs.fill == Fill::exact) {
          if (!test_gemm::exact_equal(got, round_to(cs.c, s)))
            return where + std::to_string(got) + ", want " + std::to_string(round_to(cs.c, s));
        } else {
          const double gamma = cs.k * u / (1 - cs.k * u);
          const double bound = 2 * gamma * abs_sum + (cs.c == DType::fp32 ? 0.0 : unit_roundoff(cs.c) * (std::fabs(s) + 2 * gamma * abs_sum)) + 1e-30;
          if (!(std::fabs(got - s) <= bound))
            return where + std::to_string(got) + ", want " + std::to_string(s) + " within " + std::to_string(bound);
        }
      }
  for (std::size_t i = 0; i < C.size(); ++i)
    if (!written[i] && !gputest::still_poison(cs.c, bytes, i)) return "gap element " + std::to_string(i) + " of C was written";
  if (run().payload != bytes) return "a second run is not bitwise identical";
  return "";
}

TEST(GemmMmaArgs, RefusesFp32OperandsWithTheReason) {
  float dummy = 0.0f;
  GemmCall c;
  c.engine = GemmEngine::mma;
  c.a = c.b = &dummy;
  c.c = &dummy;
  c.shape = GemmShape{2, 2, 2, 1};
  try {
    gemm(c);
    ADD_FAILURE() << "gemm accepted fp32 operands on the mma engine";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tf32"), std::string::npos) << e.what();
  }
}

TEST(GemmMma, ExactOnOddTailsAndEveryLayout) {
  HIPRIM_SKIP_WITHOUT_MMA();
  const std::vector<int> mn{1, 15, 17, 127, 129};
  const std::vector<int> ks{1, 15, 17, 33, 129};
  int index = 0;
  for (DType ab : {DType::fp16, DType::bf16})
    for (int m : mn)
      for (int n : mn)
        for (int k : ks) {
          Case cs;
          cs.ab = ab;
          cs.c = index % 2 ? ab : DType::fp32;
          cs.m = m, cs.n = n, cs.k = k;
          cs.a_cm = index & 2, cs.b_cm = index & 4, cs.c_cm = index & 8;
          cs.seed = static_cast<std::uint32_t>(++index);
          EXPECT_EQ(run_and_check(cs), "") << cs.str();
        }
}

// Sizes that are multiples of 8 with 16-byte-aligned rows: whole vectors go through the 16-byte
// path in both staging orientations, partial tiles at the M/N/K ends still per element.
TEST(GemmMma, ExactOnAlignedShapesThroughTheVectorPath) {
  HIPRIM_SKIP_WITHOUT_MMA();
  int index = 0;
  for (DType ab : {DType::fp16, DType::bf16})
    for (int layout = 0; layout < 8; ++layout)
      for (auto [m, n, k, pad] : {std::tuple{256, 136, 264, 0}, std::tuple{200, 72, 40, 8}, std::tuple{8, 24, 520, 0}}) {
        Case cs;
        cs.ab = ab;
        cs.c = layout % 2 ? DType::fp32 : ab;
        cs.m = m, cs.n = n, cs.k = k, cs.pad = pad, cs.batch = 2;
        cs.a_cm = layout & 1, cs.b_cm = layout & 2, cs.c_cm = layout & 4;
        cs.seed = static_cast<std::uint32_t>(100 + ++index);
        EXPECT_EQ(run_and_check(cs), "") << cs.str();
      }
}

TEST(GemmMma, SplitKIsExactIncludingEmptySlices) {
  HIPRIM_SKIP_WITHOUT_MMA();
  for (DType ab : {DType::fp16, DType::bf16})
    for (std::int64_t splits : {2, 7, 64})
      for (bool aligned : {false, true}) {
        Case cs;
        cs.ab = ab;
        cs.c = splits == 7 ? DType::fp32 : ab;
        cs.m = aligned ? 64 : 37, cs.n = aligned ? 48 : 29, cs.k = aligned ? 3072 : 3000, cs.batch = 2;
        cs.b_cm = aligned;
        cs.splits = splits;
        cs.seed = static_cast<std::uint32_t>(splits * 2 + aligned);
        EXPECT_EQ(run_and_check(cs), "") << cs.str();
      }
}

TEST(GemmMma, BoundedDataWithinTheTensorCoreBoundAndDeterministic) {
  HIPRIM_SKIP_WITHOUT_MMA();
  for (DType ab : {DType::fp16, DType::bf16})
    for (std::int64_t splits : {1, 5}) {
      Case cs;
      cs.ab = ab;
      cs.c = splits == 1 ? DType::fp32 : ab;
      cs.m = 131, cs.n = 96, cs.k = 1000, cs.batch = 1;
      cs.b_cm = true;
      cs.splits = splits;
      cs.fill = Fill::bounded;
      cs.seed = 77;
      EXPECT_EQ(run_and_check(cs), "") << cs.str();
    }
}

// Batched GEMM through split views (test_gemm::check_batched_split_views): the gaps of C must stay
// poisoned; 24 pixels let the split column map take 16-byte vectors.
TEST(GemmMma, BatchedSplitViewsExact) {
  HIPRIM_SKIP_WITHOUT_MMA();
  for (int P : {23, 24})
    for (DType dt : {DType::fp16, DType::bf16}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " P=" + std::to_string(P));
      test_gemm::check_batched_split_views(GemmEngine::mma, dt, P, 48, 8, static_cast<std::uint32_t>(99 + P));
    }
}

// ---- throughput (prints; asserts only correctness of sampled outputs) ----

// Times `reps` runs of the case on `engine` and checks 64 sampled outputs against the CPU (exact data).
double time_tflops(const Case& cs, GemmEngine engine, int reps) {
  const Operands o = make_operands(cs);
  auto dc = upload_case(cs, o, engine);
  gemm(dc->call);  // warm-up
  synchronize("throughput warm-up");
  EventTimer timer;
  timer.start();
  for (int i = 0; i < reps; ++i) gemm(dc->call);
  const double ms = timer.stop() / reps;
  const std::vector<float> C = decode(cs.c, gputest::read_back(dc->c).payload);
  std::mt19937 rng(3);
  for (int i = 0; i < 64; ++i) {
    const int m = static_cast<int>(rng() % cs.m), n = static_cast<int>(rng() % cs.n);
    double s = 0;
    for (int k = 0; k < cs.k; ++k) s += double(o.a[o.a_off(0, m, k)]) * o.b[o.b_off(0, k, n)];
    EXPECT_TRUE(test_gemm::exact_equal(C[o.c_off(0, m, n)], round_to(cs.c, s))) << cs.str() << " C[" << m << "][" << n << "]";
  }
  return 2.0 * cs.m * cs.n * double(cs.k) * cs.batch / (ms * 1e-3) / 1e12;
}

TEST(GemmMmaThroughput, PrintsTflopsOfMmaAndSimt) {
  HIPRIM_SKIP_WITHOUT_MMA();
  struct Shape {
    const char* what;
    Case cs;
  };
  std::vector<Shape> shapes;
  Case sq;
  sq.ab = DType::bf16, sq.c = DType::bf16, sq.m = sq.n = sq.k = 4096;
  sq.b_cm = true;  // "TN": both operands k-contiguous
  shapes.push_back({"4096^3 bf16, A row-major, B column-major (k-contiguous)", sq});
  sq.b_cm = false;
  shapes.push_back({"4096^3 bf16, A and B row-major (B n-contiguous)", sq});
  // ResNet-50 res4 1x1 fwd, NHWC, batch 32: Out[co][j] = W[co][ci] * In[ci][j], j = 32*14*14 pixels,
  // In's channels contiguous (B column-major), Out written channels-contiguous (C column-major).
  Case r1;
  r1.ab = DType::bf16, r1.c = DType::bf16, r1.m = 1024, r1.n = 32 * 14 * 14, r1.k = 256;
  r1.b_cm = true, r1.c_cm = true;
  shapes.push_back({"1x1 conv fwd as GEMM (NHWC, n32 c256 k1024 14x14) bf16", r1});
  for (const Shape& s : shapes) {
    const double mma = time_tflops(s.cs, GemmEngine::mma, 20);
    const double simt = time_tflops(s.cs, GemmEngine::simt, 5);
    std::printf("[ throughput ] %-60s mma %7.1f TFLOP/s   simt %6.1f TFLOP/s   (x%.1f)\n", s.what, mma, simt, mma / simt);
  }
}

}  // namespace
}  // namespace hiprim::gpu
