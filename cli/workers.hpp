// Worker processes of `--devices` (fuzz, check): one process per worker, each seeing one GPU
// (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES; without GPUs a CPU process), started from this
// executable with its own command line, labelled through an environment variable. A worker lost
// mid-run (a signal, an exit code past 2, or no report written: its device failed) is reported and
// its command re-run once on the next device, so its share is never lost.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiprim::cli {

struct Worker {
  int index = 0, device = 0;
  std::string label, report;      // report: the file its command writes ("": none asked)
  std::vector<std::string> args;  // its command line, argv[0] first
  pid_t pid = 0;
  std::string lost;  // "" when it finished (exit 0-2 and its report written), else why not
};

struct WorkerEnv {
  std::string label_var;  // set to the worker's label, e.g. HIPRIM_FUZZ_WORKER
  std::string fault_var;  // when it names a worker's label, that worker aborts at its start (tests)
};

struct WorkersResult {
  int worst = 0;                    // the largest exit code (3: a share lost twice)
  std::vector<std::string> reports;  // the finished workers' report files, in worker order
  nlohmann::json lost = nlohmann::json::array();  // {worker, device, reason, rerun_worker, rerun_device, rerun}
  nlohmann::json finished = nlohmann::json::array();  // {worker, device, report}: who ran each share, in worker order
};

// Runs `count` workers, worker w on device w mod devices: label(device, w) names it, command(w, report)
// gives its command line writing `report` (a file in `dir`, "" when !want_reports). Waits for all; a
// lost worker is re-run once on device (d + 1) mod devices, labelled "<label>.rerun", without the fault.
WorkersResult run_workers(int count, int devices, const std::string& dir, bool want_reports, const WorkerEnv& env,
                          const std::function<std::string(int device, int w)>& label,
                          const std::function<std::vector<std::string>(int w, const std::string& report)>& command);

// The worker count of `--devices VALUE` ("" : 0, this process only; "all": the visible GPUs, at least
// 1; N: N, at most the visible GPUs when there are any); InputError naming the value otherwise.
int parse_devices(const std::string& value, int visible_gpus);

// Aborts this process when `env.fault_var` names its label (`env.label_var`): a lost device, for the tests.
void abort_if_faulted(const WorkerEnv& env);

}  // namespace hiprim::cli
