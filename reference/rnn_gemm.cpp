// The ordered products of reference/rnn_gemm.hpp: BLIS-style blocking (lane blocks, reduction
// blocks in increasing r, row blocks; A packed per block, B once) around a register tile of MR rows x
// kGemmLanes lanes. A tile's sums leave the registers for C between reduction blocks and come back
// unchanged (doubles in memory), so each element still adds its terms one at a time for r = 0, 1, ...
// The tile is compiled twice (SSE2, and AVX2 where the CPU has it; never FMA): the same IEEE
// operations, so the same bits.
#include "reference/rnn_gemm.hpp"

#include <algorithm>
#include <cmath>

#include "reference/rnn_chunks.hpp"

namespace hiprim::ref {
namespace {

constexpr long long kKC = 256;       // reduction block: a B panel block [kKC][kGemmLanes] stays in L1
constexpr long long kMC = 96;        // row block: the packed A block [kMC][kKC] stays in L2
constexpr long long kNCPanels = 32;  // lane block: the B block [kKC][32 * kGemmLanes] stays in L2

int components(GemmTerm t) { return t == GemmTerm::product ? 1 : 2; }

// out[r * stride + q] = element (i0 + q, r0 + r) of v, or of its transpose when flip, for q < count
// (i0 + q < i_end) and r < kc; read along v's rows.
void copy_block(const RowsView& v, bool flip, long long i0, long long count, long long i_end, long long r0, long long kc,
                double* out, long long stride) {
  count = std::min(count, i_end - i0);
  auto put = [&](double x) { return v.abs ? std::fabs(x) : x; };
  if (v.transposed != flip) {  // element (i, r) = rows[r][i]
    for (long long r = 0; r < kc; ++r)
      for (long long q = 0; q < count; ++q) out[r * stride + q] = put(v.rows[r0 + r][i0 + q]);
  } else {  // element (i, r) = rows[i][r]
    for (long long q = 0; q < count; ++q)
      for (long long r = 0; r < kc; ++r) out[r * stride + q] = put(v.rows[i0 + q][r0 + r]);
  }
}

// A's rows [i0, i0 + mc) and reduction block [r0, r0 + kc) into [tile][r][component][MR] (zero-padded).
void pack_a(const std::vector<RowsView>& a, long long M, long long i0, long long mc, long long r0, long long kc, int mr,
            std::vector<double>& out) {
  const long long na = static_cast<long long>(a.size()), tiles = (mc + mr - 1) / mr;
  out.assign(tiles * kc * na * mr, 0.0);
  for (long long tile = 0; tile < tiles; ++tile)
    for (long long c = 0; c < na; ++c)
      copy_block(a[c], false, i0 + tile * mr, mr, std::min(M, i0 + mc), r0, kc, &out[(tile * kc * na + c) * mr], na * mr);
}

typedef double V2 __attribute__((vector_size(16)));
typedef double V4 __attribute__((vector_size(32)));
template <class V>
struct Unaligned;  // V for unaligned loads and stores
template <>
struct Unaligned<V2> {
  typedef double type __attribute__((vector_size(16), aligned(8), may_alias));
};
template <>
struct Unaligned<V4> {
  typedef double type __attribute__((vector_size(32), aligned(8), may_alias));
};

// V with *p in every lane (AVX2: one broadcast load, which the compiler would otherwise turn into
// shuffles of a vector load).
template <class V>
[[gnu::always_inline]] inline void splat(V& v, const double* p) {
  if constexpr (sizeof(V) == 32) {
    asm("vbroadcastsd %1, %0" : "=x"(v) : "m"(*p));
  } else {
    for (int w = 0; w < static_cast<int>(sizeof(V) / sizeof(double)); ++w) v[w] = *p;
  }
}

// The register tile: acc [MR][kGemmLanes] (row i at acc + i * ld) += term(ap [kc][NA][MR],
// bp [kc][NA][kGemmLanes]), r in order. V: W lanes of doubles.
template <class V, int MR, GemmTerm T>
[[gnu::always_inline]] inline void tile(long long kc, const double* ap, const double* bp, double* acc, long long ld) {
  using U = typename Unaligned<V>::type;
  constexpr int W = sizeof(V) / sizeof(double), NV = kGemmLanes / W, NA = T == GemmTerm::product ? 1 : 2;
  V c[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) c[i][v] = *reinterpret_cast<const U*>(acc + i * ld + v * W);
  for (long long r = 0; r < kc; ++r, ap += NA * MR, bp += NA * kGemmLanes) {
    V b0[NV], b1[NV];
    for (int v = 0; v < NV; ++v) {
      b0[v] = *reinterpret_cast<const U*>(bp + v * W);
      if constexpr (T == GemmTerm::cross) b1[v] = *reinterpret_cast<const U*>(bp + kGemmLanes + v * W);
    }
    for (int i = 0; i < MR; ++i) {
      V a0, a1;  // A's components, in every lane
      splat(a0, ap + i);
      if constexpr (T == GemmTerm::product) {
        for (int v = 0; v < NV; ++v) c[i][v] += a0 * b0[v];
      } else {  // a0 = e_a, a1 = |a|, b0 = |b|, b1 = e_b
        splat(a1, ap + MR + i);
        for (int v = 0; v < NV; ++v) c[i][v] += a0 * b0[v] + a1 * b1[v] + a0 * b1[v];
      }
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) *reinterpret_cast<U*>(acc + i * ld + v * W) = c[i][v];
}

struct Job {
  double* c;
  long long ldc, M;
  const std::vector<RowsView>* a;
  const PackedB* b;
};

// The panels [p_lo, p_hi) of B: lane blocks, reduction blocks in order, row blocks, tiles.
template <class V, int MR, GemmTerm T>
[[gnu::always_inline]] inline void run_panels(const Job& job, long long p_lo, long long p_hi) {
  constexpr long long NA = T == GemmTerm::product ? 1 : 2;
  const PackedB& b = *job.b;
  std::vector<double> ap;
  double acc[MR * kGemmLanes];
  for (long long jc = p_lo; jc < p_hi; jc += kNCPanels)
    for (long long r0 = 0; r0 < b.K; r0 += kKC) {
      const long long kc = std::min(kKC, b.K - r0);
      for (long long i0 = 0; i0 < job.M; i0 += kMC) {
        const long long mc = std::min(kMC, job.M - i0);
        pack_a(*job.a, job.M, i0, mc, r0, kc, MR, ap);
        for (long long panel = jc; panel < std::min(p_hi, jc + kNCPanels); ++panel) {
          const double* bp = &b.data[(panel * b.K + r0) * NA * kGemmLanes];
          const long long j0 = panel * kGemmLanes, n = std::min(kGemmLanes, b.N - j0);
          for (long long ii = 0; ii < mc; ii += MR) {
            const long long m = std::min<long long>(MR, mc - ii);
            double* c = job.c + (i0 + ii) * job.ldc + j0;
            const double* a = &ap[(ii / MR) * kc * NA * MR];
            if (m == MR && n == kGemmLanes) {
              tile<V, MR, T>(kc, a, bp, c, job.ldc);
              continue;
            }
            std::fill(acc, acc + MR * kGemmLanes, 0.0);  // an edge tile: through acc
            for (long long i = 0; i < m; ++i) std::copy(c + i * job.ldc, c + i * job.ldc + n, acc + i * kGemmLanes);
            tile<V, MR, T>(kc, a, bp, acc, kGemmLanes);
            for (long long i = 0; i < m; ++i) std::copy(acc + i * kGemmLanes, acc + i * kGemmLanes + n, c + i * job.ldc);
          }
        }
      }
    }
}

template <class V, int MR>
[[gnu::always_inline]] inline void run_any(const Job& job, long long p_lo, long long p_hi) {
  if (job.b->term == GemmTerm::product)
    run_panels<V, MR, GemmTerm::product>(job, p_lo, p_hi);
  else
    run_panels<V, MR, GemmTerm::cross>(job, p_lo, p_hi);
}

void run_sse2(const Job& job, long long p_lo, long long p_hi) { run_any<V2, 2>(job, p_lo, p_hi); }

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HIPRIM_RNN_GEMM_AVX2 1
__attribute__((target("avx2"))) void run_avx2(const Job& job, long long p_lo, long long p_hi) { run_any<V4, 6>(job, p_lo, p_hi); }
#endif

}  // namespace

RowsView rows_of(const double* base, long long count, long long ld, bool transposed, bool abs) {
  RowsView v{std::vector<const double*>(static_cast<std::size_t>(count)), transposed, abs};
  for (long long i = 0; i < count; ++i) v.rows[i] = base + i * ld;
  return v;
}

PackedB::PackedB(GemmTerm t, const std::vector<RowsView>& comps, long long k, long long n)
    : term(t), K(k), N(n), panels((n + kGemmLanes - 1) / kGemmLanes) {
  const long long na = components(t);
  data.assign(panels * K * na * kGemmLanes, 0.0);
  for (long long p = 0; p < panels; ++p)
    for (long long c = 0; c < na; ++c)  // B(r, j): the view's element (r, j), its transpose's (j, r)
      copy_block(comps[c], true, p * kGemmLanes, kGemmLanes, N, 0, K, &data[(p * K * na + c) * kGemmLanes], na * kGemmLanes);
}

void ordered_gemm(double* c, long long ldc, long long M, const std::vector<RowsView>& a, const PackedB& b) {
  if (M <= 0 || b.K <= 0 || b.N <= 0) return;
  const Job job{c, ldc, M, &a, &b};
#ifdef HIPRIM_RNN_GEMM_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  void (*run)(const Job&, long long, long long) = avx2 ? run_avx2 : run_sse2;
#else
  void (*run)(const Job&, long long, long long) = run_sse2;
#endif
  for_rnn_parts(b.panels, static_cast<double>(M) * b.K * b.N, [&](long long lo, long long hi) { run(job, lo, hi); });
}

}  // namespace hiprim::ref
