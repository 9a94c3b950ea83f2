// The persistent forward kernel of the rnn solvers' "steps.persist" config (include from gpu/rnn/rnn.hip
// only): every step of one layer and direction in ONE cooperative launch, the steps separated by
// grid-wide barriers, R held in registers for the whole sequence. Measured (s24 call 5, H100, hidden
// 1024, batch 64): about 80 us a step, slower than a step GEMM plus gate kernel (~40 us): each block
// staged all of h_prev through a grid-stride loop of single loads (latency-bound) and gathered the
// lanes' partial sums with 16-way bank conflicts. Since (not yet run on a GPU): the staging takes 8
// 16-byte loads per thread in flight at once where H % 4 == 0, and the partial sums' rows are padded
// to 17 floats (conflict-free gather).
//
// Block b owns the hidden units j in [b*hu, (b+1)*hu) (all G gates of them: rows = G*hu rows of R,
// row r = g*hu + jj for unit j = b*hu + jj), so it finishes those units' cells itself; the shape comes
// from rnn_persist_shape (gpu/rnn/rnn_plan.hpp). Thread t works on row r = t / 16 with k-lane
// c = t % 16, which holds R[g*H + j][k] in registers for k = 64 i + 4 c + e (i < ki, e < 4; zero past H).
// Per step s (t = s, or T-1-s reversed), per chunk of up to kRnnPersistNb samples:
//   hs[nn][k]       = h_prev[n0 + nn][k] (zero past H)                       shared memory, rows of 64 ki
//   part[nn][r][c]  = sum_i sum_e R[row r][64 i + 4 c + e] hs[nn][64 i + 4 c + e]   (fmaf chain, i, e ascending;
//                     rows of 17 floats)
//   qs[nn][r]       = (sum_{c ascending} part[nn][r][c]) + bR[row r]        (one fp32 sum of the H products, then the bias)
//   the cells of (n0 + nn, j) with rnn_cell_fwd (a = p + qs, as rnn_step_fwd does with the GEMM's R h_prev + bR)
// then grid_sync() before the next step reads the h it wrote. The products' sum runs in a different
// order than the SIMT GEMM's ascending k (reference/rnn_bound.hpp's gamma(K') holds for any order).
#pragma once
#include "gpu/common/launch_grid.hpp"
#include "gpu/rnn/rnn_kernels.hpp"
#include "gpu/rnn/rnn_plan.hpp"

namespace hiprim::gpu {

struct RnnPersistFwd {
  RnnSeqFwd seq;     // the sequence's buffers (seq.G = G)
  const float* r;    // R [GH][H]
  const float* br;   // [GH] or nullptr
  int hu, ki;
  bool vec;          // H % 4 == 0: h_prev's rows (h0's and out's) are 16-byte aligned runs of H floats
};

// hs[nn][k] = h_prev[n0 + nn][k] for nn < nb, k < hs_w (zero from H on).
__device__ __forceinline__ void rnn_persist_stage(const RnnRows& h_prev, int n0, int nb, int H, int hs_w, bool vec, float* hs) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  if (!vec) {
    for (int e = tid; e < nb * hs_w; e += threads) {
      const int nn = e / hs_w, k = e - nn * hs_w;
      hs[e] = k < H ? h_prev.at(n0 + nn, k) : 0.0f;
    }
    return;
  }
  constexpr int kInFlight = 8;  // 16-byte loads per thread issued before any is stored
  const int w4 = hs_w / 4, h4 = H / 4, total = nb * w4;
  float4 zero;
  zero.x = zero.y = zero.z = zero.w = 0.0f;
  for (int base = 0; base < total; base += kInFlight * threads) {
    float4 v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int e = base + u * threads + tid, nn = e / w4, k4 = e - nn * w4;
      v[u] = e < total && k4 < h4 ? *reinterpret_cast<const float4*>(&h_prev.at(n0 + nn, 4 * k4)) : zero;
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int e = base + u * threads + tid;
      if (e < total) *reinterpret_cast<float4*>(hs + 4 * e) = v[u];
    }
  }
}

template <RnnCell C>
__global__ void __launch_bounds__(512) rnn_persist_fwd(RnnPersistFwd a) {
  HIPRIM_DYNAMIC_SMEM(raw);
  float* smem = reinterpret_cast<float*>(raw);
  constexpr int G = static_cast<int>(kRnnGates<C>);
  const int N = a.seq.N, H = a.seq.H, hu = a.hu, rows = G * hu, hs_w = 64 * a.ki;
  float* hs = smem;                                  // [kRnnPersistNb][hs_w]
  float* part = hs + kRnnPersistNb * hs_w;           // [kRnnPersistNb][rows][17]
  float* qs = part + kRnnPersistNb * rows * 17;      // [kRnnPersistNb][rows]
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int lane = tid % 16, r = tid / 16, j0 = static_cast<int>(blockIdx.x) * hu;
  const long long GH = static_cast<long long>(G) * H;

  float rk[kRnnPersistMaxKi * 4];
  {
    const int j = j0 + r % hu;
    const bool live = r < rows && j < H;
    const float* row = a.r + (static_cast<long long>(r / hu) * H + j) * H;
#pragma unroll
    for (int i = 0; i < kRnnPersistMaxKi; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int k = 64 * i + 4 * lane + e;
        rk[4 * i + e] = live && i < a.ki && k < H ? row[k] : 0.0f;
      }
  }

  for (int s = 0; s < a.seq.T; ++s) {
    const RnnStepFwd st = a.seq.step(s);
    for (int n0 = 0; n0 < N; n0 += kRnnPersistNb) {
      const int nb = N - n0 < kRnnPersistNb ? N - n0 : kRnnPersistNb;
      __syncthreads();  // the previous chunk's readers of hs and qs are done
      rnn_persist_stage(st.h_prev, n0, nb, H, hs_w, a.vec, hs);
      __syncthreads();
      if (r < rows) {
        for (int nn = 0; nn < nb; ++nn) {
          float acc = 0.0f;
#pragma unroll
          for (int i = 0; i < kRnnPersistMaxKi; ++i) {
            if (i < a.ki) {
              const float4 v = *reinterpret_cast<const float4*>(hs + nn * hs_w + 64 * i + 4 * lane);
              acc = fmaf(rk[4 * i], v.x, acc);
              acc = fmaf(rk[4 * i + 1], v.y, acc);
              acc = fmaf(rk[4 * i + 2], v.z, acc);
              acc = fmaf(rk[4 * i + 3], v.w, acc);
            }
          }
          part[(nn * rows + r) * 17 + lane] = acc;
        }
      }
      __syncthreads();
      for (int o = tid; o < nb * rows; o += threads) {
        float q = 0.0f;
        for (int l = 0; l < 16; ++l) q += part[o * 17 + l];
        const int rr = o % rows, j = j0 + rr % hu;
        if (a.br != nullptr && j < H) q = q + a.br[static_cast<long long>(rr / hu) * H + j];
        qs[o] = q;
      }
      __syncthreads();
      for (int e = tid; e < nb * hu; e += threads) {
        const int nn = e / hu, jj = e - nn * hu, j = j0 + jj, n = n0 + nn;
        if (j < H) rnn_cell_fwd<C>(st, n, j, st.p + n * GH + j, qs + nn * rows + jj, hu, H, rnn_cell_prev<C>(st, n, j));
      }
    }
    grid_sync();  // this step's h (and c) reach every block before the next step reads them
  }
}

}  // namespace hiprim::gpu
