// hiprim_reference_bench: times conv_fast (with abs_sum, as the comparator uses it) on convolution
// problems and records each case's peak resident memory. Each case runs in a forked child so that
// its ru_maxrss (getrusage of that child) is its own peak, not the high-water mark of earlier cases.
//   hiprim_reference_bench [--threads N] [--json FILE] ["conv fwd fp32 nchw n32 ..." ...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/error.hpp"
#include "reference/conv.hpp"

namespace {

using hiprim::ConvDir;
using hiprim::HostTensor;

HostTensor random_tensor(const hiprim::TensorDesc& d, std::mt19937& rng) {
  HostTensor t(d);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : t.data) v = hiprim::round_to(d.dtype, u(rng));
  return t;
}

// Runs conv_fast once on random inputs; returns wall seconds.
double time_case(const hiprim::ConvProblem& p, int threads) {
  std::mt19937 rng(1234);
  HostTensor x, w, y, bias;
  hiprim::ref::ConvInputs in;
  if (p.dir != ConvDir::bwd_data) in.x = &(x = random_tensor(p.x_desc(), rng));
  if (p.dir != ConvDir::bwd_weights) in.w = &(w = random_tensor(p.w_desc(), rng));
  if (p.dir != ConvDir::fwd) in.y = &(y = random_tensor(p.y_desc(), rng));
  if (p.bias) in.bias = &(bias = random_tensor(p.bias_desc(), rng));
  auto t0 = std::chrono::steady_clock::now();
  auto out = hiprim::ref::conv_fast(p, in, true, nullptr, threads);
  auto t1 = std::chrono::steady_clock::now();
  if (out.value.empty()) throw hiprim::RuntimeError("empty output");
  return std::chrono::duration<double>(t1 - t0).count();
}

// Forks; the child times the case and sends the seconds through a pipe. Returns {seconds, peak RSS MiB}.
std::pair<double, double> run_forked(const hiprim::ConvProblem& p, int threads) {
  int fd[2];
  if (pipe(fd) != 0) throw hiprim::RuntimeError("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw hiprim::RuntimeError("fork failed");
  if (pid == 0) {
    close(fd[0]);
    double s = -1.0;
    try {
      s = time_case(p, threads);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "case failed: %s\n", e.what());
    }
    ssize_t wrote = write(fd[1], &s, sizeof s);
    _exit(wrote == sizeof s && s >= 0 ? 0 : 1);
  }
  close(fd[1]);
  double s = -1.0;
  ssize_t got = read(fd[0], &s, sizeof s);
  close(fd[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  if (got != sizeof s || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || s < 0)
    throw hiprim::RuntimeError("benchmark case \"" + to_string(p) + "\" failed");
  return {s, static_cast<double>(ru.ru_maxrss) / 1024.0};  // ru_maxrss is in KiB on Linux
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times the CPU reference convolution (conv_fast) and its peak memory"};
  std::vector<std::string> problems;
  std::string json_path;
  int threads = 0;
  app.add_option("problems", problems, "problem strings (default: the n32 c256 14x14 3x3 case)");
  app.add_option("--json", json_path, "write the results as JSON to this file");
  app.add_option("--threads", threads, "threads for conv_fast (0: hardware concurrency)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (problems.empty()) problems.push_back("conv fwd fp32 nchw n32 c256 k256 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1");
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const int used_threads = std::min(threads > 0 ? threads : std::max(cores, 1), 32);  // conv_fast caps at 32

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  double load[1] = {-1.0};  // 1-minute load average at start: other work on the machine slows the timings
  getloadavg(load, 1);
  nlohmann::json report{{"machine", {{"host", host}, {"cores", cores}, {"compiler", compiler()}, {"load_average_1min", load[0]}}},
                        {"with_abs_sum", true},
                        {"cases", nlohmann::json::array()}};
  try {
    for (const auto& s : problems) {
      const hiprim::ConvProblem p = hiprim::parse_conv_problem(s);
      auto [seconds, rss] = run_forked(p, threads);
      const double gflops = p.flops() / seconds * 1e-9;
      std::printf("%-80s %8.3f s %8.2f GFLOP/s %8.1f MiB peak RSS %d threads\n", to_string(p).c_str(), seconds, gflops,
                  rss, used_threads);
      std::fflush(stdout);
      report["cases"].push_back(
          {{"problem", to_string(p)}, {"seconds", seconds}, {"gflops", gflops}, {"peak_rss_mib", rss}, {"threads", used_threads}});
    }
  } catch (const hiprim::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    if (!f) {
      std::cerr << "error: cannot write " << json_path << "\n";
      return 1;
    }
    f << report.dump(2) << "\n";
  }
  return 0;
}
