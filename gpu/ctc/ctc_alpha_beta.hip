// ctc.alpha_beta: the CTC loss and its gradient (core/ctc_problem.hpp) by the log-space alpha/beta
// recursions of Graves et al., fp32 compute for fp32/fp16/bf16 storage; its error bound is
// reference/ctc.hpp's error model, whose steps are the ones below.
//
// One block per sequence b (kBlock threads; grid N), phases separated by block barriers:
//   V  thread 0 checks b's data (T_b, L_b integers in range, label ids in [0, C) and not the blank,
//      L_b + repeats <= T_b): a violation writes NaN to losses[b] and to b's gradients and ends the
//      block; else it copies the ids to lab and links each class's label positions (head/next)
//   Y  log y_t(k), t < T_b: softmax: (x - m) - logf(sum expf(x - m)) by teams of kTeam threads per
//      row (team_reduce: fixed order); probabilities: logf(y). Gradients for t >= T_b: 0
//   A  alpha_t(s) = lse3(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) if skip(s)) + log y_t(l'_s),
//      threads over the S = 2 L_b + 1 states, one barrier per step; where 2 S <= kBlock, half the
//      block runs A while the other half runs B (step i: alpha_i and beta_{T_b-1-i}); l' = (blank, l_1, blank, ..., blank),
//      skip(s): s is a label that differs from the label two states back
//   B  beta_t(s) = lse3 over s' = s, s+1, s+2 (if skip(s')) of beta_{t+1}(s') + log y_{t+1}(l'_s'), beta_{T_b-1} = 0 at S-1, S-2
//   L  logp = lse(alpha_{T_b-1}(S-1), alpha_{T_b-1}(S-2)); losses[b] = -logp (+inf when logp = -inf: grads 0)
//   O  occupancy o_t(s) = expf((alpha + beta) - logp), written over alpha
//   G  gamma_t(k) = the sum of o_t(s) over the states of class k (the blank: even s; a label: its chain
//      head[k], next[j], in increasing s); grads = y - gamma (softmax, y = expf(log y)) or -gamma / y
//      (probabilities; 0 where y = 0)
// Workspace (fp32 unless int): logy [T][N][C] (the probs layout), alpha and beta [N][T][Smax]
// (Smax = 2L + 1), lab [N][L], head [N][C], next [N][L] (int32).
// HIPRIM_CTC_MUTANT (tests only; tests/gpu/emu): 1 lets a repeated label skip its blank, 2 reads beta's
// log y one time step early. The product build leaves it 0.
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

struct CtcGeom {
  long long T, N, C, L, Smax, blank;
  bool softmax;
  __host__ __device__ long long logy_at(long long t, long long b, long long k) const { return (t * N + b) * C + k; }
};

struct CtcWs {  // the workspace's regions
  float *logy, *alpha, *beta;
  int *lab, *head, *next;
};

__device__ __forceinline__ float lse3(float a, float b, float c) {
  const float m = fmaxf(a, fmaxf(b, c));
  if (m == -INFINITY) return -INFINITY;
  return m + logf(expf(a - m) + expf(b - m) + expf(c - m));
}

// A stored fp32 integer v in [lo, hi] (NaN fails every comparison).
__device__ __forceinline__ bool int_in(float v, float lo, float hi) { return v == floorf(v) && v >= lo && v <= hi; }

// Phase V; every thread returns the block's verdict (true: the sequence is valid; *Tb, *Lb set).
__device__ bool ctc_validate(const CtcGeom& g, long long b, const float* labels, const float* label_lengths,
                             const float* input_lengths, const CtcWs& w, int* Tb, int* Lb) {
  __shared__ int ok, tb, lb;
  int* head = w.head + b * g.C;
  for (long long k = threadIdx.x; k < g.C; k += blockDim.x) head[k] = -1;
  __syncthreads();
  if (threadIdx.x == 0) {
    const float tv = input_lengths[b], lv = label_lengths[b];
    ok = int_in(tv, 1.0f, static_cast<float>(g.T)) && int_in(lv, 0.0f, static_cast<float>(g.L));
    tb = ok ? static_cast<int>(tv) : 0;
    lb = ok ? static_cast<int>(lv) : 0;
    int repeats = 0;
    for (int j = 0; ok && j < lb; ++j) {
      const float id = labels[b * g.L + j];
      ok = int_in(id, 0.0f, static_cast<float>(g.C - 1)) && id != static_cast<float>(g.blank);
      if (ok) w.lab[b * g.L + j] = static_cast<int>(id);
      if (ok && j > 0 && w.lab[b * g.L + j] == w.lab[b * g.L + j - 1]) ++repeats;
    }
    ok = ok && lb + repeats <= tb;
    for (int j = ok ? lb - 1 : -1; j >= 0; --j) {  // chains in increasing position
      const int k = w.lab[b * g.L + j];
      w.next[b * g.L + j] = head[k];
      head[k] = j;
    }
  }
  __syncthreads();
  *Tb = tb, *Lb = lb;
  const bool valid = ok != 0;
  __syncthreads();  // every thread has read ok/tb/lb before thread 0 could write them again
  return valid;
}

// Phase Y: log y for t < Tb into w.logy.
template <typename T>
__device__ void ctc_log_probs(const CtcGeom& g, long long b, int Tb, const T* probs, const CtcWs& w) {
  if (!g.softmax) {
    for (long long i = threadIdx.x; i < Tb * g.C; i += blockDim.x) {
      const long long o = g.logy_at(i / g.C, b, i % g.C);
      w.logy[o] = logf(load_f(probs, o));
    }
    return;
  }
  __shared__ float scratch[kBlock];
  const int team = static_cast<int>(threadIdx.x) / kTeam, lane = static_cast<int>(threadIdx.x) % kTeam;
  for (int t0 = 0; t0 < Tb; t0 += kBlock / kTeam) {  // every thread runs every round (team_reduce syncs)
    const int t = t0 + team;
    const long long row = t < Tb ? g.logy_at(t, b, 0) : 0;
    float m = -INFINITY;
    for (long long k = lane; t < Tb && k < g.C; k += kTeam) m = MaxOp{}(m, load_f(probs, row + k));
    m = team_reduce(m, scratch, kTeam, MaxOp{});
    float z = 0.0f;
    for (long long k = lane; t < Tb && k < g.C; k += kTeam) z += expf(load_f(probs, row + k) - m);
    z = team_reduce(z, scratch, kTeam, SumOp{});
    const float log_z = logf(z);
    for (long long k = lane; t < Tb && k < g.C; k += kTeam) w.logy[row + k] = (load_f(probs, row + k) - m) - log_z;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock) ctc_alpha_beta_kernel(CtcGeom g, const T* probs, const float* labels, const float* label_lengths,
                                                                 const float* input_lengths, float* losses, T* grads, CtcWs w) {
  const long long b = blockIdx.x;
  int Tb = 0, Lb = 0;
  if (!ctc_validate(g, b, labels, label_lengths, input_lengths, w, &Tb, &Lb)) {
    for (long long i = threadIdx.x; i < g.T * g.C; i += blockDim.x) store_f(grads, g.logy_at(i / g.C, b, i % g.C), NAN);
    if (threadIdx.x == 0) losses[b] = NAN;
    return;  // the whole block: the verdict is shared
  }
  for (long long i = Tb * g.C + threadIdx.x; i < g.T * g.C; i += blockDim.x) store_f(grads, g.logy_at(i / g.C, b, i % g.C), 0.0f);
  ctc_log_probs(g, b, Tb, probs, w);
  __syncthreads();

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

  // A and B. Step functions over the states s = lane, lane + stride, ... of one time step t.
  auto alpha_step = [&](int t, int lane, int stride) {
    const float* prev = alpha + (t - 1) * g.Smax;
    for (int s = lane; s < S; s += stride)
      alpha[t * g.Smax + s] = lse3(prev[s], s >= 1 ? prev[s - 1] : -INFINITY, skip(s) ? prev[s - 2] : -INFINITY) + ly(t, s);
  };
  auto beta_step = [&](int t, int lane, int stride) {
    const float* next = beta + (t + 1) * g.Smax;
#if HIPRIM_CTC_MUTANT == 2
    const int ty = t;
#else
    const int ty = t + 1;
#endif
    for (int s = lane; s < S; s += stride) {
      const float q0 = next[s] + ly(ty, s);
      const float q1 = s + 1 < S ? next[s + 1] + ly(ty, s + 1) : -INFINITY;
      const float q2 = s + 2 < S && skip(s + 2) ? next[s + 2] + ly(ty, s + 2) : -INFINITY;
      beta[t * g.Smax + s] = lse3(q0, q1, q2);
    }
  };
  const int block = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x);
  for (int s = tid; s < S; s += block) {
    alpha[s] = s < 2 ? ly(0, s) : -INFINITY;
    beta[(Tb - 1) * g.Smax + s] = s >= S - 2 ? 0.0f : -INFINITY;
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
  // L: the loss. logp is read by every thread after the barrier.
  const float* last = alpha + (Tb - 1) * g.Smax;
  const float logp = lse3(last[S - 1], S > 1 ? last[S - 2] : -INFINITY, -INFINITY);
  if (threadIdx.x == 0) losses[b] = -logp;
  __syncthreads();  // every thread has read the last alpha row before O overwrites it
  if (logp == -INFINITY) {  // no alignment of nonzero probability: zero gradient
    for (long long i = threadIdx.x; i < Tb * g.C; i += blockDim.x) store_f(grads, g.logy_at(i / g.C, b, i % g.C), 0.0f);
    return;
  }
  // O: occupancies over alpha.
  for (long long i = threadIdx.x; i < Tb * S; i += blockDim.x) {
    const long long o = (i / S) * g.Smax + i % S;
    alpha[o] = expf((alpha[o] + beta[o]) - logp);
  }
  __syncthreads();
  // G: the gradient, threads over (t, k).
  const int* head = w.head + b * g.C;
  const int* next = w.next + b * g.L;
  for (long long i = threadIdx.x; i < Tb * g.C; i += blockDim.x) {
    const long long t = i / g.C, k = i % g.C, o = g.logy_at(t, b, k);
    const float* occ = alpha + t * g.Smax;
    float gamma = 0.0f;
    if (k == g.blank)
      for (int s = 0; s < S; s += 2) gamma += occ[s];
    else
      for (int j = head[k]; j >= 0; j = next[j]) gamma += occ[2 * j + 1];
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
  std::size_t logy, alpha, beta, lab, head, next, total;
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
  w.total = w.next + up(static_cast<std::size_t>(p.n * p.l) * i);
  return w;
}

class CtcAlphaBeta final : public TypedOpSolver<CtcProblem> {
 public:
  std::string name() const override { return "ctc.alpha_beta"; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "log-space alpha/beta, one block per sequence, threads over the 2L+1 states; loss and gradient "
           "(softmax over C on the device, or probabilities); fp32 compute, fp32/fp16/bf16 storage";
  }

 protected:
  Applicability applicable_to(const CtcProblem&) const override { return Applicability::yes(); }
  std::size_t workspace_for(const CtcProblem& p) const override { return ws_layout(p).total; }
  void run_typed(const CtcProblem& p, const std::vector<void*>& b, void* workspace, void* stream) const override {
    const CtcGeom g{p.t, p.n, p.c, p.l, 2 * p.l + 1, p.blank, p.softmax};
    const WsLayout l = ws_layout(p);
    auto* base = static_cast<unsigned char*>(workspace);
    const CtcWs w{reinterpret_cast<float*>(base), reinterpret_cast<float*>(base + l.alpha), reinterpret_cast<float*>(base + l.beta),
                  reinterpret_cast<int*>(base + l.lab), reinterpret_cast<int*>(base + l.head), reinterpret_cast<int*>(base + l.next)};
    const auto s = static_cast<hipStream_t>(stream);
    const std::string ctx = "running " + name() + " on " + to_string(p);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      hipLaunchKernelGGL(ctc_alpha_beta_kernel<T>, dim3(static_cast<unsigned>(p.n)), dim3(kBlock), 0, s, g, static_cast<const T*>(b[0]),
                         static_cast<const float*>(b[1]), static_cast<const float*>(b[2]), static_cast<const float*>(b[3]),
                         static_cast<float*>(b[4]), static_cast<T*>(b[5]), w);
      HIPRIM_CHECK_LAUNCH("ctc_alpha_beta_kernel", ctx);
    });
  }
};

}  // namespace

std::size_t ctc_alpha_beta_workspace(const CtcProblem& p) { return ws_layout(p).total; }

OpSolverList ctc_solvers() { return {std::make_shared<CtcAlphaBeta>()}; }

}  // namespace hiprim::gpu
