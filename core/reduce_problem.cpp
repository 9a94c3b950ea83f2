#include "core/reduce_problem.hpp"

#include "core/tensorop_problem.hpp"  // nd_layout_name, nd_channels_last

namespace hiprim {

namespace {
constexpr ReduceOp kOps[] = {ReduceOp::add, ReduceOp::mul,  ReduceOp::min,   ReduceOp::max,
                             ReduceOp::amax, ReduceOp::avg, ReduceOp::norm1, ReduceOp::norm2};
}

std::string_view reduce_op_name(ReduceOp o) {
  switch (o) {
    case ReduceOp::add: return "add";
    case ReduceOp::mul: return "mul";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::amax: return "amax";
    case ReduceOp::avg: return "avg";
    case ReduceOp::norm1: return "norm1";
    case ReduceOp::norm2: return "norm2";
  }
  return "?";
}

bool reduce_op_selects(ReduceOp o) { return o == ReduceOp::min || o == ReduceOp::max || o == ReduceOp::amax; }

std::string ReduceProblem::layout_name() const { return nd_layout_name(rank(), channels_last); }

Dims ReduceProblem::out_dims() const {
  Dims d = dims;
  for (auto i : over)
    if (i >= 0 && i < rank()) d[static_cast<std::size_t>(i)] = 1;
  return d;
}

std::int64_t ReduceProblem::reduced_length() const {
  std::int64_t l = 1;
  for (auto i : over)
    if (i >= 0 && i < rank()) l *= dims[static_cast<std::size_t>(i)];
  return l;
}

TensorDesc ReduceProblem::x_desc() const { return TensorDesc::packed(dtype, dims, channels_last); }
TensorDesc ReduceProblem::y_desc() const { return TensorDesc::packed(dtype, out_dims(), channels_last); }
TensorDesc ReduceProblem::idx_desc() const { return TensorDesc::packed(DType::fp32, out_dims(), channels_last); }

std::vector<std::string> ReduceProblem::validate() const {
  std::vector<std::string> e;
  const int r = rank();
  if (r < 1 || r > 5) {
    e.push_back("x has " + std::to_string(r) + " dims: reductions take 1 to 5");
    return e;
  }
  if (channels_last && r != 4 && r != 5)
    e.push_back("channels-last layout needs 4 or 5 dims (x has " + std::to_string(r) + ")");
  for (int i = 0; i < r; ++i)
    if (dims[i] < 1) e.push_back("x dim " + std::to_string(i) + " = " + std::to_string(dims[i]) + " must be >= 1");
  if (over.empty()) e.push_back("no reduced dims: over<..> must list at least one of 0.." + std::to_string(r - 1));
  for (std::size_t i = 0; i < over.size(); ++i) {
    if (over[i] < 0 || over[i] >= r)
      e.push_back("reduced dim " + std::to_string(over[i]) + " is not a dim of x (0.." + std::to_string(r - 1) + ")");
    else if (i > 0 && over[i] <= over[i - 1])
      e.push_back("reduced dims must be listed once each in increasing order (" + std::to_string(over[i]) + " after " +
                  std::to_string(over[i - 1]) + ")");
  }
  if (indices && !reduce_op_selects(op))
    e.push_back("indices are only defined for min, max and amax (op is " + std::string(reduce_op_name(op)) + ")");
  if (e.empty() && indices && reduced_length() > (std::int64_t{1} << 24))
    e.push_back("reduced length L = " + std::to_string(reduced_length()) + " exceeds 2^24: indices (fp32) would not be exact");
  if (e.empty() && x_desc().elements() > (std::int64_t{1} << 31) - 1)
    e.push_back("x has " + std::to_string(x_desc().elements()) + " elements, more than 2^31-1");
  return e;
}

std::vector<OpTensor> ReduceProblem::tensors() const {
  using R = OpTensor::Role;
  std::vector<OpTensor> t{{"x", x_desc(), R::input}, {"y", y_desc(), R::output}};
  if (indices) t.push_back({"idx", idx_desc(), R::output});
  return t;
}

double ReduceProblem::flops() const { return static_cast<double>(x_desc().elements()); }

std::string to_string(const ReduceProblem& p) {
  std::string s = "reduce " + std::string(reduce_op_name(p.op)) + " " + std::string(dtype_name(p.dtype));
  const std::string layout = p.layout_name();
  if (!layout.empty()) s += " " + layout;
  s += " dims" + join_dims(p.dims) + " over" + join_dims(p.over) + (p.propagate_nan ? " nan_propagate" : " nan_ignore");
  if (p.indices) s += " indices";
  return s;
}

ReduceProblem parse_reduce_problem_unchecked(std::string_view s) {
  OpTokens t(s, "reduce", "reduce add fp32 nchw dims2x3x8x8 over2x3 nan_ignore");
  ReduceProblem p;
  std::vector<std::string_view> names;
  for (auto o : kOps) names.push_back(reduce_op_name(o));
  if (auto k = t.one_of(names, "reduce op")) {
    for (auto o : kOps)
      if (reduce_op_name(o) == *k) p.op = o;
  } else {
    t.missing("reduce op add|mul|min|max|amax|avg|norm1|norm2");
  }
  auto dt = t.dtype();
  if (!dt) t.missing("dtype fp32|fp16|bf16");
  p.dtype = *dt;
  auto layout = t.layout();
  auto dims = t.dims("dims", 5);
  if (!dims) t.missing("x's dims dims<N0xN1x..> (1 to 5 sizes)");
  p.dims = *dims;
  auto over = t.dims("over", 5);
  if (!over) t.missing("reduced dims over<i> or over<ixj..>");
  p.over = *over;
  if (auto nan = t.one_of({"nan_propagate", "nan_ignore"}, "NaN mode")) p.propagate_nan = *nan == "nan_propagate";
  p.indices = t.word("indices");
  p.channels_last = nd_channels_last(layout, p.dims.size());
  t.finish("add|mul|min|max|amax|avg|norm1|norm2, fp32|fp16|bf16, nchw|nhwc|ncdhw|ndhwc (4-D/5-D), dims<..> over<..>, "
           "nan_propagate|nan_ignore, indices");
  return p;
}

ReduceProblem parse_reduce_problem(std::string_view s) { return validated(parse_reduce_problem_unchecked(s), s); }

}  // namespace hiprim
