// A device solver run on the host emulation of the HIP layer (tests/gpu/emu): the same solver (its
// perf configs forwarded), reporting Backend::host so the runner gives it host buffers (the emulated kernels' "device"
// memory is host memory).
#pragma once
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"
#include "core/op_solver.hpp"
#include "core/tensor.hpp"
#include "reference/conv.hpp"

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
  std::vector<std::string> perf_configs() const override { return s_->perf_configs(); }
  std::string default_perf_config() const override { return s_->default_perf_config(); }
  std::vector<std::string> configs_for(const OpProblem& p) const override { return s_->configs_for(p); }
  std::string default_config_for(const OpProblem& p) const override { return s_->default_config_for(p); }
  std::size_t config_workspace_bytes(const OpProblem& p, const std::string& config) const override {
    return s_->config_workspace_bytes(p, config);
  }
  void run_config(const OpProblem& p, const std::vector<void*>& b, void* ws, std::size_t bytes, void* stream,
                  const std::string& config) const override {
    s_->run_config(p, b, ws, bytes, stream, config);
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
  double accumulation_error_factor() const override { return s_->accumulation_error_factor(); }
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

// Runs the emulated conv solver s with `config` on p's inputs as ref::ConvInputs holds them (fwd x, w;
// bwd-data dy, w; bwd-weights x, dy) in host buffers, each in its ConvTensors slot, with the
// workspace the config needs; returns the output's bytes (0xA5 wherever the solver wrote nothing).
inline std::vector<unsigned char> run_emulated_conv(const ConvSolver& s, const ConvProblem& p, const ref::ConvInputs& in,
                                                    const std::string& config) {
  const bool fwd = p.dir == ConvDir::fwd, wgrad = p.dir == ConvDir::bwd_weights;
  std::vector<unsigned char> a = (fwd || wgrad ? in.x : in.y)->to_bytes(), b = (wgrad ? in.y : in.w)->to_bytes();
  std::vector<unsigned char> out(HostTensor(fwd ? p.y_desc() : wgrad ? p.w_desc() : p.x_desc()).to_bytes().size(), 0xA5);
  std::vector<unsigned char> ws(s.config_workspace_bytes(p, config));
  ConvTensors t;
  if (wgrad) {
    t.x = a.data(), t.y = b.data(), t.w = out.data();
  } else {
    (fwd ? t.x : t.y) = a.data();
    t.w = b.data();
    (fwd ? t.y : t.x) = out.data();
  }
  t.workspace = ws.data();
  t.workspace_bytes = ws.size();
  t.config = config;
  s.run(p, t);
  return out;
}

// Elements of es bytes whose bytes differ between want and got (the bitwise tests' count).
inline int differing_elements(const std::vector<unsigned char>& want, const std::vector<unsigned char>& got, std::size_t es) {
  int differ = 0;
  for (std::size_t i = 0; i + es <= want.size() && i + es <= got.size(); i += es) differ += std::memcmp(&want[i], &got[i], es) != 0;
  return differ + (want.size() != got.size() ? 1 : 0);
}

}  // namespace hiprim
