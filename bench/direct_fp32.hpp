// The fp32 direct sum of the FMA implicit GEMM's arithmetic, the accuracy tools' comparison column
// (bench/winograd_accuracy_main.cpp, bench/fft_accuracy_main.cpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim {

// The fp32 direct sum of one output, (r, s) then c ascending, each term one fused multiply-add.
inline std::vector<float> direct_fp32(const ConvProblem& p, const HostTensor& x, const HostTensor& w) {
  const TensorDesc yd = p.y_desc();
  std::vector<float> y(static_cast<std::size_t>(yd.storage_elements()), 0.0f);
  const Dims out = p.out();
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t oh = 0; oh < out[0]; ++oh)
        for (std::int64_t ow = 0; ow < out[1]; ++ow) {
          float acc = 0.0f;
          for (std::int64_t r = 0; r < p.filter[0]; ++r)
            for (std::int64_t s = 0; s < p.filter[1]; ++s) {
              const std::int64_t h = oh - p.pad[0] + r, ww = ow - p.pad[1] + s;
              if (h < 0 || h >= p.in[0] || ww < 0 || ww >= p.in[1]) continue;
              for (std::int64_t cc = 0; cc < cg; ++cc)
                acc = std::fma(w.at({k, cc, r, s}), x.at({n, (k / kg) * cg + cc, h, ww}), acc);
            }
          y[static_cast<std::size_t>(yd.offset({n, k, oh, ow}))] = acc;
        }
  return y;
}

// v as a tensor of d rounded once to its dtype, as a solver's store does.
inline HostTensor as_tensor(const TensorDesc& d, std::vector<float> v) {
  HostTensor t(d);
  t.data = std::move(v);
  HostTensor rounded(d);  // rounded once to the dtype, as a solver's store does
  rounded.from_bytes(t.to_bytes().data());
  return rounded;
}

}  // namespace hiprim
