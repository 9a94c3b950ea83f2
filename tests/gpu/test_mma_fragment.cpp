// Host tests of the tensor-core GEMM's index layer (gpu/gemm/mma_fragment.hpp), no GPU needed:
//  - the lane -> (row, col) fragment maps of mma.m16n8k16 against the PTX ISA tables, restated here
//    independently (literal entries, and the tables' block structure);
//  - one warp's mma emulated: fragments gathered per lane with the header's maps, the instruction
//    computed from the independent restatement (D = A*B + C), D scattered with the C map;
//  - the block kernel's whole tile loop emulated with the header's functions (slot ranges, staging
//    coordinates and in-range rule, shared-memory offsets, warp origins, fragment offsets, epilogue
//    coordinates) on odd sizes, transposed/split maps, batches and split-K, against a plain product;
//  - the staging plan's fast-path conditions and the padding's bank-conflict freedom.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu/gemm/mma_fragment.hpp"

namespace hiprim::gpu {
namespace {

using Tile = GemmMmaTile;

struct RC {
  int r, c;
  bool operator==(const RC&) const = default;
};

// The PTX figures of m16n8k16 (f16/bf16) drawn as 8x8 blocks: A (16x16) is four blocks, register j
// of each lane lies in block j (j = 0: rows 0-7 cols 0-7, 1: rows 8-15 cols 0-7, 2: rows 0-7 cols
// 8-15, 3: rows 8-15 cols 8-15); B (16x8) is two blocks stacked in k, register j in block j; C/D
// (16x8) is two blocks stacked in m, elements c0,c1 in the upper one. Inside a block lane l holds
// row l/4 and the two columns 2*(l%4), 2*(l%4)+1 (B: column l/4 and the two k rows), low half first.
RC ptx_a(int lane, int i) {
  const int j = i / 2;
  return {(j & 1) * 8 + lane / 4, (j >> 1) * 8 + 2 * (lane % 4) + i % 2};
}
RC ptx_b(int lane, int i) { return {(i / 2) * 8 + 2 * (lane % 4) + i % 2, lane / 4}; }
RC ptx_c(int lane, int i) { return {(i / 2) * 8 + lane / 4, 2 * (lane % 4) + i % 2}; }

RC hdr_a(int lane, int i) { return {mma_a_row(lane, i), mma_a_col(lane, i)}; }
RC hdr_b(int lane, int i) { return {mma_b_row(lane, i), mma_b_col(lane, i)}; }
RC hdr_c(int lane, int i) { return {mma_c_row(lane, i), mma_c_col(lane, i)}; }

TEST(MmaFragment, LiteralPtxTableEntries) {
  // lane 0 (groupID 0, tig 0), lane 13 (groupID 3, tig 1), lane 31 (groupID 7, tig 3)
  const RC a0[8] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}};
  const RC a13[8] = {{3, 2}, {3, 3}, {11, 2}, {11, 3}, {3, 10}, {3, 11}, {11, 10}, {11, 11}};
  const RC a31[8] = {{7, 6}, {7, 7}, {15, 6}, {15, 7}, {7, 14}, {7, 15}, {15, 14}, {15, 15}};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(hdr_a(0, i), a0[i]) << "a" << i;
    EXPECT_EQ(hdr_a(13, i), a13[i]) << "a" << i;
    EXPECT_EQ(hdr_a(31, i), a31[i]) << "a" << i;
  }
  const RC b0[4] = {{0, 0}, {1, 0}, {8, 0}, {9, 0}}, b13[4] = {{2, 3}, {3, 3}, {10, 3}, {11, 3}};
  const RC b31[4] = {{6, 7}, {7, 7}, {14, 7}, {15, 7}};
  const RC c0[4] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}}, c13[4] = {{3, 2}, {3, 3}, {11, 2}, {11, 3}};
  const RC c31[4] = {{7, 6}, {7, 7}, {15, 6}, {15, 7}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(hdr_b(0, i), b0[i]) << "b" << i;
    EXPECT_EQ(hdr_b(13, i), b13[i]) << "b" << i;
    EXPECT_EQ(hdr_b(31, i), b31[i]) << "b" << i;
    EXPECT_EQ(hdr_c(0, i), c0[i]) << "c" << i;
    EXPECT_EQ(hdr_c(13, i), c13[i]) << "c" << i;
    EXPECT_EQ(hdr_c(31, i), c31[i]) << "c" << i;
  }
}

TEST(MmaFragment, MapsEqualTheBlockDescriptionAndCoverEachMatrixOnce) {
  std::set<std::pair<int, int>> a, b, c;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(hdr_a(lane, i), ptx_a(lane, i)) << "lane " << lane << " a" << i;
      a.insert({mma_a_row(lane, i), mma_a_col(lane, i)});
    }
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(hdr_b(lane, i), ptx_b(lane, i)) << "lane " << lane << " b" << i;
      EXPECT_EQ(hdr_c(lane, i), ptx_c(lane, i)) << "lane " << lane << " c" << i;
      b.insert({mma_b_row(lane, i), mma_b_col(lane, i)});
      c.insert({mma_c_row(lane, i), mma_c_col(lane, i)});
    }
  }
  EXPECT_EQ(a.size(), 256u);  // 16 x 16, each once
  EXPECT_EQ(b.size(), 128u);  // 16 x 8
  EXPECT_EQ(c.size(), 128u);  // 16 x 8
  for (const auto& s : {a, b, c})
    for (const auto& [r, col] : s) EXPECT_TRUE(r >= 0 && r < 16 && col >= 0 && col < 16);
  for (const auto& [r, col] : b) EXPECT_LT(col, 8);
  for (const auto& [r, col] : c) EXPECT_LT(col, 8);
}

// A register is one 32-bit shared-memory load: its two elements are neighbours in k, the first at
// an even k (with an even row stride that makes the load 4-byte aligned).
TEST(MmaFragment, RegistersHoldAlignedKAdjacentPairs) {
  static_assert(Tile::LDS % 2 == 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(mma_a_row(lane, 2 * j), mma_a_row(lane, 2 * j + 1));
      EXPECT_EQ(mma_a_col(lane, 2 * j) + 1, mma_a_col(lane, 2 * j + 1));
      EXPECT_EQ(mma_a_col(lane, 2 * j) % 2, 0);
    }
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(mma_b_col(lane, 2 * j), mma_b_col(lane, 2 * j + 1));
      EXPECT_EQ(mma_b_row(lane, 2 * j) + 1, mma_b_row(lane, 2 * j + 1));
      EXPECT_EQ(mma_b_row(lane, 2 * j) % 2, 0);
    }
  }
}

// The instruction as the PTX ISA defines it, on all 32 lanes' registers: D = A*B + C with A, B, C
// decoded by the independent restatement, D encoded the same way.
void emulated_mma(const float (&a)[32][8], const float (&b)[32][4], float (&acc)[32][4]) {
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 8; ++i) A[ptx_a(l, i).r][ptx_a(l, i).c] = a[l][i];
    for (int i = 0; i < 4; ++i) B[ptx_b(l, i).r][ptx_b(l, i).c] = b[l][i];
    for (int i = 0; i < 4; ++i) C[ptx_c(l, i).r][ptx_c(l, i).c] = acc[l][i];
  }
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const RC d = ptx_c(l, i);
      float s = C[d.r][d.c];
      for (int k = 0; k < 16; ++k) s += A[d.r][k] * B[k][d.c];
      acc[l][i] = s;
    }
}

float small_int(std::mt19937& rng) { return static_cast<float>(static_cast<int>(rng() % 5) - 2); }

TEST(MmaFragment, OneWarpGatherComputeScatterEqualsMatrixProduct) {
  std::mt19937 rng(11);
  float A[16][16], B[16][8], C[16][8];
  for (auto& row : A)
    for (float& v : row) v = small_int(rng);
  for (auto& row : B)
    for (float& v : row) v = small_int(rng);
  for (auto& row : C)
    for (float& v : row) v = small_int(rng);
  float a[32][8], b[32][4], acc[32][4];
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 8; ++i) a[l][i] = A[mma_a_row(l, i)][mma_a_col(l, i)];
    for (int i = 0; i < 4; ++i) b[l][i] = B[mma_b_row(l, i)][mma_b_col(l, i)];
    for (int i = 0; i < 4; ++i) acc[l][i] = C[mma_c_row(l, i)][mma_c_col(l, i)];
  }
  emulated_mma(a, b, acc);
  float D[16][8];
  for (auto& row : D)
    for (float& v : row) v = std::nanf("");
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) D[mma_c_row(l, i)][mma_c_col(l, i)] = acc[l][i];
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float want = C[m][n];
      for (int k = 0; k < 16; ++k) want += A[m][k] * B[k][n];
      EXPECT_EQ(D[m][n], want) << "D[" << m << "][" << n << "]";
    }
}

// The 32 lanes' words of one fragment register load fall in 32 distinct banks (4-byte banks, 32 of them).
TEST(MmaFragment, FragmentLoadsAreBankConflictFree) {
  for (int warp = 0; warp < Tile::threads / Tile::lanes; ++warp) {
    const MmaWarpOrigin wo = mma_warp_origin(warp);
    for (int kk = 0; kk < Tile::BK; kk += 16) {
      for (int mi = 0; mi < Tile::MI; ++mi)
        for (int j = 0; j < 4; ++j) {
          std::set<int> banks;
          for (int lane = 0; lane < 32; ++lane) banks.insert((mma_a_frag_offset(wo.m0, mi, kk, lane, j) / 2) % 32);
          EXPECT_EQ(banks.size(), 32u) << "A warp " << warp << " mi " << mi << " reg " << j;
        }
      for (int ni = 0; ni < Tile::NI; ++ni)
        for (int j = 0; j < 2; ++j) {
          std::set<int> banks;
          for (int lane = 0; lane < 32; ++lane) banks.insert((mma_b_frag_offset(wo.n0, ni, kk, lane, j) / 2) % 32);
          EXPECT_EQ(banks.size(), 32u) << "B warp " << warp << " ni " << ni << " reg " << j;
        }
    }
  }
}

TEST(MmaStaging, VectorsCoverTheTileOnceWithAlignedStarts) {
  for (int rows : {Tile::BM, Tile::BN})
    for (bool along_k : {true, false}) {
      std::vector<int> hits(rows * Tile::BK, 0);
      for (int tid = 0; tid < Tile::threads; ++tid)
        for (int v = 0; v < (rows == Tile::BM ? Tile::a_vecs : Tile::b_vecs); ++v) {
          const MmaStageCoord c = mma_stage_coord(tid + v * Tile::threads, rows, along_k);
          EXPECT_EQ((along_k ? c.k : c.r) % Tile::VEC, 0);
          if (along_k) {
            EXPECT_EQ(mma_smem_offset(c.r, c.k) % Tile::VEC, 0) << "16-byte shared store";
          }
          for (int e = 0; e < Tile::VEC; ++e) {
            const MmaStageCoord x = mma_stage_element(c, along_k, e);
            ASSERT_TRUE(x.r >= 0 && x.r < rows && x.k >= 0 && x.k < Tile::BK);
            ++hits[x.r * Tile::BK + x.k];
          }
        }
      for (int h : hits) EXPECT_EQ(h, 1) << "rows " << rows << " along_k " << along_k;
    }
}

TEST(MmaStaging, RotatedHalvesAreTheVectorShiftedByQ) {
  std::mt19937 rng(5);
  for (int q = 0; q < 8; ++q) {
    std::uint32_t w[4], in[4];
    for (int i = 0; i < 4; ++i) in[i] = w[i] = static_cast<std::uint32_t>(rng());
    mma_rotate_halves(w, q);
    auto half = [](const std::uint32_t (&v)[4], int e) { return (v[e / 2] >> (16 * (e % 2))) & 0xFFFFu; };
    for (int e = 0; e < 8; ++e) EXPECT_EQ(half(w, e), half(in, (e + q) % 8)) << "q " << q << " e " << e;
  }
}

// The kernel's row-wise stores (element (e + q) % 8 at step e, q = (c.r / 8) % 8): at every step the
// 32 threads of a warp touch each bank with at most 2 distinct words.
TEST(MmaStaging, RowWiseStoresAreAtMostTwoWayConflicted) {
  for (int warp = 0; warp < Tile::threads / Tile::lanes; ++warp)
    for (int v = 0; v < Tile::b_vecs; ++v)
      for (int e = 0; e < Tile::VEC; ++e) {
        std::vector<std::set<int>> words(32);
        for (int lane = 0; lane < 32; ++lane) {
          const MmaStageCoord c = mma_stage_coord(warp * 32 + lane + v * Tile::threads, Tile::BN, false);
          const int q = (c.r / Tile::VEC) % Tile::VEC;
          const MmaStageCoord x = mma_stage_element(c, false, (e + q) % Tile::VEC);
          const int word = mma_smem_offset(x.r, x.k) / 2;
          words[word % 32].insert(word);
        }
        for (const auto& w : words) EXPECT_LE(w.size(), 2u) << "warp " << warp << " step " << e;
      }
}

TEST(MmaStaging, VectorLoadsOnlyForUnitRunsAndAlignedOffsets) {
  const DimMap none = DimMap::plain(0);
  // A row-major M x K: k has stride 1.
  MmaStagePlan p = plan_mma_staging(DimMap::plain(64), DimMap::plain(1), none, true);
  EXPECT_TRUE(p.along_k);
  EXPECT_TRUE(p.vector);
  EXPECT_FALSE(plan_mma_staging(DimMap::plain(64), DimMap::plain(1), none, false).vector);       // pointer
  EXPECT_FALSE(plan_mma_staging(DimMap::plain(63), DimMap::plain(1), none, true).vector);        // row offset
  EXPECT_FALSE(plan_mma_staging(DimMap::plain(64), DimMap::plain(1), DimMap::plain(12), true).vector);  // batch
  // Column-major: vectors along the rows.
  p = plan_mma_staging(DimMap::plain(1), DimMap::plain(136), none, true);
  EXPECT_FALSE(p.along_k);
  EXPECT_TRUE(p.vector);
  // NCHW-like column (image, pixel): unit runs of 8 only when the pixel count is a multiple of 8.
  EXPECT_TRUE(plan_mma_staging(DimMap::split(3136, 1, 256 * 3136), DimMap::plain(3136), none, true).vector);
  EXPECT_FALSE(plan_mma_staging(DimMap::split(49, 1, 256 * 49), DimMap::plain(49), none, true).vector);
  // Neither stride 1: per-element loads.
  EXPECT_FALSE(plan_mma_staging(DimMap::plain(16), DimMap::plain(2), none, true).vector);
  // Unit runs of 16 whose starts are 28 apart (implicit GEMM, C = 4, S = 4, Wp = 7): the run of
  // filter row 1 starts at offset 28, not 16-byte aligned, so no vector loads; 32 apart is fine.
  EXPECT_FALSE(plan_mma_staging(DimMap::split(8, 8, 56), DimMap::split(16, 1, 28), none, true).vector);
  EXPECT_TRUE(plan_mma_staging(DimMap::split(8, 8, 64), DimMap::split(16, 1, 32), none, true).vector);
}

TEST(MmaSlots, SliceRangesTileKInOrder) {
  // K = 100 in 4 slices of 32: [0,32) [32,64) [64,96) [96,100); 2 batches.
  for (int b = 0; b < 2; ++b)
    for (int s = 0; s < 4; ++s) {
      const GemmSlotRange r = gemm_slot_range(b * 4 + s, 4, 32, 100);
      EXPECT_EQ(r.batch, b);
      EXPECT_EQ(r.k_lo, 32 * s);
      EXPECT_EQ(r.k_hi, s == 3 ? 100 : 32 * s + 32);
    }
  const GemmSlotRange empty = gemm_slot_range(5, 6, 32, 100);  // slice 5 starts at 160 > K
  EXPECT_GE(empty.k_lo, empty.k_hi);
  const GemmSlotRange whole = gemm_slot_range(3, 1, 77, 77);
  EXPECT_EQ(whole.batch, 3);
  EXPECT_EQ(whole.k_lo, 0);
  EXPECT_EQ(whole.k_hi, 77);
}

// ---- the block kernel's tile loop, emulated ----

struct EmuOperand {
  const std::vector<float>* data;
  DimMap r_map, k_map, batch_map;
  MmaStagePlan plan;
};

// Stages the rows x BK tile at (r0, k0) as the kernel does; every shared element written once.
void stage(const EmuOperand& op, int rows, int nvecs, int batch, int r0, int r_limit, int k0, int k_hi,
           std::vector<float>& smem) {
  std::vector<int> writes(smem.size(), 0);
  for (int tid = 0; tid < Tile::threads; ++tid)
    for (int v = 0; v < nvecs; ++v) {
      const MmaStageCoord c = mma_stage_coord(tid + v * Tile::threads, rows, op.plan.along_k);
      for (int e = 0; e < Tile::VEC; ++e) {
        const MmaStageCoord g = mma_stage_element(MmaStageCoord{r0 + c.r, k0 + c.k}, op.plan.along_k, e);
        const MmaStageCoord t = mma_stage_element(c, op.plan.along_k, e);
        const float v_in = (g.r < r_limit && g.k < k_hi)
                               ? (*op.data)[op.batch_map(batch) + op.r_map(g.r) + op.k_map(g.k)]
                               : 0.0f;
        const int off = mma_smem_offset(t.r, t.k);
        smem[off] = v_in;
        ++writes[off];
      }
    }
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < Tile::BK; ++k) ASSERT_EQ(writes[mma_smem_offset(r, k)], 1) << "tile element " << r << "," << k;
}

// out[slot][m][n] for every slot = b*splits + s, as the kernel's epilogue receives it.
std::vector<float> emulate_kernel(const GemmShape& s, int splits, const EmuOperand& a, const EmuOperand& b) {
  const int M = static_cast<int>(s.m), N = static_cast<int>(s.n), K = static_cast<int>(s.k);
  const int k_chunk = static_cast<int>(splits > 1 ? split_k_chunk(s.k, splits, Tile::BK) : s.k);
  const int slots = static_cast<int>(s.batch) * splits;
  std::vector<float> out(static_cast<std::size_t>(slots) * M * N, std::nanf(""));
  std::vector<int> hits(out.size(), 0);
  constexpr int W = Tile::threads / Tile::lanes;
  for (int slot = 0; slot < slots; ++slot) {
    const GemmSlotRange range = gemm_slot_range(slot, splits, k_chunk, K);
    for (int m0 = 0; m0 < M; m0 += Tile::BM)
      for (int n0 = 0; n0 < N; n0 += Tile::BN) {
        std::vector<float> acc(W * 32 * Tile::MI * Tile::NI * 4, 0.0f);
        auto acc_at = [&](int w, int l, int mi, int ni, int c) -> float& {
          return acc[(((w * 32 + l) * Tile::MI + mi) * Tile::NI + ni) * 4 + c];
        };
        for (int k0 = range.k_lo; k0 < range.k_hi; k0 += Tile::BK) {
          std::vector<float> as(Tile::BM * Tile::LDS, std::nanf("")), bs(Tile::BN * Tile::LDS, std::nanf(""));
          stage(a, Tile::BM, Tile::a_vecs, range.batch, m0, M, k0, range.k_hi, as);
          stage(b, Tile::BN, Tile::b_vecs, range.batch, n0, N, k0, range.k_hi, bs);
          for (int w = 0; w < W; ++w) {
            const MmaWarpOrigin wo = mma_warp_origin(w);
            for (int kk = 0; kk < Tile::BK; kk += 16)
              for (int mi = 0; mi < Tile::MI; ++mi)
                for (int ni = 0; ni < Tile::NI; ++ni) {
                  float af[32][8], bf[32][4], cf[32][4];
                  for (int l = 0; l < 32; ++l) {
                    for (int j = 0; j < 4; ++j) {
                      const int off = mma_a_frag_offset(wo.m0, mi, kk, l, j);
                      af[l][2 * j] = as[off], af[l][2 * j + 1] = as[off + 1];
                    }
                    for (int j = 0; j < 2; ++j) {
                      const int off = mma_b_frag_offset(wo.n0, ni, kk, l, j);
                      bf[l][2 * j] = bs[off], bf[l][2 * j + 1] = bs[off + 1];
                    }
                    for (int c = 0; c < 4; ++c) cf[l][c] = acc_at(w, l, mi, ni, c);
                  }
                  emulated_mma(af, bf, cf);
                  for (int l = 0; l < 32; ++l)
                    for (int c = 0; c < 4; ++c) acc_at(w, l, mi, ni, c) = cf[l][c];
                }
          }
        }
        for (int w = 0; w < W; ++w) {
          const MmaWarpOrigin wo = mma_warp_origin(w);
          for (int l = 0; l < 32; ++l)
            for (int mi = 0; mi < Tile::MI; ++mi)
              for (int ni = 0; ni < Tile::NI; ++ni)
                for (int c = 0; c < 4; ++c) {
                  const int m = m0 + wo.m0 + mi * 16 + mma_c_row(l, c), n = n0 + wo.n0 + ni * 8 + mma_c_col(l, c);
                  if (m < M && n < N) {
                    const std::size_t o = (static_cast<std::size_t>(slot) * M + m) * N + n;
                    out[o] = acc_at(w, l, mi, ni, c);
                    ++hits[o];
                  }
                }
        }
      }
  }
  for (std::size_t i = 0; i < hits.size(); ++i)
    if (hits[i] != 1) ADD_FAILURE() << "epilogue element " << i << " handed over " << hits[i] << " times";
  return out;
}

struct BlockCase {
  int m, n, k, batch, splits;
  bool a_col_major, b_col_major;  // A column-major: vectors along m; B row-major (k x n): vectors along n
  int pad;                        // extra row stride (0 keeps the fast path possible)
};

void PrintTo(const BlockCase& c, std::ostream* os) {
  *os << "M" << c.m << " N" << c.n << " K" << c.k << " batch" << c.batch << " splits" << c.splits
      << (c.a_col_major ? " A col-major" : " A row-major") << (c.b_col_major ? " B col-major" : " B row-major")
      << " pad" << c.pad;
}

class MmaBlockEmulation : public ::testing::TestWithParam<BlockCase> {};

TEST_P(MmaBlockEmulation, TileLoopEqualsMatrixProduct) {
  const BlockCase bc = GetParam();
  const int M = bc.m, N = bc.n, K = bc.k, B = bc.batch;
  // A[b][m][k], B[b][k][n] stored with row strides lda/ldb (pad added), batches back to back.
  const int lda = (bc.a_col_major ? M : K) + bc.pad, ldb = (bc.b_col_major ? K : N) + bc.pad;
  const int a_batch = lda * (bc.a_col_major ? K : M), b_batch = ldb * (bc.b_col_major ? N : K);
  std::vector<float> A(static_cast<std::size_t>(a_batch) * B), Bm(static_cast<std::size_t>(b_batch) * B);
  std::mt19937 rng(static_cast<std::uint32_t>(M * 131 + N * 7 + K));
  for (float& v : A) v = small_int(rng);
  for (float& v : Bm) v = small_int(rng);
  EmuOperand a{&A, bc.a_col_major ? DimMap::plain(1) : DimMap::plain(lda),
               bc.a_col_major ? DimMap::plain(lda) : DimMap::plain(1), DimMap::plain(a_batch), {}};
  // B's rows of the tile are n: r_map = columns of B, k_map = rows of B.
  EmuOperand b{&Bm, bc.b_col_major ? DimMap::plain(ldb) : DimMap::plain(1),
               bc.b_col_major ? DimMap::plain(1) : DimMap::plain(ldb), DimMap::plain(b_batch), {}};
  a.plan = plan_mma_staging(a.r_map, a.k_map, a.batch_map, true);
  b.plan = plan_mma_staging(b.r_map, b.k_map, b.batch_map, true);
  EXPECT_EQ(a.plan.along_k, !bc.a_col_major);
  EXPECT_EQ(b.plan.along_k, bc.b_col_major);
  const std::vector<float> out = emulate_kernel(GemmShape{M, N, K, B}, bc.splits, a, b);
  int failures = 0;
  for (int bb = 0; bb < B; ++bb)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double want = 0;
        for (int k = 0; k < K; ++k)
          want += double(A[bb * a_batch + a.r_map(m) + a.k_map(k)]) * Bm[bb * b_batch + b.r_map(n) + b.k_map(k)];
        float got = 0;  // the split-K pass: slices summed in ascending order
        for (int s = 0; s < bc.splits; ++s) got += out[((static_cast<std::size_t>(bb) * bc.splits + s) * M + m) * N + n];
        if (got != static_cast<float>(want) && ++failures <= 10)
          ADD_FAILURE() << "C[" << bb << "][" << m << "][" << n << "] = " << got << ", want " << want;
      }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MmaBlockEmulation,
    ::testing::Values(BlockCase{1, 1, 1, 1, 1, false, true, 0}, BlockCase{129, 130, 75, 2, 1, false, true, 0},
                      BlockCase{127, 17, 33, 1, 1, true, false, 0}, BlockCase{15, 129, 100, 1, 1, true, true, 3},
                      BlockCase{17, 15, 300, 2, 3, false, false, 5}, BlockCase{128, 128, 64, 1, 1, false, true, 0},
                      BlockCase{40, 24, 200, 1, 7, true, false, 0}));

}  // namespace
}  // namespace hiprim::gpu
