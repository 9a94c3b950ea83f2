#include "core/pool_problem.hpp"

#include "core/error.hpp"

namespace hiprim {

std::string_view pool_dir_name(PoolDir d) { return d == PoolDir::fwd ? "fwd" : "bwd"; }

std::string_view pool_mode_name(PoolMode m) {
  switch (m) {
    case PoolMode::max: return "max";
    case PoolMode::avg_incl: return "avg_incl";
    case PoolMode::avg_excl: return "avg_excl";
  }
  return "?";
}

Dims PoolProblem::out() const {
  Dims o(shape.in.size(), 0);
  for (std::size_t i = 0; i < o.size() && i < window.size() && i < pad.size() && i < stride.size(); ++i) {
    const std::int64_t span = shape.in[i] + 2 * pad[i] - window[i];
    o[i] = (span < 0 || stride[i] <= 0) ? 0 : span / stride[i] + 1;
  }
  return o;
}

std::int64_t PoolProblem::window_elements() const {
  std::int64_t e = 1;
  for (auto w : window) e *= w;
  return e;
}

std::vector<std::string> PoolProblem::validate() const {
  std::vector<std::string> e = shape.validate();
  if (!e.empty()) return e;
  const int r = rank();
  for (auto [d, what] : {std::pair{&window, "window"}, std::pair{&pad, "pad"}, std::pair{&stride, "stride"}})
    if (static_cast<int>(d->size()) != r)
      e.push_back(std::string(what) + " has " + std::to_string(d->size()) + " entries but the input has " +
                  std::to_string(r) + " spatial dims");
  if (!e.empty()) return e;
  static const char* names3[] = {"depth", "height", "width"};
  for (int i = 0; i < r; ++i) {
    const std::string dim = names3[i + 3 - r];
    const std::string win = std::to_string(window[i]), pd = std::to_string(pad[i]);
    if (window[i] < 1) e.push_back("window " + dim + " = " + win + " must be >= 1");
    if (pad[i] < 0) e.push_back("pad (" + dim + ") = " + pd + " must be >= 0");
    if (stride[i] < 1) e.push_back("stride (" + dim + ") = " + std::to_string(stride[i]) + " must be >= 1");
    if (window[i] < 1 || pad[i] < 0) continue;
    if (pad[i] >= window[i])
      e.push_back("pad (" + dim + ") = " + pd + " must be smaller than the window " + dim + " = " + win +
                  " (else a window lies entirely in the padding)");
    if (window[i] > shape.in[i] + 2 * pad[i])
      e.push_back("window " + dim + " = " + win + " is larger than the padded input " + dim + " = in + 2*pad = " +
                  std::to_string(shape.in[i]) + " + 2*" + pd + " = " + std::to_string(shape.in[i] + 2 * pad[i]));
  }
  // Max pooling stores window indices in fp32: they must stay exact (< 2^24).
  if (e.empty() && mode == PoolMode::max && window_elements() > (std::int64_t{1} << 24))
    e.push_back("window has " + std::to_string(window_elements()) +
                " positions; max pooling's saved indices (fp32) need at most 2^24");
  return e;
}

static TensorDesc with_spatial(const OpShape& s, DType t, const Dims& spatial) {
  Dims d{s.n, s.c};
  d.insert(d.end(), spatial.begin(), spatial.end());
  return TensorDesc::packed(t, d, s.channels_last);
}

TensorDesc PoolProblem::x_desc() const { return with_spatial(shape, shape.dtype, shape.in); }
TensorDesc PoolProblem::y_desc() const { return with_spatial(shape, shape.dtype, out()); }
TensorDesc PoolProblem::idx_desc() const { return with_spatial(shape, DType::fp32, out()); }

std::vector<OpTensor> PoolProblem::tensors() const {
  using R = OpTensor::Role;
  const bool is_max = mode == PoolMode::max;
  if (dir == PoolDir::fwd) {
    std::vector<OpTensor> t{{"x", x_desc(), R::input}, {"y", y_desc(), R::output}};
    if (is_max) t.push_back({"idx", idx_desc(), R::output});
    return t;
  }
  std::vector<OpTensor> t{{"dy", y_desc(), R::input}};
  if (is_max) t.push_back({"idx", idx_desc(), R::input});
  t.push_back({"dx", x_desc(), R::output});
  return t;
}

double PoolProblem::flops() const {
  return static_cast<double>(y_desc().elements()) * static_cast<double>(window_elements());
}

std::string to_string(const PoolProblem& p) {
  return "pool " + std::string(pool_dir_name(p.dir)) + " " + std::string(pool_mode_name(p.mode)) + " " +
         p.shape.tokens() + " win" + join_dims(p.window) + " pad" + join_dims(p.pad) + " str" + join_dims(p.stride);
}

PoolProblem parse_pool_problem_unchecked(std::string_view s) {
  OpTokens t(s, "pool", "pool fwd max fp32 nchw n1 c3 in8x8 win2x2 pad0x0 str2x2");
  PoolProblem p;
  if (auto d = t.one_of({"fwd", "bwd"}, "direction")) p.dir = *d == "fwd" ? PoolDir::fwd : PoolDir::bwd;
  if (auto m = t.one_of({"max", "avg_incl", "avg_excl"}, "pooling mode"))
    p.mode = *m == "max" ? PoolMode::max : *m == "avg_incl" ? PoolMode::avg_incl : PoolMode::avg_excl;
  else
    t.missing("pooling mode max|avg_incl|avg_excl");
  auto win = t.dims("win");
  auto pad = t.dims("pad");
  auto str = t.dims("str");
  p.shape = read_op_shape(t);
  t.finish("fwd|bwd, max|avg_incl|avg_excl, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc, n<N> c<C> in<HxW> win<RxS> "
           "pad<..> str<..>");
  if (!win) t.missing("window size win<RxS> or win<TxRxS>");
  const std::size_t r = p.shape.in.size();
  p.window = *win;
  p.pad = pad ? *pad : Dims(r, 0);
  p.stride = str ? *str : Dims(r, 1);
  return p;
}

PoolProblem parse_pool_problem(std::string_view s) { return validated(parse_pool_problem_unchecked(s), s); }

}  // namespace hiprim
