#include "reference/conv_common.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace hiprim::ref::detail {

namespace {

Vec3 lift(const Dims& d, I64 fill) {
  if (d.size() == 3) return {d[0], d[1], d[2]};
  return {fill, d[0], d[1]};
}

std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

const char* role_name(Role r) { return r == Role::x ? "x" : r == Role::w ? "w" : "y"; }

void check_desc_shape(const TensorDesc& d, const Dims& want, const std::string& what) {
  if (d.dims != want)
    throw InputError("conv reference: " + what + " has dims " + dims_str(d.dims) + " but the problem needs " +
                     dims_str(want));
  if (d.strides.size() != d.dims.size())
    throw InputError("conv reference: " + what + " has " + std::to_string(d.strides.size()) + " strides for " +
                     std::to_string(d.dims.size()) + " dims");
  for (std::size_t i = 0; i < d.strides.size(); ++i)
    if (d.strides[i] < 0)
      throw InputError("conv reference: " + what + " stride " + std::to_string(i) + " is " +
                       std::to_string(d.strides[i]) + "; strides must be >= 0");
}

void check_input(const HostTensor* t, const TensorDesc& want, const std::string& what) {
  if (!t) throw InputError("conv reference: input tensor " + what + " is missing");
  check_desc_shape(t->desc, want.dims, "input tensor " + what);
  if (static_cast<I64>(t->data.size()) < t->desc.storage_elements())
    throw InputError("conv reference: input tensor " + what + " holds " + std::to_string(t->data.size()) +
                     " values but its desc " + t->desc.str() + " addresses " +
                     std::to_string(t->desc.storage_elements()));
}

// Sufficient test for "no two elements share an offset" (exact for every nested layout: packed,
// channels-last, padded): with the dims of extent > 1 sorted by stride, each stride is at least the span
// (extent-1)*stride + 1 of everything inside it (the usual non-overlap test for strided layouts).
bool offsets_distinct(const TensorDesc& d) {
  std::vector<std::pair<I64, I64>> sd;  // (stride, extent)
  for (std::size_t i = 0; i < d.dims.size(); ++i)
    if (d.dims[i] > 1) sd.push_back({d.strides[i], d.dims[i]});
  std::sort(sd.begin(), sd.end());
  I64 span = 1;  // offsets reachable by the inner dims lie in [0, span)
  for (auto [stride, extent] : sd) {
    if (stride < span) return false;
    span = (extent - 1) * stride + span;
  }
  return true;
}

}  // namespace

Geom3 geom3(const ConvProblem& p) {
  Geom3 g;
  g.n = p.n;
  g.c = p.c;
  g.k = p.k;
  g.groups = p.groups;
  g.in = lift(p.in, 1);
  g.out = lift(p.out(), 1);
  g.filter = lift(p.filter, 1);
  g.pad = lift(p.pad, 0);
  g.stride = lift(p.stride, 1);
  g.dil = lift(p.dilation, 1);
  return g;
}

std::array<I64, 5> strides5(const TensorDesc& d) {
  const Dims& s = d.strides;
  if (s.size() == 5) return {s[0], s[1], s[2], s[3], s[4]};
  return {s[0], s[1], 0, s[2], s[3]};
}

Role output_role(ConvDir dir) {
  switch (dir) {
    case ConvDir::fwd: return Role::y;
    case ConvDir::bwd_data: return Role::x;
    case ConvDir::bwd_weights: return Role::w;
  }
  return Role::y;
}

TensorDesc packed_desc(const ConvProblem& p, Role r) {
  return r == Role::x ? p.x_desc() : r == Role::w ? p.w_desc() : p.y_desc();
}

TensorDesc check_conv_call(const ConvProblem& p, const ConvInputs& in, const TensorDesc* out_desc) {
  auto errs = p.validate();
  if (!errs.empty()) {
    std::string msg = "conv reference: invalid problem \"" + to_string(p) + "\":";
    for (auto& e : errs) msg += "\n  - " + e;
    throw InputError(msg);
  }
  const Role out_role = output_role(p.dir);
  for (Role r : {Role::x, Role::w, Role::y}) {
    if (r == out_role) continue;
    const HostTensor* t = r == Role::x ? in.x : r == Role::w ? in.w : in.y;
    check_input(t, packed_desc(p, r), std::string(role_name(r)) + (r == Role::y ? " (dy)" : ""));
  }
  if (p.dir == ConvDir::fwd && p.bias) check_input(in.bias, p.bias_desc(), "bias");
  TensorDesc out = out_desc ? *out_desc : packed_desc(p, out_role);
  const std::string what = std::string("output desc (") + role_name(out_role) + ")";
  check_desc_shape(out, packed_desc(p, out_role).dims, what);
  if (!offsets_distinct(out))
    throw InputError("conv reference: " + what + " " + out.str() + " is not a nested non-overlapping layout (two elements could share a storage offset)");
  return out;
}

std::vector<float> rounded_storage(const HostTensor& t, DType dt) {
  std::vector<float> r(t.data.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = round_to(dt, t.data[i]);
  return r;
}

}  // namespace hiprim::ref::detail
