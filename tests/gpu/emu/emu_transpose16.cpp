// The transpose16 and transpose32 kernels compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp),
// with a table of batch offsets as its Map.
#include "gpu/common/transpose16.hpp"

#include "tests/gpu/emu/emu_transpose16.hpp"

namespace hiprim::gpu_emu {
namespace {
struct TableBatches {
  const long long* s = nullptr;
  const long long* d = nullptr;
  long long src(long long b) const { return s[b]; }
  long long dst(long long b) const { return d[b]; }
  bool src_aligned8(long long n) const {
    for (long long b = 0; b < n; ++b)
      if (s[b] >= 0 && s[b] % 8 != 0) return false;
    return true;
  }
  bool dst_aligned8(long long n) const {
    for (long long b = 0; b < n; ++b)
      if (d[b] % 8 != 0) return false;
    return true;
  }
};
}  // namespace

EmuTransposeWidths emu_transpose16(const std::uint16_t* src, std::uint16_t* dst, const EmuTransposeShape& shape,
                                   const std::vector<long long>& src_off, const std::vector<long long>& dst_off) {
  const Transpose16 t{shape.rows, shape.cols, shape.cols_out, shape.si, shape.dj};
  const TableBatches m{src_off.data(), dst_off.data()};
  const auto n = static_cast<long long>(src_off.size());
  const Transpose16Widths w = transpose16_widths(src, dst, t, m, n);
  transpose16(src, dst, t, n, m, nullptr, "emu transpose16");
  return {w.load, w.store};
}

void emu_transpose32(const std::uint32_t* src, std::uint32_t* dst, const EmuTransposeShape& shape,
                     const std::vector<long long>& src_off, const std::vector<long long>& dst_off) {
  const Transpose16 t{shape.rows, shape.cols, shape.cols_out, shape.si, shape.dj};
  const TableBatches m{src_off.data(), dst_off.data()};
  transpose32(src, dst, t, static_cast<long long>(src_off.size()), m, nullptr, "emu transpose32");
}

}  // namespace hiprim::gpu_emu
