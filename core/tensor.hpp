// Tensor descriptors and host tensors.
// Dims are always logical: [N, C, (D,) H, W] for activations, [K, C/G, (T,) R, S] for filters.
// Strides (in elements) say where each logical index lives in memory; "channels last" layouts
// (NHWC, NDHWC) put C innermost, then the spatial dims, then N.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace hiprim {

using Dims = std::vector<std::int64_t>;

struct TensorDesc {
  DType dtype = DType::fp32;
  Dims dims;
  Dims strides;

  // Packed strides for the given dims; channels_last moves dim 1 innermost.
  static TensorDesc packed(DType dtype, const Dims& dims, bool channels_last);
  std::int64_t elements() const;         // product of dims
  std::int64_t storage_elements() const; // 1 + sum (dims[i]-1)*strides[i]; 0 when empty
  std::int64_t offset(const Dims& index) const;
  std::string str() const;  // e.g. "fp32[2,3,4,4]/[48,16,4,1]"
  bool operator==(const TensorDesc&) const = default;
};

// Host tensor: values held as floats that the dtype can represent exactly. The storage covers
// storage_elements(); elements not addressed by the descriptor (gaps of non-packed strides) stay 0.
struct HostTensor {
  TensorDesc desc;
  std::vector<float> data;

  HostTensor() = default;
  explicit HostTensor(TensorDesc d);
  float& at(const Dims& index) { return data[static_cast<std::size_t>(desc.offset(index))]; }
  float at(const Dims& index) const { return data[static_cast<std::size_t>(desc.offset(index))]; }
  // Bytes of the storage in the descriptor's dtype (what a kernel reads), and back.
  std::vector<unsigned char> to_bytes() const;
  void from_bytes(const unsigned char* bytes);
};

// for_each_index over the indices whose first component lies in [first_lo, first_hi) only
// (a slab of the outermost dimension), in the same row-major order.
template <typename F>
void for_each_index_in(const Dims& dims, std::int64_t first_lo, std::int64_t first_hi, F&& f) {
  for (auto d : dims)
    if (d <= 0) return;
  if (dims.empty()) {
    Dims none;
    f(static_cast<const Dims&>(none));
    return;
  }
  if (first_lo >= first_hi) return;
  Dims idx(dims.size(), 0);
  idx[0] = first_lo;
  while (true) {
    f(static_cast<const Dims&>(idx));
    int i = static_cast<int>(dims.size()) - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < (i == 0 ? first_hi : dims[i])) break;
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

// Calls f(index) for every logical index of dims, last dim fastest.
template <typename F>
void for_each_index(const Dims& dims, F&& f) {
  for_each_index_in(dims, 0, dims.empty() ? 1 : dims[0], f);
}

}  // namespace hiprim
