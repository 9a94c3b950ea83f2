#include "bench/event_series.hpp"

#include <string>

#include "core/error.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {

EventSeries::EventSeries(int marks) {
  if (marks < 2) throw InputError("EventSeries: marks = " + std::to_string(marks) + " must be >= 2 (one interval)");
  events_.reserve(static_cast<std::size_t>(marks));
  for (int i = 0; i < marks; ++i) {
    hipEvent_t e = nullptr;
    if (hipError_t err = hipEventCreate(&e); err != hipSuccess) {
      for (void* made : events_) (void)hipEventDestroy(static_cast<hipEvent_t>(made));
      events_.clear();
      check_result(err, "hipEventCreate", "creating event " + std::to_string(i) + " of a timing series");
    }
    events_.push_back(e);
  }
}

EventSeries::~EventSeries() {
  for (void* e : events_) (void)hipEventDestroy(static_cast<hipEvent_t>(e));
}

void EventSeries::record(int mark, void* stream) {
  if (mark < 0 || mark >= marks())
    throw InputError("EventSeries::record: mark " + std::to_string(mark) + " outside [0, " + std::to_string(marks()) + ")");
  HIPRIM_CHECK(hipEventRecord(static_cast<hipEvent_t>(events_[static_cast<std::size_t>(mark)]), static_cast<hipStream_t>(stream)),
               "recording timing mark " + std::to_string(mark));
}

std::vector<double> EventSeries::intervals_ms() const {
  HIPRIM_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(events_.back())), "waiting for the last timing mark");
  std::vector<double> out;
  out.reserve(events_.size() - 1);
  for (std::size_t i = 0; i + 1 < events_.size(); ++i) {
    float ms = 0.0f;
    HIPRIM_CHECK(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(events_[i]), static_cast<hipEvent_t>(events_[i + 1])),
                 "reading timing interval " + std::to_string(i));
    out.push_back(ms);
  }
  return out;
}

double EventSeries::elapsed_ms(int from, int to) const {
  if (from < 0 || to <= from || to >= marks())
    throw InputError("EventSeries::elapsed_ms: marks " + std::to_string(from) + " -> " + std::to_string(to) + " outside [0, " +
                     std::to_string(marks()) + ") or out of order");
  const auto e_to = static_cast<hipEvent_t>(events_[static_cast<std::size_t>(to)]);
  HIPRIM_CHECK(hipEventSynchronize(e_to), "waiting for timing mark " + std::to_string(to));
  float ms = 0.0f;
  HIPRIM_CHECK(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(events_[static_cast<std::size_t>(from)]), e_to),
               "reading timing marks " + std::to_string(from) + " -> " + std::to_string(to));
  return ms;
}

void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, void* stream) {
  if (bytes == 0) return;
  HIPRIM_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, static_cast<hipStream_t>(stream)),
               "enqueuing a device-to-device copy of " + std::to_string(bytes) + " bytes");
}

std::size_t l2_cache_bytes() {
  int dev = 0;
  HIPRIM_CHECK(hipGetDevice(&dev), "querying the current device");
  hipDeviceProp_t prop{};
  HIPRIM_CHECK(hipGetDeviceProperties(&prop, dev), "querying the L2 size of device " + std::to_string(dev));
  return prop.l2CacheSize > 0 ? static_cast<std::size_t>(prop.l2CacheSize) : 0;
}

}  // namespace hiprim::gpu
