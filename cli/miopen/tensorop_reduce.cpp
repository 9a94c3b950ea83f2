// MIOpenDriver tensorop, tensoropfp16 -> TensorOpProblem; reduce, reducefp16 (reducefp64: refused)
// -> ReduceProblem. Sources: driver/tensorop_driver.hpp (AddCmdLineArgs, GetandSetData: A, B, C
// all NxCxHxW packed; SetTensorOpFromCmdLineArgs: -o 0 SetTensor, 1 ScaleTensor, 2..5 add, mul,
// min, max), driver/reduce_driver.hpp (AddCmdLineArgs, GetandSetData, the std::stoi list parsers,
// SetReduceTensorDescriptorFromCmdLineArgs, RunForwardGPU: alpha/beta forced to 1/0 with indices),
// include/miopen/miopen.h (miopenReduceTensorOp_t, miopenDataType_t numbers), driver/main.cpp.
#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "cli/miopen/commands.hpp"
#include "core/reduce_problem.hpp"
#include "core/tensorop_problem.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> tensorop_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "1", false, U::problem, "odd or 0: run the op (even, not 0: nothing runs)"},
      {"batchsize", 'n', "64", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
      {"alpha1", 'A', "1", false, U::problem, "alpha1 (scale of A)"},
      {"alpha2", 'B', "1", false, U::problem, "alpha2 (scale of B)"},
      {"beta", 'G', "0", false, U::problem, "beta (scale of C's old value)"},
      {"iter", 'i', "10", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"tensor_op", 'o', "0", false, U::problem, "0 SetTensor, 1 ScaleTensor (refused: not hiprim ops), 2 add, 3 mul, 4 min, 5 max"},
      {"tensor_val", 'v', "1", false, U::problem, "the value of SetTensor / ScaleTensor (unused by 2..5)"},
  };
}

std::vector<FlagSpec> reduce_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "1", false, U::problem, "odd or 0: run the reduction (even, not 0: nothing runs)"},
      {"DimLengths", 'D', "100,60,16,240", false, U::problem, "x's lengths, comma-separated (rank 1..5)"},
      {"DimsToReduce", 'R', "0,2", false, U::problem, "the reduced dims, comma-separated"},
      {"ReduceOp", 'O', "0,2", false, U::problem, "atoi: 0 add 1 mul 2 min 3 max 4 amax 5 avg 6 norm1 7 norm2"},
      {"CompType", 'C', "1", false, U::problem, "compute type (miopenDataType_t): 1 float, 0 half, 6 double (fp64: always double)"},
      {"NanPropagation", 'N', "0", false, U::problem, "0 NaN ignored, 1 NaN propagated"},
      {"IndicesUsed", 'I', "0,1", false, U::problem, "atoi: 1 output the indices (min, max, amax)"},
      {"alpha", 'A', "1.0", false, U::problem, "y = alpha*reduce + beta*y: 1 (else refused; 1 with indices)"},
      {"beta", 'B', "0.0", false, U::problem, "0 (else refused; 0 with indices)"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"dump_output", 'o', "0", false, U::data, "dump buffers"},
      {"in_data", 'd', "", false, U::data, "x from a file"},
  };
}

namespace {

// reduce_driver.hpp's list parsers: std::stoi of every ','-separated slice (an empty or
// non-numeric slice throws: the driver dies).
std::vector<long long> stoi_list(const std::string& who, const std::string& flag, const std::string& text, DriverFlags& f) {
  std::vector<long long> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string slice = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(slice, &used);
    } catch (const std::exception&) {
      reject(who + ": " + flag + " '" + text + "': std::stoi('" + slice + "') throws and MIOpenDriver dies");
    }
    if (used != slice.size()) f.note("MIOpenDriver reads '" + slice + "' of " + flag + " as " + std::to_string(v) + " (std::stoi)");
    out.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

Dims list_option(const std::string& flag, const std::string& text) {
  Dims d;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || p != item.data() + item.size()) reject(flag + " '" + text + "': '" + item + "' is not an integer");
    d.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return d;
}

}  // namespace

Translation translate_tensorop(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, tensorop_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");
  const long long n = f.integer("batchsize"), ch = f.integer("in_channels"), h = f.integer("in_h"), w = f.integer("in_w");
  const double a1 = f.real("alpha1"), a2 = f.real("alpha2"), beta = f.real("beta");
  (void)f.real("tensor_val");
  const int raw_op = f.integer("tensor_op");
  if (raw_op > 5) reject(who + ": -o " + f.str("tensor_op") + ": MIOpenDriver prints its usage and exits (0..5)");
  if (raw_op < 0) reject(who + ": -o " + f.str("tensor_op") + " is not a tensor op (0..5)");
  const int forw = f.integer("forw");
  if (!main_directions(forw).fwd) reject(who + ": -F " + std::to_string(forw) + ": MIOpenDriver runs the op only for -F 0 or odd (main.cpp); nothing runs");
  if (c.opts.dims.empty()) {
    require_length("-n", n, c.command);
    require_length("-c", ch, c.command);
    require_length("-H", h, c.command);
    require_length("-W", w, c.command);
  }
  if (raw_op == 0 || raw_op == 1)
    c.cannot(who + ": -o " + std::to_string(raw_op) + " is miopen" + (raw_op == 0 ? "SetTensor" : "ScaleTensor") +
             " (A = " + (raw_op == 0 ? "v" : "v*A") + "); hiprim's tensorop has add, mul, min, max (-o 2..5)");
  TensorOpProblem p;
  p.op = static_cast<TensorOpKind>(std::max(raw_op - 2, 0));
  p.dtype = dtype;
  p.a = {n, ch, h, w};
  if (!c.opts.dims.empty()) p.a = list_option("--dims", c.opts.dims);
  p.b = c.opts.b_dims.empty() ? p.a : list_option("--b_dims", c.opts.b_dims);
  if (!c.opts.layout.empty()) {
    const std::string L = c.opts.layout;
    const std::size_t want = (L == "ncdhw" || L == "ndhwc") ? 5 : 4;
    if (L != "nchw" && L != "nhwc" && want == 4) reject("--layout '" + L + "': expected nchw, nhwc, ncdhw or ndhwc");
    if (p.a.size() != want) reject("--layout " + L + " needs " + std::to_string(want) + " dims, the tensor has " + std::to_string(p.a.size()));
    p.channels_last = L == "nhwc" || L == "ndhwc";
    f.note("--layout " + L + " is hiprim's: MIOpenDriver tensorop uses packed NCHW tensors");
  }
  if (!c.opts.dims.empty()) f.note("--dims is hiprim's: MIOpenDriver tensorop has -n -c -H -W only");
  if (!c.opts.b_dims.empty()) f.note("--b_dims is hiprim's: MIOpenDriver tensorop gives B A's lengths");
  c.finish_checks();
  Translation t = start_translation(c, f);
  p.alpha1 = a1;
  p.alpha2 = a2;
  p.beta = beta;
  t.ops.push_back(make_op_problem(p));
  check_hiprim_rules(c, t);
  return t;
}

Translation translate_reduce(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, reduce_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");
  const std::vector<long long> lens = stoi_list(who, f.spelled("DimLengths"), f.str("DimLengths"), f);
  const std::vector<long long> dims = stoi_list(who, f.spelled("DimsToReduce"), f.str("DimsToReduce"), f);
  // GetandSetData asserts (compiled out) that the reduced dims are in range; out of range writes
  // past outLengths.
  for (auto d : dims)
    if (d < 0 || d >= static_cast<long long>(lens.size()))
      reject(who + ": reduced dim " + std::to_string(d) + " is outside the " + std::to_string(lens.size()) + "-d tensor (-R indexes -D)");
  for (auto l : lens) require_length("-D", l, c.command);
  const int op = f.integer("ReduceOp"), comp = f.integer("CompType"), nan = f.integer("NanPropagation"), ind = f.integer("IndicesUsed");
  if (op < 0 || op > 7) reject(who + ": -O " + f.str("ReduceOp") + ": miopenReduceTensorOp_t is 0..7");
  if (nan != 0 && nan != 1) reject(who + ": -N " + f.str("NanPropagation") + ": miopenNanPropagation_t is 0 or 1");
  if (ind != 0 && ind != 1) reject(who + ": -I " + f.str("IndicesUsed") + ": miopenReduceTensorIndices_t is 0 or 1");
  const int forw = f.integer("forw");
  if (!main_directions(forw).fwd) reject(who + ": -F " + std::to_string(forw) + ": MIOpenDriver runs the reduction only for -F 0 or odd; nothing runs");
  static const ReduceOp ops[] = {ReduceOp::add, ReduceOp::mul, ReduceOp::min, ReduceOp::max,
                                 ReduceOp::amax, ReduceOp::avg, ReduceOp::norm1, ReduceOp::norm2};
  const ReduceOp rop = ops[op];
  const bool need_indices = ind == 1 && reduce_op_selects(rop);
  double alpha = f.real("alpha"), beta = f.real("beta");
  if (need_indices) alpha = 1, beta = 0;  // RunForwardGPU
  if (static_cast<float>(alpha) != 1.0f || static_cast<float>(beta) != 0.0f)
    c.cannot(who + ": -A " + f.str("alpha") + " -B " + f.str("beta") + ": MIOpen computes y = alpha*reduce(x) + beta*y; hiprim's reduce has alpha 1, beta 0");
  if (c.type != DriverType::fp64) {
    if (comp == 0) f.note("-C 0: MIOpen accumulates in half precision; hiprim's reduction is the same math, verified against its exact reference");
    else if (comp == 6) f.note("-C 6: MIOpen accumulates in double; the same math");
    else if (comp != 1) c.cannot(who + ": -C " + f.str("CompType") + ": compute type " + std::to_string(comp) + " (miopenDataType_t) is not half, float or double");
  }
  if (ind == 1 && !need_indices) f.note("-I 1 with " + std::string(reduce_op_name(rop)) + ": MIOpen outputs indices for min, max, amax only");
  if (lens.size() > 5) c.cannot(who + ": a " + std::to_string(lens.size()) + "-d tensor: hiprim's reduce has rank 1..5");
  c.finish_checks();
  Translation t = start_translation(c, f);
  ReduceProblem p;
  p.op = rop;
  p.dtype = dtype;
  p.dims = Dims(lens.begin(), lens.end());
  // MIOpen reduces the dims whose output length is 1 where the input's is not; -R's duplicates
  // and order do not matter.
  Dims over(dims.begin(), dims.end());
  std::sort(over.begin(), over.end());
  over.erase(std::unique(over.begin(), over.end()), over.end());
  if (over.size() != dims.size()) t.notes.push_back("-R lists a dim twice; MIOpen reduces it once");
  p.over = over;
  p.propagate_nan = nan == 1;
  p.indices = need_indices;
  if (!c.opts.layout.empty()) {
    const std::string L = c.opts.layout;
    const std::size_t want = (L == "ncdhw" || L == "ndhwc") ? 5 : 4;
    if (p.dims.size() != want) reject("--layout " + L + " needs " + std::to_string(want) + " dims, -D has " + std::to_string(p.dims.size()));
    p.channels_last = L == "nhwc" || L == "ndhwc";
    t.notes.push_back("--layout " + L + " is hiprim's: MIOpenDriver reduce uses packed tensors");
  }
  t.ops.push_back(make_op_problem(p));
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
