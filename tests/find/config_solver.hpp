// A host conv solver with perf configs for the Find, tuning and immediate-mode tests: the fast
// reference's answer (ref.conv.fast), then per config a busy wait of its cost, and for the configs
// in `wrong` one output element off by one (a deliberately wrong config: it must be rejected).
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"

namespace hiprim::test {

struct ConfigSolverSpec {
  std::string name = "test.configs";
  std::vector<std::string> configs{""};     // {""}: no configs (the one implicit config)
  std::map<std::string, double> cost_us;    // a config's busy wait (absent: 0)
  std::set<std::string> wrong;              // configs whose output is off by one
  std::string default_config;               // "": the first config
};

std::shared_ptr<const ConvSolver> make_config_solver(const ConfigSolverSpec& spec);

}  // namespace hiprim::test
