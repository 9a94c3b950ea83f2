// Entry points of the transpose16 and transpose32 kernels (gpu/common/transpose16.hpp) compiled for the host
// emulation (emu_transpose16.cpp; its namespace hiprim::gpu becomes hiprim::gpu_emu there).
#pragma once
#include <cstdint>
#include <vector>

namespace hiprim::gpu_emu {

struct EmuTransposeShape {
  long long rows = 0, cols = 0, cols_out = 0, si = 0, dj = 0;
};
struct EmuTransposeWidths {
  int load = 0, store = 0;
};
// transpose16 with batch offsets src_off[b] (< 0: an all-zero matrix) and dst_off[b]; the widths it took.
EmuTransposeWidths emu_transpose16(const std::uint16_t* src, std::uint16_t* dst, const EmuTransposeShape& shape,
                                   const std::vector<long long>& src_off, const std::vector<long long>& dst_off);
// transpose32 (4-byte elements, one width), same contract.
void emu_transpose32(const std::uint32_t* src, std::uint32_t* dst, const EmuTransposeShape& shape,
                     const std::vector<long long>& src_off, const std::vector<long long>& dst_off);

}  // namespace hiprim::gpu_emu
