#include "cli/workers.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"

extern char** environ;

namespace hiprim::cli {
namespace {

// Starts w: its command with the GPU variables set to its device and env.label_var to its label
// (a re-run also drops env.fault_var).
void spawn_worker(Worker& w, const WorkerEnv& env, bool rerun) {
  std::vector<std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    auto is = [&](const std::string& name) { return kv.rfind(name + "=", 0) == 0; };
    if (!is("CUDA_VISIBLE_DEVICES") && !is("HIP_VISIBLE_DEVICES") && !is(env.label_var) && !(rerun && is(env.fault_var))) vars.push_back(kv);
  }
  for (const char* k : {"CUDA_VISIBLE_DEVICES=", "HIP_VISIBLE_DEVICES="}) vars.push_back(k + std::to_string(w.device));
  vars.push_back(env.label_var + "=" + w.label);
  std::vector<char*> argv, envp;
  for (auto& s : w.args) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (auto& s : vars) envp.push_back(s.data());
  envp.push_back(nullptr);
  if (posix_spawn(&w.pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0)
    throw RuntimeError("cannot start worker " + w.label);
}

// Waits for w; its exit code (0-2), or 1 with w.lost set.
int wait_worker(Worker& w) {
  int status = 0;
  waitpid(w.pid, &status, 0);
  if (WIFSIGNALED(status))
    w.lost = "killed by signal " + std::to_string(WTERMSIG(status));
  else if (!WIFEXITED(status) || WEXITSTATUS(status) > 2)
    w.lost = "exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  else if (!w.report.empty() && !std::filesystem::exists(w.report))
    w.lost = "no report written";
  return w.lost.empty() ? WEXITSTATUS(status) : 1;
}

}  // namespace

WorkersResult run_workers(int count, int devices, const std::string& dir, bool want_reports, const WorkerEnv& env,
                          const std::function<std::string(int, int)>& label,
                          const std::function<std::vector<std::string>(int, const std::string&)>& command) {
  namespace fs = std::filesystem;
  auto report_of = [&](const std::string& name) { return want_reports ? (fs::path(dir) / (name + ".json")).string() : std::string(); };
  std::vector<Worker> workers(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Worker& w = workers[static_cast<std::size_t>(i)];
    w.index = i, w.device = i % devices, w.label = label(w.device, i), w.report = report_of("worker" + std::to_string(i));
    w.args = command(i, w.report);
    spawn_worker(w, env, false);
  }
  WorkersResult r;
  for (Worker& w : workers) {
    int code = wait_worker(w);
    if (!w.lost.empty()) {
      Worker again = w;
      again.device = (w.device + 1) % devices, again.label = label(again.device, w.index) + ".rerun", again.lost.clear();
      again.report = report_of("worker" + std::to_string(w.index) + ".rerun");
      again.args = command(w.index, again.report);
      std::fprintf(stderr, "hiprim: worker %s (device %d) lost: %s; its share re-run on device %d\n", w.label.c_str(), w.device,
                   w.lost.c_str(), again.device);
      spawn_worker(again, env, true);
      code = wait_worker(again);
      r.lost.push_back({{"worker", w.label}, {"device", w.device}, {"reason", w.lost}, {"rerun_worker", again.label},
                        {"rerun_device", again.device}, {"rerun", again.lost.empty() ? "finished" : "lost: " + again.lost}});
      if (!again.lost.empty()) {
        std::fprintf(stderr, "hiprim: the re-run of worker %s's share was lost too: %s\n", w.label.c_str(), again.lost.c_str());
        code = 3;  // a share nobody finished: never green
      }
      w = again;
    }
    r.worst = std::max(r.worst, code);
    if (w.lost.empty() && !w.report.empty()) r.reports.push_back(w.report);
    if (w.lost.empty()) r.finished.push_back({{"worker", w.label}, {"device", w.device}, {"report", w.report}});
  }
  return r;
}

int parse_devices(const std::string& value, int visible) {
  if (value.empty()) return 0;
  if (value == "all") return std::max(1, visible);
  int devices = 0;
  try {
    devices = std::stoi(value);
  } catch (...) {
    devices = 0;
  }
  if (devices < 1 || std::to_string(devices) != value) throw InputError("--devices '" + value + "': expected all or a positive integer");
  if (visible > 0 && devices > visible) throw InputError("--devices " + value + ": only " + std::to_string(visible) + " GPUs are visible");
  return devices;
}

void abort_if_faulted(const WorkerEnv& env) {
  const char* label = std::getenv(env.label_var.c_str());
  const char* fault = std::getenv(env.fault_var.c_str());
  if (label && fault && std::string(label) == fault) std::abort();
}

}  // namespace hiprim::cli
