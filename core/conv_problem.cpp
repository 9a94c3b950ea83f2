#include "core/conv_problem.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/op_grammar.hpp"

namespace hiprim {

std::string_view conv_dir_name(ConvDir d) {
  switch (d) {
    case ConvDir::fwd: return "fwd";
    case ConvDir::bwd_data: return "bwd-data";
    case ConvDir::bwd_weights: return "bwd-weights";
  }
  return "?";
}

std::string ConvProblem::layout_name() const { return spatial_layout_name(rank(), channels_last); }

Dims ConvProblem::out() const {
  Dims o(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (mode == ConvMode::conv) {
      std::int64_t span = in[i] + 2 * pad[i] - dilation[i] * (filter[i] - 1) - 1;
      o[i] = (span < 0 || stride[i] <= 0) ? 0 : span / stride[i] + 1;
    } else {
      o[i] = (in[i] - 1) * stride[i] - 2 * pad[i] + dilation[i] * (filter[i] - 1) + out_pad[i] + 1;
    }
  }
  return o;
}

std::vector<std::string> ConvProblem::validate() const {
  std::vector<std::string> e;
  auto err = [&](std::string s) { e.push_back(std::move(s)); };
  const int r = rank();
  if (r != 2 && r != 3) {
    err("spatial rank is " + std::to_string(r) + ": only 2 (HxW) and 3 (DxHxW) are supported");
    return e;
  }
  auto same_rank = [&](const Dims& d, const char* what) {
    if (static_cast<int>(d.size()) != r)
      err(std::string(what) + " has " + std::to_string(d.size()) + " entries but the input has " + std::to_string(r) +
          " spatial dims");
  };
  same_rank(filter, "filter");
  same_rank(pad, "pad");
  same_rank(stride, "stride");
  same_rank(dilation, "dilation");
  same_rank(out_pad, "output padding");
  if (!e.empty()) return e;
  if (n < 1) err("batch n = " + std::to_string(n) + " must be >= 1");
  if (c < 1) err("input channels c = " + std::to_string(c) + " must be >= 1");
  if (k < 1) err("output channels k = " + std::to_string(k) + " must be >= 1");
  if (groups < 1) err("groups g = " + std::to_string(groups) + " must be >= 1");
  if (groups >= 1 && c >= 1 && c % groups != 0)
    err("input channels c = " + std::to_string(c) + " is not divisible by groups g = " + std::to_string(groups));
  if (groups >= 1 && k >= 1 && k % groups != 0)
    err("output channels k = " + std::to_string(k) + " is not divisible by groups g = " + std::to_string(groups));
  static const char* names3[] = {"depth", "height", "width"};
  static const char* fnames3[] = {"T", "R", "S"};
  Dims o = out();
  for (int i = 0; i < r; ++i) {
    const char* nm = names3[i + 3 - r];
    const char* fn = fnames3[i + 3 - r];
    std::string dim = std::string(nm);
    if (in[i] < 1) err("input " + dim + " = " + std::to_string(in[i]) + " must be >= 1");
    if (filter[i] < 1) err("filter " + std::string(fn) + " = " + std::to_string(filter[i]) + " must be >= 1");
    if (pad[i] < 0) err("pad (" + dim + ") = " + std::to_string(pad[i]) + " must be >= 0");
    if (stride[i] < 1) err("stride (" + dim + ") = " + std::to_string(stride[i]) + " must be >= 1");
    if (dilation[i] < 1) err("dilation (" + dim + ") = " + std::to_string(dilation[i]) + " must be >= 1");
    if (out_pad[i] < 0) err("output padding (" + dim + ") = " + std::to_string(out_pad[i]) + " must be >= 0");
    if (mode == ConvMode::conv && out_pad[i] != 0)
      err("output padding (" + dim + ") = " + std::to_string(out_pad[i]) + " is only defined for transposed convolution");
    if (mode == ConvMode::trans && out_pad[i] > 0 && out_pad[i] >= stride[i] && out_pad[i] >= dilation[i])
      err("output padding (" + dim + ") = " + std::to_string(out_pad[i]) + " must be smaller than stride (" +
          std::to_string(stride[i]) + ") or dilation (" + std::to_string(dilation[i]) + ")");
    if (e.empty() && o[i] < 1) {
      if (mode == ConvMode::conv)
        err("output " + dim + " is " + std::to_string(o[i]) + ": (in + 2*pad - dil*(" + fn + "-1) - 1)/stride + 1 = (" +
            std::to_string(in[i]) + " + 2*" + std::to_string(pad[i]) + " - " + std::to_string(dilation[i]) + "*(" +
            std::to_string(filter[i]) + "-1) - 1)/" + std::to_string(stride[i]) + " + 1 must be >= 1");
      else
        err("output " + dim + " is " + std::to_string(o[i]) + ": (in-1)*stride - 2*pad + dil*(" + fn +
            "-1) + opad + 1 must be >= 1");
    }
  }
  if (bias && dir != ConvDir::fwd) err("bias is only defined for direction fwd (got " + std::string(conv_dir_name(dir)) + ")");
  if (math == ConvMath::tf32 && dtype != DType::fp32)
    err("math=tf32 is defined for fp32 data only (got " + std::string(dtype_name(dtype)) + ": its inputs are already below TF32's precision)");
  // Keep every tensor addressable with 32-bit signed element offsets on the GPU side as well as sane on the host.
  if (e.empty()) {
    const std::int64_t lim = (std::int64_t{1} << 31) - 1;
    for (auto [d, what] : {std::pair{x_desc(), "x"}, std::pair{w_desc(), "w"}, std::pair{y_desc(), "y"}})
      if (d.elements() > lim) err("tensor " + std::string(what) + " has " + std::to_string(d.elements()) + " elements, more than 2^31-1");
  }
  return e;
}

TensorDesc ConvProblem::x_desc() const {
  Dims d{n, c};
  d.insert(d.end(), in.begin(), in.end());
  return TensorDesc::packed(dtype, d, channels_last);
}

TensorDesc ConvProblem::w_desc() const {
  Dims d = mode == ConvMode::conv ? Dims{k, c / groups} : Dims{c, k / groups};
  d.insert(d.end(), filter.begin(), filter.end());
  return TensorDesc::packed(dtype, d, channels_last);
}

TensorDesc ConvProblem::y_desc() const {
  Dims d{n, k};
  Dims o = out();
  d.insert(d.end(), o.begin(), o.end());
  return TensorDesc::packed(dtype, d, channels_last);
}

TensorDesc ConvProblem::bias_desc() const { return TensorDesc::packed(dtype, Dims{k}, false); }

std::vector<OpTensor> ConvProblem::tensors() const {
  using R = OpTensor::Role;
  switch (dir) {
    case ConvDir::fwd: {
      std::vector<OpTensor> t{{"x", x_desc(), R::input}, {"w", w_desc(), R::input}};
      if (bias) t.push_back({"bias", bias_desc(), R::input});
      t.push_back({"y", y_desc(), R::output});
      return t;
    }
    case ConvDir::bwd_data: return {{"dy", y_desc(), R::input}, {"w", w_desc(), R::input}, {"dx", x_desc(), R::output}};
    case ConvDir::bwd_weights: return {{"x", x_desc(), R::input}, {"dy", y_desc(), R::input}, {"dw", w_desc(), R::output}};
  }
  return {};
}

static std::int64_t prod(const Dims& d) {
  std::int64_t p = 1;
  for (auto v : d) p *= v;
  return p;
}

double ConvProblem::macs() const {
  double f = static_cast<double>(prod(filter));
  if (mode == ConvMode::conv) return double(n) * double(k) * double(prod(out())) * double(c / groups) * f;
  return double(n) * double(c) * double(prod(in)) * double(k / groups) * f;
}

std::int64_t ConvProblem::reduction_length() const {
  std::int64_t f = prod(filter);
  switch (dir) {
    case ConvDir::fwd: return (mode == ConvMode::conv ? c / groups : c / groups) * f;
    case ConvDir::bwd_data: return (k / groups) * f;
    case ConvDir::bwd_weights: return n * (mode == ConvMode::conv ? prod(out()) : prod(in));
  }
  return 1;
}

// ---- canonical string ----

std::string to_string(const ConvProblem& p) {
  std::ostringstream os;
  os << "conv " << conv_dir_name(p.dir) << " " << dtype_name(p.dtype) << " " << p.layout_name() << " n" << p.n << " c"
     << p.c << " k" << p.k << " in" << join_dims(p.in) << " f" << join_dims(p.filter) << " pad" << join_dims(p.pad) << " str"
     << join_dims(p.stride) << " dil" << join_dims(p.dilation) << " g" << p.groups;
  if (p.mode == ConvMode::trans) os << " trans opad" << join_dims(p.out_pad);
  if (p.bias) os << " bias";
  if (p.math == ConvMath::tf32) os << " math=tf32";
  return os.str();
}

// The tokens (core/op_grammar.hpp): every accessor first, then the unknown tokens, then the
// missing ones and the rules between tokens.
ConvProblem parse_conv_problem_unchecked(std::string_view s) {
  OpTokens t(s, "conv", "conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3");
  ConvProblem p;
  if (auto d = t.one_of({"fwd", "bwd-data", "bwd-weights"}, "direction"))
    p.dir = *d == "fwd" ? ConvDir::fwd : *d == "bwd-data" ? ConvDir::bwd_data : ConvDir::bwd_weights;
  if (auto dt = t.dtype()) p.dtype = *dt;
  const auto layout = t.layout();
  const bool trans = t.word("trans");
  p.bias = t.word("bias");
  if (t.word("math=tf32")) p.math = ConvMath::tf32;
  const auto n = t.integer("n"), c = t.integer("c"), k = t.integer("k"), g = t.integer("g");
  const auto in = t.dims("in"), f = t.dims("f"), pad = t.dims("pad"), str = t.dims("str"), dil = t.dims("dil"),
             opad = t.dims("opad");
  t.finish("fwd|bwd-data|bwd-weights, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, "
           "n<N> c<C> k<K> in<HxW> f<RxS> pad<..> str<..> dil<..> g<G>, trans, opad<..>, bias, math=tf32");
  if (!n) t.missing("batch size n<N>");
  if (!c) t.missing("input channels c<C>");
  if (!k) t.missing("output channels k<K>");
  if (!in) t.missing("input size in<HxW> or in<DxHxW>");
  if (!f) t.missing("filter size f<RxS> or f<TxRxS>");
  if (opad && !trans) bad_token(t.end(), "opad<..> given without 'trans'");
  const std::size_t r = in->size();
  if (r < 2) bad_token(t.end(), "input size needs 2 (HxW) or 3 (DxHxW) entries");
  p.n = *n;
  p.c = *c;
  p.k = *k;
  if (g) p.groups = *g;
  p.in = *in;
  p.filter = *f;
  p.pad = pad.value_or(Dims(r, 0));
  p.stride = str.value_or(Dims(r, 1));
  p.dilation = dil.value_or(Dims(r, 1));
  p.out_pad = opad.value_or(Dims(r, 0));
  if (trans) p.mode = ConvMode::trans;
  if (layout) {
    const bool three = layout->spatial_rank == 3;
    if (three != (r == 3))
      bad_token(layout->token, "layout is for " + std::string(three ? "3D" : "2D") + " but the input size has " +
                                   std::to_string(r) + " entries");
    p.channels_last = layout->channels_last;
  }
  return p;
}

ConvProblem parse_conv_problem(std::string_view s) {
  ConvProblem p = parse_conv_problem_unchecked(s);
  auto errs = p.validate();
  if (!errs.empty()) {
    std::string msg = "invalid convolution problem \"" + std::string(s) + "\":";
    for (auto& e : errs) msg += "\n  - " + e;
    throw InputError(msg);
  }
  return p;
}

}  // namespace hiprim
