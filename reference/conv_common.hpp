// Internal helpers shared by conv_naive.cpp and conv_fast.cpp (not part of the public API):
// argument checks, the 3-D view of 2-D problems, and rounded reads of the inputs.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "reference/conv.hpp"

namespace hiprim::ref::detail {

using I64 = std::int64_t;
using Vec3 = std::array<I64, 3>;  // spatial (D, H, W); a 2-D problem has D = 1

// The problem's geometry with 2-D lifted to 3-D (depth 1, filter 1, pad 0, stride 1, dil 1).
struct Geom3 {
  I64 n = 1, c = 1, k = 1, groups = 1;
  Vec3 in{}, out{}, filter{}, pad{}, stride{}, dil{};
  I64 cg() const { return c / groups; }
  I64 kg() const { return k / groups; }
};
Geom3 geom3(const ConvProblem& p);

// Strides of a rank-4 or rank-5 desc as [d0, d1, D, H, W] (D stride 0 for rank 4).
std::array<I64, 5> strides5(const TensorDesc& d);

// Which tensor each direction writes: y (fwd), x (bwd-data), w (bwd-weights).
enum class Role { x, w, y };
Role output_role(ConvDir dir);
TensorDesc packed_desc(const ConvProblem& p, Role r);

// Checks the problem (validate()), the inputs the direction reads (present, dims equal to the
// problem's logical dims, non-negative strides, storage large enough) and the output desc (dims,
// no two elements on one offset). Throws InputError naming the bad quantity. Returns the output desc
// (out_desc, or the packed desc of the output role).
TensorDesc check_conv_call(const ConvProblem& p, const ConvInputs& in, const TensorDesc* out_desc);

// t.data with every value passed through round_to(dt, v), same storage indexing.
std::vector<float> rounded_storage(const HostTensor& t, DType dt);

}  // namespace hiprim::ref::detail
