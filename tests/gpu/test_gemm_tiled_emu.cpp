// The SIMT tiled GEMM (gpu/gemm/gemm_tile.hpp, the default 64x64x16 tile) run by the host emulation
// of the HIP layer (tests/gpu/emu) against a host model of its arithmetic: every C element is one
// fp32 fmaf chain over k ascending from 0 (per split-K slice, the slices then added in ascending
// order from 0), so the kernel must give the same bits. Covers both thread orientations (the
// epilogue storing m or n contiguously), M, N and K tails over several tiles, transposed and
// two-level (split) operand maps, batches and split-K.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/gemm/gemm_index.hpp"
#include "tests/gpu/emu/emu_gemm_tiled.hpp"

namespace {

using hiprim::gpu::DimMap;
using hiprim::gpu::GemmShape;
using hiprim::gpu::GemmTileDefault;
using hiprim::gpu::MatrixMap;
namespace emu = hiprim::gpu_emu;

emu::EmuDimMap emu_dim(const DimMap& d) { return emu::EmuDimMap{d.inner_stride, d.outer_stride, d.inner_extent}; }
emu::EmuMatrixMap emu_map(const MatrixMap& m) { return emu::EmuMatrixMap{emu_dim(m.rows), emu_dim(m.cols), emu_dim(m.batch)}; }

struct Case {
  std::string name;
  GemmShape s;
  std::int64_t splits = 1;
  MatrixMap a, b, out;
  std::int64_t a_len = 0, b_len = 0, out_len = 0;  // elements the maps reach
};

std::vector<float> random_floats(std::int64_t n, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<std::int32_t>(x >> 8) - (1 << 23)) / static_cast<float>(1 << 23);  // (-1, 1), 24 bits
  }
  return v;
}

// The kernel's arithmetic on the host: out(b, m, n) = the ascending fmaf chain per K slice, slices summed in order.
std::vector<float> model(const Case& c, const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(static_cast<std::size_t>(c.out_len), 0.0f);
  const int bk = GemmTileDefault::BK;
  const std::int64_t chunk = c.splits > 1 ? hiprim::gpu::split_k_chunk(c.s.k, c.splits, bk) : c.s.k;
  for (std::int32_t bt = 0; bt < c.s.batch; ++bt)
    for (std::int32_t m = 0; m < c.s.m; ++m)
      for (std::int32_t n = 0; n < c.s.n; ++n) {
        float total = 0.0f;
        for (std::int64_t sl = 0; sl < c.splits; ++sl) {
          const std::int64_t lo = sl * chunk, hi = c.s.k - lo < chunk ? c.s.k : lo + chunk;
          float acc = 0.0f;
          for (std::int64_t k = lo; k < hi; ++k)
            acc = std::fmaf(a[static_cast<std::size_t>(c.a(bt, m, static_cast<std::int32_t>(k)))],
                            b[static_cast<std::size_t>(c.b(bt, static_cast<std::int32_t>(k), n))], acc);
          total = c.splits > 1 ? total + acc : acc;
        }
        out[static_cast<std::size_t>(c.out(bt, m, n))] = total;
      }
  return out;
}

// Row-major maps of a batch of r x c matrices (stride c), or their transposes (column-major).
MatrixMap row_major(std::int64_t r, std::int64_t c) { return MatrixMap{DimMap::plain(c), DimMap::plain(1), DimMap::plain(r * c)}; }
MatrixMap col_major(std::int64_t r, std::int64_t c) { return MatrixMap{DimMap::plain(1), DimMap::plain(r), DimMap::plain(r * c)}; }

std::vector<Case> cases() {
  std::vector<Case> v;
  auto add = [&](std::string name, GemmShape s, std::int64_t splits, bool a_t, bool out_m_fast, bool b_split) {
    Case c{std::move(name), s, splits};
    c.a = a_t ? col_major(s.m, s.k) : row_major(s.m, s.k);
    c.a_len = s.batch * s.m * s.k;
    if (b_split) {  // k = 3q + r: rows at q*(3N + 5) + r*N, so rows of B are not evenly spaced
      c.b = MatrixMap{DimMap::split(3, s.n, 3 * s.n + 5), DimMap::plain(1), DimMap::plain(0)};
      const std::int64_t per = ((s.k + 2) / 3) * (3 * s.n + 5);
      c.b.batch = DimMap::plain(per);
      c.b_len = s.batch * per;
    } else {
      c.b = row_major(s.k, s.n);
      c.b_len = s.batch * s.k * s.n;
    }
    c.out = out_m_fast ? col_major(s.m, s.n) : row_major(s.m, s.n);
    c.out_len = s.batch * s.m * s.n;
    v.push_back(c);
  };
  add("n-contiguous store, K tail", GemmShape{70, 50, 37, 2}, 1, false, false, false);
  add("m-contiguous store, transposed A", GemmShape{70, 50, 37, 2}, 1, true, true, false);
  add("m-contiguous store, several tiles each way", GemmShape{200, 150, 21, 3}, 1, true, true, false);
  add("n-contiguous store, split map of B", GemmShape{200, 150, 23, 3}, 1, false, false, true);
  add("split-K, m-contiguous store", GemmShape{130, 70, 500, 1}, 5, false, true, false);
  add("split-K, n-contiguous store", GemmShape{40, 40, 600, 2}, 4, false, false, false);
  return v;
}

TEST(GemmTiledEmu, BothOrientationsGiveTheModelsBits) {
  std::uint32_t seed = 1;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto a = random_floats(c.a_len, seed++), b = random_floats(c.b_len, seed++);
    std::vector<float> out(static_cast<std::size_t>(c.out_len), std::nanf("1"));
    std::vector<float> partial(hiprim::gpu::split_k_workspace_bytes(c.s, c.splits) / sizeof(float) + 1);
    emu::emu_gemm_simt_f32(emu::EmuGemmShape{c.s.m, c.s.n, c.s.k, c.s.batch}, c.splits, a.data(), emu_map(c.a), b.data(),
                           emu_map(c.b), out.data(), emu_map(c.out), partial.data());
    const auto want = model(c, a, b);
    std::int64_t bad = 0, first = -1;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (std::memcmp(&out[i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = static_cast<std::int64_t>(i);
    EXPECT_EQ(bad, 0) << "first at element " << first << ": got " << out[static_cast<std::size_t>(first < 0 ? 0 : first)]
                      << ", model " << want[static_cast<std::size_t>(first < 0 ? 0 : first)];
  }
}

}  // namespace
