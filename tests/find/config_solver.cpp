#include "tests/find/config_solver.hpp"

#include <chrono>

#include "verify/host_solvers.hpp"

namespace hiprim::test {
namespace {

class ConfigSolver final : public ConvSolver {
 public:
  explicit ConfigSolver(ConfigSolverSpec s) : s_(std::move(s)), ref_(verify::make_fast_reference_solver()) {
    if (s_.default_config.empty()) s_.default_config = s_.configs.front();
  }
  std::string name() const override { return s_.name; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test solver: ref.conv.fast plus a busy wait per perf config"; }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return ref_->implicit_zeros(p); }
  Applicability applicable(const ConvProblem& p) const override { return ref_->applicable(p); }
  std::size_t workspace_bytes(const ConvProblem& p) const override { return ref_->workspace_bytes(p); }
  std::vector<std::string> perf_configs() const override { return s_.configs.size() == 1 && s_.configs[0].empty() ? std::vector<std::string>{} : s_.configs; }
  std::string default_perf_config() const override { return s_.default_config; }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string cfg = t.config.empty() ? s_.default_config : t.config;
    ConvTensors inner = t;
    inner.config.clear();
    ref_->run(p, inner);
    const auto it = s_.cost_us.find(cfg);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(it == s_.cost_us.end() ? 0.0 : it->second);
    while (std::chrono::steady_clock::now() < until) {
    }
    if (s_.wrong.count(cfg)) {  // fp32 problems only: the output's first element off by one
      void* out = p.dir == ConvDir::fwd ? t.y : p.dir == ConvDir::bwd_data ? t.x : t.w;
      static_cast<float*>(out)[0] += 1.0f;
    }
  }

 private:
  ConfigSolverSpec s_;
  std::shared_ptr<const ConvSolver> ref_;
};

}  // namespace

std::shared_ptr<const ConvSolver> make_config_solver(const ConfigSolverSpec& spec) { return std::make_shared<ConfigSolver>(spec); }

}  // namespace hiprim::test
