// hiprim tensorop and hiprim reduce: MIOpenDriver's tensorop and reduce flags (+ the common op
// flags, cli/op_command.hpp). The tensor is -n -c -H -W [-D] with --layout, or any rank 1..5 with
// --dims (tensorop) / --DimLengths (reduce; MIOpenDriver's short -D is hiprim's depth flag).
#include <algorithm>
#include <charconv>
#include <tuple>

#include "cli/op_command.hpp"
#include "core/error.hpp"
#include "core/reduce_problem.hpp"
#include "core/tensorop_problem.hpp"

namespace hiprim::cli {
namespace {

// "2,3,4" -> {2,3,4}; InputError naming the flag.
Dims int_list(const std::string& flag, const std::string& text) {
  Dims d;
  for (const std::string& item : split_list(text)) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || ptr != item.data() + item.size())
      throw InputError(flag + " '" + text + "': '" + item + "' is not an integer (expected a comma-separated list)");
    d.push_back(v);
  }
  if (d.empty()) throw InputError(flag + " '" + text + "': expected a comma-separated list of integers");
  return d;
}

// The tensor's dims and layout: --dims/--DimLengths when given, else the shape flags.
std::pair<Dims, bool> tensor_dims(const OpCommonFlags& common, const std::string& flag, const std::string& dims_text) {
  if (dims_text.empty()) {
    const OpShape s = common.shape();
    return {s.dims(), s.channels_last};
  }
  Dims d = int_list(flag, dims_text);
  bool channels_last = false;
  if (!common.layout.empty()) {
    const std::size_t want = (common.layout == "ncdhw" || common.layout == "ndhwc") ? 5 : 4;
    if (d.size() != want)
      throw InputError("--layout " + common.layout + " needs " + std::to_string(want) + " dims but " + flag + " has " +
                       std::to_string(d.size()));
    channels_last = common.layout == "nhwc" || common.layout == "ndhwc";
  }
  return {d, channels_last};
}

}  // namespace

Command add_tensorop(CLI::App& app) {
  auto* sub = app.add_subcommand("tensorop", "Run tensor-op solvers (C = op(alpha1*A, alpha2*B) + beta*C, B broadcast) and verify them");
  struct Flags {
    OpCommonFlags common;
    std::string op = "add", dims, b_dims;
    double A = 1, B = 1, G = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 3;
  f->common.H = 32;
  f->common.W = 32;
  f->common.add_to(*sub);
  sub->add_option("-o,--tensor_op", f->op, "add|mul|min|max (MIOpenDriver's numbers 2|3|4|5 also accepted)")
      ->check(CLI::IsMember({"add", "mul", "min", "max", "2", "3", "4", "5"}))
      ->capture_default_str();
  sub->add_option("-A,--alpha1", f->A, "Scale of A")->capture_default_str();
  sub->add_option("-B,--alpha2", f->B, "Scale of B")->capture_default_str();
  sub->add_option("-G,--beta", f->G, "Scale of C's old value (0: C is not read)")->capture_default_str();
  sub->add_option("--dims", f->dims, "A's dims, 1 to 5 comma-separated sizes (instead of -n -c -H -W)");
  sub->add_option("--b_dims", f->b_dims, "B's dims, each A's or 1 (broadcast); default A's dims");
  return [f] {
    TensorOpProblem p;
    const std::string& o = f->op;
    p.op = (o == "add" || o == "2") ? TensorOpKind::add
           : (o == "mul" || o == "3") ? TensorOpKind::mul
           : (o == "min" || o == "4") ? TensorOpKind::min
                                      : TensorOpKind::max;
    p.dtype = parse_dtype(f->common.dtype).value_or(DType::fp32);
    std::tie(p.a, p.channels_last) = tensor_dims(f->common, "--dims", f->dims);
    p.b = f->b_dims.empty() ? p.a : int_list("--b_dims", f->b_dims);
    p.alpha1 = f->A;
    p.alpha2 = f->B;
    p.beta = f->G;
    return run_op_problems({make_op_problem(p)}, f->common);
  };
}

Command add_reduce(CLI::App& app) {
  auto* sub = app.add_subcommand("reduce", "Run reduction solvers (add, mul, min, max, amax, avg, norm1, norm2 over any dims) and verify them");
  struct Flags {
    OpCommonFlags common;
    std::string dims, over = "0", op = "add";
    int nan = 0, indices = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 4;
  f->common.c = 16;
  f->common.H = 8;
  f->common.W = 8;
  f->common.add_to(*sub);
  sub->add_option("--DimLengths", f->dims, "x's dims, 1 to 5 comma-separated sizes (instead of -n -c -H -W)");
  sub->add_option("-R,--DimsToReduce", f->over, "Reduced dims, comma-separated (e.g. 0,2)")->capture_default_str();
  sub->add_option("-O,--ReduceOp", f->op,
                  "add|mul|min|max|amax|avg|norm1|norm2 (MIOpen's miopenReduceTensorOp_t numbers 0..7 also accepted)")
      ->check(CLI::IsMember({"add", "mul", "min", "max", "amax", "avg", "norm1", "norm2", "0", "1", "2", "3", "4", "5", "6", "7"}))
      ->capture_default_str();
  sub->add_option("-N,--NanPropagation", f->nan, "0: NaNs lose in min/max/amax, 1: NaNs propagate")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  sub->add_option("-I,--IndicesUsed", f->indices, "1: also output the chosen element's index (min/max/amax)")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  return [f] {
    static const ReduceOp ops[] = {ReduceOp::add, ReduceOp::mul,  ReduceOp::min,   ReduceOp::max,
                                   ReduceOp::amax, ReduceOp::avg, ReduceOp::norm1, ReduceOp::norm2};
    ReduceProblem p;
    for (int i = 0; i < 8; ++i)
      if (f->op == reduce_op_name(ops[i]) || f->op == std::to_string(i)) p.op = ops[i];
    p.dtype = parse_dtype(f->common.dtype).value_or(DType::fp32);
    std::tie(p.dims, p.channels_last) = tensor_dims(f->common, "--DimLengths", f->dims);
    p.over = int_list("--DimsToReduce", f->over);
    std::sort(p.over.begin(), p.over.end());
    p.propagate_nan = f->nan == 1;
    p.indices = f->indices == 1;
    return run_op_problems({make_op_problem(p)}, f->common);
  };
}

}  // namespace hiprim::cli
