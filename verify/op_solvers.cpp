#include "verify/op_solvers.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "reference/op_reference.hpp"
#include "verify/solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/ops_registry.hpp"
#endif

namespace hiprim::verify {
namespace {

// "ref.<op>": decodes the input buffers, runs the registered reference, stores its values rounded
// (RNE) to each tensor's dtype. In_out tensors are read before and overwritten with the answer.
class OpReferenceSolver final : public OpSolver {
 public:
  explicit OpReferenceSolver(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "ref." + op_; }
  std::string op() const override { return op_; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "CPU reference (double), rounded once to the dtype; every " + op_ + " problem"; }
  Applicability applicable(const OpProblem& p) const override {
    if (p.op() != op_) return Applicability::no("not a " + op_ + " problem (" + p.op() + ")");
    auto errs = p.validate();
    if (!errs.empty()) return Applicability::no("invalid problem: " + errs.front());
    return Applicability::yes();
  }
  void run(const OpProblem& p, const std::vector<void*>& buffers, void*, std::size_t ws_bytes, void*) const override {
    check_op_run(name(), p, p.op() == op_, buffers.size(), ws_bytes, 0);
    const auto ts = p.tensors();
    std::vector<HostTensor> in(ts.size());
    std::vector<const HostTensor*> ptrs(ts.size(), nullptr);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::output) continue;
      in[i] = HostTensor(ts[i].desc);
      in[i].from_bytes(static_cast<const unsigned char*>(buffers[i]));
      ptrs[i] = &in[i];
    }
    const auto expected = ref::op_expected(p, ptrs);
    std::size_t k = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::input) continue;
      HostTensor o(ts[i].desc);
      const auto& v = expected[k++].value;
      for (std::size_t j = 0; j < v.size(); ++j) o.data[j] = round_to(ts[i].desc.dtype, v[j]);
      auto bytes = o.to_bytes();
      std::memcpy(buffers[i], bytes.data(), bytes.size());
    }
  }

 private:
  std::string op_;
};

}  // namespace

std::shared_ptr<const OpSolver> make_op_reference_solver(const std::string& op) { return std::make_shared<OpReferenceSolver>(op); }

const OpSolverList& op_solvers() {
  static const OpSolverList all = [] {
    OpSolverList l;
#ifdef HIPRIM_WITH_GPU
    for (auto& s : gpu::gpu_op_solvers()) l.push_back(s);
#endif
    for (const std::string& op : op_names())
      if (ref::has_op_reference(op)) l.push_back(make_op_reference_solver(op));
    return l;
  }();
  return all;
}

OpSolverList match_op_solvers(const std::string& globs) { return match_solvers(op_solvers(), globs); }

OpSolverList match_op_solvers(const std::string& globs, std::string_view op) {
  OpSolverList out;
  for (auto& s : match_op_solvers(globs))
    if (s->op() == op) out.push_back(s);
  return out;
}

std::shared_ptr<const OpSolver> conv_op_solver(std::shared_ptr<const ConvSolver> s) {
  // The view held together with the solver it refers to.
  struct Held {
    std::shared_ptr<const ConvSolver> solver;
    ConvOpSolver view;
  };
  auto held = std::make_shared<const Held>(Held{s, ConvOpSolver(*s)});
  return std::shared_ptr<const OpSolver>(held, &held->view);
}

const OpSolverList& all_solvers() {
  static const OpSolverList list = [] {
    OpSolverList out;
    for (auto& s : conv_solvers()) out.push_back(conv_op_solver(s));
    out.insert(out.end(), op_solvers().begin(), op_solvers().end());
    return out;
  }();
  return list;
}

}  // namespace hiprim::verify
