// The plan of conv.<inner>.nchw (gpu/conv/nchw_via_nhwc.hip), host C++: which tensors are copied to
// channels-last, their transposes and the workspace layout. A tensor of dims [D0][D1][spatial...] is
// [D0][D1][S] in NCHW and [D0][S][D1] in NHWC (S = product of the spatial sizes); where S == 1 or
// D1 == 1 both are the same bytes and it is used in place (copied = false).
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "core/conv_problem.hpp"

namespace hiprim::gpu {

struct NchwCopy {
  bool copied = false;
  long long d0 = 0, d1 = 0, s = 0;  // the tensor's [D0][D1][S]
  std::size_t offset = 0;           // of its channels-last copy in the workspace
};
struct NchwCopies {
  std::size_t elem_bytes = 0;
  std::array<NchwCopy, 3> copy;  // x, w, y (the ConvSlot order)
  std::size_t inner_offset = 0;  // the inner solver's workspace (256-byte aligned)
};

// p with channels_last set: the problem the inner solver runs.
ConvProblem nhwc_twin(const ConvProblem& p);
// "" when the wrapper takes p (an NCHW-family problem: every dtype), else why not.
std::string nchw_via_nhwc_refusal(const ConvProblem& p, const std::string& inner_name);
NchwCopies nchw_copies(const ConvProblem& p);

}  // namespace hiprim::gpu
