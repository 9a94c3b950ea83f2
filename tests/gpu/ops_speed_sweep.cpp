// test_ops_speed_sweep: a diagnostic speed sweep of the memory-bound op solvers on the H200 (NVIDIA
// only: CUDA runtime calls and graphs directly), everything in ONE process so the copy bandwidth
// it compares against is measured beside the kernels. Not a speed claim (those come from
// `hiprim bench`); it is the side-by-side view of variants the next tuning step needs.
//   1. copy ceilings: cudaMemcpyAsync device-to-device of 1 GiB, and copy kernels on the solvers'
//      streaming loop (gpu/common/stream_loop.hpp) with 1/2/4/8 packs in flight x 256/1024-thread
//      blocks, and one-pass copies without a loop (1/2/4 packs per thread x 128/256 threads, a grid over
//      all packs): bytes read + written over the time of one copy.
//   2. per case (a large tensor of each op family, each --dtype x --layout) and every GPU solver of
//      its op (plus variants outside the registry: bnorm.spatial.persistent with 1024-thread blocks):
//      check: the runner at batch 2 against the CPU reference (a failed solver is not timed);
//      written: at full size, outputs poisoned, one run, no output element may still hold poison;
//      time: a CUDA graph of K runs rotating over enough buffer sets to cover 3 x L2 (at most 16
//      sets), 2 warm replays, 5 timed replays, median / K; inputs filled on the device with values
//      in [0.5, 1.5) (timing data; correctness is the check's business). GB/s = OpProblem::bytes()
//      over the time; % of the memcpy ceiling.
// Usage: test_ops_speed_sweep [--dtype fp32,fp16,bf16] [--layout nchw,nhwc] [--family bnorm,...]
//                         [--solver GLOBS] [--time-limit S] [--json FILE]
// Prints one line per measurement as it goes and the table (op, dtype, layout, GB/s, % of copy)
// last; --json writes every row.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op_problem.hpp"
#include "gpu/bnorm/solvers.hpp"
#include "gpu/ops_registry.hpp"
#include "tests/gpu/ops_speed_kernels.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"

using namespace hiprim;

namespace {

#define SWEEP_CHECK(call)                                                                              \
  do {                                                                                                 \
    const cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

// One case: its family and the problem with %N% for the batch (timed at 32, checked at 2; %N8%:
// eight times that), %D% the dtype and %L% the layout.
struct Case {
  std::string family, pattern;
};

// Families in the order of the priorities (batch norm, pooling, ReLU/add, LRN, then the rest),
// so a sweep cut short by --time-limit has timed the important ones.
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"bnorm", "bnorm fwd-train spatial %D% %L% n%N% c64 in112x112 eps1e-05 momentum0.1"},
      {"bnorm", "bnorm fwd-train spatial %D% %L% n%N% c128 in56x56 eps1e-05 momentum0.1"},
      {"bnorm", "bnorm fwd-train spatial %D% %L% n%N% c64 in56x56 eps1e-05 momentum0.1"},
      {"bnorm", "bnorm fwd-train spatial %D% %L% n%N% c2048 in7x7 eps1e-05 momentum0.1"},
      {"bnorm", "bnorm fwd-infer spatial %D% %L% n%N% c64 in112x112 eps1e-05"},
      {"bnorm", "bnorm fwd-infer spatial %D% %L% n%N% c256 in56x56 eps1e-05"},
      {"bnorm", "bnorm bwd spatial %D% %L% n%N% c64 in112x112 eps1e-05"},
      {"bnorm", "bnorm bwd spatial %D% %L% n%N% c64 in56x56 eps1e-05"},
      {"bnorm", "bnorm bwd spatial %D% %L% n%N% c256 in14x14 eps1e-05"},  // ResNet-50's most frequent (11 layers), on chip
      {"bnorm", "bnorm fwd-train spatial %D% %L% n%N% c1024 in14x14 eps1e-05 momentum0.1"},  // 14x14 and 7x7: bnorm.spatial.tile's
      {"bnorm", "bnorm bwd spatial %D% %L% n%N% c2048 in7x7 eps1e-05"},
      {"pool", "pool fwd max %D% %L% n%N% c64 in112x112 win3x3 pad1x1 str2x2"},
      {"pool", "pool bwd max %D% %L% n%N% c64 in112x112 win3x3 pad1x1 str2x2"},
      {"pool", "pool fwd avg_incl %D% %L% n%N% c2048 in7x7 win7x7 pad0x0 str1x1"},
      {"pool", "pool fwd avg_excl %D% %L% n%N% c64 in112x112 win3x3 pad1x1 str1x1"},
      {"activ", "activ fwd relu %D% %L% n%N% c64 in112x112"},
      {"activ", "activ bwd relu %D% %L% n%N% c64 in112x112"},
      {"activ", "activ fwd gelu %D% %L% n%N% c64 in112x112"},
      {"tensorop", "tensorop add %D% %L% a%N%x256x56x56 b%N%x256x56x56 alpha1=1 alpha2=1 beta=0"},
      {"tensorop", "tensorop add %D% %L% a%N%x256x56x56 b1x256x1x1 alpha1=1 alpha2=1 beta=0"},
      {"tensorop", "tensorop mul %D% %L% a%N%x256x56x56 b%N%x256x56x56 alpha1=1 alpha2=0.5 beta=1"},
      {"lrn", "lrn fwd across %D% %L% n%N% c96 in55x55 size5 alpha1e-04 beta0.75 k2"},
      {"lrn", "lrn bwd across %D% %L% n%N% c96 in55x55 size5 alpha1e-04 beta0.75 k2"},
      {"lrn", "lrn fwd within %D% %L% n%N% c96 in55x55 size5 alpha1e-04 beta0.75 k2"},
      {"softmax", "softmax fwd log channel %D% %L% n%N% c1000 in1x1"},
      {"softmax", "softmax bwd log channel %D% %L% n%N% c1000 in1x1"},
      {"softmax", "softmax fwd accurate channel %D% %L% n%N% c1000 in32x32"},
      {"softmax", "softmax fwd accurate instance %D% %L% n%N8% c100000 in1x1"},  // rows of 10^5
      {"dropout", "dropout fwd %D% %L% n%N% c64 in112x112 rate0.5 seed1"},
      {"dropout", "dropout bwd %D% %L% n%N% c64 in112x112 rate0.5 seed1"},
      {"reduce", "reduce add %D% %L% dims%N%x256x56x56 over0x2x3 nan_ignore"},
      {"reduce", "reduce max %D% %L% dims%N%x256x56x56 over1 nan_ignore indices"},
  };
  return c;
}

std::string substitute(std::string s, const std::string& key, const std::string& v) {
  for (std::size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), v);
  return s;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string t; std::getline(in, t, ',');)
    if (!t.empty()) out.push_back(t);
  return out;
}

// Median of per-replay times (ms) of `graph` holding k runs.
double replay_ms(cudaGraphExec_t exec, int k, cudaStream_t s) {
  cudaEvent_t a, b;
  SWEEP_CHECK(cudaEventCreate(&a));
  SWEEP_CHECK(cudaEventCreate(&b));
  for (int w = 0; w < 2; ++w) SWEEP_CHECK(cudaGraphLaunch(exec, s));
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    SWEEP_CHECK(cudaEventRecord(a, s));
    SWEEP_CHECK(cudaGraphLaunch(exec, s));
    SWEEP_CHECK(cudaEventRecord(b, s));
    SWEEP_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SWEEP_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / k);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Time per call of enqueue(set) captured k times into one graph (sets rotate).
template <typename F>
double graph_time_ms(F&& enqueue, int sets, int k, cudaStream_t s) {
  cudaGraph_t g;
  SWEEP_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < k; ++i) enqueue(i % sets);
  SWEEP_CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  SWEEP_CHECK(cudaGraphInstantiate(&exec, g, 0));
  const double ms = replay_ms(exec, k, s);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  return ms;
}

struct Row {
  std::string family, problem, solver, dtype, layout, check, written;
  double us = 0, gbps = 0, pct = 0;
};

std::size_t storage_bytes(const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> dtypes{"bf16", "fp16", "fp32"}, layouts{"nhwc", "nchw"}, families;
  std::string solver_globs = "*", json_path;
  double time_limit = 1e9;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "test_ops_speed_sweep: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--dtype") dtypes = split_list(next());
    else if (a == "--layout") layouts = split_list(next());
    else if (a == "--family") families = split_list(next());
    else if (a == "--solver") solver_globs = next();
    else if (a == "--time-limit") time_limit = std::stod(next());
    else if (a == "--json") json_path = next();
    else {
      std::fprintf(stderr, "test_ops_speed_sweep: unknown argument %s (see the header of tests/gpu/ops_speed_sweep.cpp)\n", a.c_str());
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  try {
    int dev = 0, l2 = 0;
    SWEEP_CHECK(cudaGetDevice(&dev));
    SWEEP_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    cudaDeviceProp prop{};
    SWEEP_CHECK(cudaGetDeviceProperties(&prop, dev));
    std::printf("test_ops_speed_sweep on %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, l2 >> 20);
    cudaStream_t s;
    SWEEP_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    nlohmann::json out = {{"device", prop.name}, {"rows", nlohmann::json::array()}, {"copy", nlohmann::json::array()}};

    // 1. Copy ceilings.
    const std::size_t copy_bytes = std::size_t{1} << 30;
    void *src = nullptr, *dst = nullptr;
    SWEEP_CHECK(cudaMalloc(&src, copy_bytes));
    SWEEP_CHECK(cudaMalloc(&dst, copy_bytes));
    sweep::fill(src, DType::fp32, static_cast<long long>(copy_bytes / 4), 1, s);
    const double memcpy_ms =
        graph_time_ms([&](int) { SWEEP_CHECK(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, s)); }, 1, 4, s);
    const double copy_gbps = 2.0 * copy_bytes / (memcpy_ms * 1e6);
    std::printf("copy  cudaMemcpyAsync 1 GiB: %.1f GB/s (read + written)\n", copy_gbps);
    out["copy"].push_back({{"method", "cudaMemcpyAsync"}, {"gbps", copy_gbps}});
    for (int block : {256, 1024})
      for (int u : {1, 2, 4, 8}) {
        const double ms = graph_time_ms([&](int) { sweep::copy_variant(src, dst, static_cast<long long>(copy_bytes), u, block, s); }, 1, 4, s);
        const double g = 2.0 * copy_bytes / (ms * 1e6);
        std::printf("copy  stream_items<%d>, %4d threads: %.1f GB/s (%.1f%% of memcpy)\n", u, block, g, 100 * g / copy_gbps);
        out["copy"].push_back({{"method", "stream_items"}, {"unroll", u}, {"block", block}, {"gbps", g}});
      }
    for (int block : {128, 256})
      for (int u : {1, 2, 4}) {
        const double ms = graph_time_ms([&](int) { sweep::copy_oneshot(src, dst, static_cast<long long>(copy_bytes), u, block, s); }, 1, 4, s);
        const double g = 2.0 * copy_bytes / (ms * 1e6);
        std::printf("copy  one pass, %d packs per thread, %4d threads: %.1f GB/s (%.1f%% of memcpy)\n", u, block, g, 100 * g / copy_gbps);
        out["copy"].push_back({{"method", "one_shot"}, {"unroll", u}, {"block", block}, {"gbps", g}});
      }
    SWEEP_CHECK(cudaFree(src));
    SWEEP_CHECK(cudaFree(dst));

    // 2. The cases.
    OpSolverList solvers;
    for (const auto& sv : gpu::gpu_op_solvers())
      if (verify::glob_list_match(solver_globs, sv->name())) solvers.push_back(sv);
    struct Variant {
      std::string label;
      std::shared_ptr<const OpSolver> solver;
    };
    std::vector<Variant> all;
    for (const auto& sv : solvers) all.push_back({sv->name(), sv});
    if (verify::glob_list_match(solver_globs, "bnorm.spatial.persistent"))
      all.push_back({"bnorm.spatial.persistent[1024]", gpu::bnorm_persistent_solver(1024)});
    std::vector<Row> rows;
    bool stopped = false;
    for (const std::string& dt : dtypes)
      for (const std::string& ly : layouts)
        for (const Case& cs : cases()) {
          if (!families.empty() && std::find(families.begin(), families.end(), cs.family) == families.end()) continue;
          if (elapsed() > time_limit) {
            stopped = true;
            break;
          }
          const std::string base = substitute(substitute(cs.pattern, "%D%", dt), "%L%", ly);
          const OpProblemPtr p = parse_op_problem(substitute(substitute(base, "%N8%", "256"), "%N%", "32"));
          const OpProblemPtr small = parse_op_problem(substitute(substitute(base, "%N8%", "16"), "%N%", "2"));
          const auto ts = p->tensors();
          std::size_t set_bytes = 0;
          for (const auto& t : ts) set_bytes += storage_bytes(t.desc);
          const int sets = static_cast<int>(std::clamp<std::size_t>((3 * static_cast<std::size_t>(l2) + set_bytes - 1) / set_bytes, 1, 16));
          std::vector<std::vector<void*>> bufs(static_cast<std::size_t>(sets));
          for (auto& b : bufs)
            for (const auto& t : ts) {
              void* q = nullptr;
              SWEEP_CHECK(cudaMalloc(&q, std::max<std::size_t>(storage_bytes(t.desc), 16)));
              sweep::fill(q, t.desc.dtype, t.desc.storage_elements(), 17, s);
              b.push_back(q);
            }
          verify::RunOptions ro;
          const verify::PreparedCase small_case(small, ro);
          for (const auto& v : all) {
            if (v.solver->op() != p->op() || !v.solver->applicable(*p)) continue;
            Row r{cs.family, p->str(), v.label, dt, ly, "", "", 0, 0, 0};
            const auto rec = verify::run_case(small_case, *v.solver, ro);
            r.check = std::string(verify::status_name(rec.verdict.status));
            if (rec.verdict.status != verify::Status::passed && rec.verdict.status != verify::Status::unsupported) {
              std::printf("%-8s %-80s %-32s check %s: %s\n", cs.family.c_str(), p->str().c_str(), v.label.c_str(), r.check.c_str(),
                          rec.verdict.reason.substr(0, 200).c_str());
              rows.push_back(r);
              continue;
            }
            const std::size_t wsb = v.solver->workspace_bytes(*p);
            void* ws = nullptr;
            if (wsb) SWEEP_CHECK(cudaMalloc(&ws, wsb));
            // Written at full size: outputs poisoned, one run, no poison left.
            for (std::size_t k = 0; k < ts.size(); ++k)
              if (ts[k].role == OpTensor::Role::output) SWEEP_CHECK(cudaMemsetAsync(bufs[0][k], 0xFF, storage_bytes(ts[k].desc), s));
            v.solver->run(*p, bufs[0], ws, wsb, s);
            unsigned long long* dcount = nullptr;
            SWEEP_CHECK(cudaMalloc(&dcount, sizeof(unsigned long long)));
            SWEEP_CHECK(cudaMemsetAsync(dcount, 0, sizeof(unsigned long long), s));
            for (std::size_t k = 0; k < ts.size(); ++k)
              if (ts[k].role == OpTensor::Role::output)
                sweep::count_poison(bufs[0][k], ts[k].desc.storage_elements(), static_cast<int>(dtype_size(ts[k].desc.dtype)), dcount, s);
            unsigned long long unwritten = 0;
            SWEEP_CHECK(cudaMemcpyAsync(&unwritten, dcount, sizeof(unwritten), cudaMemcpyDeviceToHost, s));
            SWEEP_CHECK(cudaStreamSynchronize(s));
            cudaFree(dcount);
            r.written = unwritten == 0 ? "all" : std::to_string(unwritten) + " unwritten";
            const int k = sets * std::max(1, 20 / sets);
            const double ms = graph_time_ms([&](int i) { v.solver->run(*p, bufs[static_cast<std::size_t>(i)], ws, wsb, s); }, sets, k, s);
            if (ws) cudaFree(ws);
            r.us = ms * 1e3;
            r.gbps = p->bytes() / (ms * 1e6);
            r.pct = 100 * r.gbps / copy_gbps;
            std::printf("%-8s %-80s %-32s %9.2f us %8.1f GB/s %5.1f%%  check %s, written %s\n", cs.family.c_str(), p->str().c_str(),
                        v.label.c_str(), r.us, r.gbps, r.pct, r.check.c_str(), r.written.c_str());
            std::fflush(stdout);
            rows.push_back(r);
          }
          for (auto& b : bufs)
            for (void* q : b) cudaFree(q);
        }
    if (stopped) std::printf("test_ops_speed_sweep: time limit %.0f s reached; later cases not run\n", time_limit);

    // The table: per case the fastest passed solver, then every row.
    std::printf("\n%-8s %-5s %-5s %-70s %-32s %9s %8s %7s\n", "op", "dtype", "lay", "problem", "solver", "us", "GB/s", "%copy");
    std::map<std::string, const Row*> best;
    for (const Row& r : rows) {
      if (r.check != "passed" || r.written != "all") continue;
      const Row*& b = best[r.problem];
      if (!b || r.us < b->us) b = &r;
    }
    for (const Row& r : rows) {
      const bool is_best = best.count(r.problem) && best[r.problem] == &r;
      const std::string shown = r.problem.size() > 70 ? r.problem.substr(0, 67) + "..." : r.problem;
      if (r.check != "passed" || r.written != "all")
        std::printf("%-8s %-5s %-5s %-70s %-32s %s %s\n", r.family.c_str(), r.dtype.c_str(), r.layout.c_str(), shown.c_str(),
                    r.solver.c_str(), r.check.c_str(), r.written.c_str());
      else
        std::printf("%-8s %-5s %-5s %-70s %-32s %9.2f %8.1f %6.1f%s\n", r.family.c_str(), r.dtype.c_str(), r.layout.c_str(), shown.c_str(),
                    r.solver.c_str(), r.us, r.gbps, r.pct, is_best ? " *" : "");
      out["rows"].push_back({{"family", r.family}, {"problem", r.problem}, {"solver", r.solver}, {"dtype", r.dtype},
                             {"layout", r.layout}, {"check", r.check}, {"written", r.written}, {"us", r.us},
                             {"gbps", r.gbps}, {"pct_copy", r.pct}, {"best", is_best}});
    }
    std::printf("(* fastest passed solver of the problem; copy = cudaMemcpyAsync %.1f GB/s measured above; %.0f s)\n", copy_gbps, elapsed());
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(1) << "\n";
    bool all_ok = true;
    for (const Row& r : rows) all_ok = all_ok && (r.check == "passed" || r.check == "unsupported") && (r.written.empty() || r.written == "all");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_ops_speed_sweep: %s\n", e.what());
    return 1;
  }
}
