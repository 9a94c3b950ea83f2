// Verify, then time, one solver config (find/measure.hpp).
#include "find/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench/bench_stats.hpp"
#include "bench/bench_timing.hpp"
#include "bench/event_series.hpp"
#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::find {
namespace {

// Buffers of the backend holding the case's inputs (the outputs are overwritten; their values were
// judged by the runner), one pointer per tensor.
struct BufferSet {
  std::vector<verify::GuardedBuffer> bufs;
  std::vector<void*> ptrs;
  BufferSet(const verify::PreparedCase& c, Backend b) {
    const auto& ts = c.tensors();
    bufs.reserve(ts.size());
    for (std::size_t i = 0; i < ts.size(); ++i) {
      bufs.emplace_back(b, c.bytes(i).size(), ts[i].name);
      bufs.back().set(c.bytes(i));
      ptrs.push_back(bufs.back().data());
    }
  }
};

// The time of one call in microseconds. Device: graph replay rotating over copies of the buffers that
// cover 3 x L2 (bench_stats' rotation_sets, as the bench and the PyTorch script time), so a tensor
// smaller than the L2 is not timed L2-resident; host: the same buffers each run.
double time_us(const verify::PreparedCase& c, const OpSolver& s, const std::string& config, const MeasureOptions& o) {
  const OpProblem& p = c.problem();
  const Backend b = s.backend();
  std::vector<BufferSet> sets;
  sets.emplace_back(c, b);
  const std::vector<void*>& ptrs = sets.front().ptrs;
  verify::GuardedBuffer ws(b, s.config_workspace_bytes(p, config), "workspace");
  if (b == Backend::device) {
#ifdef HIPRIM_WITH_GPU
    std::size_t set_bytes = 0;
    for (std::size_t i = 0; i < c.tensors().size(); ++i) set_bytes += c.bytes(i).size();
    const int count = verify::rotation_sets(set_bytes, gpu::l2_cache_bytes());
    while (static_cast<int>(sets.size()) < count) sets.emplace_back(c, b);
    gpu::Stream stream;
    verify::GraphTimerOptions t;
    t.graph = verify::GraphTimingOptions{o.reps, o.replays, 5, o.budget_ms};
    const verify::ReplayTiming r = verify::time_graph(
        [&](int i) { s.run_config(p, sets[static_cast<std::size_t>(i)].ptrs, ws.data(), ws.payload(), stream.handle(), config); },
        count, t, stream.handle(), s.name() + (config.empty() ? "" : " " + config));
    return verify::median_of(r.per_call_ms) * 1000.0;
#else
    throw RuntimeError("built without a GPU backend: device solvers cannot be timed");
#endif
  }
  std::vector<double> runs_ms;
  const auto start = std::chrono::steady_clock::now();
  s.run_config(p, ptrs, ws.data(), ws.payload(), nullptr, config);  // warm-up
  for (int i = 0; i < std::max(o.host_runs, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    s.run_config(p, ptrs, ws.data(), ws.payload(), nullptr, config);
    const auto t1 = std::chrono::steady_clock::now();
    runs_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (i >= 2 && std::chrono::duration<double, std::milli>(t1 - start).count() > o.budget_ms) break;
  }
  return verify::median_of(runs_ms) * 1000.0;
}

}  // namespace

Measurement measure(const verify::PreparedCase& c, const OpSolver& s, const std::string& config, const MeasureOptions& o) {
  Measurement m;
  m.solver = s.name();
  m.config = config;
  verify::RunOptions ro = o.run;
  ro.config = config;
  m.check = verify::run_case(c, s, ro);
  m.verified = m.check.verdict.status == verify::Status::passed;
  if (!m.verified) return m;
  try {
    m.workspace_bytes = static_cast<std::int64_t>(s.config_workspace_bytes(c.problem(), config));
    m.time_us = time_us(c, s, config, o);
  } catch (const std::exception& e) {
    m.error = e.what();
    m.time_us = -1;
  }
  return m;
}

std::string measurement_text(const Measurement& m) {
  if (!m.verified) return std::string(verify::status_name(m.check.verdict.status)) + ": " + m.check.verdict.reason;
  if (m.time_us < 0) return "not timed: " + m.error;
  char buf[64];
  std::snprintf(buf, sizeof buf, "ok %.3f us", m.time_us);
  return buf;
}

}  // namespace hiprim::find
