// A device solver run on the host emulation of the HIP layer (tests/gpu/emu): the same solver,
// reporting Backend::host so the runner gives it host buffers (the emulated kernels' "device"
// memory is host memory).
#pragma once
#include <memory>

#include "core/op_solver.hpp"

namespace hiprim {

class EmulatedOpSolver final : public OpSolver {
 public:
  explicit EmulatedOpSolver(std::shared_ptr<const OpSolver> s) : s_(std::move(s)) {}
  std::string name() const override { return s_->name(); }
  std::string op() const override { return s_->op(); }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return s_->summary(); }
  bool deterministic() const override { return s_->deterministic(); }
  Applicability applicable(const OpProblem& p) const override { return s_->applicable(p); }
  std::size_t workspace_bytes(const OpProblem& p) const override { return s_->workspace_bytes(p); }
  void run(const OpProblem& p, const std::vector<void*>& b, void* ws, std::size_t bytes, void* stream) const override {
    s_->run(p, b, ws, bytes, stream);
  }

 private:
  std::shared_ptr<const OpSolver> s_;
};

}  // namespace hiprim
