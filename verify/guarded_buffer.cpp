#include "verify/guarded_buffer.hpp"

#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "verify/compare.hpp"  // index_string

namespace hiprim::verify {

GuardedBuffer::GuardedBuffer(Backend b, std::size_t payload, const std::string& what) : backend_(b), payload_(payload), what_(what) {
  if (b == Backend::host) {
    host_.assign(payload + 2 * kGuard, kGuardByte);
  } else {
#ifdef HIPRIM_WITH_GPU
    dev_ = gpu::DeviceBuffer(payload + 2 * kGuard, what);
    dev_.fill_bytes(kGuardByte);  // guards and payload alike, as the host buffer
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

std::uint32_t poison_bits(DType t) {
  switch (t) {
    case DType::fp32: return 0x7FA5A5A5u;
    case DType::fp16: return 0x7CA5u;
    case DType::bf16: return 0x7FA5u;
  }
  return 0x7FA5A5A5u;
}

bool is_poison(DType t, std::uint32_t bits) {
  const std::uint32_t magnitude = t == DType::fp32 ? 0x7FFFFFFFu : 0x7FFFu;
  return (bits & magnitude) == poison_bits(t);
}

namespace {

// Element i's bits, little-endian (the element's dtype_size bytes).
std::uint32_t element_bits(const unsigned char* p, std::size_t size) {
  std::uint32_t v = 0;
  for (std::size_t b = 0; b < size; ++b) v |= static_cast<std::uint32_t>(p[b]) << (8 * b);
  return v;
}

}  // namespace

void GuardedBuffer::poison(DType t) {
  const std::size_t es = dtype_size(t);
  if (payload_ % es != 0)
    throw InputError("buffer " + what_ + ": " + std::to_string(payload_) + " bytes are not a whole number of " +
                     std::string(dtype_name(t)) + " elements");
  if (payload_ == 0) return;
  unsigned char element[4];
  const std::uint32_t bits = poison_bits(t);
  for (std::size_t b = 0; b < es; ++b) element[b] = static_cast<unsigned char>(bits >> (8 * b));
  if (backend_ == Backend::host) {
    for (std::size_t i = 0; i < payload_; i += es) std::memcpy(host_.data() + kGuard + i, element, es);
  } else {
#ifdef HIPRIM_WITH_GPU
    dev_.fill_pattern(element, es, kGuard, payload_);
#endif
  }
}

std::optional<std::string> check_written(const std::vector<unsigned char>& payload, const TensorDesc& desc, const std::string& what) {
  const std::size_t es = dtype_size(desc.dtype);
  if (payload.size() < static_cast<std::size_t>(desc.storage_elements()) * es)
    throw InputError("check_written: " + std::to_string(payload.size()) + " bytes do not hold " + desc.str());
  // Fast path: a packed desc's storage is its elements, so a scan of the bytes finds none poisoned
  // without computing an index per element; the indexed walk below runs when one is found.
  if (desc.storage_elements() == desc.elements()) {
    bool any = false;
    for (std::size_t off = 0, end = static_cast<std::size_t>(desc.elements()) * es; off < end && !any; off += es)
      any = is_poison(desc.dtype, element_bits(payload.data() + off, es));
    if (!any) return std::nullopt;
  }
  std::int64_t unwritten = 0, total = 0;
  Dims first;
  for_each_index(desc.dims, [&](const Dims& idx) {
    ++total;
    const auto off = static_cast<std::size_t>(desc.offset(idx)) * es;
    if (!is_poison(desc.dtype, element_bits(payload.data() + off, es))) return;
    if (unwritten++ == 0) first = idx;
  });
  if (unwritten == 0) return std::nullopt;
  char bits[16];
  std::snprintf(bits, sizeof bits, desc.dtype == DType::fp32 ? "0x%08X" : "0x%04X", poison_bits(desc.dtype));
  return "never wrote " + std::to_string(unwritten) + " of " + std::to_string(total) + " elements of " + what +
         " (still the poison " + bits + ", a signaling NaN no arithmetic produces); first at " + index_string(first);
}

std::vector<unsigned char> GuardedBuffer::read_all() const {
  if (backend_ == Backend::host) return host_;
  std::vector<unsigned char> out(payload_ + 2 * kGuard);
#ifdef HIPRIM_WITH_GPU
  dev_.download(out.data(), out.size());
#endif
  return out;
}

std::vector<unsigned char> GuardedBuffer::read_payload() const {
  if (backend_ == Backend::host) return payload_of(host_, payload_);
  std::vector<unsigned char> out(payload_);
#ifdef HIPRIM_WITH_GPU
  dev_.download(out.data(), out.size(), kGuard);
#endif
  return out;
}

std::optional<std::string> GuardedBuffer::guards_intact() const {
  if (backend_ == Backend::host) return check_guards(host_, payload_, what_);
  std::vector<unsigned char> guards(2 * kGuard);  // [guard before | guard after], as a payload of 0 bytes
#ifdef HIPRIM_WITH_GPU
  dev_.download(guards.data(), kGuard, 0);
  dev_.download(guards.data() + kGuard, kGuard, kGuard + payload_);
#endif
  return check_guards(guards, 0, what_);
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
