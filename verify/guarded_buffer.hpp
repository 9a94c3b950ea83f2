// Buffers with guard regions, in host or device memory, used by both runners:
// [guard | payload | guard], the guards filled with kGuardByte; a solver writing outside its
// payload changes a guard byte, which check_guards() reports. poison() fills the payload with
// 0xFF bytes (NaN in fp32, fp16 and bf16), so an output element the solver never writes is NaN.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"  // Backend
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

inline constexpr std::size_t kGuard = 256;          // bytes of guard on each side of every buffer
inline constexpr unsigned char kGuardByte = 0xA5;   // guard pattern
inline constexpr unsigned char kPoisonByte = 0xFF;  // 0xFF.. is NaN in fp32, fp16 and bf16

class GuardedBuffer {
 public:
  // RuntimeError for a device buffer in a build without a GPU backend.
  GuardedBuffer(Backend b, std::size_t payload, const std::string& what);
  void* data();  // start of the payload
  void set(const std::vector<unsigned char>& bytes);  // payload bytes (size payload())
  void poison();
  // The whole buffer, guards included.
  std::vector<unsigned char> read_all() const;
  std::size_t payload() const { return payload_; }
  const std::string& what() const { return what_; }

 private:
  void write(const unsigned char* bytes);
  Backend backend_;
  std::size_t payload_;
  std::string what_;
  std::vector<unsigned char> host_;
#ifdef HIPRIM_WITH_GPU
  gpu::DeviceBuffer dev_;
#endif
};

// The guard bytes of a read_all() result; a message naming the buffer when any was overwritten.
std::optional<std::string> check_guards(const std::vector<unsigned char>& all, std::size_t payload, const std::string& what);
// The payload part of a read_all() result.
std::vector<unsigned char> payload_of(const std::vector<unsigned char>& all, std::size_t payload);
// Waits for the backend's work (device: gpu::synchronize; host: nothing).
void synchronize_backend(Backend b);
// Why a solver of this backend cannot run here (no GPU, or a build without one); nullopt when it can.
std::optional<std::string> backend_unavailable(Backend b);

}  // namespace hiprim::verify
