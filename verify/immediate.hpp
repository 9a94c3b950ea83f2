// Immediate mode: which solver (and perf config) runs a problem when none is named, without running
// anything (tuning/README.md). Among the candidates (the backend's solvers of the problem's op, in
// registry order, that the switches admit and that take the problem):
//   1. find-db hit: the problem's best verified find record on this device, when its solver is a
//      candidate and its config fits (skipped in mode fast);
//   2. mode normal with a finder (the CLI's `hiprim run`): Find now (measure, record, use the winner);
//   3. the model (tuning/model.hpp): the first ranked pick whose solver is a candidate. The model
//      chooses the solver; the config is the pick's own only when the pick comes from this very
//      problem, else "" (the solver's default for the problem: a tuned config belongs to the shape
//      it was tuned on, the solver's heuristic is fitted to this one);
//   4. the heuristic: the first candidate, its default config.
// Switches (environment): HIPRIM_FIND_MODE = normal | fast | hybrid (unset: hybrid; normal without a
// finder, as in the C API, is hybrid); HIPRIM_SOLVER = globs: only those solvers;
// HIPRIM_DISABLE_SOLVERS = globs: never those. While HIPRIM_CONV_CONFIG is set, a conv pick's
// config is left "" so that the variable decides (core/conv_solver.hpp).
#pragma once
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/conv_solver.hpp"
#include "core/error.hpp"
#include "core/solver.hpp"
#include "tuning/tuning_dbs.hpp"
#include "verify/solvers.hpp"

namespace hiprim::verify {

enum class FindMode { normal, fast, hybrid };
std::string_view find_mode_name(FindMode m);
// HIPRIM_FIND_MODE; unset or empty: hybrid. InputError naming the value and the choices otherwise.
FindMode find_mode_from_env();

// This machine's key of `problem` for backend b: the current GPU's name, SM count and compute
// capability (device), or "host", the hardware threads and "cpu" (host); hiprim's version.
tuning::DbKey machine_key(const std::string& problem, Backend b);

// HIPRIM_SOLVER (only these; "" all) and HIPRIM_DISABLE_SOLVERS (never these).
struct SolverSwitches {
  std::string only, disabled;
  static SolverSwitches from_env();
  bool admits(const std::string& name) const { return (only.empty() || glob_list_match(only, name)) && !glob_list_match(disabled, name); }
  std::string describe() const;  // " matching HIPRIM_SOLVER='..'" / " outside HIPRIM_DISABLE_SOLVERS='..'" or ""
};

struct NamedPick {
  std::string solver, config;
  std::string source;  // "find-db", "find", "model", "heuristic"
};

struct ImmediateContext {
  FindMode mode = FindMode::hybrid;
  const tuning::TuningDbs* dbs = nullptr;  // null: no find-db, no model
  // Mode normal on a find-db miss: runs Find and returns its verified winner (or nothing).
  std::function<std::optional<NamedPick>()> find;
  static ImmediateContext from_env(const tuning::TuningDbs* dbs);
};

// The config immediate mode runs a model pick with on `problem` (step 3 above).
std::string model_pick_config(const tuning::ModelPick& m, const std::string& problem);

// Steps 1-3 above over names: takes(solver, config) says whether that pick is a candidate with a
// fitting config. Nothing when none applies (the caller then uses the heuristic).
std::optional<NamedPick> db_or_model_pick(const std::string& problem, Backend b, const ImmediateContext& cx,
                                          const std::function<bool(const std::string&, const std::string&)>& takes);

// The library's dbs for immediate mode: the user and system dbs that exist (none is created by a
// lookup), opened once per process.
const tuning::TuningDbs& library_dbs();

template <class S>
struct Chosen {
  const S* solver = nullptr;
  std::string config;
  std::string source;
};

// Immediate mode over a solver list (ConvSolverList with a ConvProblem, OpSolverList with an
// OpProblem): keep(s) narrows the list (e.g. to the op's solvers). When no candidate exists it
// calls no_solver(message), which must throw; the message names the problem, the switches and the
// solvers' refusals.
template <class List, class Problem, class Keep, class Throw>
auto choose_solver(const List& list, const Problem& p, const std::string& text, Backend b, const ImmediateContext& cx, Keep&& keep,
                   Throw&& no_solver) {
  using S = std::remove_cv_t<typename List::value_type::element_type>;
  const SolverSwitches sw = SolverSwitches::from_env();
  std::vector<const S*> cand;
  std::string why;
  bool matched = false;
  for (const auto& s : list) {
    if (s->backend() != b || !keep(*s) || !sw.admits(s->name())) continue;
    matched = true;
    if (const auto a = s->applicable(p); !a) {
      if (why.size() < 400) why += (why.empty() ? "" : "; ") + s->name() + ": " + a.reason;
      continue;
    }
    cand.push_back(s.get());
  }
  if (cand.empty())
    no_solver("no " + std::string(b == Backend::host ? "host" : "device") + " solver" + (matched ? "" : sw.describe()) + " takes " + text +
              (why.empty() ? "" : " (" + why + ")"));
  auto find = [&](const std::string& name) -> const S* {
    for (const S* s : cand)
      if (s->name() == name) return s;
    return nullptr;
  };
  Chosen<S> out{cand.front(), "", "heuristic"};
  const auto pick = db_or_model_pick(text, b, cx, [&](const std::string& name, const std::string& config) {
    const S* s = find(name);
    if (!s) return false;
    const auto cs = s->configs_for(p);
    return config.empty() || std::find(cs.begin(), cs.end(), config) != cs.end();
  });
  if (pick) out = Chosen<S>{find(pick->solver), pick->config, pick->source};
  return out;
}

}  // namespace hiprim::verify
