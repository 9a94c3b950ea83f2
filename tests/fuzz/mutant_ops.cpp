#include "tests/fuzz/mutant_ops.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "core/bnorm_problem.hpp"
#include "core/fusion_problem.hpp"
#include "core/lrn_problem.hpp"
#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "core/softmax_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "reference/bnorm.hpp"
#include "reference/fusion.hpp"
#include "reference/op_reference.hpp"
#include "reference/softmax.hpp"

namespace hiprim::fuzz_test {
namespace {

using Inputs = std::vector<const HostTensor*>;
using Expected = std::vector<ref::OpExpected>;

const char* bug_name(OpBug b) {
  switch (b) {
    case OpBug::softmax_no_max: return "no_max";
    case OpBug::pool_edge_window: return "edge_window";
    case OpBug::bnorm_biased_running_var: return "biased_running_var";
    case OpBug::reduce_drop_last: return "drop_last";
    case OpBug::tensorop_wrong_bcast: return "wrong_bcast";
    case OpBug::lrn_window_short: return "window_short";
    case OpBug::fusion_activ_before_add: return "activ_before_add";
    case OpBug::fusion_bias_twice: return "bias_twice";
  }
  return "?";
}

// softmax fwd without the max subtraction: y = e^x / sum e^x (log: x - log sum e^x), in double;
// e^(1e4) overflows to Inf, so rows of magnitude 1e4 give NaN (or -Inf).
Expected softmax_no_max(const OpProblem& op, const Inputs& in) {
  Expected e = ref::op_expected(op, in);
  const auto& p = *op_problem_cast<SoftmaxProblem>(op);
  if (p.dir != SoftmaxDir::fwd) return e;
  const HostTensor& x = *in[0];
  for (const auto& row : ref::softmax_rows(p)) {
    double sum = 0;
    for (auto o : row) sum += std::exp(static_cast<double>(x.data[o]));
    for (auto o : row)
      e[0].value[o] = p.is_log() ? x.data[o] - std::log(sum) : std::exp(static_cast<double>(x.data[o])) / sum;
  }
  return e;
}

// pool fwd where a window that reaches past the input's end (into the padding) stops one input
// position early: the last real input of such windows is skipped.
Expected pool_edge_window(const OpProblem& op, const Inputs& in) {
  Expected e = ref::op_expected(op, in);
  const auto& p = *op_problem_cast<PoolProblem>(op);
  if (p.dir != PoolDir::fwd) return e;
  const HostTensor& x = *in[0];
  const TensorDesc yd = p.y_desc(), xd = p.x_desc();
  const int r = p.rank();
  for_each_index(yd.dims, [&](const Dims& yi) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    std::int64_t best_k = 0, count = 0, k = 0;
    bool nan = false;
    for_each_index(p.window, [&](const Dims& w) {
      Dims xi{yi[0], yi[1]};
      bool inside = true;
      for (int i = 0; i < r; ++i) {
        const std::int64_t start = yi[2 + i] * p.stride[i] - p.pad[i];
        const bool crosses = start + p.window[i] > p.shape.in[i];
        const std::int64_t pos = start + w[i];
        inside = inside && pos >= 0 && pos < p.shape.in[i] - (crosses ? 1 : 0);  // the bug: "- 1"
        xi.push_back(pos);
      }
      if (inside) {
        const double v = x.data[xd.offset(xi)];
        ++count;
        sum += v;
        if (!nan && (std::isnan(v) || v > best)) {
          best = v;
          best_k = k;
          nan = std::isnan(v);
        }
      }
      ++k;
    });
    const auto yo = static_cast<std::size_t>(yd.offset(yi));
    if (p.mode == PoolMode::max) {
      e[0].value[yo] = best;
      e[1].value[yo] = static_cast<double>(best_k);
    } else {
      e[0].value[yo] = sum / static_cast<double>(p.mode == PoolMode::avg_incl ? p.window_elements() : std::max<std::int64_t>(1, count));
    }
  });
  return e;
}

// bnorm fwd-train whose running variance takes the biased variance (divides by M, not M - 1).
Expected bnorm_biased_running_var(const OpProblem& op, const Inputs& in) {
  Expected e = ref::op_expected(op, in);
  const auto& p = *op_problem_cast<BnormProblem>(op);
  if (p.dir != BnormDir::fwd_train) return e;
  const HostTensor& x = *in[0];
  const HostTensor& rv = *in[4];
  const double m = *p.momentum;
  const auto groups = ref::bnorm_groups(p);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    double mean = 0, var = 0;
    for (auto o : groups[g]) mean += x.data[o];
    mean /= static_cast<double>(groups[g].size());
    for (auto o : groups[g]) var += (x.data[o] - mean) * (x.data[o] - mean);
    var /= static_cast<double>(groups[g].size());
    e[1].value[g] = (1 - m) * rv.data[g] + m * var;  // e[1]: running_var
  }
  return e;
}

// reduce with the last element of every reduced slice dropped (replaced by the op's identity)
// when the slice length L is not a multiple of 4 (a vector loop without its scalar tail).
Expected reduce_drop_last(const OpProblem& op, const Inputs& in) {
  const auto& p = *op_problem_cast<ReduceProblem>(op);
  if (p.reduced_length() % 4 == 0) return ref::op_expected(op, in);
  const double inf = std::numeric_limits<double>::infinity();
  const double identity = p.op == ReduceOp::mul ? 1.0 : p.op == ReduceOp::min ? inf : p.op == ReduceOp::max ? -inf : 0.0;
  HostTensor x = *in[0];
  for_each_index(p.dims, [&](const Dims& i) {
    bool last = true;
    for (auto d : p.over) last = last && i[static_cast<std::size_t>(d)] == p.dims[static_cast<std::size_t>(d)] - 1;
    if (last) x.at(i) = static_cast<float>(identity);
  });
  Inputs mutated = in;
  mutated[0] = &x;
  return ref::op_expected(op, mutated);
}

// tensorop that decides whether B broadcasts dim j by looking at the other one of the last two
// dims: B is expanded to A's dims with that mistake and the reference runs without broadcasting.
Expected tensorop_wrong_bcast(const OpProblem& op, const Inputs& in) {
  const auto& p = *op_problem_cast<TensorOpProblem>(op);
  const int r = p.rank();
  if (r < 2) return ref::op_expected(op, in);
  TensorOpProblem q = p;
  q.b = q.a;
  HostTensor b(q.b_desc());
  for_each_index(q.a, [&](const Dims& i) {
    Dims bi = i;
    for (int j = 0; j < r; ++j) {
      const int k = j == r - 1 ? r - 2 : j == r - 2 ? r - 1 : j;  // the bug: the neighbour's flag
      bi[j] = p.b[k] == 1 ? 0 : std::min(i[j], p.b[j] - 1);
    }
    b.at(i) = in[1]->at(bi);
  });
  Inputs mutated = in;
  mutated[1] = &b;
  return ref::op_expected(*make_op_problem(q), mutated);
}

// lrn across fwd whose channel window is [c - h, c + h) instead of [c - h, c + h] (h = (n-1)/2).
Expected lrn_window_short(const OpProblem& op, const Inputs& in) {
  Expected e = ref::op_expected(op, in);
  const auto& p = *op_problem_cast<LrnProblem>(op);
  if (p.dir != LrnDir::fwd || p.mode != LrnMode::across) return e;
  const HostTensor& x = *in[0];
  const double alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta), k = static_cast<float>(p.k);
  const std::int64_t h = (p.size - 1) / 2;
  for_each_index(x.desc.dims, [&](const Dims& i) {
    double sum = 0;
    Dims j = i;
    for (std::int64_t c = std::max<std::int64_t>(0, i[1] - h); c < std::min(p.shape.c, i[1] + h); ++c) {
      j[1] = c;
      sum += static_cast<double>(x.at(j)) * x.at(j);
    }
    e[0].value[static_cast<std::size_t>(x.desc.offset(i))] = x.at(i) * std::pow(k + alpha / static_cast<double>(p.size) * sum, -beta);
  });
  return e;
}

// fusion with its chain altered by `alter` (false: the chain is out of the bug's reach, the
// reference answers), evaluated by the reference's chain under the problem's rounding model.
Expected fusion_altered(const OpProblem& op, const Inputs& in, const std::function<bool(std::vector<FusionStep>&)>& alter) {
  const auto& p = *op_problem_cast<FusionProblem>(op);
  FusionProblem q = p;
  if (!alter(q.steps)) return ref::op_expected(op, in);
  return {ref::fusion_chain(q, ref::fusion_inputs(p, in), p.rounding)};
}

std::ptrdiff_t step_index(const std::vector<FusionStep>& s, FusionOp o) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i].op == o) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

// f(v) then the add: alpha * f(v) + beta * residual instead of f(alpha * v + beta * residual).
Expected fusion_activ_before_add(const OpProblem& op, const Inputs& in) {
  return fusion_altered(op, in, [](std::vector<FusionStep>& s) {
    const auto a = step_index(s, FusionOp::add), f = step_index(s, FusionOp::activ);
    if (a < 0 || f < 0) return false;
    std::swap(s[static_cast<std::size_t>(a)], s[static_cast<std::size_t>(f)]);
    return true;
  });
}

// The bias step applied twice in a row.
Expected fusion_bias_twice(const OpProblem& op, const Inputs& in) {
  return fusion_altered(op, in, [](std::vector<FusionStep>& s) {
    const auto b = step_index(s, FusionOp::bias);
    if (b < 0) return false;
    s.insert(s.begin() + b, s[static_cast<std::size_t>(b)]);
    return true;
  });
}

using MutantFn = std::function<Expected(const OpProblem&, const Inputs&)>;

MutantFn mutant_fn(OpBug b) {
  switch (b) {
    case OpBug::softmax_no_max: return softmax_no_max;
    case OpBug::pool_edge_window: return pool_edge_window;
    case OpBug::bnorm_biased_running_var: return bnorm_biased_running_var;
    case OpBug::reduce_drop_last: return reduce_drop_last;
    case OpBug::tensorop_wrong_bcast: return tensorop_wrong_bcast;
    case OpBug::lrn_window_short: return lrn_window_short;
    case OpBug::fusion_activ_before_add: return fusion_activ_before_add;
    case OpBug::fusion_bias_twice: return fusion_bias_twice;
  }
  return nullptr;
}

// A host solver like ref.<op> (inputs decoded, values rounded to the dtype) computing with fn.
class MutantOpSolver final : public OpSolver {
 public:
  MutantOpSolver(OpBug b) : bug_(b), op_(op_bug_op(b)), fn_(mutant_fn(b)) {}
  std::string name() const override { return "mutant." + op_ + "." + bug_name(bug_); }
  std::string op() const override { return op_; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test mutant: " + op_bug_description(bug_); }
  Applicability applicable(const OpProblem& p) const override {
    if (p.op() != op_) return Applicability::no("not a " + op_ + " problem");
    auto errs = p.validate();
    return errs.empty() ? Applicability::yes() : Applicability::no("invalid problem: " + errs.front());
  }
  void run(const OpProblem& p, const std::vector<void*>& buffers, void*, std::size_t ws_bytes, void*) const override {
    check_op_run(name(), p, p.op() == op_, buffers.size(), ws_bytes, 0);
    const auto ts = p.tensors();
    std::vector<HostTensor> in(ts.size());
    Inputs ptrs(ts.size(), nullptr);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::output) continue;
      in[i] = HostTensor(ts[i].desc);
      in[i].from_bytes(static_cast<const unsigned char*>(buffers[i]));
      ptrs[i] = &in[i];
    }
    const Expected e = fn_(p, ptrs);
    std::size_t k = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::input) continue;
      HostTensor o(ts[i].desc);
      const auto& v = e[k++].value;
      for (std::size_t j = 0; j < v.size(); ++j) o.data[j] = round_to(ts[i].desc.dtype, v[j]);
      const auto bytes = o.to_bytes();
      std::memcpy(buffers[i], bytes.data(), bytes.size());
    }
  }

 private:
  OpBug bug_;
  std::string op_;
  MutantFn fn_;
};

}  // namespace

std::vector<OpBug> all_op_bugs() {
  return {OpBug::softmax_no_max, OpBug::pool_edge_window, OpBug::bnorm_biased_running_var, OpBug::reduce_drop_last, OpBug::tensorop_wrong_bcast,
          OpBug::lrn_window_short, OpBug::fusion_activ_before_add, OpBug::fusion_bias_twice};
}

std::string op_bug_op(OpBug b) {
  switch (b) {
    case OpBug::softmax_no_max: return "softmax";
    case OpBug::pool_edge_window: return "pool";
    case OpBug::bnorm_biased_running_var: return "bnorm";
    case OpBug::reduce_drop_last: return "reduce";
    case OpBug::tensorop_wrong_bcast: return "tensorop";
    case OpBug::lrn_window_short: return "lrn";
    case OpBug::fusion_activ_before_add:
    case OpBug::fusion_bias_twice: return "fusion";
  }
  return "";
}

std::string op_bug_description(OpBug b) {
  switch (b) {
    case OpBug::softmax_no_max: return "softmax fwd without the row-maximum subtraction: e^x overflows for inputs of magnitude 1e4";
    case OpBug::pool_edge_window: return "pool fwd: a window reaching past the input's end into the padding stops one input position early";
    case OpBug::bnorm_biased_running_var: return "bnorm fwd-train: the running variance takes the biased variance (no M/(M-1) factor)";
    case OpBug::reduce_drop_last: return "reduce: the last element of each slice is dropped when its length is not a multiple of 4";
    case OpBug::tensorop_wrong_bcast: return "tensorop: whether B broadcasts each of the last two dims is read from the other one";
    case OpBug::lrn_window_short: return "lrn across fwd: the channel window [c-h, c+h] ends one channel early";
    case OpBug::fusion_activ_before_add: return "fusion: the activation is applied before the residual add (alpha*f(v) + beta*r)";
    case OpBug::fusion_bias_twice: return "fusion: the bias is added twice";
  }
  return "";
}

std::shared_ptr<const OpSolver> make_op_mutant(OpBug b) { return std::make_shared<MutantOpSolver>(b); }

}  // namespace hiprim::fuzz_test
