// Data types of tensors and the host-side bit-exact conversions for the 16-bit formats.
// bf16: 1 sign, 8 exponent, 7 mantissa bits (the top half of an IEEE float).
// fp16: IEEE binary16, 1 sign, 5 exponent, 10 mantissa bits.
// float -> 16 bit rounds to nearest, ties to even; NaN stays a quiet NaN (sign kept); +-Inf kept;
// subnormals kept; fp16 overflow goes to +-Inf.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hiprim {

enum class DType { fp32, fp16, bf16 };

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view s);
std::size_t dtype_size(DType t);
// Unit roundoff u = 2^-p (p = significand bits incl. implicit one): fp32 2^-24, fp16 2^-11, bf16 2^-8.
double unit_roundoff(DType t);

std::uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(std::uint16_t b);
std::uint16_t float_to_fp16_bits(float f);
float fp16_bits_to_float(std::uint16_t h);

// The float nearest to f that the dtype can hold (identity for fp32).
float round_to(DType t, float f);
// Same, from double: double -> float (RNE) -> dtype (RNE). The double rounding is harmless for
// the values used here (fills are exact in float), and matches what a kernel storing float does.
float round_to(DType t, double d);

// Encode/decode one element of dtype t at p.
void store_element(DType t, void* p, float v);
float load_element(DType t, const void* p);

// Distance in units in the last place between a and b, both representable in t (ordered bit
// patterns). NaN against anything is reported as UINT64_MAX.
std::uint64_t ulp_distance(DType t, float a, float b);

}  // namespace hiprim
