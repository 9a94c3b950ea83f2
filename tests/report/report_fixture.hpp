// Hand-made reports for the tests of the report tools (bench report, diff, merge, render): every
// number is chosen in the test, nothing comes from a device.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_stats.hpp"  // TimingStats
#include "verify/report.hpp"

namespace hiprim::testutil {

// Two ResNet-50-like bf16 NHWC problems of different directions, and a 3x3 fwd one.
inline const std::string kFwd3x3 = "conv fwd bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1 str1x1 dil1x1 g1";
inline const std::string kFwd1x1 = "conv fwd bf16 nhwc n32 c256 k64 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1";
inline const std::string kBwdData1x1 = "conv bwd-data bf16 nhwc n32 c256 k64 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1";

nlohmann::json gpu_machine();
verify::CaseRecord record(const std::string& problem, const std::string& solver, verify::Status st,
                          const std::string& reason = "");
// A timing of a case: 20 runs over 3 input sets after 5 warm-ups, min = 0.9 x median, max = 1.2 x median.
verify::TimingStats timing_around(double median_ms);
// A performance case; median_ms < 0: not timed, else timing_around(median_ms).
nlohmann::json perf_case(const std::string& problem, const std::string& solver, verify::Status st, double median_ms,
                         std::int64_t count);
// A timed cuDNN peer whose check has status `check` (worst ratio 0.5 passed, 3 failed).
nlohmann::json peer(double median_ms, verify::Status check, bool transform = false);
// performance_report() of these cases with a copy ceiling of 3000 GB/s and a bf16 GEMM ceiling of
// 700 TFLOP/s.
nlohmann::json perf_report(const nlohmann::json& cases);
nlohmann::json conf_report(const std::vector<verify::CaseRecord>& cases);

}  // namespace hiprim::testutil
