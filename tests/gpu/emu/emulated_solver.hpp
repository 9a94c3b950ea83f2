// A device solver run on the host emulation of the HIP layer (tests/gpu/emu): the same solver,
// reporting Backend::host so the runner gives it host buffers (the emulated kernels' "device"
// memory is host memory).
#pragma once
#include <memory>

#include "core/conv_solver.hpp"
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

// The same for a conv solver, every property forwarded (configs and their workspaces included);
// direct_claim declares the direct error model instead of the solver's own (a wrong declaration a
// test expects the judge to catch).
class EmulatedConvSolver final : public ConvSolver {
 public:
  explicit EmulatedConvSolver(std::shared_ptr<const ConvSolver> s, bool direct_claim = false)
      : s_(std::move(s)), direct_(direct_claim) {}
  std::string name() const override { return s_->name(); }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return s_->summary(); }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return s_->implicit_zeros(p); }
  ConvErrorModel error_model(const ConvProblem& p) const override { return direct_ ? ConvErrorModel{} : s_->error_model(p); }
  std::vector<std::string> perf_configs() const override { return s_->perf_configs(); }
  std::vector<std::string> configs_for(const ConvProblem& p) const override { return s_->configs_for(p); }
  std::string default_config_for(const ConvProblem& p) const override { return s_->default_config_for(p); }
  Applicability applicable(const ConvProblem& p) const override { return s_->applicable(p); }
  std::size_t workspace_bytes(const ConvProblem& p) const override { return s_->workspace_bytes(p); }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    return s_->config_workspace_bytes(p, config);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override { s_->run(p, t); }

 private:
  std::shared_ptr<const ConvSolver> s_;
  bool direct_ = false;
};

}  // namespace hiprim
