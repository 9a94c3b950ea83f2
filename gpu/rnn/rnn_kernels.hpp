// Device kernels of the rnn.gemm solvers (include from gpu/rnn/rnn.hip only): the fused gate kernels
// of one step (forward and backward), strided conversions, and column sums. One thread per
// (n, j) element of a step (j < H), grid-stride loops, fp32 arithmetic throughout. Every formula is
// written operation by operation as the bound's model has it (reference/rnn_bound.hpp); a compiler
// may fuse a product into a sum (FMA), which the bound covers.
#pragma once
#include "core/host_device.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/runtime/hip_compat.hpp"

// HIPRIM_RNN_MUTANT (tests only, tests/gpu/test_rnn_emu.cpp: the emulated solver must fail with it):
// 1 reads the gates in a wrong order (LSTM o and g swapped, GRU z and r), 2 walks the reverse
// direction forward (no time flip), 3 drops the recurrent bias bR.
#ifndef HIPRIM_RNN_MUTANT
#define HIPRIM_RNN_MUTANT 0
#endif

namespace hiprim::gpu {

// Gate blocks of the packed rows (MIOpen's order): LSTM i f o g, GRU z r n.
constexpr int kLstmO = HIPRIM_RNN_MUTANT == 1 ? 3 : 2, kLstmG = HIPRIM_RNN_MUTANT == 1 ? 2 : 3;
constexpr int kGruZ = HIPRIM_RNN_MUTANT == 1 ? 1 : 0, kGruR = HIPRIM_RNN_MUTANT == 1 ? 0 : 1;

enum class RnnCell { relu, tanh, lstm, gru };
// Gates per cell (G): rows of a step's pre-activations are G*H wide.
template <RnnCell C>
inline constexpr long long kRnnGates = C == RnnCell::lstm ? 4 : C == RnnCell::gru ? 3 : 1;

__device__ __forceinline__ float rnn_sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }

// A matrix of fp32 rows: element (row, j) at ptr[row * ld + j].
struct RnnRows {
  float* ptr = nullptr;
  long long ld = 0;
  __device__ __forceinline__ float& at(long long row, long long j) const { return ptr[row * ld + j]; }
};

// bf16 pieces of fp32 rows (the rnn.mma solvers' GEMM operands): `count` planes `plane` elements
// apart, rows ld apart; piece q of element (r, j) at ptr[q * plane + r * ld + j].
struct RnnPieces {
  hiprim_bf16_t* ptr = nullptr;
  long long ld = 0, plane = 0;
  int count = 0;
  HIPRIM_HOST_DEVICE RnnPieces offset(long long e) const { return RnnPieces{ptr ? ptr + e : nullptr, ld, plane, count}; }  // {} stays {}
};

// The bf16 pieces of v into to at element offset o, to.count of them (three: see rnn_split_bf16x3):
//   v = p0 + p1 + p2, p0 = bf16(v), p1 = bf16(v - p0), p2 = bf16(v - p0 - p1)  (round to nearest even)
// Each remainder is exact in fp32 and the third is exact in bf16 (24 = 8 + 8 + 8 significand bits),
// so the sum is v unless a piece falls below 2^-126 (bf16 subnormals; the bound takes a loss < 4 2^-126).
__device__ __forceinline__ void rnn_write_pieces(const RnnPieces& to, long long o, float v) {
  for (int q = 0; q < to.count; ++q) {  // count 1 (math=h16): bf16(v) alone
    hiprim_bf16_t b[1];
    store_f(b, 0, v);  // the rounding, in a register
    to.ptr[q * to.plane + o] = b[0];
    v -= load_f(b, 0);
  }
}

// One forward step of one layer and direction, for every (n, j), n < N, j < H:
//   a = p + rh (p = W x_t + bW: the step's rows of the input projection [N][GH]; rh = R h_prev + bR [N][GH])
//   relu/tanh: h = f(a)                   LSTM (i, f, o, g): c = f c_prev + i g, h = o tanh(c)
//   GRU (z, r, n): n = tanh(p_n + r rh_n), h = (1 - z) n + z h_prev
// Writes h (the layer's output rows at time t; and its bf16 pieces into hp when set, rows of hp.ld),
// c (LSTM), and when act is set the gate activations [N][GH] (and q = rh_n [N][H] for GRU), which the
// backward step reads.
struct RnnStepFwd {
  const float* p;   // [N][GH]
  const float* rh;  // [N][GH]
  RnnRows h_prev, c_prev, h, c;
  RnnPieces hp;
  float* act;       // [N][GH] or nullptr
  float* q;         // [N][H] (GRU) or nullptr
  int N, H;
};

// One layer and direction's buffers over the whole sequence, as the persistent kernels (gpu/rnn/rnn_persist.hpp,
// rnn_persist_tc.hpp) walk it: step(s) is step s's RnnStepFwd (t = s, or T-1-s reversed; h_prev = h0 at s = 0,
// else the output row block of the previous step's time).
struct RnnSeqFwd {
  const float* p;    // [T][N][GH] the input projection, time order
  RnnRows h0, c0;    // [N][H] (c0: LSTM)
  RnnRows out;       // h of time t, sample n at out.ptr[(t N + n) out.ld] (the direction's columns)
  float* c;          // LSTM: [T][N][H] in processing order s, else nullptr
  float* act;        // [T][N][GH] in processing order, or nullptr
  float* q;          // GRU: [T][N][H] in processing order, or nullptr
  RnnPieces hp;      // h's bf16 pieces, rows like out (hp.ld), or {}
  int N, H, T, G;
  bool reverse;
  __device__ __forceinline__ int time(int s) const { return reverse ? T - 1 - s : s; }
  __device__ RnnStepFwd step(int s) const {
    const long long t = time(s), GH = static_cast<long long>(G) * H;
    RnnStepFwd st{};
    st.p = p + t * N * GH;
    st.h_prev = s == 0 ? h0 : RnnRows{out.ptr + static_cast<long long>(time(s - 1)) * N * out.ld, out.ld};
    st.h = RnnRows{out.ptr + t * N * out.ld, out.ld};
    if (c) {
      st.c_prev = s == 0 ? c0 : RnnRows{c + static_cast<long long>(s - 1) * N * H, H};
      st.c = RnnRows{c + static_cast<long long>(s) * N * H, H};
    }
    st.hp = hp.offset(t * N * hp.ld);
    st.act = act ? act + static_cast<long long>(s) * N * GH : nullptr;
    st.q = q ? q + static_cast<long long>(s) * N * H : nullptr;
    st.N = N, st.H = H;
    return st;
  }
};

// The carried value the cell of (n, j) reads: c_prev (LSTM), h_prev (GRU), none (relu/tanh).
template <RnnCell C>
__device__ __forceinline__ float rnn_cell_prev(const RnnStepFwd& s, long long n, long long j) {
  if constexpr (C == RnnCell::lstm) return s.c_prev.at(n, j);
  else if constexpr (C == RnnCell::gru) return s.h_prev.at(n, j);
  else return 0.0f;
}

// The cell of element (n, j) of step s: gate g's p at p[g * ps] and rh at rh[g * rs] (the step kernel's
// rows, ps = rs = H; or the persistent kernels' gathered sums and prefetched p); prev = rnn_cell_prev.
template <RnnCell C>
__device__ __forceinline__ void rnn_cell_fwd(const RnnStepFwd& s, long long n, long long j, const float* p, const float* rh,
                                             long long rs, long long ps, float prev) {
  const long long H = s.H, GH = kRnnGates<C> * s.H;
  float* act = s.act ? s.act + n * GH : nullptr;
  float h;
  if constexpr (C == RnnCell::relu || C == RnnCell::tanh) {
    const float a = p[0] + rh[0];
    h = C == RnnCell::relu ? fmaxf(a, 0.0f) : tanhf(a);
    if (act) act[j] = h;
  } else if constexpr (C == RnnCell::lstm) {
    const float i = rnn_sigmoid(p[0] + rh[0]), f = rnn_sigmoid(p[ps] + rh[rs]);
    const float o = rnn_sigmoid(p[kLstmO * ps] + rh[kLstmO * rs]), g = tanhf(p[kLstmG * ps] + rh[kLstmG * rs]);
    const float c = f * prev + i * g;
    s.c.at(n, j) = c;
    h = o * tanhf(c);
    if (act) act[j] = i, act[H + j] = f, act[2 * H + j] = o, act[3 * H + j] = g;
  } else {
    const float z = rnn_sigmoid(p[kGruZ * ps] + rh[kGruZ * rs]), r = rnn_sigmoid(p[kGruR * ps] + rh[kGruR * rs]);
    const float qn = rh[2 * rs];
    const float nn = tanhf(p[2 * ps] + r * qn);
    h = (1.0f - z) * nn + z * prev;
    if (act) act[j] = z, act[H + j] = r, act[2 * H + j] = nn;
    if (s.q) s.q[n * H + j] = qn;
  }
  s.h.at(n, j) = h;
  if (s.hp.ptr) rnn_write_pieces(s.hp, n * s.hp.ld + j, h);
}

template <RnnCell C>
__global__ void rnn_step_fwd(RnnStepFwd s) {
  const long long total = static_cast<long long>(s.N) * s.H, GH = kRnnGates<C> * s.H;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long n = e / s.H, j = e - n * s.H;
    rnn_cell_fwd<C>(s, n, j, s.p + n * GH + j, s.rh + n * GH + j, s.H, s.H, rnn_cell_prev<C>(s, n, j));
  }
}

// One backward step (reference/rnn.cpp's BPTT), for every (n, j): dh = dy_t (this direction's
// columns of the layer output's gradient) + dh_next;
//   relu: da = h > 0 ? dh : 0        tanh: da = dh (1 - h h)
//   LSTM: dc = dc_next + (dh o)(1 - tc tc), tc = tanh(c); da_i = (dc g)(i (1 - i)), da_f = (dc c_prev)(f (1 - f)),
//         da_o = (dh tc)(o (1 - o)), da_g = (dc i)(1 - g g); dc_next <- dc f
//   GRU:  dn = (dh (1 - z))(1 - n n); da_z = (dh (h_prev - n))(z (1 - z)); da_r = (dn q)(r (1 - r)); da_n = dn;
//         the recurrent n rows take dn r; dh_next <- dh z (the direct path; the GEMM adds R^T drec)
// Writes da [N][GH] (the input rows' gradient) and drec [N][GH] (the recurrent rows': da except GRU's n).
struct RnnStepBwd {
  RnnRows dy;               // [N] rows of this direction's H columns
  float* dh_next;           // [N][H] in/out
  float* dc_next;           // [N][H] in/out (LSTM)
  const float* act;         // [N][GH]
  const float* q;           // [N][H] (GRU)
  RnnRows c, c_prev, h_prev;
  float* da;                // [N][GH]
  float* drec;              // [N][GH]
  int N, H;
};

template <RnnCell C>
__global__ void rnn_step_bwd(RnnStepBwd s) {
  const long long total = static_cast<long long>(s.N) * s.H, GH = kRnnGates<C> * s.H;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long n = e / s.H, j = e - n * s.H, H = s.H;
    const float* act = s.act + n * GH;
    float* da = s.da + n * GH;
    float* drec = s.drec + n * GH;
    const float dh = s.dy.at(n, j) + s.dh_next[e];
    if constexpr (C == RnnCell::relu || C == RnnCell::tanh) {
      const float h = act[j];
      da[j] = drec[j] = C == RnnCell::relu ? (h > 0.0f ? dh : 0.0f) : dh * (1.0f - h * h);
    } else if constexpr (C == RnnCell::lstm) {
      const float i = act[j], f = act[H + j], o = act[2 * H + j], g = act[3 * H + j], tc = tanhf(s.c.at(n, j));
      const float dc = s.dc_next[e] + (dh * o) * (1.0f - tc * tc);
      da[j] = drec[j] = (dc * g) * (i * (1.0f - i));
      da[H + j] = drec[H + j] = (dc * s.c_prev.at(n, j)) * (f * (1.0f - f));
      da[2 * H + j] = drec[2 * H + j] = (dh * tc) * (o * (1.0f - o));
      da[3 * H + j] = drec[3 * H + j] = (dc * i) * (1.0f - g * g);
      s.dc_next[e] = dc * f;
    } else {
      const float z = act[j], r = act[H + j], nn = act[2 * H + j];
      const float dn = (dh * (1.0f - z)) * (1.0f - nn * nn);
      da[j] = drec[j] = (dh * (s.h_prev.at(n, j) - nn)) * (z * (1.0f - z));
      da[H + j] = drec[H + j] = (dn * s.q[e]) * (r * (1.0f - r));
      da[2 * H + j] = dn;
      drec[2 * H + j] = dn * r;
      s.dh_next[e] = dh * z;
    }
  }
}

// out[r * ldo + j] = round_TOut(in[r * ldi + j]) for r < rows, j < cols (dtype <-> fp32 copies).
template <typename TIn, typename TOut>
__global__ void rnn_copy_rows(const TIn* in, long long ldi, TOut* out, long long ldo, long long rows, long long cols) {
  const long long total = rows * cols;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = e / cols, j = e - r * cols;
    store_f(out, r * ldo + j, load_f(in, r * ldi + j));
  }
}

// rnn_write_pieces of every element of fp32 rows [rows][cols] (ld apart) into `to`.
__global__ void rnn_split_bf16x3(const float* in, long long ldi, long long rows, long long cols, RnnPieces to) {
  const long long total = rows * cols;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = e / cols, j = e - r * cols;
    rnn_write_pieces(to, r * to.ld + j, in[r * ldi + j]);
  }
}

// out[j] = sum_{r = 0, 1, ..., rows-1} in[r * ld + j] (the bias gradients: sums over all steps and
// samples, one thread per column, ascending r: deterministic).
__global__ void rnn_column_sums(const float* in, long long ld, long long rows, long long cols, float* out) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < cols;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    float s = 0.0f;
    for (long long r = 0; r < rows; ++r) s += in[r * ld + j];
    out[j] = s;
  }
}

}  // namespace hiprim::gpu
