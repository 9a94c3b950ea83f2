// Random small convolution problems for the GEMM-conv tests (host-only map/plan tests and the
// device solver tests share it).
#pragma once
#include <rapidcheck.h>

#include <algorithm>

#include "core/conv_problem.hpp"

namespace hiprim::gpu::test_gemm_conv {

// Valid small problems of either mode, rank, layout, with groups, stride, pad, dilation, opad.
inline rc::Gen<ConvProblem> gen_problem() {
  return rc::gen::exec([] {
    ConvProblem p;
    const int rank = *rc::gen::inRange(2, 4);
    p.mode = *rc::gen::element(ConvMode::conv, ConvMode::trans);
    p.channels_last = *rc::gen::arbitrary<bool>();
    p.groups = *rc::gen::inRange(1, 4);
    p.n = *rc::gen::inRange(1, 4);
    p.c = p.groups * *rc::gen::inRange(1, 4);
    p.k = p.groups * *rc::gen::inRange(1, 4);
    p.in = p.filter = p.pad = p.stride = p.dilation = p.out_pad = Dims(rank);
    for (int i = 0; i < rank; ++i) {
      p.filter[i] = *rc::gen::inRange(1, 4);
      p.dilation[i] = *rc::gen::inRange(1, 3);
      p.stride[i] = *rc::gen::inRange(1, 3);
      const std::int64_t span = p.dilation[i] * (p.filter[i] - 1);
      p.pad[i] = *rc::gen::inRange<std::int64_t>(0, span / 2 + 1);
      p.in[i] = span + 1 + *rc::gen::inRange(0, 4);
      if (p.mode == ConvMode::trans)
        p.out_pad[i] = *rc::gen::inRange<std::int64_t>(0, std::max(p.stride[i], p.dilation[i]));
    }
    RC_PRE(p.valid());
    return p;
  });
}

}  // namespace hiprim::gpu::test_gemm_conv
