// Workspace layout of the rnn.gemm and rnn.mma solvers (gpu/rnn/rnn.hip); host-only, so tests can check it.
// Every region holds fp32 values (the state and every intermediate is fp32 for every storage dtype),
// offsets in floats, each region starting on a 64-float (256-byte) boundary. S = T*N rows, GH = G*H.
//   wf   [weights()]         the packed weights converted to fp32 (MIOpen's packing, core/rnn_problem.hpp)
//   xf   [S][X]              x in fp32
//   h0   [L*D][N][H]         hx in fp32; c0 likewise (LSTM)
//   out  [L][S][D*H]         every layer's output sequence (layer l+1's input; the last one is y)
//   c    [L*D][T][N][H]      LSTM cell state per step, in processing order s (t = s, or T-1-s reverse)
//   act  [L*D][T][N][GH]     gate activations per step (backward only; relu/tanh: h)
//   q    [L*D][T][N][H]      GRU: R_n h_prev + bR_n per step (backward only)
//   p    [S][GH]             W x + bW for one layer and direction, all steps (the input projection)
//   rh   [N][GH]             R h_prev + bR of one step
//   backward: da [S][GH] (gate pre-activation gradients of one layer and direction), drec [S][GH]
//   (the recurrent rows' gradients: da, except GRU's n rows: dn r), dh, dc [N][H] (the carried
//   state gradients), d0, d1 [S][max(X, D*H)] (ping-pong: the gradient of a layer's output and of
//   its input), dwf [weights()] (bwd-weights: dw in fp32, MIOpen's packing).
//   splitk: the fp32 partial sums of the per-step GEMMs when they run split-K (rnn_step_splits: a
//   step's GEMM has few output tiles, N x G*H or N x H, and a long K).
//   planes (bf16x3 engines, backward only): the three bf16 pieces [3][S][G*H] of da (dIn = da W), 2 per float.
//   out_pieces (bf16x3 engines only): [min(L, 2)][3][S][D*H] bf16, the pieces of a layer's output as
//   the forward step kernel writes them (layer l in buffer l % 2: the next layer's input, the next
//   step's h_prev; math=h16, one piece: layer l in plane l % (3 min(L, 2)), so that up to six layers
//   running at once (steps.tc.wave) each keep their own).
//   arrivals (bf16x3 engines, math=h16): steps.tc.wave's per-layer step counters.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/rnn_problem.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

// How the whole-sequence GEMMs against the weights (the input projection W x, the input gradient
// da W) run:
//   fp32_simt:   fp32 operands on the SIMT tile (every dtype)
//   bf16x3_mma:  bf16 problems on tensor cores (mma.sync): the fp32 left operand split into three bf16
//                pieces (gpu/rnn/rnn_kernels.hpp), K' = 3K against the bf16 weights repeated three times
//                (x itself: one piece): every product exact, fp32 accumulation in the tensor cores' order
//   bf16x3_simt: the same split GEMM on the SIMT tile (tests: the split path on the host emulation)
// The per-step GEMMs (R h_prev, drec R) and the weight gradients run on the SIMT tile in fp32 in every
// engine: on the mma.sync kernel the per-step GEMM (N x G*H, K' = 3H) was 4x slower (s24).
enum class RnnEngine { fp32_simt, bf16x3_mma, bf16x3_simt };
inline bool rnn_split(RnnEngine e) { return e != RnnEngine::fp32_simt; }
// K slices of a per-step GEMM (deterministic split-K, gpu/gemm/gemm_index.hpp) on the default 64 x 64 tile.
inline std::int64_t rnn_step_splits(const GemmShape& s) { return plan_split_k(s, 64, 64); }
inline GemmShape rnn_rh_shape(const RnnProblem& p) { return {p.n, p.gates() * p.hidden, p.hidden, 1}; }  // R h_prev
inline GemmShape rnn_dh_shape(const RnnProblem& p) { return {p.n, p.hidden, p.gates() * p.hidden, 1}; }  // drec R

// The persistent forward kernel (gpu/rnn/rnn_persist.hpp, config "steps.persist"): hu hidden units per
// block (all G gates: rows = G*hu rows of R), 16 threads per row, each holding 4 ki values of its row
// (ki = ceil(H / 64) <= kRnnPersistMaxKi: H <= 1024), blocks = ceil(H / hu) all resident at once;
// shared memory: kRnnPersistNb rows of h_prev (64 ki floats each), the lanes' partial sums and the
// gathered sums. refusal: why p cannot take it (empty when it can, residency aside).
inline constexpr int kRnnPersistNb = 16, kRnnPersistMaxKi = 16;
struct RnnPersistShape {
  int hu = 0, rows = 0, threads = 0, ki = 0, blocks = 0;
  std::size_t smem = 0;
  std::string refusal;
};
inline RnnPersistShape rnn_persist_shape(const RnnProblem& p) {
  RnnPersistShape s;
  const std::int64_t G = p.gates(), H = p.hidden;
  if (H > 64 * kRnnPersistMaxKi) {
    s.refusal = "hidden " + std::to_string(H) + " > " + std::to_string(64 * kRnnPersistMaxKi) + " (R's registers: 64 per thread)";
    return s;
  }
  s.hu = static_cast<int>(std::min<std::int64_t>(32 / G, H));
  s.rows = static_cast<int>(G) * s.hu;
  s.threads = 16 * s.rows;
  s.ki = static_cast<int>((H + 63) / 64);
  s.blocks = static_cast<int>((H + s.hu - 1) / s.hu);
  s.smem = static_cast<std::size_t>(kRnnPersistNb) * (64 * s.ki + 18 * s.rows) * sizeof(float);  // hs, part (17 a row), qs
  return s;
}

// The tensor-core persistent forward kernel (gpu/rnn/rnn_persist_tc.hpp, configs "steps.tc" (mt = 2), "steps.tc.r64"
// and "steps.tc.wave" (mt = 4) of rnn.mma: bf16 problems with math=h16): 128 mt threads, 16 mt gate rows per block
// (hu = 16 mt / G hidden units, all G gates), k in ks = ceil(H / 64) steps of 16 per warp quarter (H <= 64
// kRnnTcMaxKs), samples in chunks of nb (rnn_tc_max_nb: 128 / mt, so a warp's accumulators stay 32 registers;
// halved down to 8 where the shared memory is smaller); blocks = ceil(H / hu) per layer, all resident at once.
// steps.tc.wave runs every layer of a unidirectional stack in one launch (layers x blocks), each layer >= 1
// forming its step's input projection from W's rows in shared memory.
// Shared memory, in order: a region holding hs [nb][64 ks + 8] bf16 during the products and then the quarters'
// partial sums [4][16 mt][nb + 8] and qs [16 mt][nb] (fp32); bR's and bW's 16 mt rows; wave only: ps [16 mt][N]
// fp32 (the step's P) and W's rows [16 mt][64 ks + 8] bf16; the block's layer parameters (kRnnTcLayerBytes).
inline constexpr int kRnnTcMaxKs = 16, kRnnTcMaxLayers = 6;
inline constexpr std::size_t kRnnTcLayerBytes = 512;
inline constexpr int rnn_tc_max_nb(int mt) { return 128 / mt; }
struct RnnTcSmem {
  std::size_t region = 0, bias = 0, ps = 0, w = 0, layer = 0, total = 0;  // offsets, then the size
};
// wave_n: the samples of a wave launch's ps (0: not a wave launch).
inline constexpr std::size_t rnn_tc_up16(std::size_t b) { return (b + 15) / 16 * 16; }
inline constexpr RnnTcSmem rnn_tc_smem(int mt, int nb, int ks, int wave_n = 0) {
  const std::size_t rows = static_cast<std::size_t>(16 * mt), ldh = static_cast<std::size_t>(64 * ks + 8);
  const std::size_t hs = static_cast<std::size_t>(nb) * ldh * 2;
  const std::size_t sums = (4 * rows * static_cast<std::size_t>(nb + 8) + rows * static_cast<std::size_t>(nb)) * 4;
  RnnTcSmem m;
  m.region = 0;
  m.bias = rnn_tc_up16(hs > sums ? hs : sums);
  m.ps = m.bias + 2 * rows * 4;
  m.w = rnn_tc_up16(m.ps + rows * static_cast<std::size_t>(wave_n) * 4);
  m.layer = m.w + (wave_n > 0 ? rows * ldh * 2 : 0);
  m.total = m.layer + kRnnTcLayerBytes;
  return m;
}
struct RnnTcShape {
  int mt = 0, threads = 0, hu = 0, ks = 0, nb = 0, blocks = 0, layers = 1;  // blocks per layer; layers per launch
  bool wave = false;
  std::size_t smem = 0;
  std::string refusal;
};
// mt: m-tiles per block; wave: one launch for all layers (steps.tc.wave); smem_limit: the device's shared
// memory per block.
inline RnnTcShape rnn_tc_shape(const RnnProblem& p, int mt, std::size_t smem_limit, bool wave = false) {
  RnnTcShape s;
  if (p.math != RnnMath::h16 || p.dtype != DType::bf16) {
    s.refusal = "bf16 with math=h16 only (R h_prev on tensor cores reads h rounded to bf16)";
    return s;
  }
  if (p.hidden > 64 * kRnnTcMaxKs) {
    s.refusal = "hidden " + std::to_string(p.hidden) + " > " + std::to_string(64 * kRnnTcMaxKs) + " (R's fragments: 64 registers per thread)";
    return s;
  }
  if (wave && (p.directions() != 1 || p.layers < 2 || p.layers > kRnnTcMaxLayers)) {
    s.refusal = "one launch for all layers takes a unidirectional stack of 2 to " + std::to_string(kRnnTcMaxLayers) +
                " layers (a bidirectional layer's output at time t needs both directions' steps)";
    return s;
  }
  s.mt = mt, s.threads = 128 * mt, s.wave = wave, s.layers = wave ? static_cast<int>(p.layers) : 1;
  s.hu = 16 * mt / p.gates();
  s.ks = static_cast<int>((p.hidden + 63) / 64);
  s.blocks = static_cast<int>((p.hidden + s.hu - 1) / s.hu);
  const int wave_n = wave ? static_cast<int>(p.n) : 0;
  for (s.nb = rnn_tc_max_nb(mt); s.nb > 8 && rnn_tc_smem(mt, s.nb, s.ks, wave_n).total > smem_limit;) s.nb /= 2;
  s.smem = rnn_tc_smem(mt, s.nb, s.ks, wave_n).total;
  if (s.smem > smem_limit) s.refusal = "needs " + std::to_string(s.smem) + " bytes of shared memory per block";
  return s;
}

struct RnnPlan {
  std::int64_t wf = 0, xf = 0, h0 = 0, c0 = 0, out = 0, c = 0, act = 0, q = 0, p = 0, rh = 0;
  std::int64_t da = 0, drec = 0, dh = 0, dc = 0, d0 = 0, d1 = 0, dwf = 0, splitk = 0, planes = 0, out_pieces = 0, arrivals = 0;
  std::int64_t floats = 0;  // total
  std::size_t bytes() const { return static_cast<std::size_t>(floats) * sizeof(float); }
};

inline RnnPlan plan_rnn(const RnnProblem& pr, RnnEngine e = RnnEngine::fp32_simt) {
  const std::int64_t T = pr.seq, N = pr.n, H = pr.hidden, D = pr.directions(), L = pr.layers, GH = pr.gates() * H;
  const std::int64_t S = T * N, states = L * D * N * H;
  const bool bwd = pr.dir != RnnDir::fwd;
  RnnPlan k;
  std::int64_t at = 0;
  auto take = [&](std::int64_t& field, std::int64_t floats) {
    field = at;
    at += (floats + 63) / 64 * 64;
  };
  take(k.wf, pr.weights());
  take(k.xf, S * pr.input);
  take(k.h0, states);
  take(k.c0, pr.lstm() ? states : 0);
  take(k.out, L * S * D * H);
  take(k.c, pr.lstm() ? L * D * T * N * H : 0);
  take(k.act, bwd ? L * D * T * N * GH : 0);
  take(k.q, bwd && pr.mode == RnnMode::gru ? L * D * T * N * H : 0);
  take(k.p, S * GH);
  take(k.rh, N * GH);
  take(k.da, bwd ? S * GH : 0);
  take(k.drec, bwd ? S * GH : 0);
  take(k.dh, bwd ? N * H : 0);
  take(k.dc, bwd ? N * H : 0);
  take(k.d0, bwd ? S * std::max(pr.input, D * H) : 0);
  take(k.d1, bwd ? S * std::max(pr.input, D * H) : 0);
  take(k.dwf, pr.dir == RnnDir::bwd_weights ? pr.weights() : 0);
  const GemmShape rh = rnn_rh_shape(pr), dh = rnn_dh_shape(pr);
  take(k.splitk, static_cast<std::int64_t>(std::max(split_k_workspace_bytes(rh, rnn_step_splits(rh)),
                                                    bwd ? split_k_workspace_bytes(dh, rnn_step_splits(dh)) : 0) / sizeof(float)));
  take(k.planes, rnn_split(e) && bwd ? (3 * S * GH + 1) / 2 : 0);  // da's pieces (dIn = da W)
  take(k.out_pieces, rnn_split(e) ? std::min<std::int64_t>(L, 2) * 3 * S * D * H / 2 + 1 : 0);
  take(k.arrivals, rnn_split(e) && pr.math == RnnMath::h16 ? kRnnTcMaxLayers : 0);  // steps.tc.wave's counters (unsigned)
  k.floats = at;
  return k;
}

}  // namespace hiprim::gpu
