// ctc.alpha_beta: the CTC loss and its gradient (core/ctc_problem.hpp) by the log-space alpha/beta
// recursions of Graves et al., fp32 compute for fp32/fp16/bf16 storage; its error bound is
// reference/ctc.hpp's error model, whose steps are the ones below.
//
// Three kernels (s23: the per-sequence block ran the softmax rows and the gradient itself, N blocks on
// the whole GPU; now only the recursions are per sequence):
//   Y  (ctc_log_probs_kernel, every row (t, b) of [T][N], kBlock / kTeam rows per block) log y_t(k):
//      softmax: (x - m) - logf(sum expf(x - m)) by a team of kTeam threads per row (team_reduce: fixed
//      order); probabilities: logf(y). Rows t >= T_b are computed too and never read.
//   (ctc_alpha_beta_kernel, one block per sequence b, phases separated by block barriers)
//   V  b's data checked (T_b, L_b integers in range, label ids in [0, C) and not the blank,
//      L_b + repeats <= T_b; the labels over the block's threads): a violation sets T_b = -1 and
//      losses[b] = NaN and ends the block; else the ids go to lab and each class's label positions
//      are linked (head/next)
//   A  alpha_t(s) = lse3(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) if skip(s)) + log y_t(l'_s),
//      threads over the S = 2 L_b + 1 states, one barrier per step; where 2 S <= kBlock, half the
//      block runs A while the other half runs B (step i: alpha_i and beta_{T_b-1-i}); l' = (blank, l_1, blank, ..., blank),
//      skip(s): s is a label that differs from the label two states back
//   B  beta_t(s) = lse3 over s' = s, s+1, s+2 (if skip(s')) of beta_{t+1}(s') + log y_{t+1}(l'_s'), beta_{T_b-1} = 0 at S-1, S-2
//   L  logp = lse(alpha_{T_b-1}(S-1), alpha_{T_b-1}(S-2)); losses[b] = -logp (+inf when logp = -inf: grads 0);
//      T_b and logp kept in the workspace for G
//   G  (ctc_grads_kernel, every element (t, b, k)) occupancy o_t(s) = expf((alpha + beta) - logp);
//      gamma_t(k) = the sum of o_t(s) over the states of class k (the blank: even s; a label: its chain
//      head[k], next[j], in increasing s); grads = y - gamma (softmax, y = expf(log y)) or -gamma / y
//      (probabilities; 0 where y = 0); 0 for t >= T_b or logp = -inf; NaN for a sequence V refused.
// Workspace (fp32 unless int): logy [T][N][C] (the probs layout), alpha and beta [N][T][Smax]
// (Smax = 2L + 1), lab [N][L], head [N][C], next [N][L], tb [N], lb [N] (int32), logp [N].
// HIPRIM_CTC_MUTANT (tests only; tests/gpu/emu): 1 lets a repeated label skip its blank, 2 reads beta's
// log y one time step early. The product build leaves it 0.
#include <algorithm>
#include <string>

#include "core/ctc_problem.hpp"
#include "gpu/common/block_reduce.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/ctc/solvers.hpp"
#include "gpu/runtime/check.hpp"

#ifndef HIPRIM_CTC_MUTANT
#define HIPRIM_CTC_MUTANT 0
#endif

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256, kTeam = 32;  // kTeam threads per softmax row: kBlock / kTeam rows at once
constexpr int kSmemStates = 512;         // S up to this: the recursions' previous rows in shared memory

struct CtcGeom {
  long long T, N, C, L, Smax, blank;
  bool softmax;
  __host__ __device__ long long logy_at(long long t, long long b, long long k) const { return (t * N + b) * C + k; }
};

struct CtcWs {  // the workspace's regions
  float *logy, *alpha, *beta;
  int *lab, *head, *next;
  int *tb, *lb;  // T_b (-1 where V refused the sequence) and L_b per sequence
  float* logp;    // log p(l | x) per sequence
};

__device__ __forceinline__ float lse3(float a, float b, float c) {
  const float m = fmaxf(a, fmaxf(b, c));
  if (m == -INFINITY) return -INFINITY;
  return m + logf(expf(a - m) + expf(b - m) + expf(c - m));
}

// A stored fp32 integer v in [lo, hi] (NaN fails every comparison).
__device__ __forceinline__ bool int_in(float v, float lo, float hi) { return v == floorf(v) && v >= lo && v <= hi; }

// Phase V; every thread returns the block's verdict (true: the sequence is valid; *Tb, *Lb set).
// Thread 0 reads the lengths; the labels are checked and their repeats counted over the block's
// threads (block sums), and each position j finds its chain links itself: next[j] = the next position
// with j's label, head[k] = the first position of label k (the chains the serial loop built before
// s23, whose global read-after-write per label made V a serial chain of L round trips).
__device__ bool ctc_validate(const CtcGeom& g, long long b, const float* labels, const float* label_lengths,
                             const float* input_lengths, const CtcWs& w, int* Tb, int* Lb) {
  __shared__ int ok, tb, lb;
  __shared__ int scratch[kBlock];
  int* head = w.head + b * g.C;
  for (long long k = threadIdx.x; k < g.C; k += blockDim.x) head[k] = -1;
  if (threadIdx.x == 0) {
    const float tv = input_lengths[b], lv = label_lengths[b];
    ok = int_in(tv, 1.0f, static_cast<float>(g.T)) && int_in(lv, 0.0f, static_cast<float>(g.L));
    tb = ok ? static_cast<int>(tv) : 0;
    lb = ok ? static_cast<int>(lv) : 0;
  }
  __syncthreads();
  const float* ids = labels + b * g.L;
  int bad = 0, repeats = 0;
  for (int j = static_cast<int>(threadIdx.x); j < lb; j += static_cast<int>(blockDim.x)) {
    const float id = ids[j];
    if (!int_in(id, 0.0f, static_cast<float>(g.C - 1)) || id == static_cast<float>(g.blank)) {
      bad = 1;
      continue;
    }
    w.lab[b * g.L + j] = static_cast<int>(id);
    if (j > 0 && ids[j - 1] == id) ++repeats;
  }
  bad = team_reduce(bad, scratch, static_cast<int>(blockDim.x), SumOp{});  // its barriers also order head's -1s
  repeats = team_reduce(repeats, scratch, static_cast<int>(blockDim.x), SumOp{});
  const bool valid = ok && bad == 0 && lb + repeats <= tb;
  for (int j = static_cast<int>(threadIdx.x); valid && j < lb; j += static_cast<int>(blockDim.x)) {
    const float id = ids[j];
    int next = -1;
    for (int q = j + 1; q < lb && next < 0; ++q)
      if (ids[q] == id) next = q;
    w.next[b * g.L + j] = next;
    bool first = true;
    for (int q = 0; q < j && first; ++q) first = ids[q] != id;
    if (first) head[static_cast<int>(id)] = j;
  }
  *Tb = tb, *Lb = lb;
  __syncthreads();  // lab, next, head written before the phases that read them
  return valid;
}

// Y: log y of every row (t, b), kBlock / kTeam rows per block (rows = T * N, row r = t * N + b).
template <typename T>
__global__ void __launch_bounds__(kBlock) ctc_log_probs_kernel(CtcGeom g, const T* probs, float* logy) {
  const long long rows = g.T * g.N;
  if (!g.softmax) {
    const long long r0 = blockIdx.x * static_cast<long long>(kBlock / kTeam);
    const long long r1 = r0 + kBlock / kTeam, end = (r1 < rows ? r1 : rows) * g.C;
    for (long long o = r0 * g.C + threadIdx.x; o < end; o += blockDim.x) logy[o] = logf(load_f(probs, o));
    return;
  }
  __shared__ float scratch[kBlock];
  const int team = static_cast<int>(threadIdx.x) / kTeam, lane = static_cast<int>(threadIdx.x) % kTeam;
  const long long r = blockIdx.x * static_cast<long long>(kBlock / kTeam) + team;  // every thread reaches the syncs
  const bool live = r < rows;
  const long long row = live ? r * g.C : 0;
  float m = -INFINITY;
  for (long long k = lane; live && k < g.C; k += kTeam) m = MaxOp{}(m, load_f(probs, row + k));
  m = team_reduce(m, scratch, kTeam, MaxOp{});
  float z = 0.0f;
  for (long long k = lane; live && k < g.C; k += kTeam) z += expf(load_f(probs, row + k) - m);
  z = team_reduce(z, scratch, kTeam, SumOp{});
  const float log_z = logf(z);
  for (long long k = lane; live && k < g.C; k += kTeam) logy[row + k] = (load_f(probs, row + k) - m) - log_z;
}

// V, A, B, L for sequence b = blockIdx.x (after ctc_log_probs_kernel).
__global__ void __launch_bounds__(kBlock) ctc_alpha_beta_kernel(CtcGeom g, const float* labels, const float* label_lengths,
                                                                 const float* input_lengths, float* losses, CtcWs w) {
  const long long b = blockIdx.x;
  int Tb = 0, Lb = 0;
  if (!ctc_validate(g, b, labels, label_lengths, input_lengths, w, &Tb, &Lb)) {
    if (threadIdx.x == 0) losses[b] = NAN, w.tb[b] = -1;
    return;  // the whole block: the verdict is shared
  }

  const int S = 2 * Lb + 1;
  const int* lab = w.lab + b * g.L;
  float* alpha = w.alpha + b * g.T * g.Smax;  // alpha[t * Smax + s]
  float* beta = w.beta + b * g.T * g.Smax;
  auto ext = [&](int s) { return s % 2 ? lab[s / 2] : static_cast<int>(g.blank); };  // l'_s
#if HIPRIM_CTC_MUTANT == 1
  auto skip = [&](int s) { return s % 2 == 1 && s >= 3; };
#else
  auto skip = [&](int s) { return s % 2 == 1 && s >= 3 && lab[s / 2] != lab[s / 2 - 1]; };
#endif
  auto ly = [&](int t, int s) { return w.logy[g.logy_at(t, b, ext(s))]; };

  // A and B. Step functions over the states s = lane, lane + stride, ... of one time step t. Every
  // row also goes to the workspace (G reads it); where S <= kSmemStates the recursion reads the
  // previous row from a shared-memory copy (two rows per recursion, by step parity) instead.
  __shared__ float arow[2][kSmemStates], brow[2][kSmemStates];
  const bool in_smem = S <= kSmemStates;
  auto a_row = [&](int t) -> const float* { return in_smem ? arow[t & 1] : alpha + t * g.Smax; };
  auto b_row = [&](int t) -> const float* { return in_smem ? brow[t & 1] : beta + t * g.Smax; };
  auto a_put = [&](int t, int s, float v) {
    alpha[t * g.Smax + s] = v;
    if (in_smem) arow[t & 1][s] = v;
  };
  auto b_put = [&](int t, int s, float v) {
    beta[t * g.Smax + s] = v;
    if (in_smem) brow[t & 1][s] = v;
  };
  auto alpha_step = [&](int t, int lane, int stride) {
    const float* prev = a_row(t - 1);
    for (int s = lane; s < S; s += stride)
      a_put(t, s, lse3(prev[s], s >= 1 ? prev[s - 1] : -INFINITY, skip(s) ? prev[s - 2] : -INFINITY) + ly(t, s));
  };
  auto beta_step = [&](int t, int lane, int stride) {
    const float* next = b_row(t + 1);
#if HIPRIM_CTC_MUTANT == 2
    const int ty = t;
#else
    const int ty = t + 1;
#endif
    for (int s = lane; s < S; s += stride) {
      const float q0 = next[s] + ly(ty, s);
      const float q1 = s + 1 < S ? next[s + 1] + ly(ty, s + 1) : -INFINITY;
      const float q2 = s + 2 < S && skip(s + 2) ? next[s + 2] + ly(ty, s + 2) : -INFINITY;
      b_put(t, s, lse3(q0, q1, q2));
    }
  };
  const int block = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x);
  for (int s = tid; s < S; s += block) {
    a_put(0, s, s < 2 ? ly(0, s) : -INFINITY);
    b_put(Tb - 1, s, s >= S - 2 ? 0.0f : -INFINITY);
  }
  __syncthreads();
  if (2 * S <= block) {
    // Together: the first half of the block runs alpha forward (t = i), the second half beta backward
    // (t = Tb-1-i), one barrier per step i: the recursions are independent, so T_b serial steps
    // instead of 2 T_b (s23: only where each half covers S in one pass; past that it was slower).
    const int half = block / 2;
    for (int i = 1; i < Tb; ++i) {
      if (tid < half) alpha_step(i, tid, half);
      else beta_step(Tb - 1 - i, tid - half, half);
      __syncthreads();
    }
  } else {
    for (int t = 1; t < Tb; ++t) {
      alpha_step(t, tid, block);
      __syncthreads();
    }
    for (int t = Tb - 2; t >= 0; --t) {
      beta_step(t, tid, block);
      __syncthreads();
    }
  }
  // L: the loss, and what G needs.
  const float* last = alpha + (Tb - 1) * g.Smax;
  const float logp = lse3(last[S - 1], S > 1 ? last[S - 2] : -INFINITY, -INFINITY);
  if (threadIdx.x == 0) losses[b] = -logp, w.tb[b] = Tb, w.lb[b] = Lb, w.logp[b] = logp;
}

// G: the gradient of every element o = (t * N + b) * C + k (the probs layout), after ctc_alpha_beta_kernel.
template <typename T>
__global__ void __launch_bounds__(kBlock) ctc_grads_kernel(CtcGeom g, const T* probs, T* grads, CtcWs w) {
  const long long total = g.T * g.N * g.C;
  for (long long o = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long k = o % g.C, b = (o / g.C) % g.N, t = o / (g.C * g.N);
    const int Tb = w.tb[b];
    if (Tb < 0) {  // V refused the sequence
      store_f(grads, o, NAN);
      continue;
    }
    const float logp = w.logp[b];
    if (t >= Tb || logp == -INFINITY) {  // past the sequence, or no alignment of nonzero probability
      store_f(grads, o, 0.0f);
      continue;
    }
    const float* alpha = w.alpha + (b * g.T + t) * g.Smax;
    const float* beta = w.beta + (b * g.T + t) * g.Smax;
    auto occ = [&](long long s) { return expf((alpha[s] + beta[s]) - logp); };
    float gamma = 0.0f;
    if (k == g.blank) {
      const long long S = 2 * static_cast<long long>(w.lb[b]) + 1;
      for (long long s = 0; s < S; s += 2) gamma += occ(s);
    } else {
      const int* next = w.next + b * g.L;
      for (int j = w.head[b * g.C + k]; j >= 0; j = next[j]) gamma += occ(2 * j + 1);
    }
    float d;
    if (g.softmax) {
      d = expf(w.logy[o]) - gamma;
    } else {
      const float y = load_f(probs, o);
      d = y > 0.0f ? -gamma / y : 0.0f;
    }
    store_f(grads, o, d);
  }
}

// The workspace regions, each 256-byte aligned.
struct WsLayout {
  std::size_t logy, alpha, beta, lab, head, next, tb, lb, logp, total;
};
WsLayout ws_layout(const CtcProblem& p) {
  auto up = [](std::size_t v) { return (v + 255) / 256 * 256; };
  const std::size_t f = sizeof(float), i = sizeof(int), tn = static_cast<std::size_t>(p.t * p.n);
  const std::size_t ab = static_cast<std::size_t>(p.n * p.t) * static_cast<std::size_t>(2 * p.l + 1) * f;
  WsLayout w{};
  w.alpha = up(tn * static_cast<std::size_t>(p.c) * f);
  w.beta = w.alpha + up(ab);
  w.lab = w.beta + up(ab);
  w.head = w.lab + up(static_cast<std::size_t>(p.n * p.l) * i);
  w.next = w.head + up(static_cast<std::size_t>(p.n * p.c) * i);
  w.tb = w.next + up(static_cast<std::size_t>(p.n * p.l) * i);
  w.lb = w.tb + up(static_cast<std::size_t>(p.n) * i);
  w.logp = w.lb + up(static_cast<std::size_t>(p.n) * i);
  w.total = w.logp + up(static_cast<std::size_t>(p.n) * f);
  return w;
}

class CtcAlphaBeta final : public TypedOpSolver<CtcProblem> {
 public:
  std::string name() const override { return "ctc.alpha_beta"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "log-space alpha/beta, one block per sequence, threads over the 2L+1 states (alpha and beta together where they fit); "
           "log-softmax and gradient over the whole grid; loss and gradient (softmax over C on the device, or probabilities); "
           "fp32 compute, fp32/fp16/bf16 storage";
  }

 protected:
  Applicability applicable_to(const CtcProblem&) const override { return Applicability::yes(); }
  std::size_t workspace_for(const CtcProblem& p) const override { return ws_layout(p).total; }
  void run_typed(const CtcProblem& p, const std::vector<void*>& b, void* workspace, void* stream) const override {
    const CtcGeom g{p.t, p.n, p.c, p.l, 2 * p.l + 1, p.blank, p.softmax};
    const WsLayout l = ws_layout(p);
    auto* base = static_cast<unsigned char*>(workspace);
    const CtcWs w{reinterpret_cast<float*>(base),        reinterpret_cast<float*>(base + l.alpha), reinterpret_cast<float*>(base + l.beta),
                  reinterpret_cast<int*>(base + l.lab),   reinterpret_cast<int*>(base + l.head),    reinterpret_cast<int*>(base + l.next),
                  reinterpret_cast<int*>(base + l.tb),    reinterpret_cast<int*>(base + l.lb),      reinterpret_cast<float*>(base + l.logp)};
    const auto s = static_cast<hipStream_t>(stream);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    const long long rows = p.t * p.n, elements = rows * p.c;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const T* probs = static_cast<const T*>(b[0]);
      const unsigned row_blocks = static_cast<unsigned>((rows + kBlock / kTeam - 1) / (kBlock / kTeam));
      hipLaunchKernelGGL(ctc_log_probs_kernel<T>, dim3(row_blocks), dim3(kBlock), 0, s, g, probs, w.logy);
      HIPRIM_CHECK_LAUNCH("ctc_log_probs_kernel", ctx);
      hipLaunchKernelGGL(ctc_alpha_beta_kernel, dim3(static_cast<unsigned>(p.n)), dim3(kBlock), 0, s, g, static_cast<const float*>(b[1]),
                         static_cast<const float*>(b[2]), static_cast<const float*>(b[3]), static_cast<float*>(b[4]), w);
      HIPRIM_CHECK_LAUNCH("ctc_alpha_beta_kernel", ctx);
      const unsigned grad_blocks = static_cast<unsigned>(std::min<long long>((elements + kBlock - 1) / kBlock, 1LL << 20));
      hipLaunchKernelGGL(ctc_grads_kernel<T>, dim3(grad_blocks), dim3(kBlock), 0, s, g, probs, static_cast<T*>(b[5]), w);
      HIPRIM_CHECK_LAUNCH("ctc_grads_kernel", ctx);
    });
  }
};

}  // namespace

std::size_t ctc_alpha_beta_workspace(const CtcProblem& p) { return ws_layout(p).total; }

OpSolverList ctc_solvers() { return {std::make_shared<CtcAlphaBeta>()}; }

}  // namespace hiprim::gpu
