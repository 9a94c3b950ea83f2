// The 16-bit batched transpose kernel (gpu/common/transpose16.hpp) run by the host emulation against
// the loop of its definition: every width pair (16-byte pieces on either side, or single elements),
// tile edges, zero rows (cols_out > cols), all-zero batches (a negative source offset), output row
// gaps left untouched, and which widths a shape takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/gpu/emu/emu_transpose16.hpp"

using hiprim::gpu_emu::EmuTransposeShape;
using hiprim::gpu_emu::emu_transpose16;
using hiprim::gpu_emu::emu_transpose32;

namespace {

constexpr std::uint16_t kUntouched = 0xdead;

struct Case {
  EmuTransposeShape t;
  std::vector<long long> src_off, dst_off;
  int want_load, want_store;
};

// Runs one case through transpose16 (E = uint16_t; the widths it took must be the case's) or
// transpose32 (E = uint32_t) and compares every output element (written or gap) with the definition.
template <class E = std::uint16_t>
void expect_case(const Case& c, const std::string& what) {
  long long src_len = 1, dst_len = 1;
  for (std::size_t b = 0; b < c.src_off.size(); ++b) {
    if (c.src_off[b] >= 0) src_len = std::max(src_len, c.src_off[b] + (c.t.rows - 1) * c.t.si + c.t.cols);
    dst_len = std::max(dst_len, c.dst_off[b] + (c.t.cols_out - 1) * c.t.dj + c.t.rows);
  }
  std::vector<E> src(src_len + 8), dst(dst_len + 8, kUntouched), want(dst.size(), kUntouched);
  std::mt19937 rng(7);
  for (auto& v : src) v = static_cast<E>(rng());
  for (std::size_t b = 0; b < c.src_off.size(); ++b)
    for (long long j = 0; j < c.t.cols_out; ++j)
      for (long long i = 0; i < c.t.rows; ++i)
        want[c.dst_off[b] + j * c.t.dj + i] =
            j < c.t.cols && c.src_off[b] >= 0 ? src[c.src_off[b] + i * c.t.si + j] : E{0};
  if constexpr (sizeof(E) == 2) {
    const auto w = emu_transpose16(src.data(), dst.data(), c.t, c.src_off, c.dst_off);
    EXPECT_EQ(w.load, c.want_load) << what;
    EXPECT_EQ(w.store, c.want_store) << what;
  } else {
    emu_transpose32(src.data(), dst.data(), c.t, c.src_off, c.dst_off);
  }
  long long bad = 0;
  for (std::size_t e = 0; e < dst.size(); ++e)
    if (dst[e] != want[e] && bad++ < 3) ADD_FAILURE() << what << ": element " << e << " is " << dst[e] << ", expected " << want[e];
  EXPECT_EQ(bad, 0) << what;
}

}  // namespace

TEST(Transpose16Emu, EveryWidthPairMatchesTheDefinition) {
  // NCHW -> NHWC of [2][C=72][S=40]: both sides 16 bytes (S, C multiples of 8).
  expect_case({{72, 40, 40, 40, 72}, {0, 72 * 40}, {0, 72 * 40}, 8, 8}, "72x40 aligned");
  // S = 49 (a 7x7 image): the loads along S take single elements, the stores along C 16 bytes.
  expect_case({{16, 49, 49, 49, 16}, {0, 16 * 49, 2 * 16 * 49}, {0, 16 * 49, 2 * 16 * 49}, 1, 8}, "C16 S49");
  // and back: [S=49][C=16] -> [C][S]: 16-byte loads, single-element stores.
  expect_case({{49, 16, 16, 16, 49}, {0, 16 * 49}, {0, 16 * 49}, 8, 1}, "S49 C16");
  // neither: 3 x 147 (the stem's filter row) with zero rows up to 152.
  expect_case({{3, 147, 152, 147, 3}, {0}, {0}, 1, 1}, "3x147 -> 152 rows");
}

TEST(Transpose16Emu, TileEdgesZeroBatchesAndGapsMatchTheDefinition) {
  // 130 x 72 (tiles of 64: a partial third row tile) with zero rows 72..79 and an output row stride
  // of 136 > rows (the gaps must stay untouched); batch 1 is all zeros (negative source offset).
  expect_case({{136, 72, 80, 72, 136}, {0, -1, 136 * 72}, {0, 136 * 80, 2 * 136 * 80}, 8, 8}, "edges, zero batch");
  // The bwd-data filter permute with the flip: w [K=24][RS=9][C=16] -> [C][RS][K], batch t reads tap 8 - t.
  std::vector<long long> s, d;
  for (int t = 0; t < 9; ++t) s.push_back((8 - t) * 16), d.push_back(t * 24);
  expect_case({{24, 16, 16, 9 * 16, 9 * 24}, s, d, 8, 8}, "flip permute");
  // An odd source row stride forces single-element loads even where cols is a multiple of 8.
  expect_case({{8, 16, 16, 17, 8}, {0}, {0}, 1, 8}, "odd stride");
  // A destination offset that is not a multiple of 8 forces single-element stores.
  expect_case({{8, 8, 8, 8, 8}, {0, 64}, {0, 68}, 8, 1}, "odd offset");
}

// transpose32 (fp32 NCHW copies): 32 x 32 tiles, so these shapes leave partial tiles on both sides,
// zero rows, an all-zero batch, row gaps and odd strides and offsets (4-byte accesses take any).
TEST(Transpose16Emu, Transpose32MatchesTheDefinition) {
  expect_case<std::uint32_t>({{72, 40, 40, 40, 72}, {0, 72 * 40}, {0, 72 * 40}, 0, 0}, "fp32 72x40");
  expect_case<std::uint32_t>({{16, 49, 49, 49, 16}, {0, 16 * 49, 2 * 16 * 49}, {0, 16 * 49, 2 * 16 * 49}, 0, 0}, "fp32 C16 S49");
  expect_case<std::uint32_t>({{3, 147, 152, 147, 3}, {0}, {0}, 0, 0}, "fp32 3x147 -> 152 rows");
  expect_case<std::uint32_t>({{136, 72, 80, 73, 139}, {0, -1, 136 * 73}, {1, 139 * 80 + 1, 2 * 139 * 80 + 1}, 0, 0},
                             "fp32 edges, zero batch, gaps, odd strides");
}
