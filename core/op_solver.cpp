// OpSolver's perf-config defaults (core/op_solver.hpp): a solver without configs has the one
// implicit config "", and a run with it is run().
#include <algorithm>

#include "core/error.hpp"
#include "core/op_solver.hpp"

namespace hiprim {

void check_config(const std::string& solver, const std::string& problem, const std::vector<std::string>& configs,
                  const std::string& config) {
  if (config.empty() || std::find(configs.begin(), configs.end(), config) != configs.end()) return;
  std::string list;
  for (const auto& c : configs) list += (list.empty() ? "" : ", ") + (c.empty() ? std::string("\"\"") : c);
  throw InputError(solver + ": perf config '" + config + "' cannot run " + problem + " (its configs there: " +
                   (list.empty() ? std::string("none") : list) + ")");
}

std::vector<std::string> OpSolver::configs_for(const OpProblem& p) const {
  if (!applicable(p)) return {};
  const std::vector<std::string> all = perf_configs();
  return all.empty() ? std::vector<std::string>{""} : all;
}

std::size_t OpSolver::config_workspace_bytes(const OpProblem& p, const std::string& config) const {
  if (config != default_config_for(p)) check_config(name(), p.str(), configs_for(p), config);
  return workspace_bytes(p);
}

void OpSolver::run_config(const OpProblem& p, const std::vector<void*>& buffers, void* workspace, std::size_t ws_bytes, void* stream,
                          const std::string& config) const {
  // A solver that does not override this runs one config: its default (or its only one).
  const std::vector<std::string> configs = configs_for(p);
  if (!config.empty() && config != default_config_for(p) && !(configs.size() == 1 && configs[0] == config))
    throw InputError(name() + ": perf config '" + config + "' is not its default for " + p.str() + " and it runs no other");
  run(p, buffers, workspace, ws_bytes, stream);
}

}  // namespace hiprim
