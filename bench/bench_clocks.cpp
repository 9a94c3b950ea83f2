#include "bench/bench_clocks.hpp"

#include <algorithm>
#include <chrono>

#include "bench/bench_stats.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/nvml.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

namespace {

template <typename Get>
json range_of(const std::vector<ClockReading>& rs, Get get) {
  std::vector<double> v;
  for (const ClockReading& r : rs)
    if (auto x = get(r)) v.push_back(static_cast<double>(*x));
  if (v.empty()) return nullptr;
  return json{{"min", *std::min_element(v.begin(), v.end())}, {"median", median_of(v)},
              {"max", *std::max_element(v.begin(), v.end())}, {"samples", v.size()}};
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json clock_summary(const std::vector<ClockReading>& rs) {
  json throttled = nullptr;
  std::int64_t known = 0, set = 0;
  for (const ClockReading& r : rs)
    if (r.throttle_reasons) {
      ++known;
      set += *r.throttle_reasons != 0;
    }
  if (known > 0) throttled = set;
  return json{{"samples", rs.size()},
              {"sm_mhz", range_of(rs, [](const ClockReading& r) { return r.sm_mhz; })},
              {"mem_mhz", range_of(rs, [](const ClockReading& r) { return r.mem_mhz; })},
              {"temperature_c", range_of(rs, [](const ClockReading& r) { return r.temperature_c; })},
              {"power_w", range_of(rs, [](const ClockReading& r) { return r.power_w; })},
              {"throttled_samples", throttled}};
}

struct ClockLog::Impl {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
#ifdef HIPRIM_WITH_GPU
  std::shared_ptr<gpu::Nvml> nvml;
  void* device = nullptr;
#endif
};

ClockLog::ClockLog() : impl_(std::make_unique<Impl>()) {
#ifdef HIPRIM_WITH_GPU
  std::string why;
  impl_->nvml = gpu::Nvml::open(&why);
  if (!impl_->nvml) {
    reason_ = why;
    return;
  }
  try {
    impl_->device = impl_->nvml->device(gpu::pci_bus_id(), &device_);
    available_ = true;
  } catch (const std::exception& e) {
    reason_ = std::string("NVML has no device for the GPU in use: ") + e.what();
    impl_->nvml.reset();
  }
#else
  reason_ = "this build has no GPU backend (no NVML)";
#endif
}

ClockLog::~ClockLog() = default;

void ClockLog::sample(int repeat, int problem) {
  if (!available_) return;
  ClockReading r;
  r.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->start).count();
  r.repeat = repeat;
  r.problem = problem;
#ifdef HIPRIM_WITH_GPU
  const gpu::ClockSample s = impl_->nvml->sample(impl_->device);
  r.sm_mhz = s.sm_mhz;
  r.mem_mhz = s.mem_mhz;
  r.temperature_c = s.temperature_c;
  r.power_w = s.power_w;
  r.throttle_reasons = s.throttle_reasons;
#endif
  readings_.push_back(r);
}

json ClockLog::report_json() const {
  nlohmann::json samples = nlohmann::json::array();
  for (const ClockReading& r : readings_)
    samples.push_back(nlohmann::json{{"t_s", r.t_s}, {"repeat", r.repeat}, {"problem", r.problem}, {"sm_mhz", opt(r.sm_mhz)},
                                     {"mem_mhz", opt(r.mem_mhz)}, {"temperature_c", opt(r.temperature_c)},
                                     {"power_w", opt(r.power_w)}, {"throttle_reasons", opt(r.throttle_reasons)}});
  return nlohmann::json{{"source", "nvml"},
                        {"available", available_},
                        {"reason", reason_},
                        {"device", device_},
                        {"when", "once before the suite, then after each problem of each repeat"},
                        {"summary", clock_summary(readings_)},
                        {"samples", std::move(samples)}};
}

}  // namespace hiprim::verify
