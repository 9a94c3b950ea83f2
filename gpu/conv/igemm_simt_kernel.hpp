// conv.igemm.simt's kernel (device code; include from .hip files only): fp32 implicit GEMM over
// NHWC tensors on the FMA units, no tensor cores, no copy of the activations.
//
//   C[m][n] = sum_{kk in [k_lo, k_hi)} A(m, kk) * B(n, kk)      (fp32, one FMA chain per output)
//
// over the fwd relation of an NHWC 2D convolution, In [img][h][w][c], W [k][r][s][c], Out [img][p][q][k]
// (bwd-data with stride 1 runs as the fwd conv of dy with the flipped filter: the solver's business):
//   fwd    M = img*P*Q (pixel), N = K, kk = (r, s, c):   A = In gathered (kk contiguous in c),
//          B = W as [K][R*S*C] (kk contiguous), C = Out [pixel][k].
//   wgrad  M = K, N = R*S*C, kk = pixel:                 A = dOut [pixel][k] (m contiguous),
//          B = In gathered at the pixel's tap (n contiguous in c), C = dW [k][r][s][c].
// NCHW 1x1 pad 0 (In [img][c][h][w], Out [img][k][p][q]; pixel n = (img, p, q) reads In at
// (p*str_h, q*str_w)): M = Out's channels, N = img*P*Q, kk = In's channels; B = In[img][kk][..] (n
// contiguous along a row of pixels), C[m][n] = Out[img][m][p][q] (the column map of SimtOutMap):
//   nchw_fwd        A = W [K][C] (kk contiguous)            y = W x[img]
//   nchw_bwd_data   A = W [K][C] read as W^T (m contiguous)  dx = W^T dy[img] (stride 1; g: dy -> dx)
// The NHWC C are row-major [M][N], row m at out + row(m)*N: row(m) = m, or with an output map (bwd-data's
// sub-pixel classes) the dx pixel (img*H + i*sh + oh)*W + j*sw + ow of m = (img, i, j) over the
// p x q grid. A K slice s of a split launch writes partial[s][M][N] instead (plain sums, unmapped;
// simt_conv_reduce_kernel adds the slices in ascending s, then the bias, and maps the rows).
// The bias is per column (NHWC: n = k), or per row with the NCHW column map (m = k).
//
// Tile BM x BN x 8, one thread per 8 x 8 register block (rows ty*4 + {0..3} and BM/2 + ty*4 + {0..3},
// columns likewise with tx): the float4 reads of a quarter warp fall on distinct banks. Shared memory
// holds two stages of A as [kk][m] and B as [kk][n]; the next stage's global loads are issued into
// registers before the current stage's FMAs, and stored to the other stage after them (one barrier a
// step). Global loads are VWA / VWB floats wide for A / B (4: 16-byte vectors along the contiguous
// index, needs the channel counts % 4 (NCHW B: stride 1, P*Q % 4) and 16-byte aligned buffers; 1:
// scalars); stores are float4 where vec_out says so (the host checks alignment and pitch). Padding taps, rows past M, columns past
// N and kk past k_hi are staged as zeros and multiplied; both operands are zero past k_hi, so no real
// value meets a K-tail zero. Determinism: the same sums in the same order every run, no atomics.
#pragma once
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

enum class SimtConvDir { fwd, wgrad, nchw_fwd, nchw_bwd_data };

// Sizes of the fwd relation (NHWC, groups 1); long long offsets are formed from them.
struct SimtConvGeom {
  int imgs = 0, h = 0, w = 0, c = 0, k = 0, r = 0, s = 0, p = 0, q = 0;
  int str_h = 1, str_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
};

// Where C[m][col] goes: output rows of a GEMM over the p x q grid of a sub-pixel class (on = false:
// row(m) = m), or (cols_pq > 0) NCHW columns col = img*cols_pq + pixel at ((img*rows + m)*cols_pq + pixel).
struct SimtOutMap {
  bool on = false;
  int p = 1, q = 1, h = 0, w = 0, sh = 1, sw = 1, oh = 0, ow = 0;
  int cols_pq = 0, rows = 0;
  __host__ __device__ long long row(long long m) const {
    if (!on) return m;
    const long long img = m / (static_cast<long long>(p) * q), rem = m - img * p * q, i = rem / q;
    return (img * h + i * sh + oh) * w + (rem - i * q) * sw + ow;
  }
  __host__ __device__ long long nchw_offset(long long m, int col) const {
    const int img = col / cols_pq;
    return (static_cast<long long>(img) * rows + m) * cols_pq + (col - img * cols_pq);
  }
  __host__ __device__ long long offset(long long m, int col, long long n) const {
    return cols_pq == 0 ? row(m) * n + col : nchw_offset(m, col);
  }
};

struct SimtConvArgs {
  SimtConvGeom g;
  SimtOutMap map;
  const float* a = nullptr;  // fwd: In; wgrad: dOut
  const float* b = nullptr;  // fwd: W; wgrad: In
  float* out = nullptr;      // C, or the partial sums of a split launch
  bool partial = false;      // a split launch: out is partial[slice][M][N] (rows unmapped)
  bool vec_out = false;      // float4 stores of 4-runs (out 16-byte aligned, runs contiguous and aligned)
  const float* bias = nullptr;  // [N], added by an unsplit launch (split: by the reduction)
  int m = 0, n = 0, kred = 0;   // GEMM sizes
  int k_chunk = 0;              // kk per slice (a multiple of 8; >= kred when unsplit)
  // A batched launch: blockIdx.z = z * batch_splits + slice for the batch z, whose a, b and out are
  // z * a_batch, z * b_batch and z * out_batch floats further on (gpu/conv/simt_batched_gemm.hpp);
  // split (partial), slice s writes at out + s * slice_pitch (0: M * N).
  bool batched = false;
  long long a_batch = 0, b_batch = 0, out_batch = 0;
  int batch_splits = 1;
  long long slice_pitch = 0;
};

template <int BM_, int BN_>
struct SimtTile {
  static constexpr int BM = BM_, BN = BN_, BK = 8, TM = 8, TN = 8;
  static constexpr int threads_n = BN / TN, threads = (BM / TM) * (BN / TN);
  static_assert(BM % 16 == 0 && BN % 16 == 0, "two 4-runs per register block side");
};

// One operand tile's staging: `vecs` vectors of VW floats per thread, each (row, kk) of the tile.
// k-contiguous operands (fwd A, B): vector i of the tile is row i / (BK/VW), kk (i % (BK/VW)) * VW;
// m/n-contiguous operands (wgrad A, B): kk i / (rows/VW), row (i % (rows/VW)) * VW.
template <int ROWS, int BK, int VW, int THREADS>
struct SimtStage {
  static constexpr int vecs = ROWS * BK / VW / THREADS;
  static_assert(vecs >= 1 && (ROWS * BK / VW) % THREADS == 0, "tile loads must split evenly over threads");
};

// Loads VW floats at p (16-byte aligned when VW == 4) or zeros when !ok.
template <int VW>
__device__ __forceinline__ void simt_load(float (&v)[VW], const float* p, bool ok) {
  if constexpr (VW == 4) {
    float4 t = ok ? *reinterpret_cast<const float4*>(p) : float4{0.0f, 0.0f, 0.0f, 0.0f};
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {
#pragma unroll
    for (int j = 0; j < VW; ++j) v[j] = ok ? p[j] : 0.0f;
  }
}

// Offset of In[img][hh][ww][cc], or -1 when (hh, ww) is in the padding.
__device__ __forceinline__ long long simt_in_offset(const SimtConvGeom& g, int img, int hh, int ww, int cc) {
  if (hh < 0 || hh >= g.h || ww < 0 || ww >= g.w) return -1;
  return ((static_cast<long long>(img) * g.h + hh) * g.w + ww) * g.c + cc;
}

template <SimtConvDir D, typename Tile, int VWA, int VWB>
__global__ void __launch_bounds__(Tile::threads) simt_conv_kernel(SimtConvArgs args) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, NT = Tile::threads;
  using SA = SimtStage<BM, BK, VWA, NT>;
  using SB = SimtStage<BN, BK, VWB, NT>;
  constexpr bool nchw = D == SimtConvDir::nchw_fwd || D == SimtConvDir::nchw_bwd_data;
  // operands contiguous in kk (else in m / n); a_gather: NHWC In (fwd), b_gather: NHWC In (wgrad)
  constexpr bool a_kc = D == SimtConvDir::fwd || D == SimtConvDir::nchw_fwd, b_kc = D == SimtConvDir::fwd;
  // +4: rows stay 16-byte aligned and a warp's transposed stores hit 32 distinct banks.
  __shared__ __align__(16) float as[2][BK][BM + 4];
  __shared__ __align__(16) float bs[2][BK][BN + 4];

  const SimtConvGeom& g = args.g;
  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const int slice = static_cast<int>(args.batched ? blockIdx.z % args.batch_splits : blockIdx.z);
  if (args.batched) {
    const long long z = blockIdx.z / args.batch_splits;
    args.a += z * args.a_batch;
    args.b += z * args.b_batch;
    args.out += z * args.out_batch;
  }
  const int k_lo = slice * args.k_chunk;
  const int k_hi = args.kred - k_lo < args.k_chunk ? args.kred : k_lo + args.k_chunk;
  const int pq = g.p * g.q, rsc = g.r * g.s * g.c;

  // Per staged vector: its tile row/kk, and what stays fixed over the K loop.
  constexpr int VA = VWA, VB = VWB;
  int a_row[SA::vecs], a_kk[SA::vecs], b_row[SB::vecs], b_kk[SB::vecs];
  int a_img[SA::vecs], a_h0[SA::vecs], a_w0[SA::vecs];  // fwd A: the output pixel's corner
  int b_r[SB::vecs], b_s[SB::vecs], b_c[SB::vecs];      // wgrad B: the column's (r, s, c)
  long long b_base[SB::vecs];                           // NCHW B: In[img][0][p*str_h][q*str_w]
  bool a_in[SA::vecs], b_in[SB::vecs];                  // row < M / column < N
#pragma unroll
  for (int i = 0; i < SA::vecs; ++i) {
    const int v = tid + i * NT;
    a_row[i] = a_kc ? v / (BK / VA) : (v % (BM / VA)) * VA;
    a_kk[i] = a_kc ? (v % (BK / VA)) * VA : v / (BM / VA);
    const int m = m0 + a_row[i];
    a_in[i] = m < args.m;
    a_img[i] = a_h0[i] = a_w0[i] = 0;
    if (D == SimtConvDir::fwd && a_in[i]) {
      a_img[i] = m / pq;
      const int rem = m - a_img[i] * pq, pp = rem / g.q;
      a_h0[i] = pp * g.str_h - g.pad_h;
      a_w0[i] = (rem - pp * g.q) * g.str_w - g.pad_w;
    }
  }
#pragma unroll
  for (int i = 0; i < SB::vecs; ++i) {
    const int v = tid + i * NT;
    b_row[i] = b_kc ? v / (BK / VB) : (v % (BN / VB)) * VB;
    b_kk[i] = b_kc ? (v % (BK / VB)) * VB : v / (BN / VB);
    const int n = n0 + b_row[i];
    b_in[i] = n < args.n;
    b_r[i] = b_s[i] = b_c[i] = 0;
    b_base[i] = 0;
    if (D == SimtConvDir::wgrad && b_in[i]) {
      const int rs = n / g.c;
      b_c[i] = n - rs * g.c;
      b_r[i] = rs / g.s;
      b_s[i] = rs - b_r[i] * g.s;
    }
    if (nchw && b_in[i]) {
      const int img = n / pq, rem = n - img * pq, pp = rem / g.q;
      b_base[i] = (static_cast<long long>(img) * g.c * g.h + pp * g.str_h) * g.w + (rem - pp * g.q) * g.str_w;
    }
  }

  const long long hw = static_cast<long long>(g.h) * g.w;  // NCHW B: the channel stride
  float ra[SA::vecs][VA], rb[SB::vecs][VB];
  auto load_stage = [&](int k0) {
#pragma unroll
    for (int i = 0; i < SA::vecs; ++i) {
      const int kk = k0 + a_kk[i];
      if constexpr (D == SimtConvDir::fwd) {  // In at the pixel's tap (r, s), channels c..c+VA-1
        const int rs = kk / g.c, cc = kk - rs * g.c, rr = rs / g.s, ss = rs - rr * g.s;
        const long long off = a_in[i] && kk < k_hi
                                  ? simt_in_offset(g, a_img[i], a_h0[i] + rr * g.dil_h, a_w0[i] + ss * g.dil_w, cc)
                                  : -1;
        simt_load<VA>(ra[i], args.a + (off < 0 ? 0 : off), off >= 0);
      } else if constexpr (a_kc) {  // nchw_fwd: W[k m][kk..kk+VA-1], row pitch kred
        const bool ok = a_in[i] && kk < k_hi;
        simt_load<VA>(ra[i], args.a + (ok ? static_cast<long long>(m0 + a_row[i]) * args.kred + kk : 0), ok);
      } else {  // wgrad: dOut[pixel kk][k m..m+VA-1]; nchw_bwd_data: W[k kk][c m..m+VA-1]
        const bool ok = a_in[i] && kk < k_hi;
        simt_load<VA>(ra[i], args.a + (ok ? static_cast<long long>(kk) * args.m + m0 + a_row[i] : 0), ok);
      }
    }
#pragma unroll
    for (int i = 0; i < SB::vecs; ++i) {
      const int kk = k0 + b_kk[i];
      if constexpr (D == SimtConvDir::fwd) {  // W[k n][kk..kk+VB-1]
        const bool ok = b_in[i] && kk < k_hi;
        simt_load<VB>(rb[i], args.b + (ok ? static_cast<long long>(n0 + b_row[i]) * rsc + kk : 0), ok);
      } else if constexpr (nchw) {  // In[img][kk][pixels n..n+VB-1]
        const bool ok = b_in[i] && kk < k_hi;
        simt_load<VB>(rb[i], args.b + (ok ? b_base[i] + kk * hw : 0), ok);
      } else {  // wgrad: In at pixel kk's tap (r, s) of column n
        long long off = -1;
        if (b_in[i] && kk < k_hi) {
          const int img = kk / pq, rem = kk - img * pq, pp = rem / g.q, qq = rem - pp * g.q;
          off = simt_in_offset(g, img, pp * g.str_h - g.pad_h + b_r[i] * g.dil_h,
                               qq * g.str_w - g.pad_w + b_s[i] * g.dil_w, b_c[i]);
        }
        simt_load<VB>(rb[i], args.b + (off < 0 ? 0 : off), off >= 0);
      }
    }
  };
  auto store_stage = [&](int buf) {
#pragma unroll
    for (int i = 0; i < SA::vecs; ++i)
#pragma unroll
      for (int j = 0; j < VA; ++j) {
        if constexpr (a_kc)
          as[buf][a_kk[i] + j][a_row[i]] = ra[i][j];
        else
          as[buf][a_kk[i]][a_row[i] + j] = ra[i][j];
      }
#pragma unroll
    for (int i = 0; i < SB::vecs; ++i)
#pragma unroll
      for (int j = 0; j < VB; ++j) {
        if constexpr (b_kc)
          bs[buf][b_kk[i] + j][b_row[i]] = rb[i][j];
        else
          bs[buf][b_kk[i]][b_row[i] + j] = rb[i][j];
      }
  };

  const int tx = tid % Tile::threads_n, ty = tid / Tile::threads_n;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  load_stage(k_lo);
  store_stage(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = k_lo; k0 < k_hi; k0 += BK) {
    const bool more = k0 + BK < k_hi;
    if (more) load_stage(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float af[8], bf[8];
      const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][kk][BM / 2 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[buf][kk][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[buf][kk][BN / 2 + tx * 4]);
      af[0] = a0.x, af[1] = a0.y, af[2] = a0.z, af[3] = a0.w, af[4] = a1.x, af[5] = a1.y, af[6] = a1.z, af[7] = a1.w;
      bf[0] = b0.x, bf[1] = b0.y, bf[2] = b0.z, bf[3] = b0.w, bf[4] = b1.x, bf[5] = b1.y, bf[6] = b1.z, bf[7] = b1.w;
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
    if (more) store_stage(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }

  // C row m, columns n..n+3 of each 4-run: float4 stores where vec_out (else scalars); the last run
  // of a row may be partial. NHWC rows start once per row (row map); NCHW columns map per 4-run (a
  // run stays in one image when P*Q % 4 == 0, else element by element).
  float* const out = args.out + static_cast<long long>(slice) * (args.slice_pitch ? args.slice_pitch : 1LL * args.m * args.n);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int m = m0 + (i < 4 ? 0 : BM / 2) + ty * 4 + i % 4;
    if (m >= args.m) continue;
    const long long row_base =
        args.partial ? static_cast<long long>(m) * args.n : nchw ? 0 : args.map.row(m) * args.n;
#pragma unroll
    for (int jr = 0; jr < 2; ++jr) {
      const int n = n0 + jr * (BN / 2) + tx * 4;
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        v[j] = acc[i][jr * 4 + j] + (args.bias && n + j < args.n ? args.bias[nchw ? m : n + j] : 0.0f);
      if constexpr (nchw) {
        if (!args.partial) {
          auto at = [&](int col) { return out + args.map.nchw_offset(m, col); };
          if (args.vec_out && n + 3 < args.n) {
            *reinterpret_cast<float4*>(at(n)) = float4{v[0], v[1], v[2], v[3]};
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (n + j < args.n) *at(n + j) = v[j];
          }
          continue;
        }
      }
      float* const o = out + row_base + n;
      if (args.vec_out && n + 3 < args.n) {
        *reinterpret_cast<float4*>(o) = float4{v[0], v[1], v[2], v[3]};
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (n + j < args.n) o[j] = v[j];
      }
    }
  }
}

}  // namespace hiprim::gpu
