// NVML through dlopen (gpu/runtime/nvml.hpp): the few NVML C declarations used, the loader, and
// the driver-version and clock/temperature/power readings.
#include "gpu/runtime/nvml.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace hiprim::gpu {

// ---- The few NVML declarations used (NVML API reference: nvmlReturn_t, nvmlClockType_t, ...) ----
// Devices are opaque pointers; enums are passed as int (their C ABI on x86-64).
namespace nvml_abi {
using Return = int;                           // nvmlReturn_t; NVML_SUCCESS = 0
constexpr Return kSuccess = 0;
constexpr int kClockGraphics = 0, kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;                              // nvmlTemperatureSensors_t
constexpr unsigned kDriverVersionBuffer = 80;                   // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
}  // namespace nvml_abi

using nvml_abi::Return;

struct Nvml::Api {
  Return (*Init)();
  Return (*Shutdown)();
  const char* (*ErrorString)(Return);
  Return (*SystemGetDriverVersion)(char*, unsigned);
  Return (*DeviceGetCount)(unsigned*);
  Return (*DeviceGetHandleByIndex)(unsigned, void**);
  Return (*DeviceGetHandleByPciBusId)(const char*, void**);
  Return (*DeviceGetClockInfo)(void*, int, unsigned*);
  // Optional (a device or driver may lack them): null when not resolved.
  Return (*DeviceGetTemperature)(void*, int, unsigned*);
  Return (*DeviceGetPowerUsage)(void*, unsigned*);
  Return (*DeviceGetClockReasons)(void*, unsigned long long*);
};

namespace {

constexpr const char* kLibrary = "libnvidia-ml.so.1";

template <typename F>
bool resolve_one(void* lib, F& fn, const char* name) {
  void* p = dlsym(lib, name);
  fn = reinterpret_cast<F>(p);
  return p != nullptr;
}

// Resolves the required entry points (the first missing name, or "") and the optional ones.
std::string resolve(void* lib, Nvml::Api& a) {
  if (!resolve_one(lib, a.Init, "nvmlInit_v2")) return "nvmlInit_v2";
  if (!resolve_one(lib, a.Shutdown, "nvmlShutdown")) return "nvmlShutdown";
  if (!resolve_one(lib, a.ErrorString, "nvmlErrorString")) return "nvmlErrorString";
  if (!resolve_one(lib, a.SystemGetDriverVersion, "nvmlSystemGetDriverVersion")) return "nvmlSystemGetDriverVersion";
  if (!resolve_one(lib, a.DeviceGetCount, "nvmlDeviceGetCount_v2")) return "nvmlDeviceGetCount_v2";
  if (!resolve_one(lib, a.DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2")) return "nvmlDeviceGetHandleByIndex_v2";
  if (!resolve_one(lib, a.DeviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2"))
    return "nvmlDeviceGetHandleByPciBusId_v2";
  if (!resolve_one(lib, a.DeviceGetClockInfo, "nvmlDeviceGetClockInfo")) return "nvmlDeviceGetClockInfo";
  (void)resolve_one(lib, a.DeviceGetTemperature, "nvmlDeviceGetTemperature");
  (void)resolve_one(lib, a.DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
  // Renamed in newer drivers ("event reasons"); the old name is kept as an alias.
  if (!resolve_one(lib, a.DeviceGetClockReasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    (void)resolve_one(lib, a.DeviceGetClockReasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  return "";
}

std::string message(const Nvml::Api& a, Return r) {
  const char* s = a.ErrorString ? a.ErrorString(r) : nullptr;
  return std::string(s ? s : "unknown error") + " (nvmlReturn " + std::to_string(r) + ")";
}

}  // namespace

std::shared_ptr<Nvml> Nvml::open(std::string* why) {
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    if (why) *why = std::string("NVML unavailable: ") + kLibrary + ": " + (e ? e : "dlopen failed");
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  if (std::string missing = resolve(lib, *api); !missing.empty()) {
    if (why) *why = std::string("NVML unavailable: ") + kLibrary + ": symbol " + missing + " not found";
    return nullptr;
  }
  if (Return r = api->Init(); r != nvml_abi::kSuccess) {
    if (why) *why = std::string("NVML unavailable: nvmlInit_v2 failed: ") + message(*api, r);
    return nullptr;
  }
  std::shared_ptr<Nvml> n(new Nvml());
  n->api_ = std::move(api);
  return n;
}

Nvml::~Nvml() {
  if (api_) (void)api_->Shutdown();
}

std::string Nvml::driver_version() const {
  char buf[nvml_abi::kDriverVersionBuffer] = {};
  if (Return r = api_->SystemGetDriverVersion(buf, sizeof buf); r != nvml_abi::kSuccess)
    throw RuntimeError("nvmlSystemGetDriverVersion failed: " + message(*api_, r));
  buf[sizeof buf - 1] = '\0';
  return buf;
}

void* Nvml::device(const std::string& pci_bus_id, std::string* how) const {
  void* d = nullptr;
  const Return by_id = api_->DeviceGetHandleByPciBusId(pci_bus_id.c_str(), &d);
  if (by_id == nvml_abi::kSuccess) {
    if (how) *how = "PCI bus id " + pci_bus_id;
    return d;
  }
  unsigned count = 0;
  if (api_->DeviceGetCount(&count) == nvml_abi::kSuccess && count == 1 &&
      api_->DeviceGetHandleByIndex(0, &d) == nvml_abi::kSuccess) {
    if (how) *how = "index 0, the only NVML device (PCI bus id " + pci_bus_id + " not found: " + message(*api_, by_id) + ")";
    return d;
  }
  throw RuntimeError("NVML has no device with PCI bus id " + pci_bus_id + ": " + message(*api_, by_id) + " (" +
                     std::to_string(count) + " NVML devices)");
}

ClockSample Nvml::sample(void* device) const {
  ClockSample s;
  auto clock = [&](int type) -> std::optional<unsigned> {
    unsigned v = 0;
    if (api_->DeviceGetClockInfo(device, type, &v) != nvml_abi::kSuccess) return std::nullopt;
    return v;
  };
  s.sm_mhz = clock(nvml_abi::kClockSm);
  s.mem_mhz = clock(nvml_abi::kClockMem);
  s.graphics_mhz = clock(nvml_abi::kClockGraphics);
  unsigned t = 0, mw = 0;
  if (api_->DeviceGetTemperature && api_->DeviceGetTemperature(device, nvml_abi::kTemperatureGpu, &t) == nvml_abi::kSuccess)
    s.temperature_c = t;
  if (api_->DeviceGetPowerUsage && api_->DeviceGetPowerUsage(device, &mw) == nvml_abi::kSuccess) s.power_w = mw / 1000.0;
  unsigned long long reasons = 0;
  if (api_->DeviceGetClockReasons && api_->DeviceGetClockReasons(device, &reasons) == nvml_abi::kSuccess)
    s.throttle_reasons = reasons;
  return s;
}

std::string nvml_driver_version_or_reason() {
  std::string why;
  auto n = Nvml::open(&why);
  if (!n) return "unknown: " + why;
  try {
    return n->driver_version();
  } catch (const std::exception& e) {
    return std::string("unknown: ") + e.what();
  }
}

}  // namespace hiprim::gpu
