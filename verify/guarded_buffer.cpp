#include "verify/guarded_buffer.hpp"

#include <cstring>

#include "core/error.hpp"

namespace hiprim::verify {

GuardedBuffer::GuardedBuffer(Backend b, std::size_t payload, const std::string& what) : backend_(b), payload_(payload), what_(what) {
  std::vector<unsigned char> init(payload + 2 * kGuard, kGuardByte);
  if (b == Backend::host) {
    host_ = std::move(init);
  } else {
#ifdef HIPRIM_WITH_GPU
    dev_ = gpu::DeviceBuffer(init.size(), what);
    dev_.upload(init.data(), init.size());
#else
    throw RuntimeError("device buffer requested in a build without a GPU backend");
#endif
  }
}

void* GuardedBuffer::data() {
  if (backend_ == Backend::host) return host_.data() + kGuard;
#ifdef HIPRIM_WITH_GPU
  return static_cast<unsigned char*>(dev_.data()) + kGuard;
#else
  return nullptr;
#endif
}

void GuardedBuffer::set(const std::vector<unsigned char>& bytes) {
  if (bytes.size() != payload_)
    throw RuntimeError("buffer " + what_ + ": setting " + std::to_string(bytes.size()) + " bytes into a payload of " +
                       std::to_string(payload_));
  write(bytes.data());
}

void GuardedBuffer::poison() { write(std::vector<unsigned char>(payload_, kPoisonByte).data()); }

std::vector<unsigned char> GuardedBuffer::read_all() const {
  if (backend_ == Backend::host) return host_;
  std::vector<unsigned char> out(payload_ + 2 * kGuard);
#ifdef HIPRIM_WITH_GPU
  dev_.download(out.data(), out.size());
#endif
  return out;
}

void GuardedBuffer::write(const unsigned char* bytes) {
  if (payload_ == 0) return;
  if (backend_ == Backend::host) {
    std::memcpy(host_.data() + kGuard, bytes, payload_);
  } else {
#ifdef HIPRIM_WITH_GPU
    dev_.upload(bytes, payload_, kGuard);
#endif
  }
}

std::optional<std::string> check_guards(const std::vector<unsigned char>& all, std::size_t payload, const std::string& what) {
  for (std::size_t i = 0; i < kGuard; ++i) {
    if (all[i] != kGuardByte) return "wrote " + std::to_string(kGuard - i) + " bytes before the start of buffer " + what;
    if (all[kGuard + payload + i] != kGuardByte)
      return "wrote past the end of buffer " + what + " (byte " + std::to_string(i) + " after it)";
  }
  return std::nullopt;
}

std::vector<unsigned char> payload_of(const std::vector<unsigned char>& all, std::size_t payload) {
  return {all.begin() + kGuard, all.begin() + static_cast<std::ptrdiff_t>(kGuard + payload)};
}

void synchronize_backend(Backend b) {
#ifdef HIPRIM_WITH_GPU
  if (b == Backend::device) gpu::synchronize("running a solver");
#else
  (void)b;
#endif
}

std::optional<std::string> backend_unavailable(Backend b) {
  if (b != Backend::device) return std::nullopt;
#ifdef HIPRIM_WITH_GPU
  std::string why;
  if (!gpu::device_available(&why)) return "no GPU device: " + why;
  return std::nullopt;
#else
  return std::string("built without a GPU backend");
#endif
}

}  // namespace hiprim::verify
