// Device-side timing of work enqueued back to back on one stream, and the two raw operations the
// bench's ceilings need (a device-to-device copy, the L2 size). Handles are void* so host-only code
// and tests can include this header.
//
// Timing model: mark i is an event recorded after the i-th enqueued item. Nothing waits between
// items, so the device runs them back to back and interval i (mark i to mark i+1) is the device time
// of item i, plus any gap in which the device waited for the host to enqueue more work.
#pragma once
#include <cstddef>
#include <vector>

namespace hiprim::gpu {

class EventSeries {
 public:
  explicit EventSeries(int marks);  // InputError when marks < 2
  ~EventSeries();
  EventSeries(const EventSeries&) = delete;
  EventSeries& operator=(const EventSeries&) = delete;

  int marks() const { return static_cast<int>(events_.size()); }
  // Records mark i (0 <= i < marks) on stream (nullptr: the default stream); does not wait.
  void record(int mark, void* stream);
  // Waits for the last mark; returns the marks-1 intervals in milliseconds.
  std::vector<double> intervals_ms() const;
  // Waits for mark `to`; the milliseconds from mark `from` to it. InputError unless 0 <= from < to < marks.
  double elapsed_ms(int from, int to) const;

 private:
  std::vector<void*> events_;
};

// Enqueues a device-to-device copy of bytes (asynchronous on stream).
void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, void* stream);
// The current device's L2 cache size in bytes (0 when the runtime does not say).
std::size_t l2_cache_bytes();

}  // namespace hiprim::gpu
