// The device runtime of gpu/runtime/device.hpp on HIP names (gpu/runtime/hip_compat.hpp): error
// checks, device queries, device buffers, streams, event timing and captured graphs.
#include "gpu/runtime/device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include <utility>

#include "core/error.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {

void check_result(hipError_t err, const char* call, const std::string& context) {
  if (err == hipSuccess) return;
  (void)hipGetLastError();  // a failed call also sets the last error; clear it so a later launch check
                            // does not report this failure again
  std::string fn(call);
  if (auto paren = fn.find('('); paren != std::string::npos) fn.resize(paren);
  throw RuntimeError(fn + " failed (" + hipGetErrorString(err) + ") while " + context + ": " + hipGetErrorName(err) +
                     " (code " + std::to_string(static_cast<int>(err)) + ")");
}

void check_launch(const char* kernel, const std::string& context) {
  hipError_t err = hipGetLastError();
  if (err == hipSuccess) return;
  throw RuntimeError(std::string("launch of kernel ") + kernel + " failed (" + hipGetErrorString(err) + ") while " +
                     context + ": " + hipGetErrorName(err) + " (code " + std::to_string(static_cast<int>(err)) + ")");
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

bool device_available(std::string* why) {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess) {
    (void)hipGetLastError();  // do not leave the error for a later launch check to misreport
    if (why)
      *why = std::string("no usable GPU: hipGetDeviceCount failed (") + hipGetErrorString(err) + "): " +
             hipGetErrorName(err);
    return false;
  }
  if (count < 1) {
    if (why) *why = "no usable GPU: the runtime reports 0 devices";
    return false;
  }
  return true;
}

DeviceInfo device_info() {
  std::string why;
  if (!device_available(&why)) throw RuntimeError("device_info: " + why);
  int dev = 0;
  HIPRIM_CHECK(hipGetDevice(&dev), "querying the current device");
  hipDeviceProp_t prop{};
  HIPRIM_CHECK(hipGetDeviceProperties(&prop, dev), "querying the properties of device " + std::to_string(dev));
  DeviceInfo info;
#if HIPRIM_PLATFORM_AMD
  info.name = std::string(prop.name) + " (" + prop.gcnArchName + ")";
  info.backend = "hip";
#else
  info.name = prop.name;
  info.backend = "cuda";
#endif
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.warp_size = prop.warpSize;
  info.memory_bytes = prop.totalGlobalMem;
  info.shared_bytes_per_block = prop.sharedMemPerBlock;
  HIPRIM_CHECK(hipDriverGetVersion(&info.driver_version), "querying the driver version");
  HIPRIM_CHECK(hipRuntimeGetVersion(&info.runtime_version), "querying the runtime version");
  return info;
}

// ---- DeviceBuffer ----

DeviceBuffer::DeviceBuffer(std::size_t bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {
  if (bytes_ == 0) return;
  HIPRIM_CHECK(hipMalloc(&ptr_, bytes_), "allocating device buffer '" + what_ + "' of " + format_bytes(bytes_));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)hipFree(ptr_);  // a destructor must not throw; a failed free has nothing to report to
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)), what_(std::move(o.what_)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) (void)hipFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    what_ = std::move(o.what_);
  }
  return *this;
}

void DeviceBuffer::check_range(std::size_t bytes, std::size_t offset, const char* op) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw InputError(std::string(op) + " of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                     " does not fit device buffer '" + what_ + "' of " + std::to_string(bytes_) + " bytes");
}

void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  check_range(bytes, offset, "upload");
  if (bytes == 0) return;
  HIPRIM_CHECK(hipMemcpy(static_cast<unsigned char*>(ptr_) + offset, host, bytes, hipMemcpyHostToDevice),
               "uploading " + format_bytes(bytes) + " to '" + what_ + "'");
}

void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  check_range(bytes, offset, "download");
  if (bytes == 0) return;
  HIPRIM_CHECK(hipMemcpy(host, static_cast<const unsigned char*>(ptr_) + offset, bytes, hipMemcpyDeviceToHost),
               "downloading " + format_bytes(bytes) + " from '" + what_ + "'");
}

void DeviceBuffer::fill_bytes(unsigned char value) {
  if (bytes_ == 0) return;
  HIPRIM_CHECK(hipMemset(ptr_, value, bytes_), "filling '" + what_ + "' with byte " + std::to_string(value));
}

void DeviceBuffer::fill_pattern(const void* pattern, std::size_t pattern_bytes, std::size_t offset, std::size_t bytes) {
  check_range(bytes, offset, "fill");
  if (pattern_bytes == 0 || bytes % pattern_bytes != 0)
    throw InputError("filling '" + what_ + "': a pattern of " + std::to_string(pattern_bytes) + " bytes does not divide " +
                     std::to_string(bytes) + " bytes");
  if (bytes == 0) return;
  const std::size_t first = std::min(bytes, (std::size_t{1} << 20) / pattern_bytes * pattern_bytes);
  std::vector<unsigned char> block(first);
  for (std::size_t i = 0; i < first; i += pattern_bytes) std::memcpy(block.data() + i, pattern, pattern_bytes);
  upload(block.data(), first, offset);
  auto* base = static_cast<unsigned char*>(ptr_) + offset;
  for (std::size_t done = first; done < bytes; done *= 2)
    HIPRIM_CHECK(hipMemcpy(base + done, base, std::min(done, bytes - done), hipMemcpyDeviceToDevice),
                 "filling '" + what_ + "' with a pattern");
}

// ---- Stream ----

Stream::Stream() {
  hipStream_t s = nullptr;
  HIPRIM_CHECK(hipStreamCreate(&s), "creating a stream");
  handle_ = s;
}

Stream::~Stream() {
  if (handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
}

Stream::Stream(Stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  HIPRIM_CHECK(hipStreamSynchronize(static_cast<hipStream_t>(handle_)), "synchronizing a stream");
}

// ---- EventTimer ----

EventTimer::EventTimer() {
  hipEvent_t a = nullptr, b = nullptr;
  HIPRIM_CHECK(hipEventCreate(&a), "creating the start event of a timer");
  if (hipError_t err = hipEventCreate(&b); err != hipSuccess) {
    (void)hipEventDestroy(a);
    check_result(err, "hipEventCreate", "creating the stop event of a timer");
  }
  start_ = a;
  stop_ = b;
}

EventTimer::~EventTimer() {
  (void)hipEventDestroy(static_cast<hipEvent_t>(start_));
  (void)hipEventDestroy(static_cast<hipEvent_t>(stop_));
}

void EventTimer::start(void* stream) {
  HIPRIM_CHECK(hipEventRecord(static_cast<hipEvent_t>(start_), static_cast<hipStream_t>(stream)),
               "recording a timer's start event");
}

double EventTimer::stop(void* stream) {
  HIPRIM_CHECK(hipEventRecord(static_cast<hipEvent_t>(stop_), static_cast<hipStream_t>(stream)),
               "recording a timer's stop event");
  HIPRIM_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(stop_)), "waiting for a timer's stop event");
  float ms = 0.0f;
  HIPRIM_CHECK(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start_), static_cast<hipEvent_t>(stop_)),
               "reading a timer's elapsed time");
  elapsed_ms_ = ms;
  return elapsed_ms_;
}

// ---- CapturedGraph ----

CapturedGraph CapturedGraph::capture(void* stream, const std::function<void()>& enqueue, const std::string& what) {
  if (stream == nullptr)
    throw InputError("capturing " + what + ": the default stream cannot be captured; give a stream made by Stream");
  const auto s = static_cast<hipStream_t>(stream);
  const std::string fail = what + " cannot be captured into a graph: ";
  if (hipError_t err = hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal); err != hipSuccess) {
    (void)hipGetLastError();
    throw RuntimeError(fail + "hipStreamBeginCapture failed (" + hipGetErrorString(err) + ")");
  }
  auto end_capture = [&]() -> std::pair<hipError_t, hipGraph_t> {
    hipGraph_t g = nullptr;
    const hipError_t err = hipStreamEndCapture(s, &g);
    if (err != hipSuccess) (void)hipGetLastError();
    return {err, g};
  };
  try {
    enqueue();
  } catch (const std::exception& e) {
    auto [err, g] = end_capture();
    if (g) (void)hipGraphDestroy(g);
    throw RuntimeError(fail + e.what());
  } catch (...) {
    auto [err, g] = end_capture();
    if (g) (void)hipGraphDestroy(g);
    throw;
  }
  auto [err, g] = end_capture();
  if (err != hipSuccess || g == nullptr) {
    if (g) (void)hipGraphDestroy(g);
    throw RuntimeError(fail + "hipStreamEndCapture failed (" + hipGetErrorString(err) + ", " + hipGetErrorName(err) +
                       "): a call inside was not capturable (host synchronisation, allocation, synchronous copy, or "
                       "work on another stream)");
  }
  hipGraphExec_t exec = nullptr;
  const hipError_t ierr = hipGraphInstantiateWithFlags(&exec, g, 0);
  (void)hipGraphDestroy(g);  // the executable graph does not need it
  if (ierr != hipSuccess) {
    (void)hipGetLastError();
    throw RuntimeError(fail + "hipGraphInstantiateWithFlags failed (" + hipGetErrorString(ierr) + ")");
  }
  CapturedGraph out;
  out.exec_ = exec;
  return out;
}

CapturedGraph::~CapturedGraph() {
  if (exec_) (void)hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec_));
}

CapturedGraph::CapturedGraph(CapturedGraph&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}

CapturedGraph& CapturedGraph::operator=(CapturedGraph&& o) noexcept {
  if (this != &o) {
    if (exec_) (void)hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec_));
    exec_ = std::exchange(o.exec_, nullptr);
  }
  return *this;
}

void CapturedGraph::launch(void* stream) const {
  if (!exec_) throw InputError("CapturedGraph::launch: nothing was captured");
  HIPRIM_CHECK(hipGraphLaunch(static_cast<hipGraphExec_t>(exec_), static_cast<hipStream_t>(stream)), "launching a captured graph");
}

std::string pci_bus_id() {
  int dev = 0;
  HIPRIM_CHECK(hipGetDevice(&dev), "querying the current device");
  char id[64] = {};
  HIPRIM_CHECK(hipDeviceGetPCIBusId(id, static_cast<int>(sizeof id), dev), "querying the PCI bus id of device " + std::to_string(dev));
  id[sizeof id - 1] = '\0';
  return id;
}

void synchronize(const char* context) { HIPRIM_CHECK(hipDeviceSynchronize(), context); }

}  // namespace hiprim::gpu
