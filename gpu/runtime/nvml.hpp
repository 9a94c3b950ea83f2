// NVML, the NVIDIA management library, loaded at run time from libnvidia-ml.so.1 with dlopen (the
// build neither includes nvml.h nor links NVML; the few declarations used are in nvml.cpp, from
// NVML's documented C API): the driver version for reports and the clocks the bench logs while it
// times. Plain host C++ (no HIP/CUDA types): a machine without NVML gets null and the reason.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace hiprim::gpu {

// One reading of a device's state. Each optional is empty when NVML did not give it (not supported
// on the device, or the call failed).
struct ClockSample {
  std::optional<unsigned> sm_mhz, mem_mhz, graphics_mhz;  // nvmlDeviceGetClockInfo, current clocks
  std::optional<unsigned> temperature_c;                 // nvmlDeviceGetTemperature (GPU die)
  std::optional<double> power_w;                         // nvmlDeviceGetPowerUsage (milliwatts / 1000)
  std::optional<std::uint64_t> throttle_reasons;         // nvmlDeviceGetCurrentClocks{Event,Throttle}Reasons bit mask
};

class Nvml {
 public:
  // Loads libnvidia-ml.so.1, resolves the entry points and calls nvmlInit_v2. Null and *why (what
  // failed) when NVML cannot be used; never throws. The library stays loaded for the process.
  static std::shared_ptr<Nvml> open(std::string* why);
  ~Nvml();  // nvmlShutdown
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // nvmlSystemGetDriverVersion, e.g. "580.159.04"; RuntimeError naming the call when it fails.
  std::string driver_version() const;
  // The NVML device of a PCI bus id as the CUDA runtime prints it (gpu::pci_bus_id()); when NVML
  // does not know that id and sees exactly one device, that one (*how says which rule matched).
  // RuntimeError when neither works.
  void* device(const std::string& pci_bus_id, std::string* how = nullptr) const;
  ClockSample sample(void* device) const;

  struct Api;  // the resolved entry points (nvml.cpp)

 private:
  Nvml() = default;
  std::unique_ptr<Api> api_;
};

// NVML's driver version, or "unknown: <why>" when NVML cannot be used (never throws).
std::string nvml_driver_version_or_reason();

}  // namespace hiprim::gpu
