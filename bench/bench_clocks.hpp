// The device's clocks while the bench times: NVML (gpu/runtime/nvml.hpp, loaded with dlopen) is read
// once at the start and after every problem of every repeat; the report keeps every sample and the
// min / median / max of each quantity, so a run on a throttled or shared card shows it. Without
// NVML (no library, no GPU backend) the log is unavailable with the reason and holds no samples.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiprim::verify {

struct ClockReading {
  double t_s = 0;   // seconds since the log started
  int repeat = 0;   // 0: before the suite
  int problem = -1; // index in the suite; -1: none
  std::optional<unsigned> sm_mhz, mem_mhz, temperature_c;
  std::optional<double> power_w;
  std::optional<std::uint64_t> throttle_reasons;
};

// {"samples": n, "sm_mhz": {min, median, max} | null, "mem_mhz", "temperature_c", "power_w", and
// "throttled_samples": samples whose reason mask had any bit set | null}.
nlohmann::json clock_summary(const std::vector<ClockReading>& readings);

class ClockLog {
 public:
  ClockLog();  // opens NVML and finds the current device; never throws
  ~ClockLog();
  ClockLog(const ClockLog&) = delete;
  ClockLog& operator=(const ClockLog&) = delete;

  bool available() const { return available_; }
  // Reads the clocks now (nothing when unavailable; a failed read is recorded as empty fields).
  void sample(int repeat, int problem);
  const std::vector<ClockReading>& readings() const { return readings_; }
  // {"source": "nvml", "available", "reason", "device", "summary": clock_summary, "samples": [...]}.
  nlohmann::json report_json() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool available_ = false;
  std::string reason_, device_;
  std::vector<ClockReading> readings_;
};

}  // namespace hiprim::verify
