// Device runtime: availability and properties, checked device memory, streams, event timing.
// The header names no HIP/CUDA type (handles are void*), so host-only code and tests can include it.
// Every failing runtime call throws hiprim::RuntimeError naming the call and what was being done.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace hiprim::gpu {

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;  // NVIDIA compute capability; AMD: the gfx major/minor
  int sm_count = 0;                // multiprocessors (NVIDIA) / compute units (AMD)
  int warp_size = 0;               // 32 on NVIDIA, 64 on gfx9
  std::size_t memory_bytes = 0;
  std::size_t shared_bytes_per_block = 0;  // without opt-in
  int driver_version = 0, runtime_version = 0;
  std::string backend;  // "cuda" | "hip"
};

// Whether a device can be used; when not, *why says so (no device, driver missing, ...).
// Never throws, never aborts.
bool device_available(std::string* why = nullptr);
// The current device's properties; throws RuntimeError when there is none.
DeviceInfo device_info();

// Device memory, RAII and move-only. `what` names the buffer in error messages.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, std::string what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  const std::string& what() const { return what_; }
  // Synchronous copies of `bytes` bytes at byte `offset` of the buffer; InputError when the range
  // does not fit in the buffer.
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0);
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  // Sets every byte (synchronous), e.g. 0xFF poisons float/half/bf16 data with NaN.
  void fill_bytes(unsigned char value);
  // Repeats `pattern` (pattern_bytes, dividing `bytes`) over [offset, offset + bytes), synchronous:
  // one upload of up to 1 MiB of it, then device-to-device copies that double the filled part.
  void fill_pattern(const void* pattern, std::size_t pattern_bytes, std::size_t offset, std::size_t bytes);

 private:
  void check_range(std::size_t bytes, std::size_t offset, const char* op) const;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::string what_;
};

// A device stream (hipStream_t behind void*), RAII and move-only.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void* handle() const { return handle_; }
  void synchronize() const;

 private:
  void* handle_ = nullptr;
};

// Device-side time of the work enqueued on a stream between start() and stop().
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(void* stream = nullptr);
  // Records the stop event, waits for it and returns the elapsed milliseconds.
  double stop(void* stream = nullptr);
  double elapsed_ms() const { return elapsed_ms_; }

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
  double elapsed_ms_ = 0.0;
};

// The work one call enqueues on a stream, captured into a graph and instantiated once; launch()
// replays it (one launch, no host work between its nodes). Capture runs in thread-local mode: a call
// the runtime cannot capture (a host synchronisation, an allocation, a synchronous copy, work on the
// legacy default stream) fails the capture instead of running. RAII, move-only.
class CapturedGraph {
 public:
  // Captures enqueue() on stream (one made by Stream, not the default stream). RuntimeError
  // "<what> cannot be captured into a graph: ..." naming the runtime's error when capturing or
  // instantiating fails, or with the message of an exception enqueue() threw (the capture is ended
  // first, so the stream is usable afterwards).
  static CapturedGraph capture(void* stream, const std::function<void()>& enqueue, const std::string& what);
  CapturedGraph() = default;
  ~CapturedGraph();
  CapturedGraph(CapturedGraph&& o) noexcept;
  CapturedGraph& operator=(CapturedGraph&& o) noexcept;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  bool empty() const { return exec_ == nullptr; }
  // Enqueues one replay on stream (asynchronous); InputError when empty.
  void launch(void* stream) const;

 private:
  void* exec_ = nullptr;  // hipGraphExec_t
};

// The current device's PCI bus id as the runtime prints it ("0000:1b:00.0"); NVML finds the same
// device by it (gpu/runtime/nvml.hpp).
std::string pci_bus_id();

// Waits for all device work; throws RuntimeError (naming context) if any failed.
void synchronize(const char* context);

// "1.50 GiB", "12.0 KiB", "17 B": sizes in messages.
std::string format_bytes(std::size_t bytes);

}  // namespace hiprim::gpu
