// Exact-tier cases of the GPU convolution tests: small random problems, integer fills in [-2, 2]
// (every sum exact in fp32) and the CPU reference's output rounded to the dtype, which a GPU solver
// must equal bit for bit. (The reference's own property tests, on real-valued data with bounds, use
// tests/reference/conv_property_tools.hpp.)
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "core/tensor.hpp"

namespace hiprim::gputest {

// A small problem drawn inside a RapidCheck property (uses *rc::gen); may be invalid (RC_PRE it).
// Covers both modes, 2D/3D (when allow_3d), groups, stride/pad/dilation, output padding, bias,
// every layout, dtype and direction.
ConvProblem pick_small_problem(bool allow_3d);

// Each problem string in every direction x dtype (fp32, fp16, bf16), fwd also with a bias, in
// that loop order.
std::vector<ConvProblem> every_direction_and_dtype(std::span<const char* const> problems);

// Integers in [-2, 2] at every storage element, from a fixed hash of (seed, i). Every such value is
// exact in fp32/fp16/bf16 and products and partial sums stay exact integers in fp32 for the small
// problems used (|sum| <= 4 * reduction_length + 2 < 2^24).
HostTensor integer_tensor(const TensorDesc& desc, std::uint32_t seed);

// The direction's inputs and output of p filled by integer_tensor.
struct ConvCase {
  HostTensor x, w, y, bias;
  HostTensor& output(ConvDir d) { return d == ConvDir::fwd ? y : d == ConvDir::bwd_data ? x : w; }
};
ConvCase make_case(const ConvProblem& p, std::uint32_t seed);

// The reference's exact output, rounded to p.dtype, indexed by storage offset of the output desc.
std::vector<float> expected_output(const ConvProblem& p, const ConvCase& c);

// "" when every element of out (by storage offset) equals expected (a NaN, e.g. an unwritten
// poisoned element, never does), else the first mismatch with its offset and both values.
std::string first_mismatch(const HostTensor& out, const std::vector<float>& expected);

// "" when solver s's output on p (config "": its default) equals the reference exactly, else the
// first problem found. Every buffer sits between guard bytes and starts `shift` bytes past a 64-byte
// boundary; the output and the workspace are poisoned (all-ones bytes: NaN in every dtype), inputs
// must come back unchanged, and a run with a workspace (bwd-weights always) is repeated, poisoned
// again, and must give the same bits. s runs on host memory (the host emulation of the HIP layer).
std::string check_exact_guarded(const ConvSolver& s, const ConvProblem& p, std::uint32_t seed, std::size_t shift = 0,
                                const std::string& config = "");

}  // namespace hiprim::gputest
