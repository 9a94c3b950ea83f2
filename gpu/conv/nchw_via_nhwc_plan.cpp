// The plan of conv.<inner>.nchw (gpu/conv/nchw_via_nhwc.hpp).
#include "gpu/conv/nchw_via_nhwc.hpp"

#include "core/dtype.hpp"

namespace hiprim::gpu {

ConvProblem nhwc_twin(const ConvProblem& p) {
  ConvProblem q = p;
  q.channels_last = true;
  return q;
}

std::string nchw_via_nhwc_refusal(const ConvProblem& p, const std::string& inner_name) {
  if (p.channels_last) return "layout " + p.layout_name() + ": " + inner_name + " takes it directly (this is its NCHW form)";
  return {};
}

NchwCopies nchw_copies(const ConvProblem& p) {
  constexpr std::size_t kAlign = 256;
  NchwCopies out;
  out.elem_bytes = dtype_size(p.dtype);
  const TensorDesc descs[3] = {p.x_desc(), p.w_desc(), p.y_desc()};
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const Dims& d = descs[i].dims;
    NchwCopy& c = out.copy[i];
    c.d0 = d[0], c.d1 = d[1], c.s = 1;
    for (std::size_t a = 2; a < d.size(); ++a) c.s *= d[a];
    c.copied = c.s > 1 && c.d1 > 1;
    if (!c.copied) continue;
    c.offset = at;
    at += (static_cast<std::size_t>(c.d0 * c.d1 * c.s) * out.elem_bytes + kAlign - 1) / kAlign * kAlign;
  }
  out.inner_offset = at;
  return out;
}

}  // namespace hiprim::gpu
