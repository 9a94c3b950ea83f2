// The persistent forward kernel on tensor cores, configs "steps.tc*" of the rnn.mma solvers (bf16
// problems with math=h16, core/rnn_problem.hpp; include from gpu/rnn/rnn.hip only): every step of one
// layer and direction in ONE cooperative launch, R h_prev by mma.sync m16n8k16 (bf16 operands, fp32
// accumulation) with R held in registers for the whole sequence, the steps separated by grid barriers.
//
// MT m-tiles of 16 gate rows per block (configs steps.tc: MT = 2, steps.tc.r64: MT = 4). Block b owns
// the hidden units j in [b*hu, (b+1)*hu), hu = 16 MT / G (all G gates of them in 16 MT rows, row r =
// gate r / hu, unit r % hu, R's row (r / hu) H + j; rows from G*hu on are zero). 4 MT warps: warp w
// takes rows 16 (w % MT) .. + 16 (one m-tile) and the k quarter kq = w / MT: k-steps [kq ks, (kq + 1) ks)
// of 16, ks = ceil(H / 64) (K padded with zeros to 64 ks); its A fragments (4 ks registers) are loaded
// once. Per step, per chunk of up to nb samples (nb / 8 n-tiles; nb <= 128 / MT):
//   hs[n][k]          = bf16 h_prev[n0 + n][k] (the previous step's h rounded by the cell kernel, hx
//                       at the first step; zero past H and past the chunk)   shared memory, rows of LDH
//   part[kq][r][n]    = sum over the quarter's k of R[row r][k] hs[n][k]     mma.sync, n-tiles of 8 (rows nb + 8 apart)
//   qs[r][n]          = ((part[0] + part[1]) + part[2]) + part[3] + bR[row r]   (n fastest over the threads:
//                       consecutive words, no bank conflicts; s25 call 1 had r fastest, 32-way, ~5 us a step)
//   the cells of (n0 + n, j) with rnn_cell_fwd (which also writes h's bf16 rounding for the next step);
//   their p values are loaded before the staging, so that latency hides behind the products
// then grid_sync(). part and qs reuse hs's shared memory once the products are done (a barrier between).
// hs rows are LDH = 64 ks + 8 elements: a B fragment's 32-bit loads (8 samples x 4
// k pairs) fall on 8 distinct bank quadruples. The products are exact (bf16 x bf16 in fp32) and
// summed in the tensor cores' order: reference/rnn_bound.hpp's gamma_{2u}(K') for math=h16.
// On the host emulation one warp's mma is formed through shared memory by the block together
// (rnn_tc_mma: every thread of the block makes the same calls, so its barriers are uniform).
#pragma once
#include <cstdint>

#include "gpu/common/async_copy.hpp"
#include "gpu/common/launch_grid.hpp"
#include "gpu/common/vec_pack.hpp"
#include "gpu/gemm/gemm_mma.hpp"
#include "gpu/gemm/mma_fragment.hpp"
#include "gpu/rnn/rnn_kernels.hpp"
#include "gpu/rnn/rnn_plan.hpp"
#if HIPRIM_PLATFORM_EMU
#include "core/dtype.hpp"  // bf16_bits_to_float: the emulated mma's operands
#endif

namespace hiprim::gpu {

// h_prev in bf16: rows of ld elements (the layer output's rounding, or hx as given).
struct RnnRows16 {
  const std::uint16_t* ptr = nullptr;
  long long ld = 0;
};

struct RnnTcFwd {
  RnnSeqFwd seq;            // the sequence's buffers (fp32 h in seq.out, its bf16 rounding in seq.hp, one piece)
  const std::uint16_t* r;   // R [GH][H] bf16 (the weights as given)
  const float* br;          // [GH] fp32 or nullptr
  RnnRows16 h0;             // hx [N][H] bf16: the first step's staged h_prev
  RnnRows16 out16;          // seq.hp's rows as 16-bit words: the later steps' staged h_prev
  // steps.tc.wave, layers >= 1: the step's P = W h_below + bW formed here (seq.p unused): W [GH][H] bf16
  // (the weights as given), bW [GH] fp32 or nullptr, and the layer below's out16 (its h at time t)
  const std::uint16_t* w;
  const float* bw;
  RnnRows16 below16;
  int hu, ks, nb;
  bool vec;                 // 16-byte staging: H % 8 == 0 and every staged row source 16-byte aligned
};
static_assert(sizeof(RnnTcFwd) <= kRnnTcLayerBytes, "the layer parameters' shared-memory copy");

// One launch: layers x blocks blocks, layer l's blocks from l * blocks. layers > 1 (steps.tc.wave): the
// steps meet by counted arrivals (arrivals[l]: layer l's blocks that finished a step; layer l's step s
// waits for arrivals[l] >= blocks s and, l >= 1, arrivals[l - 1] >= blocks (s + 1)); one layer: grid
// barriers (arrivals unused).
struct RnnTcLaunch {
  RnnTcFwd layer[kRnnTcMaxLayers];
  unsigned* arrivals;
  int layers, blocks;
};

// The arrival counters of a wave launch, zeroed before it.
__global__ void rnn_tc_clear(unsigned* arrivals, int n) {
  if (static_cast<int>(threadIdx.x) < n) arrivals[threadIdx.x] = 0u;
}

// The emulation's blocks of one launch, at most (rnn_tc_fwd's program-wide mma scratch).
inline constexpr unsigned kRnnTcEmuBlocks = 8;

// d += A[16x16] B[16x8] for one warp's fragments (gpu/gemm/mma_fragment.hpp's maps). Emulation: the
// warp's fragments meet in `scratch` (this warp's 384 bf16 words), the whole block calls together.
__device__ __forceinline__ void rnn_tc_mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                           std::uint16_t* scratch, int lane) {
#if HIPRIM_MMA_SM80
  (void)scratch, (void)lane;
  mma_detail::mma_16816<hiprim_bf16_t>(d, a, b);
#elif HIPRIM_PLATFORM_EMU
  std::uint16_t* A = scratch;        // [16][16]
  std::uint16_t* B = scratch + 256;  // [16 k][8 n]
  for (int i = 0; i < 8; ++i) A[mma_a_row(lane, i) * 16 + mma_a_col(lane, i)] = static_cast<std::uint16_t>(a[i / 2] >> (16 * (i % 2)));
  for (int i = 0; i < 4; ++i) B[mma_b_row(lane, i) * 8 + mma_b_col(lane, i)] = static_cast<std::uint16_t>(b[i / 2] >> (16 * (i % 2)));
  __syncthreads();
  for (int i = 0; i < 4; ++i) {
    const int row = mma_c_row(lane, i), col = mma_c_col(lane, i);
    float s = d[i];
    for (int k = 0; k < 16; ++k) s = fmaf(bf16_bits_to_float(A[row * 16 + k]), bf16_bits_to_float(B[k * 8 + col]), s);
    d[i] = s;
  }
  __syncthreads();
#else
  (void)d, (void)a, (void)b, (void)scratch, (void)lane;  // not listed without mma.sync (rnn.hip refuses)
#endif
}

// hs[n][k] = h_prev[n0 + n][k] for n < live, k < H; zero elsewhere in [0, nb) x [0, 64 ks).
// Whole rows of 16-byte chunks (every row live, H = kpad, and the block's threads a multiple of a row's
// chunks): a thread keeps its k and steps its two pointers by dn rows (s27 ncu: the general loop's index
// arithmetic was 27% of a step).
__device__ __forceinline__ void rnn_tc_stage(const RnnRows16& h, int n0, int live, int nb, int H, int kpad, bool vec, std::uint16_t* hs) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x), ldh = kpad + 8;
  const int v8 = kpad / 8, dn = threads / v8, dk = 8 * (threads % v8);
  if (vec && live == nb && H == kpad && dk == 0 && h.ld % 8 == 0) {
    const int n1 = tid / v8, k = 8 * (tid % v8);
    const uint4* src = reinterpret_cast<const uint4*>(h.ptr + (n0 + n1) * h.ld + k);
    uint4* dst = reinterpret_cast<uint4*>(hs + n1 * ldh + k);
    const long long src_step = dn * h.ld / 8;  // uint4 units
    const int dst_step = dn * ldh / 8;
#pragma unroll 4
    for (int n = n1; n < nb; n += dn, src += src_step, dst += dst_step) async_copy(dst, src);
    async_copy_wait();
    return;
  }
  int n = tid / v8, k = 8 * (tid % v8);
  for (; n < nb; n += dn, k += dk) {  // chunks of 8 elements, tid + i * threads; cp.async puts a thread's all in flight
    if (k >= kpad) k -= kpad, ++n;
    if (n >= nb) break;
    std::uint16_t* dst = hs + n * ldh + k;
    const std::uint16_t* src = h.ptr + (n0 + n) * h.ld + k;
    if (n < live && vec && k < H) {
      async_copy(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src));
    } else {
      for (int i = 0; i < 8; ++i) dst[i] = n < live && k + i < H ? src[i] : std::uint16_t{0};
    }
  }
  async_copy_wait();
}

// B fragments of the n-tiles nt0 .. nt0 + TILES - 1 (TILES 1 or 2) at k-step base kb of hs ([n][k], rows ldh
// apart): bf[t] = {hs[n][kb + 2q], hs[n][kb + 2q + 1]}, {the same at kb + 8}, n = 8 (nt0 + t) + lane / 4,
// q = lane % 4 (the mma's B map). mma.sync targets: one ldmatrix (x4 / x2), matrix m = (tile m / 2, k half
// m % 2), lane L addresses row L % 8 of matrix L / 8 (x2: lanes 16-31 repeat 0-15); rows 16 (ks * 8 + 1)
// bytes apart put a matrix's 8 rows on distinct bank quadruples. Elsewhere the same words by 32-bit loads.
template <int TILES>
__device__ __forceinline__ void rnn_tc_b_frags(const std::uint16_t* hs, int ldh, int nt0, int kb, int lane, std::uint32_t (*bf)[2]) {
  static_assert(TILES == 1 || TILES == 2, "one ldmatrix");
#if HIPRIM_MMA_SM80
  const int m = (lane / 8) % (2 * TILES);
  std::uint32_t r[2 * TILES];
  mma_detail::ldmatrix<2 * TILES>(r, hs + (8 * (nt0 + m / 2) + lane % 8) * ldh + kb + 8 * (m % 2));
#pragma unroll
  for (int t = 0; t < TILES; ++t) bf[t][0] = r[2 * t], bf[t][1] = r[2 * t + 1];
#else
#pragma unroll
  for (int t = 0; t < TILES; ++t) {
    const std::uint16_t* col = hs + (8 * (nt0 + t) + mma_b_col(lane, 0)) * ldh + kb + mma_b_row(lane, 0);
    bf[t][0] = *reinterpret_cast<const std::uint32_t*>(col);
    bf[t][1] = *reinterpret_cast<const std::uint32_t*>(col + 8);
  }
#endif
}

// The A fragment of rows r0 .. r0 + 15 at k-step base kb of a [row][k] shared-memory tile (rows ld apart):
// the mma's A map (register j: rows + 8 (j % 2), k + 8 (j / 2)). mma.sync targets: one ldmatrix.x4 (matrix
// j = register j; lane L addresses row L % 8 + 8 ((L / 8) % 2) at k + 8 (L / 16)).
__device__ __forceinline__ void rnn_tc_a_frag_smem(const std::uint16_t* m, int ld, int r0, int kb, int lane, std::uint32_t (&f)[4]) {
#if HIPRIM_MMA_SM80
  mma_detail::ldmatrix<4>(f, m + (r0 + lane % 8 + 8 * ((lane / 8) % 2)) * ld + kb + 8 * (lane / 16));
#else
#pragma unroll
  for (int jr = 0; jr < 4; ++jr)
    f[jr] = *reinterpret_cast<const std::uint32_t*>(m + (r0 + mma_a_row(lane, 2 * jr)) * ld + kb + mma_a_col(lane, 2 * jr));
#endif
}

// The block's products of one staged chunk of NT n-tiles, then their fixed-order sums into dst:
//   part[kq][r][n] = sum over warp quarter kq's k of A[r][k] hs[n][k]   (mma.sync; A's fragment of k-step i by a_frag)
//   dst[r ldd + n] = ((part[0] + part[1]) + part[2]) + part[3] + bias[r]   (r < rows, n < nb; bias: live rows only)
// part and the qs rows may alias hs (a barrier after the products). Begins with the staging's barrier.
// NT is a compile-time count so the n-tile loop unrolls without branches; with MT <= 2 the next k-step's B
// fragments are loaded before this one's mma (s27 ncu: a branch per mma and every LDS -> HMMA latency exposed).
template <int MT, int NT, typename AFrag>
__device__ __forceinline__ void rnn_tc_products_nt(AFrag&& a_frag, const std::uint16_t* hs, float* part, float* dst, int ldd,
                                                   const float* bias, int rows, int nb, int ks, std::uint16_t* scratch) {
  constexpr int kRows = 16 * MT, kThreads = 128 * MT, nbm = 8 * NT, kPair = NT >= 2 ? 2 : 1;
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32, mt = warp % MT, kq = warp / MT;
  const int ldh = 64 * ks + 8, lp = nbm + 8;  // part's rows lp = nb + 8 words apart (see below)
  __syncthreads();  // the staging is complete
  float acc[NT][4] = {};
  if constexpr (MT >= 4) {
    // 512 threads: 128 registers, 64 of them R's fragments. One n-tile's B fragment at a time, loaded just
    // before its mma (loaded ahead or by pairs, ptxas spilled 400-600 bytes a thread and the 64-row configs
    // ran 11-37% slower, s28).
#pragma unroll
    for (int i = 0; i < kRnnTcMaxKs; ++i) {
      if (i >= ks) break;  // uniform over the block
      std::uint32_t af[4];
      a_frag(i, af);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        std::uint32_t bf[1][2];
        rnn_tc_b_frags<1>(hs, ldh, nt, 16 * (kq * ks + i), lane, bf);
        rnn_tc_mma(acc[nt], af, bf[0], scratch, lane);
      }
    }
  } else {  // the next k-step's fragments loaded ahead, by pairs of n-tiles
    std::uint32_t bcur[NT][2], bnext[NT][2] = {};
    auto load_b = [&](int i, std::uint32_t (&bf)[NT][2]) {
#pragma unroll
      for (int nt = 0; nt < NT; nt += kPair)
        rnn_tc_b_frags<kPair>(hs, ldh, nt, 16 * (kq * ks + i), lane, bf + nt);
    };
    load_b(0, bcur);
#pragma unroll
    for (int i = 0; i < kRnnTcMaxKs; ++i) {
      if (i >= ks) break;  // uniform over the block
      if (i + 1 < ks) load_b(i + 1, bnext);
      std::uint32_t af[4];
      a_frag(i, af);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) rnn_tc_mma(acc[nt], af, bcur[nt], scratch, lane);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) bcur[nt][0] = bnext[nt][0], bcur[nt][1] = bnext[nt][1];
    }
  }
  __syncthreads();  // every warp's reads of hs are done: part and the sums may reuse it
  // (d0, d1) and (d2, d3) are column pairs: 8-byte stores; rows lp = nb + 8 words apart put a
  // warp's 8 rows x 4 pairs on distinct banks in two wavefronts (rows nb apart: 8-way conflicts).
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
    for (int e = 0; e < 4; e += 2) {
      store_raw<float, 2>(part, (kq * kRows + 16 * mt + mma_c_row(lane, e)) * lp + 8 * nt + mma_c_col(lane, e),
                          Pack<float, 2>{{acc[nt][e], acc[nt][e + 1]}});
    }
  }
  __syncthreads();
  constexpr int lg = nbm == 64 ? 6 : nbm == 32 ? 5 : nbm == 16 ? 4 : 3;
  for (int o = tid; o < rows * nbm; o += kThreads) {  // n fastest over the threads: consecutive words
    const int nn = o & (nbm - 1), rr = o >> lg;
    if (nn >= nb) continue;
    const float* pr = part + rr * lp + nn;  // part[0][rr][nn]
    float q = ((pr[0] + pr[kRows * lp]) + pr[2 * kRows * lp]) + pr[3 * kRows * lp];
    if (bias != nullptr) q = q + bias[rr];
    dst[rr * ldd + nn] = q;
  }
  __syncthreads();
}

// rnn_tc_products_nt for a chunk of nbm (a power of two, 8 .. rnn_tc_max_nb(MT)) samples.
template <int MT, typename AFrag>
__device__ __forceinline__ void rnn_tc_products(AFrag&& a_frag, const std::uint16_t* hs, float* part, float* dst, int ldd,
                                                const float* bias, int rows, int nb, int nbm, int ks, std::uint16_t* scratch) {
  constexpr int kMaxNt = rnn_tc_max_nb(MT) / 8;
  constexpr auto cap = [](int nt) { return nt < kMaxNt ? nt : kMaxNt; };
  switch (nbm) {
    case 64: rnn_tc_products_nt<MT, cap(8)>(a_frag, hs, part, dst, ldd, bias, rows, nb, ks, scratch); break;
    case 32: rnn_tc_products_nt<MT, cap(4)>(a_frag, hs, part, dst, ldd, bias, rows, nb, ks, scratch); break;
    case 16: rnn_tc_products_nt<MT, cap(2)>(a_frag, hs, part, dst, ldd, bias, rows, nb, ks, scratch); break;
    default: rnn_tc_products_nt<MT, 1>(a_frag, hs, part, dst, ldd, bias, rows, nb, ks, scratch); break;
  }
}

// Rows r < 16 MT of the block's R or W slice: row (r / hu) H + j0 + r % hu of a [G H][H] matrix, zero past
// G hu rows, past H units and past k >= H. Register 2j of fragment (i) holds (row, k), (row, k + 1).
__device__ __forceinline__ std::uint32_t rnn_tc_pair(const std::uint16_t* m, int r, int k, int hu, int rows, int j0, int H) {
  const int j = j0 + r % hu;
  if (r >= rows || j >= H) return 0u;
  const std::uint16_t* row = m + (static_cast<long long>(r / hu) * H + j) * H;
  const std::uint32_t lo = k < H ? row[k] : 0u, hi = k + 1 < H ? row[k + 1] : 0u;
  return lo | (hi << 16);
}

template <RnnCell C, int MT>
__global__ void __launch_bounds__(128 * MT) rnn_tc_fwd(const RnnTcLaunch L) {
  HIPRIM_DYNAMIC_SMEM(raw);
  constexpr int G = static_cast<int>(kRnnGates<C>), kRows = 16 * MT, kThreads = 128 * MT;
  constexpr int kCells = (rnn_tc_max_nb(MT) * (kRows / G) + kThreads - 1) / kThreads;  // cells per thread, at most
  const int layer = static_cast<int>(blockIdx.x) / L.blocks, tid = static_cast<int>(threadIdx.x);
  const bool wave = L.layers > 1;
  const int N0 = L.layer[0].seq.N, ks0 = L.layer[0].ks, nb0 = L.layer[0].nb;
  const RnnTcSmem sm = rnn_tc_smem(MT, nb0, ks0, wave ? N0 : 0);
  RnnTcFwd* lp = reinterpret_cast<RnnTcFwd*>(raw + sm.layer);
  if (tid == 0) {  // this block's layer (constant indices: no local copy of the parameter array)
#pragma unroll
    for (int l = 0; l < kRnnTcMaxLayers; ++l)
      if (l == layer) *lp = L.layer[l];
  }
  __syncthreads();
  const RnnTcFwd& a = *lp;
  const int N = a.seq.N, H = a.seq.H, hu = a.hu, rows = G * hu, ks = a.ks, kpad = 64 * ks, ldh = kpad + 8, nbm = a.nb;
  std::uint16_t* hs = reinterpret_cast<std::uint16_t*>(raw + sm.region);  // [nb][ldh]
  float* part = reinterpret_cast<float*>(raw + sm.region);                 // [4][kRows][nb + 8], over hs
  float* qs = part + 4 * kRows * (nbm + 8);                                // [kRows][nb], over hs
  float* brs = reinterpret_cast<float*>(raw + sm.bias);                    // bR's rows, then bW's
  float* bws = brs + kRows;
  float* ps = reinterpret_cast<float*>(raw + sm.ps);                        // wave layers >= 1: [kRows][N]
  std::uint16_t* ws = reinterpret_cast<std::uint16_t*>(raw + sm.w);        // wave layers >= 1: W's rows [kRows][ldh]
  const int lane = tid % 32, warp = tid / 32, mt = warp % MT, kq = warp / MT;
#if HIPRIM_PLATFORM_EMU  // the emulated mma's scratch: one program-wide array (the emulation runs few blocks)
  static std::uint16_t emu_scratch[kRnnTcEmuBlocks][4 * MT][384];
  if (blockIdx.x >= kRnnTcEmuBlocks) __builtin_trap();
  std::uint16_t* my_scratch = emu_scratch[blockIdx.x][warp];
#else
  std::uint16_t* my_scratch = nullptr;
#endif
  const int j0 = (static_cast<int>(blockIdx.x) % L.blocks) * hu;
  const long long GH = static_cast<long long>(G) * H;
  const bool own_p = a.w != nullptr;  // P formed here (wave layers >= 1)

  // R's A fragments for the whole sequence: register 2j of k-step i holds R(row, k), R(row, k + 1).
  std::uint32_t af[kRnnTcMaxKs][4];
#pragma unroll
  for (int i = 0; i < kRnnTcMaxKs; ++i)
#pragma unroll
    for (int jr = 0; jr < 4; ++jr)
      af[i][jr] = i < ks ? rnn_tc_pair(a.r, 16 * mt + mma_a_row(lane, 2 * jr), 16 * (kq * ks + i) + mma_a_col(lane, 2 * jr), hu, rows, j0, H) : 0u;
  if (tid < kRows) {
    const int j = j0 + tid % hu;
    const long long g = static_cast<long long>(tid / hu) * H + j;
    brs[tid] = a.br != nullptr && tid < rows && j < H ? a.br[g] : 0.0f;
    bws[tid] = a.bw != nullptr && tid < rows && j < H ? a.bw[g] : 0.0f;
  }
  if (own_p)  // W's rows, pairs of k (zero past the live rows and k >= H)
    for (int e = tid; e < kRows * (kpad / 2); e += kThreads) {
      const int r = e / (kpad / 2), k = 2 * (e % (kpad / 2));
      *reinterpret_cast<std::uint32_t*>(ws + r * ldh + k) = rnn_tc_pair(a.w, r, k, hu, rows, j0, H);
    }
  // (read after the first products' barriers)
  auto r_frag = [&](int i, std::uint32_t (&f)[4]) {
#pragma unroll
    for (int jr = 0; jr < 4; ++jr) f[jr] = af[i][jr];
  };
  auto w_frag = [&](int i, std::uint32_t (&f)[4]) { rnn_tc_a_frag_smem(ws, ldh, 16 * mt, 16 * (kq * ks + i), lane, f); };

  for (int s = 0; s < a.seq.T; ++s) {
    const RnnStepFwd st = a.seq.step(s);
    const int t = a.seq.time(s);
    if (own_p) {  // P of this step from the layer below's h at time t (its step s), before waiting for this layer
      grid_wait_for(&L.arrivals[layer - 1], static_cast<unsigned>(L.blocks * (s + 1)));
      const RnnRows16 below{a.below16.ptr + static_cast<long long>(t) * N * a.below16.ld, a.below16.ld};
      for (int n0 = 0; n0 < N; n0 += nbm) {
        const int nb = N - n0 < nbm ? N - n0 : nbm;
        rnn_tc_stage(below, n0, nb, nbm, H, kpad, a.vec, hs);
        rnn_tc_products<MT>(w_frag, hs, part, ps + n0, N, a.bw != nullptr ? bws : nullptr, rows, nb, nbm, ks, my_scratch);
      }
    }
    if (wave && s > 0) grid_wait_for(&L.arrivals[layer], static_cast<unsigned>(L.blocks * s));
    const RnnRows16 h16 = s == 0 ? a.h0 : RnnRows16{a.out16.ptr + static_cast<long long>(a.seq.time(s - 1)) * N * a.out16.ld, a.out16.ld};
    for (int n0 = 0; n0 < N; n0 += nbm) {
      const int nb = N - n0 < nbm ? N - n0 : nbm;
      // The thread's cells e = tid + c * threads (< nb hu): their G values of p and the carried c_prev /
      // h_prev; from global memory in flight during the products (P formed here: read after them).
      float pf[kCells][G], prev[kCells];
#pragma unroll
      for (int c = 0; c < kCells; ++c) {
        const int e = tid + c * kThreads, nn = e / hu, j = j0 + e % hu;
        const bool live = e < nb * hu && j < H;
#pragma unroll
        for (int g = 0; g < G; ++g) pf[c][g] = live && !own_p ? st.p[(n0 + nn) * GH + g * H + j] : 0.0f;
        prev[c] = live ? rnn_cell_prev<C>(st, n0 + nn, j) : 0.0f;
      }
      __syncthreads();  // the previous chunk's readers of hs, part and qs are done
      rnn_tc_stage(h16, n0, nb, nbm, H, kpad, a.vec, hs);
      rnn_tc_products<MT>(r_frag, hs, part, qs, nbm, a.br != nullptr ? brs : nullptr, rows, nb, nbm, ks, my_scratch);
#pragma unroll
      for (int c = 0; c < kCells; ++c) {
        const int e = tid + c * kThreads, nn = e / hu, jj = e - nn * hu, j = j0 + jj;
        if (e < nb * hu && j < H) {
          if (own_p)
#pragma unroll
            for (int g = 0; g < G; ++g) pf[c][g] = ps[(g * hu + jj) * N + n0 + nn];
          rnn_cell_fwd<C>(st, n0 + nn, j, pf[c], qs + jj * nbm + nn, hu * nbm, 1, prev[c]);
        }
      }
    }
    // this step's h (fp32 and bf16) and c reach the blocks that read them next
    if (wave) grid_arrive(&L.arrivals[layer]);
    else grid_sync();
  }
}

}  // namespace hiprim::gpu
