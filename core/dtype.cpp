#include "core/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace hiprim {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp32") return DType::fp32;
  if (s == "fp16") return DType::fp16;
  if (s == "bf16") return DType::bf16;
  return std::nullopt;
}

std::size_t dtype_size(DType t) { return t == DType::fp32 ? 4 : 2; }

double unit_roundoff(DType t) {
  switch (t) {
    case DType::fp32: return std::ldexp(1.0, -24);
    case DType::fp16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
  }
  return 1.0;
}

std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  // Round to nearest even on the low 16 bits; Inf stays Inf, max finite may round up to Inf.
  std::uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<std::uint16_t>(u >> 16);
}

float bf16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t float_to_fp16_bits(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x01ffu));  // quiet NaN
  if (a == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  int exp = static_cast<int>(a >> 23) - 127;  // unbiased
  std::uint32_t mant = a & 0x7fffffu;
  if (exp > 15) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow -> Inf
  std::uint32_t sig;   // significand with the implicit one, 24 bits
  int shift;           // right shift that brings sig to the fp16 field
  if (exp >= -14) {    // normal fp16 range: keep 10 mantissa bits
    sig = mant | 0x800000u;
    shift = 13;
  } else {             // fp16 subnormal (or underflow to zero): value = m * 2^-24
    if (exp < -25) return sign;  // below half the smallest subnormal: rounds to zero
    sig = (a >> 23) ? (mant | 0x800000u) : mant;
    shift = 13 + (-14 - exp);
  }
  std::uint32_t kept = sig >> shift;
  std::uint32_t rem = sig & ((1u << shift) - 1u);
  std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (kept & 1u))) ++kept;
  std::uint32_t bits;
  if (exp >= -14) {
    // kept holds 1.mmmmmmmmmm (11 bits); a carry out to 12 bits bumps the exponent naturally.
    bits = (static_cast<std::uint32_t>(exp + 15) << 10) + (kept - 0x400u);
  } else {
    bits = kept;  // a carry to 0x400 becomes the smallest normal, as it should
  }
  if (bits >= 0x7c00u) bits = 0x7c00u;
  return static_cast<std::uint16_t>(sign | bits);
}

float fp16_bits_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e - 15 + 127) << 23) | (m << 13));
}

float round_to(DType t, float f) {
  switch (t) {
    case DType::fp32: return f;
    case DType::fp16: return fp16_bits_to_float(float_to_fp16_bits(f));
    case DType::bf16: return bf16_bits_to_float(float_to_bf16_bits(f));
  }
  return f;
}

float round_to(DType t, double d) { return round_to(t, static_cast<float>(d)); }

void store_element(DType t, void* p, float v) {
  if (t == DType::fp32) {
    std::memcpy(p, &v, 4);
  } else {
    std::uint16_t b = t == DType::fp16 ? float_to_fp16_bits(v) : float_to_bf16_bits(v);
    std::memcpy(p, &b, 2);
  }
}

float load_element(DType t, const void* p) {
  if (t == DType::fp32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  std::uint16_t b;
  std::memcpy(&b, p, 2);
  return t == DType::fp16 ? fp16_bits_to_float(b) : bf16_bits_to_float(b);
}

namespace {
// Maps a bit pattern to a monotone integer line (negative values mirrored below zero).
std::int64_t ordered(std::uint32_t bits, std::uint32_t sign_bit) {
  return (bits & sign_bit) ? -static_cast<std::int64_t>(bits & (sign_bit - 1)) : static_cast<std::int64_t>(bits);
}
}  // namespace

std::uint64_t ulp_distance(DType t, float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<std::uint64_t>::max();
  std::int64_t ia, ib;
  if (t == DType::fp32) {
    ia = ordered(std::bit_cast<std::uint32_t>(a), 0x80000000u);
    ib = ordered(std::bit_cast<std::uint32_t>(b), 0x80000000u);
  } else {
    std::uint16_t ba = t == DType::fp16 ? float_to_fp16_bits(a) : float_to_bf16_bits(a);
    std::uint16_t bb = t == DType::fp16 ? float_to_fp16_bits(b) : float_to_bf16_bits(b);
    ia = ordered(ba, 0x8000u);
    ib = ordered(bb, 0x8000u);
  }
  return static_cast<std::uint64_t>(ia > ib ? ia - ib : ib - ia);
}

}  // namespace hiprim
