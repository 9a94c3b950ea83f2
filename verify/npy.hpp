// Minimal .npy (NumPy format 1.0) writer: little-endian float32 ('<f4') or float64 ('<f8'), C order.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace hiprim::verify {

void write_npy(const std::string& path, const Dims& shape, const std::vector<float>& values);
void write_npy(const std::string& path, const Dims& shape, const std::vector<double>& values);
// The tensor's logical elements (dims order, last fastest), whatever its strides.
template <typename T>
std::vector<T> logical_values(const TensorDesc& d, const std::vector<T>& storage) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(d.elements()));
  for_each_index(d.dims, [&](const Dims& i) { out.push_back(storage[static_cast<std::size_t>(d.offset(i))]); });
  return out;
}

}  // namespace hiprim::verify
