// The tuning sweep of conv.igemm.wgmma on the device (scripts/device_wgmma.sh runs it; it skips
// unless HIPRIM_IGEMM_SWEEP=1). Tuning data for the heuristic, not a speed claim (those come from
// `hiprim bench`). For every ResNet-50 layer (verify/suites/resnet50_layers.txt) at batch
// HIPRIM_IGEMM_SWEEP_BATCH (default 32) and each direction it takes:
//   1. integer inputs (exact tier), the conv.naive GPU solver's output as the reference;
//   2. a set of configs (the heuristic's pick; every tile at its default stages and best split by
//      the model; the pick's tile at other stage counts and split counts), each run once and its
//      output compared with the reference value by value: a config that differs FAILS and is not timed;
//   3. each verified config timed by CUDA-graph replay: 20 runs per graph over rotating copies of
//      the inputs (>= 150 MB in all, 3x the L2, when memory allows), the graph replayed 3 times;
// then prints one line per problem (pick vs best, TFLOP/s, % of the 790 TFLOP/s bf16 ceiling) and
// the weighted whole-net totals per direction, and writes every row to HIPRIM_IGEMM_SWEEP_OUT (CSV).
// HIPRIM_IGEMM_SWEEP_SECONDS: no new problem starts after that many seconds (the totals say so).
// HIPRIM_IGEMM_SWEEP_SET=staged: only the solver's default and the staged-epilogue grid (add_staged_grid).
// IgemmSweep.Profile runs the pick on HIPRIM_IGEMM_PROFILE (a problem string) 5 times, for ncu.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/conv/registry.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/conv_exact_cases.hpp"

namespace hiprim::gpu {
namespace {

constexpr double kCeilingTflops = 790.0;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw RuntimeError(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Layer {
  long c, k, h, w, r, s, stride, pad, count;
};
std::vector<Layer> resnet_layers() {
  const char* path = std::getenv("HIPRIM_IGEMM_SWEEP_LAYERS");
  std::ifstream f(path ? path : "verify/suites/resnet50_layers.txt");
  std::vector<Layer> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    Layer l{};
    if (is >> l.c >> l.k >> l.h >> l.w >> l.r >> l.s >> l.stride >> l.pad >> l.count) out.push_back(l);
  }
  return out;
}

// Device copies of the inputs of p (rotating sets), one output, a workspace.
struct SweepBuffers {
  std::vector<DeviceBuffer> a, b, bias;  // per copy: the two inputs of the direction (+ bias)
  DeviceBuffer out, ws;
  std::size_t out_bytes = 0;
};

ConvTensors tensors_for(const ConvProblem& p, SweepBuffers& sb, int copy, void* stream) {
  ConvTensors t;
  void* a = sb.a[copy].data();
  void* b = sb.b[copy].data();
  switch (p.dir) {
    case ConvDir::fwd: t.x = a, t.w = b, t.y = sb.out.data(); break;
    case ConvDir::bwd_data: t.y = a, t.w = b, t.x = sb.out.data(); break;
    case ConvDir::bwd_weights: t.y = a, t.x = b, t.w = sb.out.data(); break;
  }
  t.bias = nullptr;
  t.workspace = sb.ws.data();
  t.workspace_bytes = sb.ws.bytes();
  t.stream = stream;
  return t;
}

std::vector<float> download_out(const ConvProblem& p, SweepBuffers& sb) {
  const TensorDesc d = p.dir == ConvDir::fwd ? p.y_desc() : p.dir == ConvDir::bwd_data ? p.x_desc() : p.w_desc();
  std::vector<unsigned char> bytes(sb.out_bytes);
  sb.out.download(bytes.data(), bytes.size());
  HostTensor t(d);
  t.from_bytes(bytes.data());
  return t.data;
}

// The staged epilogue (.se, split 1) on every tile x producer variant (sync at 3 and 4 stages,
// .ws at 3 and 4, .ws.tma at 4 and 6, .ws.tma.se.p at 3 and 4), in the problem's lowering (.flip where the plan has one):
// the store-bound layers (few k-blocks, a wide output) want 16-byte stores and several CTAs per SM.
void add_staged_grid(const sm90::IgemmPlan& pl, const std::function<void(const sm90::IgemmConfig&)>& add) {
  for (const sm90::IgemmTile& t : sm90::kTiles) {
    for (int v = 0; v < 3; ++v)
      for (int st : {v == 2 ? 4 : 3, v == 2 ? 6 : 4}) {
        sm90::IgemmConfig c{t.bm, t.bn, st, 1, v >= 1, v == 2, true};
        add(c);
        if (pl.flip) c.flip = true, add(c);
      }
    for (int st : {3, 4}) {  // the persistent grid (.ws.tma.se.p)
      sm90::IgemmConfig c{t.bm, t.bn, st, 1, true, true, true};
      c.persist = true;
      add(c);
    }
  }
}

std::vector<std::string> sweep_configs(const ConvProblem& p) {
  const sm90::IgemmPlan pl = sm90::plan_igemm(p);
  const std::vector<std::string> all = igemm_sm90_configs(p);
  auto listed = [&](const sm90::IgemmConfig& c) { return std::find(all.begin(), all.end(), to_string(c)) != all.end(); };
  const sm90::IgemmConfig pick = sm90::igemm_default_config(pl);
  std::vector<std::string> out{to_string(pick)};
  auto add = [&](const sm90::IgemmConfig& c) {
    if (listed(c) && std::find(out.begin(), out.end(), to_string(c)) == out.end()) out.push_back(to_string(c));
  };
  // HIPRIM_IGEMM_SWEEP_SET=staged: the solver's default (the tuned table's entry, else the model's
  // pick) first, then only the staged-epilogue grid.
  if (const char* set = std::getenv("HIPRIM_IGEMM_SWEEP_SET"); set && std::string(set) == "staged") {
    out = {igemm_sm90_default_config(p)};
    add_staged_grid(pl, add);
    return out;
  }
  add_staged_grid(pl, add);
  for (const sm90::IgemmTile& t : sm90::kTiles) {  // each tile at 3 and 4 stages, with the model's best split
    for (int st : {3, 4}) {
      sm90::IgemmConfig best{t.bm, t.bn, st, 1};
      double cost = 1e30;
      for (int sp : sm90::kSplits) {
        const sm90::IgemmConfig c{t.bm, t.bn, st, sp};
        if (!listed(c)) continue;
        if (const double k = sm90::igemm_cost(pl, c); k < cost) cost = k, best = c;
      }
      add(best);
    }
  }
  for (const sm90::IgemmTile& t : sm90::kTiles)  // the TMA variant of each tile with the model's best split
    for (int st : {4, 6}) {
      sm90::IgemmConfig best{t.bm, t.bn, st, 1, true, true};
      double cost = 1e30;
      for (int sp : sm90::kSplits) {
        const sm90::IgemmConfig c{t.bm, t.bn, st, sp, true, true};
        if (!listed(c)) continue;
        if (const double k = sm90::igemm_cost(pl, c); k < cost) cost = k, best = c;
      }
      add(best);
    }
  for (int st = 3; st <= 6; ++st) add({pick.bm, pick.bn, st, pick.splitk});
  for (int st : {3, 4, 6}) add({pick.bm, pick.bn, st, pick.splitk, true});  // warp-specialised
  for (const sm90::IgemmTile& t : sm90::kTiles) add({t.bm, t.bn, 4, pick.splitk, true});
  for (const sm90::IgemmTile& t : sm90::kTiles) add({t.bm, t.bn, 4, pick.splitk, true, true});  // + TMA (fwd)
  for (const sm90::IgemmTile& t : sm90::kTiles) add({t.bm, t.bn, 4, 1, true, true, true});  // TMA + staged epilogue
  // The staged epilogue on the pick and on each variant of the pick's tile.
  for (int v = 0; v < 3; ++v) add({pick.bm, pick.bn, pick.stages, 1, v >= 1, v == 2, true});
  for (int sp : {1, 2, 4, 8, 16, 32, 64, 128}) add({pick.bm, pick.bn, pick.stages, sp});
  // bwd-data's lowerings: the flipped fwd problem's candidates run as .flip; the dcol GEMM's
  // candidates (split 1, no .se) run as .col2im.
  std::string why;
  if (pl.flip && pl.flip_subpixel)  // strided: each tile with each producer variant, with and without .se,
                                    // and the warp-specialised ones split (the heavy classes split more)
    for (const sm90::IgemmTile& t : sm90::kTiles)
      for (int v = 0; v < 3; ++v) {
        for (int st : {4, v == 2 ? 6 : 3})
          for (bool se : {false, true}) add({t.bm, t.bn, st, 1, v >= 1, v == 2, se, true});
        if (v >= 1)
          for (int sp : {2, 3, 4}) add({t.bm, t.bn, 4, sp, true, v == 2, false, true});
      }
  else if (pl.flip)
    for (const std::string& s : sweep_configs(sm90::flip_problem(p, &why))) {
      sm90::IgemmConfig c = *sm90::parse_igemm_config(s);
      c.flip = true;
      add(c);
    }
  if (pl.col2im)
    for (const sm90::IgemmTile& t : sm90::kTiles)
      for (int v = 0; v < 3; ++v)
        for (int st : {3, 4, 6}) add({t.bm, t.bn, st, 1, v >= 1, v == 2, false, false, true});
  if (pl.im2col)  // each tile, the three producer variants, two stage counts, the model's best split and
                  // the splits that fill the machine (the col GEMM's K is every output pixel)
    for (const sm90::IgemmTile& t : sm90::kTiles)
      for (int v = 0; v < 3; ++v)
        for (int st : {v == 2 ? 4 : 3, v == 2 ? 6 : 4}) {
          sm90::IgemmConfig best{t.bm, t.bn, st, 1, v >= 1, v == 2, false, false, false, true};
          double cost = 1e30;
          for (int sp : sm90::kSplits) {
            const sm90::IgemmConfig c{t.bm, t.bn, st, sp, v >= 1, v == 2, false, false, false, true};
            if (!listed(c)) continue;
            if (const double k = sm90::igemm_cost(pl, c); k < cost) cost = k, best = c;
            if (sp >= 16) add(c);
          }
          add(best);
        }
  return out;
}

struct Row {
  std::string layer, dir, config;
  double us = 0, tflops = 0;
  bool pick = false, ok = false;
  long count = 1;
};

TEST(IgemmSweep, ResNet50Layers) {
  if (std::getenv("HIPRIM_IGEMM_SWEEP") == nullptr) GTEST_SKIP() << "set HIPRIM_IGEMM_SWEEP=1 to run the sweep";
  if (const std::string why = igemm_sm90_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const char* batch_env = std::getenv("HIPRIM_IGEMM_SWEEP_BATCH");
  const long batch = batch_env ? std::atol(batch_env) : 32;
  const char* dirs_env = std::getenv("HIPRIM_IGEMM_SWEEP_DIRS");
  const std::string dirs = dirs_env ? dirs_env : "fwd,bwd-data,bwd-weights";
  const char* budget_env = std::getenv("HIPRIM_IGEMM_SWEEP_SECONDS");  // stop starting problems after this
  const double budget_s = budget_env ? std::atof(budget_env) : 1e9;
  const auto t_start = std::chrono::steady_clock::now();
  bool cut_short = false;
  const std::vector<Layer> layers = resnet_layers();
  ASSERT_FALSE(layers.empty()) << "no layers read (run from the repository root or set HIPRIM_IGEMM_SWEEP_LAYERS)";
  const ConvSolverList& solvers = gpu_conv_solvers();
  const auto naive = std::find_if(solvers.begin(), solvers.end(), [](const auto& s) { return s->name() == "conv.naive"; });
  ASSERT_NE(naive, solvers.end());
  cudaStream_t stream;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t e0, e1;
  cuda_ok(cudaEventCreate(&e0), "event"), cuda_ok(cudaEventCreate(&e1), "event");
  std::vector<Row> rows;
  std::map<std::string, double> total_pick, total_best;
  // Rows go to the CSV as they are measured, so a run cut short by its time limit keeps them.
  std::ofstream csv;
  if (const char* out = std::getenv("HIPRIM_IGEMM_SWEEP_OUT")) {
    csv.open(out);
    csv << "layer,dir,config,pick,ok,us,tflops,count\n";
  }
  auto emit = [&](const Row& r) {
    rows.push_back(r);
    if (csv.is_open())
      csv << r.layer << ',' << r.dir << ',' << r.config << ',' << r.pick << ',' << r.ok << ',' << r.us << ','
          << r.tflops << ',' << r.count << std::endl;
  };
  for (const Layer& L : layers)
    for (const char* dir : {"fwd", "bwd-data", "bwd-weights"}) {
      if (dirs.find(dir) == std::string::npos) continue;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count() > budget_s) {
        cut_short = true;
        break;
      }
      char text[256];
      std::snprintf(text, sizeof text, "conv %s bf16 nhwc n%ld c%ld k%ld in%ldx%ld f%ldx%ld pad%ldx%ld str%ldx%ld", dir,
                    batch, L.c, L.k, L.h, L.w, L.r, L.s, L.pad, L.pad, L.stride, L.stride);
      const ConvProblem p = parse_conv_problem(text);
      std::string layer = "c";  // built by appends (GCC 12 warns falsely on "c" + std::string)
      layer += std::to_string(L.c) + " k" + std::to_string(L.k) + " " + std::to_string(L.h) + "x" + std::to_string(L.w) +
               " " + std::to_string(L.r) + "x" + std::to_string(L.s) + " s" + std::to_string(L.stride);
      if (!sm90::plan_igemm(p).refusal.empty()) {
        std::printf("%-28s %-11s refused: %s\n", layer.c_str(), dir, sm90::plan_igemm(p).refusal.c_str());
        continue;
      }
      gputest::ConvCase host = gputest::make_case(p, 5);
      const HostTensor& ha = p.dir == ConvDir::fwd ? host.x : host.y;
      const HostTensor& hb = p.dir == ConvDir::bwd_weights ? host.x : host.w;
      const std::vector<unsigned char> ba = ha.to_bytes(), bb = hb.to_bytes();
      const std::size_t in_bytes = ba.size() + bb.size();
      const int copies = static_cast<int>(std::clamp<std::size_t>((150u << 20) / in_bytes + 1, 1, 32));
      SweepBuffers sb;
      for (int i = 0; i < copies; ++i) {
        sb.a.emplace_back(ba.size(), "a"), sb.b.emplace_back(bb.size(), "b");
        sb.a.back().upload(ba.data(), ba.size()), sb.b.back().upload(bb.data(), bb.size());
      }
      const HostTensor& ho = host.output(p.dir);
      sb.out_bytes = ho.to_bytes().size();
      sb.out = DeviceBuffer(sb.out_bytes, "out");
      const std::vector<std::string> configs = sweep_configs(p);
      std::size_t ws = (*naive)->workspace_bytes(p);
      for (const std::string& c : configs) ws = std::max(ws, igemm_sm90_workspace_bytes(p, c));
      sb.ws = DeviceBuffer(std::max<std::size_t>(ws, 256), "workspace");
      // Reference: conv.naive on copy 0.
      sb.out.fill_bytes(0xFF);
      (*naive)->run(p, tensors_for(p, sb, 0, stream));
      cuda_ok(cudaStreamSynchronize(stream), "naive");
      const std::vector<float> want = download_out(p, sb);
      double best_us = 1e30, pick_us = 0;
      std::string best_cfg;
      for (const std::string& cfg : configs) {
        Row row{layer, dir, cfg, 0, 0, cfg == configs.front(), false, L.count};
        sb.out.fill_bytes(0xFF);
        igemm_sm90_run(p, tensors_for(p, sb, 0, stream), cfg);
        cuda_ok(cudaStreamSynchronize(stream), "verify run");
        const std::vector<float> got = download_out(p, sb);
        long long bad = 0;
        std::size_t first = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
          if (!(got[i] == want[i]) && bad++ == 0) first = i;
        if (bad) {
          ADD_FAILURE() << cfg << " " << to_string(p) << ": " << bad << " wrong, first at " << first << " = " << got[first]
                        << " want " << want[first];
          emit(row);
          continue;
        }
        constexpr int kRuns = 20, kReplays = 3;
        cudaGraph_t graph;
        cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
        for (int r = 0; r < kRuns; ++r) igemm_sm90_run(p, tensors_for(p, sb, r % copies, stream), cfg);
        cuda_ok(cudaStreamEndCapture(stream, &graph), "end capture");
        cudaGraphExec_t exec;
        cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
        cuda_ok(cudaGraphLaunch(exec, stream), "warm-up replay");
        cuda_ok(cudaEventRecord(e0, stream), "record");
        for (int r = 0; r < kReplays; ++r) cuda_ok(cudaGraphLaunch(exec, stream), "replay");
        cuda_ok(cudaEventRecord(e1, stream), "record");
        cuda_ok(cudaEventSynchronize(e1), "sync");
        float ms = 0;
        cuda_ok(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
        cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
        row.ok = true;
        row.us = 1000.0 * ms / (kRuns * kReplays);
        row.tflops = p.flops() / (row.us * 1e-6) / 1e12;
        if (row.pick) pick_us = row.us;
        if (row.us < best_us) best_us = row.us, best_cfg = cfg;
        emit(row);
      }
      total_pick[dir] += pick_us * L.count;
      total_best[dir] += best_us * L.count;
      const double tf_pick = p.flops() / (pick_us * 1e-6) / 1e12, tf_best = p.flops() / (best_us * 1e-6) / 1e12;
      std::printf("%-28s %-11s pick %-24s %8.1f us %6.0f TF/s (%4.1f%%) | best %-24s %8.1f us %6.0f TF/s | %zu cfgs\n",
                  layer.c_str(), dir, configs.front().c_str(), pick_us, tf_pick, 100 * tf_pick / kCeilingTflops,
                  best_cfg.c_str(), best_us, tf_best, configs.size());
      std::fflush(stdout);
    }
  std::printf("whole net (weighted by layer count), batch %ld%s:\n", batch,
              cut_short ? " -- INCOMPLETE: the time budget ran out, the totals miss the remaining layers" : "");
  for (const char* dir : {"fwd", "bwd-data", "bwd-weights"})
    if (total_pick.count(dir))
      std::printf("  %-11s pick %8.3f ms  best-of-sweep %8.3f ms   (cuDNN at N=32, issue 11: fwd 1.03, bwd-data 1.30, "
                  "bwd-weights 1.10 ms incl. the stem)\n",
                  dir, total_pick[dir] / 1000, total_best[dir] / 1000);
  cudaEventDestroy(e0), cudaEventDestroy(e1), cudaStreamDestroy(stream);
}

TEST(IgemmSweep, Profile) {
  const char* text = std::getenv("HIPRIM_IGEMM_PROFILE");
  if (text == nullptr) GTEST_SKIP() << "set HIPRIM_IGEMM_PROFILE to a problem string";
  if (const std::string why = igemm_sm90_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const ConvProblem p = parse_conv_problem(text);
  const char* cfg_env = std::getenv("HIPRIM_CONV_CONFIG");
  const std::string cfg = cfg_env ? cfg_env : igemm_sm90_default_config(p);
  const gputest::ConvCase host = gputest::make_case(p, 5);
  auto up = [](const HostTensor& t) {
    const std::vector<unsigned char> b = t.to_bytes();
    DeviceBuffer d(b.size(), "profile");
    d.upload(b.data(), b.size());
    return d;
  };
  DeviceBuffer x = up(host.x), w = up(host.w), y = up(host.y), ws(std::max<std::size_t>(igemm_sm90_workspace_bytes(p, cfg), 256), "ws");
  const ConvTensors t{x.data(), w.data(), y.data(), nullptr, ws.data(), ws.bytes(), nullptr, {}};
  for (int i = 0; i < 5; ++i) igemm_sm90_run(p, t, cfg);
  synchronize("profile");
  std::printf("profiled %s with %s\n", to_string(p).c_str(), cfg.c_str());
}

}  // namespace
}  // namespace hiprim::gpu
