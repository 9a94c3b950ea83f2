// Immediate mode (verify/immediate.hpp).
#include "verify/immediate.hpp"

#include <cstdlib>
#include <filesystem>
#include <thread>
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {
namespace {

std::string env_text(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The device part of the key of backend b (asked once per process: the device query is slow).
tuning::DbKey device_key(Backend b) {
  tuning::DbKey k;
  k.hiprim_version = tuning::current_hiprim_version();
  if (b == Backend::host) {
    k.device = "host", k.compute_capability = "cpu";
    k.sm_count = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return k;
  }
#ifdef HIPRIM_WITH_GPU
  const gpu::DeviceInfo d = gpu::device_info();
  k.device = d.name, k.sm_count = d.sm_count;
  k.compute_capability = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  return k;
#else
  throw RuntimeError("no device key: this hiprim is built without a GPU backend");
#endif
}

}  // namespace

std::string_view find_mode_name(FindMode m) {
  switch (m) {
    case FindMode::normal: return "normal";
    case FindMode::fast: return "fast";
    case FindMode::hybrid: return "hybrid";
  }
  return "?";
}

FindMode find_mode_from_env() {
  const std::string v = env_text("HIPRIM_FIND_MODE");
  if (v.empty() || v == "hybrid") return FindMode::hybrid;
  if (v == "normal") return FindMode::normal;
  if (v == "fast") return FindMode::fast;
  throw InputError("HIPRIM_FIND_MODE='" + v + "': expected normal, fast or hybrid");
}

tuning::DbKey machine_key(const std::string& problem, Backend b) {
  static const tuning::DbKey host = device_key(Backend::host);
  tuning::DbKey k;
  if (b == Backend::host) {
    k = host;
  } else {
    static const std::optional<tuning::DbKey> device = []() -> std::optional<tuning::DbKey> {
      try {
        return device_key(Backend::device);
      } catch (const RuntimeError&) {
        return std::nullopt;
      }
    }();
    if (!device) throw RuntimeError("no device key: no usable GPU");
    k = *device;
  }
  k.problem = problem;
  return k;
}

SolverSwitches SolverSwitches::from_env() { return {env_text("HIPRIM_SOLVER"), env_text("HIPRIM_DISABLE_SOLVERS")}; }

std::string SolverSwitches::describe() const {
  std::string s;
  if (!only.empty()) s += " matching HIPRIM_SOLVER='" + only + "'";
  if (!disabled.empty()) s += std::string(s.empty() ? "" : " and") + " outside HIPRIM_DISABLE_SOLVERS='" + disabled + "'";
  return s;
}

ImmediateContext ImmediateContext::from_env(const tuning::TuningDbs* dbs) {
  ImmediateContext cx;
  cx.mode = find_mode_from_env();
  cx.dbs = dbs;
  return cx;
}

std::string model_pick_config(const tuning::ModelPick& m, const std::string& problem) { return m.from_problem == problem ? m.config : std::string(); }

std::optional<NamedPick> db_or_model_pick(const std::string& problem, Backend b, const ImmediateContext& cx,
                                          const std::function<bool(const std::string&, const std::string&)>& takes) {
  // While HIPRIM_CONV_CONFIG is set, a conv pick runs with the variable's config.
  const bool env_config = problem.rfind("conv ", 0) == 0 && !env_text(kConvConfigEnv).empty();
  auto fit = [&](NamedPick p) -> std::optional<NamedPick> {
    if (env_config) p.config.clear();
    if (!takes(p.solver, p.config)) return std::nullopt;
    return p;
  };
  tuning::DbKey key;
  try {
    key = machine_key(problem, b);
  } catch (const RuntimeError&) {
    return std::nullopt;  // no device to key by: the heuristic
  }
  if (cx.dbs && cx.mode != FindMode::fast)
    if (const auto r = cx.dbs->best_find(key))
      if (auto p = fit({r->solver, r->config, "find-db"})) return p;
  if (cx.mode == FindMode::normal && cx.find)
    if (const auto f = cx.find())
      if (auto p = fit(*f)) return p;
  if (cx.dbs) {
    std::vector<tuning::ModelPick> picks;
    try {
      picks = cx.dbs->model().rank(key);
    } catch (const InputError&) {
      return std::nullopt;  // a problem the model cannot read
    }
    for (const auto& m : picks)
      if (auto p = fit({m.solver, model_pick_config(m, problem), "model"})) return p;
  }
  return std::nullopt;
}

const tuning::TuningDbs& library_dbs() {
  static const tuning::TuningDbs dbs = [] {
    tuning::DbPaths p = tuning::default_db_paths();
    std::error_code ec;
    if (!p.user.empty() && !std::filesystem::exists(p.user, ec)) p.user.clear();
    // A user db not made yet is no news to a library call: only other warnings are passed on.
    return tuning::TuningDbs(p, [](const std::string& w) {
      if (w.rfind("no user tuning db", 0) != 0) tuning::warn_to_stderr(w);
    });
  }();
  return dbs;
}

}  // namespace hiprim::verify
