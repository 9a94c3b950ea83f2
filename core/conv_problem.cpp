#include "core/conv_problem.hpp"

#include <cctype>
#include <charconv>
#include <sstream>

#include "core/error.hpp"

namespace hiprim {

std::string_view conv_dir_name(ConvDir d) {
  switch (d) {
    case ConvDir::fwd: return "fwd";
    case ConvDir::bwd_data: return "bwd-data";
    case ConvDir::bwd_weights: return "bwd-weights";
  }
  return "?";
}

std::string ConvProblem::layout_name() const {
  if (rank() == 3) return channels_last ? "ndhwc" : "ncdhw";
  return channels_last ? "nhwc" : "nchw";
}

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

static std::string join_x(const Dims& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

std::string to_string(const ConvProblem& p) {
  std::ostringstream os;
  os << "conv " << conv_dir_name(p.dir) << " " << dtype_name(p.dtype) << " " << p.layout_name() << " n" << p.n << " c"
     << p.c << " k" << p.k << " in" << join_x(p.in) << " f" << join_x(p.filter) << " pad" << join_x(p.pad) << " str"
     << join_x(p.stride) << " dil" << join_x(p.dilation) << " g" << p.groups;
  if (p.mode == ConvMode::trans) os << " trans opad" << join_x(p.out_pad);
  if (p.bias) os << " bias";
  return os.str();
}

namespace {

struct Tok {
  std::string text;
  int pos;  // 1-based token number
};

[[noreturn]] void bad(const Tok& t, const std::string& why) {
  throw InputError("problem string: token " + std::to_string(t.pos) + " '" + t.text + "': " + why);
}

std::int64_t parse_int(const Tok& t, std::string_view s) {
  std::int64_t v = 0;
  if (s.empty()) bad(t, "expected a number after the prefix");
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > (std::int64_t{1} << 40)))
    bad(t, "number is too large");
  if (ec != std::errc() || ptr != s.data() + s.size()) bad(t, "'" + std::string(s) + "' is not a non-negative integer");
  if (v < 0) bad(t, "'" + std::string(s) + "' is negative");
  return v;
}

Dims parse_dims(const Tok& t, std::string_view s) {
  Dims d;
  std::size_t start = 0;
  while (true) {
    std::size_t x = s.find('x', start);
    d.push_back(parse_int(t, s.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start)));
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  if (d.size() > 3) bad(t, "more than 3 spatial sizes");
  return d;
}

}  // namespace

ConvProblem parse_conv_problem_unchecked(std::string_view s) {
  std::vector<Tok> toks;
  {
    std::istringstream is{std::string(s)};
    std::string w;
    int i = 0;
    while (is >> w) toks.push_back({w, ++i});
  }
  if (toks.empty()) throw InputError("problem string is empty; expected e.g. \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\"");
  if (toks[0].text != "conv") bad(toks[0], "expected the primitive 'conv' first");
  ConvProblem p;
  bool have_dir = false, have_dt = false, have_layout = false, have_trans = false, have_bias = false;
  bool have_n = false, have_c = false, have_k = false, have_in = false, have_f = false;
  bool have_pad = false, have_str = false, have_dil = false, have_g = false, have_opad = false;
  std::string layout;
  Tok layout_tok;
  auto once = [](bool& flag, const Tok& t) {
    if (flag) bad(t, "given twice");
    flag = true;
  };
  auto starts = [](const std::string& w, std::string_view pre) {
    return w.size() > pre.size() && w.compare(0, pre.size(), pre) == 0 && (std::isdigit(static_cast<unsigned char>(w[pre.size()])) || w[pre.size()] == '-');
  };
  for (std::size_t i = 1; i < toks.size(); ++i) {
    const Tok& t = toks[i];
    const std::string& w = t.text;
    if (w == "fwd" || w == "bwd-data" || w == "bwd-weights") {
      once(have_dir, t);
      p.dir = w == "fwd" ? ConvDir::fwd : w == "bwd-data" ? ConvDir::bwd_data : ConvDir::bwd_weights;
    } else if (auto dt = parse_dtype(w)) {
      once(have_dt, t);
      p.dtype = *dt;
    } else if (w == "nchw" || w == "nhwc" || w == "ncdhw" || w == "ndhwc") {
      once(have_layout, t);
      layout = w;
      layout_tok = t;
    } else if (w == "trans") {
      once(have_trans, t);
      p.mode = ConvMode::trans;
    } else if (w == "bias") {
      once(have_bias, t);
      p.bias = true;
    } else if (starts(w, "opad")) {
      once(have_opad, t);
      p.out_pad = parse_dims(t, std::string_view(w).substr(4));
    } else if (starts(w, "pad")) {
      once(have_pad, t);
      p.pad = parse_dims(t, std::string_view(w).substr(3));
    } else if (starts(w, "str")) {
      once(have_str, t);
      p.stride = parse_dims(t, std::string_view(w).substr(3));
    } else if (starts(w, "dil")) {
      once(have_dil, t);
      p.dilation = parse_dims(t, std::string_view(w).substr(3));
    } else if (starts(w, "in")) {
      once(have_in, t);
      p.in = parse_dims(t, std::string_view(w).substr(2));
    } else if (starts(w, "n")) {
      once(have_n, t);
      p.n = parse_int(t, std::string_view(w).substr(1));
    } else if (starts(w, "c")) {
      once(have_c, t);
      p.c = parse_int(t, std::string_view(w).substr(1));
    } else if (starts(w, "k")) {
      once(have_k, t);
      p.k = parse_int(t, std::string_view(w).substr(1));
    } else if (starts(w, "f")) {
      once(have_f, t);
      p.filter = parse_dims(t, std::string_view(w).substr(1));
    } else if (starts(w, "g")) {
      once(have_g, t);
      p.groups = parse_int(t, std::string_view(w).substr(1));
    } else {
      bad(t, "unknown token; expected fwd|bwd-data|bwd-weights, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, "
             "n<N> c<C> k<K> in<HxW> f<RxS> pad<..> str<..> dil<..> g<G>, trans, opad<..>, bias");
    }
  }
  const Tok end{"<end>", static_cast<int>(toks.size()) + 1};
  if (!have_n) bad(end, "missing batch size n<N>");
  if (!have_c) bad(end, "missing input channels c<C>");
  if (!have_k) bad(end, "missing output channels k<K>");
  if (!have_in) bad(end, "missing input size in<HxW> or in<DxHxW>");
  if (!have_f) bad(end, "missing filter size f<RxS> or f<TxRxS>");
  if (have_opad && !have_trans) bad(end, "opad<..> given without 'trans'");
  const std::size_t r = p.in.size();
  if (r < 2) bad(end, "input size needs 2 (HxW) or 3 (DxHxW) entries");
  if (!have_pad) p.pad = Dims(r, 0);
  if (!have_str) p.stride = Dims(r, 1);
  if (!have_dil) p.dilation = Dims(r, 1);
  if (!have_opad) p.out_pad = Dims(r, 0);
  if (have_layout) {
    bool three = layout == "ncdhw" || layout == "ndhwc";
    if (three != (r == 3))
      bad(layout_tok, "layout is for " + std::string(three ? "3D" : "2D") + " but the input size has " + std::to_string(r) + " entries");
    p.channels_last = layout == "nhwc" || layout == "ndhwc";
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
