// Buffers of the GPU tests: verify::GuardedBuffer (verify/guarded_buffer.hpp), on the device unless
// told otherwise, [guard | payload | guard] with the guards kGuardByte and an output's payload the
// dtype's poison, and the checks the runners make after a solver ran: guards intact, inputs
// unmodified, no output element still holding the poison (a signaling NaN no arithmetic produces,
// so it also fails any value comparison). The checks themselves: test_guarded_device.cpp (host).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "verify/guarded_buffer.hpp"

namespace hiprim::gputest {

using verify::GuardedBuffer;

// An input: a buffer holding `bytes`.
inline GuardedBuffer guarded_input(const std::vector<unsigned char>& bytes, const std::string& what,
                                   Backend backend = Backend::device) {
  GuardedBuffer b(backend, bytes.size(), what);
  b.set(bytes);
  return b;
}

// An output: a buffer of `bytes` bytes, every element the poison of dtype t.
inline GuardedBuffer guarded_output(std::size_t bytes, DType t, const std::string& what, Backend backend = Backend::device) {
  GuardedBuffer b(backend, bytes, what);
  b.poison(t);
  return b;
}

// A buffer read back after a run: its payload, and "" or check_guards' message.
struct Readback {
  std::vector<unsigned char> payload;
  std::string guard_error;
};
inline Readback read_back(const GuardedBuffer& b) {
  const std::vector<unsigned char> all = b.read_all();
  return {verify::payload_of(all, b.payload()), verify::check_guards(all, b.payload(), b.what()).value_or("")};
}

// "" when the guards of b are intact; else check_guards' message.
inline std::string guard_error(const GuardedBuffer& b) { return read_back(b).guard_error; }

// "" when input b still holds `bytes` between intact guards; else what changed.
inline std::string input_error(const GuardedBuffer& b, const std::vector<unsigned char>& bytes) {
  const Readback r = read_back(b);
  if (!r.guard_error.empty()) return r.guard_error;
  return r.payload == bytes ? "" : "modified its input buffer " + b.what();
}

// Whether element i of `bytes` (dtype t, little-endian) still holds the poison: never written.
inline bool still_poison(DType t, const std::vector<unsigned char>& bytes, std::size_t i) {
  const std::size_t es = dtype_size(t);
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < es; ++k) v |= static_cast<std::uint32_t>(bytes[i * es + k]) << (8 * k);
  return verify::is_poison(t, v);
}

}  // namespace hiprim::gputest
