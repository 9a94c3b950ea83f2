// rnn.gemm.{fwd,bwd_data,bwd_weights} and rnn.mma.{fwd,bwd_data,bwd_weights}: recurrent networks
// (core/rnn_problem.hpp: relu/tanh, LSTM, GRU; stacked, bidirectional, with or without biases;
// fp32/fp16/bf16 storage) as GEMMs. rnn.gemm runs them on the project's SIMT tiled GEMM (gpu/gemm/gemm_tile.hpp's launch_gemm / launch_gemm_split_k:
// fp32 operands addressed by MatrixMaps, so the transposed operands need no copy, fp32 accumulation in
// ascending k, bitwise reproducible; an epilogue of its own here, RnnEpilogue, because gemm()'s
// StoreEpilogue adds its bias per row and these biases run along the columns) plus the fused step kernels of
// gpu/rnn/rnn_kernels.hpp. Inputs are converted to fp32 once; every state and intermediate is fp32
// (workspace layout: gpu/rnn/rnn_plan.hpp); only the outputs are rounded to the dtype.
//
// Forward, per layer l and direction d (in = x or the layer below's output, fp32 [S = T*N][in_l]):
//   P = in W^T + bW                 one GEMM for all steps: M = S, N = G*H, K = in_l (bias in the epilogue)
//   for s = 0 .. T-1 (t = s, or T-1-s for the reverse direction):
//     RH = h_prev R^T + bR          M = N, N = G*H, K = H (h_prev: hx, or the layer output at the previous step;
//                                   split over K when few tiles: the slices' fp32 sums added in slice order)
//     step kernel: gates, c and h   (h written into the layer output's row block t, columns d*H ..)
// Backward data, after the forward recomputed into the workspace (gate activations and cells of
// every step kept): per layer from the top, per direction, s = T-1 .. 0:
//     step kernel: da, drec         (from dy_t + dh_next, the step's gates; updates dc_next, GRU's dh direct part)
//     dh_next = drec R (+ GRU's z dh)  M = N, N = H, K = G*H
//   dIn (+)= da W                   M = S, N = in_l, K = G*H (the second direction adds to the first's)
// Backward weights: the same pass, and per layer and direction
//   dW = da^T in                    M = G*H, N = in_l, K = S (sum over t and n in ascending (t, n))
//   dR = drec^T h_prev              the boundary step (h_prev = hx) first, then the other T-1 steps added
//   dbW, dbR = column sums of da, drec (ascending rows)
// rnn.mma (bf16 problems, NVIDIA sm_80+): the whole-sequence GEMMs against the weights (P, dIn) run on
// the tensor-core GEMM (gpu/gemm/gemm_mma.hpp) with the fp32 left operand split into three bf16
// pieces (the forward step kernel writes h's; rnn_split_bf16x3 da's) against the bf16 weights read
// three times (RnnEngine, rnn_plan.hpp): the products are exact, only the accumulation differs
// (reference/rnn_bound.hpp covers both); the per-step GEMMs and the weight gradients stay on the SIMT GEMM.
// math=h16 problems (h rounded to bf16 where it is a GEMM operand, core/rnn_problem.hpp): one piece,
// bf16(h), in place of three, so P's K' = K. Where P's input is one piece (x; h under math=h16) and the
// device is sm_90a, P runs on the convolutions' warpgroup-MMA tile with fp32 output instead.
// Perf configs: steps.gemm (the loops above, the default) and steps.persist (forward steps of a layer
// and direction in one cooperative launch, gpu/rnn/rnn_persist.hpp; the backward's recompute too);
// steps.tc and steps.tc.r64 (rnn.mma, math=h16: the same on tensor cores with 32 or 64 gate rows per block,
// gpu/rnn/rnn_persist_tc.hpp; steps.tc the default where listed); steps.tc.wave (a unidirectional stack: every
// layer's steps in one launch, layer l's step s overlapping layer l-1's step s+1, layers >= 1 forming their
// input projection in the kernel).
// Every sum has a fixed order: the results are the same every run.
#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/rnn_problem.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/gemm/gemm.hpp"
#include "gpu/gemm/gemm_mma.hpp"
#include "gpu/gemm/gemm_tile.hpp"
#include "gpu/rnn/rnn_kernels.hpp"
#include "gpu/rnn/rnn_persist.hpp"
#include "gpu/rnn/rnn_persist_tc.hpp"
#include "gpu/rnn/rnn_plan.hpp"
#include "gpu/rnn/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kBlock = 256;

MatrixMap rows_map(long long ld) { return MatrixMap{DimMap::plain(ld), DimMap::plain(1), DimMap::plain(0)}; }
MatrixMap cols_map(long long ld) { return MatrixMap{DimMap::plain(1), DimMap::plain(ld), DimMap::plain(0)}; }

// The GEMMs' epilogue: out[m][n] = (partial[m][n] + acc) + bias[n], fp32, rows of ld floats (out may
// alias partial: the same thread reads and writes). The bias runs along n (the gate rows g), which
// StoreEpilogue's per-row bias does not.
struct RnnEpilogue {
  float* out = nullptr;
  long long ld = 0;
  const float* partial = nullptr;
  const float* bias = nullptr;
  __device__ __forceinline__ void operator()(int, int m, int n, float acc) const {
    const long long o = m * ld + n;
    if (partial != nullptr) acc = partial[o] + acc;
    if (bias != nullptr) acc += bias[n];
    out[o] = acc;
  }
};

// rnn_tc_fwd's configs: m-tiles of 16 gate rows per block, and whether one launch takes every layer.
struct TcConfig {
  const char* name;
  int mt;
  bool wave;
};
constexpr TcConfig kTcConfigs[] = {{"steps.tc", 2, false}, {"steps.tc.r64", 4, false}, {"steps.tc.wave", 4, true}};
TcConfig tc_config(const std::string& config) {
  for (const TcConfig& c : kTcConfigs)
    if (config == c.name) return c;
  return TcConfig{"", 0, false};  // mt 0: none of them
}

// One run: the problem, its buffers and workspace, the stream.
struct RnnRun {
  const RnnProblem& p;
  const RnnEngine engine;
  const RnnPlan k;
  float* ws;
  hipStream_t stream;
  std::string ctx;
  long long T, N, H, D, L, GH, S;
  const hiprim_bf16_t* w16 = nullptr;  // split engines: the packed weights as given (bf16)
  RnnPieces x16;         // split engines: x as given (bf16, one piece)
  const hiprim_bf16_t* hx16 = nullptr;  // split engines: hx as given (steps.tc's first h_prev)
  const int pieces;      // split engines: h's bf16 pieces (3: exact; 1 under math=h16: bf16(h)); else 0
  bool persist = false;  // config steps.persist: each layer's steps in one launch (rnn_persist.hpp)
  TcConfig tc{"", 0, false};  // configs steps.tc*: the same on tensor cores (rnn_persist_tc.hpp); mt 0: another config
  RnnRun(const RnnProblem& pr, RnnEngine e, void* w, hipStream_t st, std::string c)
      : p(pr), engine(e), k(plan_rnn(pr, e)), ws(static_cast<float*>(w)), stream(st), ctx(std::move(c)), T(pr.seq), N(pr.n),
        H(pr.hidden), D(pr.directions()), L(pr.layers), GH(pr.gates() * pr.hidden), S(pr.seq * pr.n),
        pieces(!rnn_split(e) ? 0 : pr.math == RnnMath::h16 ? 1 : 3) {}
  float* at(long long off) const { return ws + off; }

  // out[m][n] = (partial + sum_k A[m][k] B[k][n]) + bias[n] through the SIMT tiled GEMM in fp32, out rows of ldo floats.
  void gemm(long long m, long long n, long long kk, const float* a, MatrixMap am, const float* b, MatrixMap bm, float* out,
            long long ldo, const float* bias = nullptr, const float* partial = nullptr) const {
    launch_gemm<float>(GemmShape{m, n, kk, 1}, a, am, b, bm, RnnEpilogue{out, ldo, partial, bias}, stream, ctx);
  }
  // The same with B a block of the packed weights (at w_off; bm: rows k, columns n) and A fp32 rows
  // [m][kk] lda apart. step: a per-step GEMM, on the SIMT tile in fp32 for every engine, split over K
  // when its few output tiles would leave the GPU idle; else on the run's engine. a16 (split engines):
  // A's bf16 pieces already formed (x itself, or the pieces the step kernels wrote), else A is split here.
  void wgemm(bool step, long long m, long long n, long long kk, const float* a, long long lda, long long w_off, MatrixMap bm,
             float* out, long long ldo, const float* bias = nullptr, const float* partial = nullptr, RnnPieces a16 = {}) const {
    const RnnEpilogue ep{out, ldo, partial, bias};
    const GemmShape shape{m, n, kk, 1};
    if (!rnn_split(engine) || step) {
      const std::int64_t splits = step ? rnn_step_splits(shape) : 1;
      launch_gemm_split_k<float>(shape, splits, at(k.splitk), a, rows_map(lda), at(k.wf) + w_off, bm, ep, stream, ctx);
      return;
    }
    if (a16.ptr == nullptr) {
      a16 = RnnPieces{reinterpret_cast<hiprim_bf16_t*>(at(k.planes)), kk, m * kk, 3};
      split(a, lda, m, kk, a16);
    }
    // A' [m][count kk]: piece q of A[i][c] at k' = q kk + c; B' [count kk][n]: B's rows repeated (k' -> k' mod kk).
    MatrixMap am = rows_map(a16.ld), bm3 = bm;
    if (a16.count > 1) {
      am.cols = DimMap::split(static_cast<std::int32_t>(kk), 1, a16.plane);
      bm3.rows = DimMap::split(static_cast<std::int32_t>(kk), bm.rows.inner_stride, 0);
    }
    const GemmShape s3{m, n, a16.count * kk, 1};
    if (engine == RnnEngine::bf16x3_mma)
      launch_gemm<hiprim_bf16_t, GemmMmaTile>(s3, a16.ptr, am, w16 + w_off, bm3, ep, stream, ctx);
    else
      launch_gemm<hiprim_bf16_t>(s3, a16.ptr, am, w16 + w_off, bm3, ep, stream, ctx);
  }
  // P[s][g] = sum_k in[s][k] W[g][k] + bW[g] of layer l, direction dir, into the workspace's p: on the
  // warpgroup-MMA tile (gpu/conv/igemm_sm90.hpp's fp32-output GEMM: the same exact products and truncating fp32
  // adds as the mma.sync tile) where the input is one bf16 piece in dense rows (x itself, or h's rounding under
  // math=h16) and sm_90a runs it; else on the run's engine (wgemm).
  void input_projection(long long l, long long dir) const {
    const long long in_dim = p.layer_input(l);
    const RnnPacking pk = p.packing(l, static_cast<int>(dir));
    const RnnPieces in16 = l == 0 ? x16 : out_pieces(l - 1);
#if HIPRIM_PLATFORM_NVIDIA  // (no wgmma in the emulation and on AMD)
    if (engine == RnnEngine::bf16x3_mma && in16.ptr != nullptr && in16.count == 1 && in16.ld == in_dim &&
        igemm_sm90_gemm_fp32_out(DType::bf16, S, GH, in_dim, in16.ptr, w16 + pk.w, p.bias ? w16 + pk.bw : nullptr, at(k.p), stream, ctx)
            .empty())
      return;
#endif
    wgemm(false, S, GH, in_dim, layer_in(l), in_dim, pk.w, cols_map(in_dim), at(k.p), GH, p.bias ? at(k.wf) + pk.bw : nullptr, nullptr,
          in16);
  }
  // The three bf16 pieces of fp32 rows [rows][cols] (ld apart) into `to` (its rows cols apart, planes to.plane apart).
  void split(const float* a, long long ld, long long rows, long long cols, const RnnPieces& to) const {
    if (rows * cols == 0) return;
    hipLaunchKernelGGL(rnn_split_bf16x3, dim3(grid_stride_blocks(rows * cols, kBlock)), dim3(kBlock), 0, stream, a, ld, rows,
                       cols, to);
    HIPRIM_CHECK_LAUNCH("rnn_split_bf16x3", ctx);
  }
  // Split engines: the pieces of layer l's output rows (written by the forward step kernel; layers
  // alternate between two buffers), rows of D*H, planes S*D*H apart; {} for fp32_simt.
  // math=h16 (one piece): layer l in plane l % (3 min(L, 2)) of the same region, each layer of a wave its own.
  RnnPieces out_pieces(long long l) const {
    if (!rnn_split(engine)) return {};
    const long long slot = pieces == 1 ? l % (3 * std::min<long long>(L, 2)) : 3 * (l % 2);
    return RnnPieces{reinterpret_cast<hiprim_bf16_t*>(at(k.out_pieces)) + slot * S * D * H, D * H, S * D * H, pieces};
  }
  template <typename TIn, typename TOut>
  void copy(const TIn* in, long long ldi, TOut* out, long long ldo, long long rows, long long cols) const {
    if (rows * cols == 0) return;
    hipLaunchKernelGGL((rnn_copy_rows<TIn, TOut>), dim3(grid_stride_blocks(rows * cols, kBlock)), dim3(kBlock), 0, stream, in,
                       ldi, out, ldo, rows, cols);
    HIPRIM_CHECK_LAUNCH("rnn_copy_rows", ctx);
  }
  // Layer l's input sequence (fp32 [S][in_l]) and output sequence ([S][D*H]).
  float* layer_in(long long l) const { return l == 0 ? at(k.xf) : at(k.out) + (l - 1) * S * D * H; }
  float* layer_out(long long l) const { return at(k.out) + l * S * D * H; }
  long long t_of(long long s, long long dir) const { return dir == 1 && HIPRIM_RNN_MUTANT != 2 ? T - 1 - s : s; }
  // h_prev of step s: hx (rows of H) at s = 0, else the layer output at the previous step's time.
  RnnRows h_prev(long long l, long long dir, long long s) const {
    if (s == 0) return RnnRows{at(k.h0) + (l * D + dir) * N * H, H};
    return RnnRows{layer_out(l) + t_of(s - 1, dir) * N * D * H + dir * H, D * H};
  }
  RnnRows cell(long long l, long long dir, long long s) const {  // c of step s (s = -1: cx)
    if (!p.lstm()) return RnnRows{};
    if (s < 0) return RnnRows{at(k.c0) + (l * D + dir) * N * H, H};
    return RnnRows{at(k.c) + ((l * D + dir) * T + s) * N * H, H};
  }
  // Layer l, direction dir's sequence buffers for the persistent kernels (keep: the gate activations).
  RnnSeqFwd seq_fwd(long long l, long long dir, bool keep) const {
    const long long idx = l * D + dir;
    RnnSeqFwd q{};
    q.p = at(k.p);
    q.h0 = RnnRows{at(k.h0) + idx * N * H, H}, q.c0 = cell(l, dir, -1);
    q.out = RnnRows{layer_out(l) + dir * H, D * H};
    q.c = p.lstm() ? cell(l, dir, 0).ptr : nullptr;
    q.act = keep ? at(k.act) + idx * T * N * GH : nullptr;
    q.q = keep && p.mode == RnnMode::gru ? at(k.q) + idx * T * N * H : nullptr;
    q.hp = out_pieces(l).offset(dir * H);
    q.N = static_cast<int>(N), q.H = static_cast<int>(H), q.T = static_cast<int>(T), q.G = p.gates();
    q.reverse = dir == 1 && HIPRIM_RNN_MUTANT != 2;
    return q;
  }
};

template <RnnCell C>
void launch_step_fwd(const RnnRun& r, const RnnStepFwd& s) {
  hipLaunchKernelGGL((rnn_step_fwd<C>), dim3(grid_stride_blocks(r.N * r.H, kBlock)), dim3(kBlock), 0, r.stream, s);
  HIPRIM_CHECK_LAUNCH("rnn_step_fwd", r.ctx);
}
template <RnnCell C>
void launch_step_bwd(const RnnRun& r, const RnnStepBwd& s) {
  hipLaunchKernelGGL((rnn_step_bwd<C>), dim3(grid_stride_blocks(r.N * r.H, kBlock)), dim3(kBlock), 0, r.stream, s);
  HIPRIM_CHECK_LAUNCH("rnn_step_bwd", r.ctx);
}
template <typename F>
void with_cell(RnnMode m, F&& f) {
  switch (m) {
    case RnnMode::relu: f.template operator()<RnnCell::relu>(); break;
    case RnnMode::tanh: f.template operator()<RnnCell::tanh>(); break;
    case RnnMode::lstm: f.template operator()<RnnCell::lstm>(); break;
    case RnnMode::gru: f.template operator()<RnnCell::gru>(); break;
  }
}

// The inputs in fp32: weights, x, hx, cx.
template <typename T>
void load_inputs(const RnnRun& r, const T* x, const T* hx, const T* cx, const T* w) {
  const long long states = r.L * r.D * r.N * r.H;
  r.copy(w, 0, r.at(r.k.wf), 0, 1, r.p.weights());
  r.copy(x, 0, r.at(r.k.xf), 0, 1, r.S * r.p.input);
  r.copy(hx, 0, r.at(r.k.h0), 0, 1, states);
  if (r.p.lstm()) r.copy(cx, 0, r.at(r.k.c0), 0, 1, states);
}

// Whether `blocks` blocks of a cooperative kernel are resident at once on the current device (without a
// device to ask: true, the shape alone decides; nothing runs there).
template <typename K>
bool resident_at_once(K* kernel, int threads, std::size_t smem, long long blocks) {
  try {
    return static_cast<long long>(resident_per_mp(kernel, threads, smem)) * multiprocessors() >= blocks;
  } catch (const std::exception&) {
    return true;
  }
}

// Whether rnn_persist_fwd can run p: its shape allows p and all its blocks are resident at once.
bool persist_fits(const RnnProblem& p) {
  const RnnPersistShape sh = rnn_persist_shape(p);
  if (!sh.refusal.empty()) return false;
  bool fits = true;
  with_cell(p.mode, [&]<RnnCell C>() { fits = resident_at_once(rnn_persist_fwd<C>, sh.threads, sh.smem, sh.blocks); });
  return fits;
}

// The steps of layer l, direction dir in one persistent launch (config steps.persist, which only
// persist_fits problems list; P in the workspace).
void persist_fwd(const RnnRun& r, long long l, long long dir, bool keep) {
  const RnnPersistShape sh = rnn_persist_shape(r.p);
  const RnnPacking pk = r.p.packing(l, static_cast<int>(dir));
  with_cell(r.p.mode, [&]<RnnCell C>() {
    RnnPersistFwd a{};
    a.seq = r.seq_fwd(l, dir, keep), a.r = r.at(r.k.wf) + pk.r;
    a.br = r.p.bias && HIPRIM_RNN_MUTANT != 3 ? r.at(r.k.wf) + pk.br : nullptr;
    a.hu = sh.hu, a.ki = sh.ki;
    a.vec = r.H % 4 == 0;
    launch_cooperative(rnn_persist_fwd<C>, dim3(static_cast<unsigned>(sh.blocks)), dim3(static_cast<unsigned>(sh.threads)),
                       sh.smem, r.stream, a);
    HIPRIM_CHECK_LAUNCH("rnn_persist_fwd", r.ctx);
  });
}

template <typename F>
void with_mt(int mt, F&& f) {
  if (mt == 4) f.template operator()<4>();
  else f.template operator()<2>();
}

// Whether rnn_tc_fwd in config c can run p on this engine: its shape allows p and all its blocks (every
// layer's, for a wave) are resident at once.
bool tc_fits(const RnnProblem& p, RnnEngine e, const TcConfig& c) {
  if (!rnn_split(e)) return false;
  const RnnTcShape sh = rnn_tc_shape(p, c.mt, max_dynamic_smem_or_portable(), c.wave);
  if (!sh.refusal.empty()) return false;
  bool fits = true;
  with_cell(p.mode, [&]<RnnCell C>() {
    with_mt(c.mt, [&]<int MT>() {
      fits = resident_at_once(rnn_tc_fwd<C, MT>, sh.threads, sh.smem, static_cast<long long>(sh.blocks) * sh.layers);
    });
  });
  return fits;
}

// Layer l, direction dir's part of an rnn_tc_fwd launch (P in the workspace, h's bf16 rounding in
// out_pieces(l); own_p: P formed in the kernel from W and the layer below's rounding instead).
RnnTcFwd tc_layer(const RnnRun& r, const RnnTcShape& sh, long long l, long long dir, bool keep, bool own_p) {
  const long long idx = l * r.D + dir;
  const RnnPacking pk = r.p.packing(l, static_cast<int>(dir));
  RnnTcFwd a{};
  a.seq = r.seq_fwd(l, dir, keep), a.r = reinterpret_cast<const std::uint16_t*>(r.w16 + pk.r);
  a.br = r.p.bias && HIPRIM_RNN_MUTANT != 3 ? r.at(r.k.wf) + pk.br : nullptr;
  a.h0 = RnnRows16{reinterpret_cast<const std::uint16_t*>(r.hx16 + idx * r.N * r.H), r.H};
  a.out16 = RnnRows16{reinterpret_cast<const std::uint16_t*>(a.seq.hp.ptr), a.seq.hp.ld};
  if (own_p) {
    a.w = reinterpret_cast<const std::uint16_t*>(r.w16 + pk.w);
    a.bw = r.p.bias ? r.at(r.k.wf) + pk.bw : nullptr;
    a.below16 = RnnRows16{reinterpret_cast<const std::uint16_t*>(r.out_pieces(l - 1).ptr), r.D * r.H};
  }
  a.hu = sh.hu, a.ks = sh.ks, a.nb = sh.nb;
  auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  a.vec = r.H % 8 == 0 && aligned(a.h0.ptr) && aligned(a.out16.ptr) && (!own_p || aligned(a.below16.ptr));
  return a;
}

// rnn_tc_fwd over `layers` (one layer and direction, or every layer of a wave) in one cooperative launch
// (configs steps.tc*, which only tc_fits problems list).
void tc_launch(const RnnRun& r, const RnnTcShape& sh, const RnnTcLaunch& launch) {
  const long long blocks = static_cast<long long>(sh.blocks) * launch.layers;
  if (launch.layers > 1) {
    hipLaunchKernelGGL(rnn_tc_clear, dim3(1), dim3(32), 0, r.stream, launch.arrivals, launch.layers);
    HIPRIM_CHECK_LAUNCH("rnn_tc_clear", r.ctx);
  }
  with_cell(r.p.mode, [&]<RnnCell C>() {
    with_mt(sh.mt, [&]<int MT>() {
      (void)resident_per_mp(rnn_tc_fwd<C, MT>, sh.threads, sh.smem);  // raises the kernel's shared memory limit (> 48 KiB)
      launch_cooperative(rnn_tc_fwd<C, MT>, dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(sh.threads)), sh.smem,
                         r.stream, launch);
      HIPRIM_CHECK_LAUNCH("rnn_tc_fwd", r.ctx);
    });
  });
}

// The steps of layer l, direction dir on tensor cores in one persistent launch.
void tc_fwd(const RnnRun& r, long long l, long long dir, bool keep) {
  const RnnTcShape sh = rnn_tc_shape(r.p, r.tc.mt, max_dynamic_smem());
  RnnTcLaunch launch{};
  launch.layer[0] = tc_layer(r, sh, l, dir, keep, false);
  launch.layers = 1, launch.blocks = sh.blocks;
  tc_launch(r, sh, launch);
}

// steps.tc.wave: layer 0's P, then every layer's steps in one launch (a unidirectional stack).
void tc_wave_fwd(const RnnRun& r, bool keep) {
  const RnnTcShape sh = rnn_tc_shape(r.p, r.tc.mt, max_dynamic_smem(), true);
  r.input_projection(0, 0);
  RnnTcLaunch launch{};
  for (long long l = 0; l < r.L; ++l) launch.layer[l] = tc_layer(r, sh, l, 0, keep, l > 0);
  launch.arrivals = reinterpret_cast<unsigned*>(r.at(r.k.arrivals));
  launch.layers = static_cast<int>(r.L), launch.blocks = sh.blocks;
  tc_launch(r, sh, launch);
}

// The forward pass of every layer into the workspace; keep: the gate activations (backward).
void forward(const RnnRun& r, bool keep) {
  if (r.tc.wave) return tc_wave_fwd(r, keep);
  for (long long l = 0; l < r.L; ++l) {
    for (long long dir = 0; dir < r.D; ++dir) {
      const long long idx = l * r.D + dir;
      const RnnPacking pk = r.p.packing(l, static_cast<int>(dir));
      const float* bias_r = r.p.bias && HIPRIM_RNN_MUTANT != 3 ? r.at(r.k.wf) + pk.br : nullptr;
      r.input_projection(l, dir);
      if (r.tc.mt > 0 || r.persist) {
        (r.tc.mt > 0 ? tc_fwd : persist_fwd)(r, l, dir, keep);
        continue;
      }
      for (long long s = 0; s < r.T; ++s) {
        const long long t = r.t_of(s, dir);
        const RnnRows hp = r.h_prev(l, dir, s);
        // RH[n][g] = sum_k h_prev[n][k] R[g][k] + bR[g]
        r.wgemm(true, r.N, r.GH, r.H, hp.ptr, hp.ld, pk.r, cols_map(r.H), r.at(r.k.rh), r.GH, bias_r);
        RnnStepFwd st{};
        st.p = r.at(r.k.p) + t * r.N * r.GH, st.rh = r.at(r.k.rh);
        st.h_prev = hp, st.c_prev = r.cell(l, dir, s - 1), st.c = r.cell(l, dir, s);
        st.h = RnnRows{r.layer_out(l) + t * r.N * r.D * r.H + dir * r.H, r.D * r.H};
        st.hp = r.out_pieces(l).offset(t * r.N * r.D * r.H + dir * r.H);
        st.act = keep ? r.at(r.k.act) + (idx * r.T + s) * r.N * r.GH : nullptr;
        st.q = keep && r.p.mode == RnnMode::gru ? r.at(r.k.q) + (idx * r.T + s) * r.N * r.H : nullptr;
        st.N = static_cast<int>(r.N), st.H = static_cast<int>(r.H);
        with_cell(r.p.mode, [&]<RnnCell C>() { launch_step_fwd<C>(r, st); });
      }
    }
  }
}

// dW, dR, dbW, dbR of layer l, direction dir from the step gradients in da / drec (fp32, into dwf).
void weight_gradients(const RnnRun& r, long long l, long long dir) {
  const long long in_dim = r.p.layer_input(l), idx = l * r.D + dir;
  const RnnPacking pk = r.p.packing(l, static_cast<int>(dir));
  float* dw = r.at(r.k.dwf);
  const float* da = r.at(r.k.da);
  const float* drec = r.at(r.k.drec);
  // dW[g][i] = sum_{row} da[row][g] in[row][i]
  r.gemm(r.GH, in_dim, r.S, da, cols_map(r.GH), r.layer_in(l), rows_map(in_dim), dw + pk.w, in_dim);
  // dR[g][k] = sum_{t, n} drec[t][n][g] h_prev(t)[n][k]: the step whose h_prev is hx (t = 0, or T-1
  // reverse) first, then the others, whose h_prev rows are the layer output shifted by one step.
  const long long t_first = r.t_of(0, dir);
  r.gemm(r.GH, r.H, r.N, drec + t_first * r.N * r.GH, cols_map(r.GH), r.at(r.k.h0) + idx * r.N * r.H, rows_map(r.H), dw + pk.r,
         r.H);
  if (r.T > 1) {
    const long long DH = r.D * r.H, NGH = r.N * r.GH;
    const float* a = dir == 0 ? drec + NGH : drec;                                               // times 1..T-1 / 0..T-2
    const float* b = dir == 0 ? r.layer_out(l) + dir * r.H : r.layer_out(l) + r.N * DH + dir * r.H;  // times 0..T-2 / 1..T-1
    r.gemm(r.GH, r.H, (r.T - 1) * r.N, a, cols_map(r.GH), b, rows_map(DH), dw + pk.r, r.H, nullptr, dw + pk.r);
  }
  if (r.p.bias) {
    for (auto [src, off] : {std::pair{da, pk.bw}, std::pair{drec, pk.br}}) {
      hipLaunchKernelGGL(rnn_column_sums, dim3(grid_stride_blocks(r.GH, kBlock)), dim3(kBlock), 0, r.stream, src, r.GH, r.S, r.GH,
                         dw + off);
      HIPRIM_CHECK_LAUNCH("rnn_column_sums", r.ctx);
    }
  }
}

// Backpropagation through time over every layer (after forward(r, true)); stores dhx, dcx (when
// given) and returns dx's fp32 values (nullptr with weights: layer 0's input gradient is not formed,
// the weight gradients are left in dwf instead).
template <typename T>
const float* backward(const RnnRun& r, const T* dy, const T* dhy, const T* dcy, T* dhx, T* dcx, bool weights) {
  float* d_out = r.at(r.k.d0);
  float* d_in = r.at(r.k.d1);
  r.copy(dy, 0, d_out, 0, 1, r.S * r.D * r.H);
  for (long long l = r.L - 1; l >= 0; --l) {
    const long long in_dim = r.p.layer_input(l);
    for (long long dir = 0; dir < r.D; ++dir) {
      const long long idx = l * r.D + dir;
      const RnnPacking pk = r.p.packing(l, static_cast<int>(dir));
      r.copy(dhy + idx * r.N * r.H, 0, r.at(r.k.dh), 0, 1, r.N * r.H);
      if (r.p.lstm()) r.copy(dcy + idx * r.N * r.H, 0, r.at(r.k.dc), 0, 1, r.N * r.H);
      for (long long s = r.T - 1; s >= 0; --s) {
        const long long t = r.t_of(s, dir);
        RnnStepBwd st{};
        st.dy = RnnRows{d_out + t * r.N * r.D * r.H + dir * r.H, r.D * r.H};
        st.dh_next = r.at(r.k.dh), st.dc_next = r.at(r.k.dc);
        st.act = r.at(r.k.act) + (idx * r.T + s) * r.N * r.GH;
        st.q = r.p.mode == RnnMode::gru ? r.at(r.k.q) + (idx * r.T + s) * r.N * r.H : nullptr;
        st.c = r.cell(l, dir, s), st.c_prev = r.cell(l, dir, s - 1), st.h_prev = r.h_prev(l, dir, s);
        st.da = r.at(r.k.da) + t * r.N * r.GH, st.drec = r.at(r.k.drec) + t * r.N * r.GH;
        st.N = static_cast<int>(r.N), st.H = static_cast<int>(r.H);
        with_cell(r.p.mode, [&]<RnnCell C>() { launch_step_bwd<C>(r, st); });
        // dh_next[n][k] = sum_g drec[n][g] R[g][k] (+ the GRU's direct part the step kernel left there)
        r.wgemm(true, r.N, r.H, r.GH, st.drec, r.GH, pk.r, rows_map(r.H), r.at(r.k.dh), r.H, nullptr,
                r.p.mode == RnnMode::gru ? r.at(r.k.dh) : nullptr);
      }
      if (dhx) r.copy(r.at(r.k.dh), 0, dhx + idx * r.N * r.H, 0, 1, r.N * r.H);
      if (dcx) r.copy(r.at(r.k.dc), 0, dcx + idx * r.N * r.H, 0, 1, r.N * r.H);
      if (weights) weight_gradients(r, l, dir);
      // dIn[row][i] (+)= sum_g da[row][g] W[g][i]
      if (l > 0 || !weights)
        r.wgemm(false, r.S, in_dim, r.GH, r.at(r.k.da), r.GH, pk.w, rows_map(in_dim), d_in, in_dim, nullptr,
                dir == 0 ? nullptr : d_in);
    }
    std::swap(d_out, d_in);
  }
  return weights ? nullptr : d_out;
}

class RnnGemm final : public TypedOpSolver<RnnProblem> {
 public:
  RnnGemm(RnnDir dir, RnnEngine engine) : dir_(dir), engine_(engine) {}
  std::string name() const override {
    const char* family = engine_ == RnnEngine::fp32_simt ? "rnn.gemm." : engine_ == RnnEngine::bf16x3_mma ? "rnn.mma." : "rnn.split_simt.";
    return family + std::string(dir_ == RnnDir::fwd ? "fwd" : dir_ == RnnDir::bwd_data ? "bwd_data" : "bwd_weights");
  }
  Backend backend() const override { return Backend::device; }
  // steps.gemm (the default): per step a GEMM with R and a gate kernel; steps.persist: each layer's
  // steps in one cooperative launch (gpu/rnn/rnn_persist.hpp; listed where persist_fits). s24 on an
  // H100, LSTM/GRU fwd at hidden 1024, batch 64, 128 steps, bf16: steps.persist 23.0 / 22.0 ms against
  // steps.gemm's 12.4 / 10.9 (rnn.mma), so it is not the default (its h_prev staging was latency-bound;
  // the 16-byte staging since has not run on a GPU).
  std::vector<std::string> perf_configs() const override {
    if (rnn_split(engine_)) return {"steps.tc", "steps.tc.r64", "steps.tc.wave", "steps.persist", "steps.gemm"};
    return {"steps.persist", "steps.gemm"};
  }
  std::vector<std::string> configs_for(const OpProblem& p) const override {
    const RnnProblem* q = op_problem_cast<RnnProblem>(p);
    if (q == nullptr || !applicable(p)) return {};
    std::vector<std::string> c;
    for (const TcConfig& tc : kTcConfigs)
      if (tc_fits(*q, engine_, tc)) c.push_back(tc.name);
    if (persist_fits(*q)) c.push_back("steps.persist");
    c.push_back("steps.gemm");
    return c;
  }
  std::string default_config_for(const OpProblem& p) const override {
    const RnnProblem* q = op_problem_cast<RnnProblem>(p);
    return q != nullptr ? default_for(*q, engine_) : "steps.gemm";
  }
  std::string summary() const override {
    const std::string what = std::string(rnn_dir_name(dir_)) + ": input projection as one GEMM, per step a GEMM with R and a fused gate kernel";
    if (engine_ == RnnEngine::fp32_simt)
      return what + " (SIMT tiled GEMM, fp32 state and accumulation); relu/tanh/LSTM/GRU, stacked, bidirectional, fp32/fp16/bf16";
    return what + "; the input projection and the input gradient on " +
           (engine_ == RnnEngine::bf16x3_mma ? "tensor cores" : "the SIMT tile") +
           " with the fp32 operand split in three bf16 pieces (exact products), the per-step GEMMs on the SIMT tile, fp32 state; bf16 only";
  }

 protected:
  Applicability applicable_to(const RnnProblem& p) const override {
    if (p.dir != dir_) return Applicability::no("solves rnn " + std::string(rnn_dir_name(dir_)) + " only");
    if (rnn_split(engine_) && p.dtype != DType::bf16)
      return Applicability::no("bf16 only: the split GEMMs read the weights as given, exact only when they are bf16");
    // Without any device the runner reports the GPU solvers as not run; with one, a device (or build)
    // without mma.sync refuses here.
    if (engine_ == RnnEngine::bf16x3_mma && device_available()) {
      if (const std::string why = gemm_mma_unavailable(); !why.empty()) return Applicability::no(why);
#if HIPRIM_PLATFORM_NVIDIA
      (void)igemm_sm90_unavailable();  // the wgmma kernels' one-time setup, before any graph capture of run()
#endif
    }
    return Applicability::yes();
  }
  std::size_t workspace_for(const RnnProblem& p) const override { return plan_rnn(p, engine_).bytes(); }
  void run_typed(const RnnProblem& p, const std::vector<void*>& b, void* ws, void* stream) const override {
    run_typed_config(p, b, ws, stream, default_for(p, engine_));
  }
  void run_typed_config(const RnnProblem& p, const std::vector<void*>& b, void* ws, void* stream,
                        const std::string& config) const override {
    RnnRun r(p, engine_, ws, static_cast<hipStream_t>(stream), "running " + name() + " (" + config + ") on " + to_string(p));
    r.persist = config == "steps.persist", r.tc = tc_config(config);  // listed only where they fit (run_config checks)
    const bool lstm = p.lstm();
    // tensors() order (core/rnn_problem.hpp): x, hx, [cx], w, then the direction's own.
    const std::size_t w_at = lstm ? 3 : 2, rest = w_at + 1;
    dispatch_dtype(p.dtype, [&]<typename T>() {
      auto in = [&](std::size_t i) { return static_cast<const T*>(b[i]); };
      auto out = [&](std::size_t i) { return static_cast<T*>(b[i]); };
      if constexpr (std::is_same_v<T, hiprim_bf16_t>)  // x is read only: one piece of rows of X
        r.w16 = in(w_at), r.x16 = RnnPieces{const_cast<hiprim_bf16_t*>(in(0)), p.input, 0, 1}, r.hx16 = in(1);
      load_inputs<T>(r, in(0), in(1), lstm ? in(2) : nullptr, in(w_at));
      if (p.dir == RnnDir::fwd) {
        forward(r, false);
        r.copy(r.layer_out(r.L - 1), 0, out(rest), 0, 1, r.S * r.D * r.H);  // y
        for (long long l = 0; l < r.L; ++l)
          for (long long dir = 0; dir < r.D; ++dir) {
            const long long idx = l * r.D + dir, t_last = r.t_of(r.T - 1, dir);
            r.copy(r.layer_out(l) + t_last * r.N * r.D * r.H + dir * r.H, r.D * r.H, out(rest + 1) + idx * r.N * r.H, r.H, r.N, r.H);
            if (lstm) r.copy(r.cell(l, dir, r.T - 1).ptr, r.H, out(rest + 2) + idx * r.N * r.H, r.H, r.N, r.H);
          }
        return;
      }
      forward(r, true);
      const std::size_t g = rest + (lstm ? 3 : 2);  // the first output
      const T* dcy = lstm ? in(rest + 2) : nullptr;
      if (p.dir == RnnDir::bwd_weights) {
        backward<T>(r, in(rest), in(rest + 1), dcy, nullptr, nullptr, true);
        r.copy(r.at(r.k.dwf), 0, out(g), 0, 1, p.weights());
        return;
      }
      const float* dx = backward<T>(r, in(rest), in(rest + 1), dcy, out(g + 1), lstm ? out(g + 2) : nullptr, false);
      r.copy(dx, 0, out(g), 0, 1, r.S * p.input);
    });
  }

 private:
  static std::string default_for(const RnnProblem& p, RnnEngine e) { return tc_fits(p, e, kTcConfigs[0]) ? "steps.tc" : "steps.gemm"; }
  RnnDir dir_;
  RnnEngine engine_;
};

}  // namespace

namespace {
OpSolverList rnn_solver_list(RnnEngine split) {
  OpSolverList list;
  for (RnnEngine e : {RnnEngine::fp32_simt, split})
    for (RnnDir d : {RnnDir::fwd, RnnDir::bwd_data, RnnDir::bwd_weights}) list.push_back(std::make_shared<RnnGemm>(d, e));
  return list;
}
}  // namespace

OpSolverList rnn_solvers() { return rnn_solver_list(RnnEngine::bf16x3_mma); }
OpSolverList rnn_solvers_split_on_simt() { return rnn_solver_list(RnnEngine::bf16x3_simt); }

}  // namespace hiprim::gpu
