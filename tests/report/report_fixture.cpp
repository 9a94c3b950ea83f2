#include "tests/report/report_fixture.hpp"

#include "core/conv_problem.hpp"
#include "bench/bench.hpp"
#include "bench/bench_report.hpp"

namespace hiprim::testutil {

using nlohmann::json;
using verify::Status;

json gpu_machine() {
  json gpu{{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_count", 132}, {"memory_bytes", 150000000000ull},
           {"driver_version", "13000"}, {"runtime_version", "13000"}, {"backend", "cuda"}};
  return verify::machine_json(gpu);
}

verify::CaseRecord record(const std::string& problem, const std::string& solver, Status st, const std::string& reason) {
  verify::CaseRecord r;
  r.problem = problem;
  r.solver = solver;
  r.verdict.status = st;
  r.verdict.reason = reason.empty() ? std::string(verify::status_name(st)) : reason;
  r.verdict.metrics.worst_ratio = st == Status::passed ? 0.25 : 4.0;
  r.seed = 1;
  r.fill = verify::FillTier::bounded;
  r.tolerance = "bounded";
  r.repro = verify::repro_command(problem, solver, 1);
  return r;
}

verify::TimingStats timing_around(double median_ms) {
  verify::TimingStats t;
  t.runs = 20;
  t.warmup = 5;
  t.sets = 3;
  t.median_ms = median_ms;
  t.min_ms = 0.9 * median_ms;
  t.max_ms = 1.2 * median_ms;
  return t;
}

json perf_case(const std::string& problem, const std::string& solver, Status st, double median_ms, std::int64_t count) {
  const ConvProblem p = parse_conv_problem(problem);
  verify::PerfCaseInput in;
  in.count = count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.gemm_ceiling_tflops = 700;
  in.copy_ceiling_gbps = 3000;
  if (median_ms >= 0) in.timing = timing_around(median_ms);
  return verify::perf_case_json(record(problem, solver, st), in);
}

json peer(double median_ms, Status check, bool transform) {
  verify::PeerResult r;
  r.status = "timed";
  r.algo = transform ? "WINOGRAD_NONFUSED" : "IMPLICIT_PRECOMP_GEMM";
  r.math = "TENSOR_OP_MATH";
  r.transform = transform;
  verify::TimingStats t;
  t.runs = 20;
  t.median_ms = t.min_ms = t.max_ms = median_ms;
  r.timing = t;
  verify::Verdict v;
  v.status = check;
  v.reason = "peer check";
  v.metrics.worst_ratio = check == Status::passed ? 0.5 : 3.0;
  r.check = v;
  r.algorithm_factor = 2;
  return verify::peer_result_json(r, 1e9, 1e8);
}

json perf_report(const json& cases) {
  json ceilings{{"copy", {{"gbps", 3000.0}, {"method", "test"}}},
                {"gemm", {{"bf16", {{"tflops", 700.0}, {"source", "test"}, {"shape", "M=N=K=8192"}}}}}};
  json settings{{"warmup", 5}, {"reps", 20}};
  json peer_info{{"name", "cudnn"}, {"available", true}, {"library", "libcudnn.so.9"}, {"version", 91900}};
  return verify::performance_report(gpu_machine(), settings, ceilings, peer_info, cases, "hiprim bench --suite test");
}

json conf_report(const std::vector<verify::CaseRecord>& cases) {
  return verify::conformance_report(gpu_machine(), cases, "hiprim check --suite smoke");
}

}  // namespace hiprim::testutil
