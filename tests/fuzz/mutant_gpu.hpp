// Test-only GPU mutants (tests/fuzz/mutant_gpu.hip): a small shared-memory tiled direct convolution
// (fwd, mode conv, 2D, groups/stride/pad/dilation, fp32/fp16/bf16, NCHW/NHWC) compiled in variants
// by template switches. GpuBug::none is the correct kernel (the control); the others plant one bug.
// Built only with the GPU backend; they run on a GPU machine (scripts/device_fuzz.sh).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"

namespace hiprim::fuzz_test {

enum class GpuBug {
  none,
  missing_sync,     // the __syncthreads() around the shared-memory tile are gone: warps read a tile
                    // other warps have not finished writing (and overwrite it while others still read)
  dropped_tail,     // the grid is out / 16 tiles (floor, not ceil): the remainder tile is never computed
  bf16_truncation,  // bf16 stores truncate the fp32 accumulator instead of rounding to nearest even
};

std::string gpu_bug_name(GpuBug b);         // "none", "missing_sync", "dropped_tail", "bf16_truncation"
std::string gpu_bug_description(GpuBug b);
std::vector<GpuBug> all_gpu_bugs();         // none excluded

// Solver "mutant.gpu.<bug name>" (device backend).
std::shared_ptr<const ConvSolver> make_gpu_mutant(GpuBug b);

}  // namespace hiprim::fuzz_test
