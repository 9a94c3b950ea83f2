// Buffers with guard regions, in host or device memory, used by both runners:
// [guard | payload | guard], the guards filled with kGuardByte; a solver writing outside its
// payload changes a guard byte, which check_guards() reports (byte equality, so no value a solver
// computes can pass for a guard). poison(dtype) fills an output's payload with the dtype's poison
// pattern before a run, and check_written() fails every element that still holds it afterwards.
//
// The poison is a signaling NaN with a fixed payload, one per dtype:
//   fp32 0x7FA5A5A5, fp16 0x7CA5, bf16 0x7FA5 (exponent all ones, quiet bit clear, payload != 0).
// No solver can produce it by arithmetic or conversion, so "still poisoned" means "never written":
//   - IEEE 754 (2008, 6.2 and 7.2) has every operation that delivers a NaN deliver a QUIET one: a
//     NaN made from numbers (0*Inf, Inf-Inf, 0/0, sqrt(-1)) is the default NaN, an operation on a
//     signaling NaN signals and returns it quieted, one on quiet NaNs returns a quiet NaN. NVIDIA's
//     arithmetic (SIMT and tensor cores) returns its canonical NaN 0x7FFFFFFF (fp32) / 0x7FFF
//     (fp16, bf16); x86 SSE/AVX return the default NaN 0xFFC00000 or a quieted operand; double
//     arithmetic on the host (the references) likewise, quiet.
//   - Conversions quiet NaNs too: cvt between fp32/fp16/bf16 on NVIDIA gives the canonical NaN,
//     x86's cvtsd2ss/vcvtps2ph/vcvtph2ps set the quiet bit, and hiprim's round_to() sets it
//     (core/dtype.cpp: 0x0040 for bf16, 0x0200 for fp16).
//   - Only a bit copy (a move, a copy of an input element, a sign flip, a float->double->float round
//     trip that the compiler turns into a copy) carries a NaN's bits unchanged, and no input holds a signaling NaN: fills are finite, special values and op fills
//     inject quiet_NaN() (0x7FC00000) and infinities. A sign flip of the poison is still the poison
//     to check_written() (it compares the bits without the sign).
//   - The pattern is not NVIDIA's (0x7FFFFFFF, 0x7FFF) nor x86's (0xFFC00000) NaN, so a kernel that
//     computed a NaN and one that wrote nothing are told apart.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"  // Backend
#include "core/tensor.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

inline constexpr std::size_t kGuard = 256;          // bytes of guard on each side of every buffer
inline constexpr unsigned char kGuardByte = 0xA5;   // guard pattern

// The dtype's poison bits (low 16 bits for fp16/bf16); stored little-endian like every element.
std::uint32_t poison_bits(DType t);
// Whether an element's bits (sign ignored) are the poison of its dtype.
bool is_poison(DType t, std::uint32_t bits);

class GuardedBuffer {
 public:
  // RuntimeError for a device buffer in a build without a GPU backend.
  GuardedBuffer(Backend b, std::size_t payload, const std::string& what);
  void* data();  // start of the payload
  void set(const std::vector<unsigned char>& bytes);  // payload bytes (size payload())
  // Fills the payload with poison_bits(t), element after element (InputError when the payload is
  // not a whole number of elements).
  void poison(DType t);
  // The whole buffer, guards included.
  std::vector<unsigned char> read_all() const;
  // The payload only (what read_all() holds between the guards).
  std::vector<unsigned char> read_payload() const;
  // check_guards() of the two guard regions, read on their own (no payload transfer).
  std::optional<std::string> guards_intact() const;
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
// Every logical element of desc whose bytes in `payload` (the storage of desc) still hold the
// poison: nullopt when none, else a message with the count and the first one's logical index,
// e.g. "never wrote 3 of 96 elements of y (still the poison 0x7FA5A5A5); first at [0,1,2,3]".
std::optional<std::string> check_written(const std::vector<unsigned char>& payload, const TensorDesc& desc, const std::string& what);
// The payload part of a read_all() result.
std::vector<unsigned char> payload_of(const std::vector<unsigned char>& all, std::size_t payload);
// Waits for the backend's work (device: gpu::synchronize; host: nothing).
void synchronize_backend(Backend b);
// Why a solver of this backend cannot run here (no GPU, or a build without one); nullopt when it can.
std::optional<std::string> backend_unavailable(Backend b);

}  // namespace hiprim::verify
