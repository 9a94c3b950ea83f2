#include "core/tensor.hpp"

#include <sstream>

namespace hiprim {

TensorDesc TensorDesc::packed(DType dtype, const Dims& dims, bool channels_last) {
  TensorDesc d{dtype, dims, Dims(dims.size(), 0)};
  std::vector<std::size_t> order;  // innermost first
  if (channels_last && dims.size() >= 3) {
    order.push_back(1);
    for (std::size_t i = dims.size() - 1; i >= 2; --i) order.push_back(i);
    order.push_back(0);
  } else {
    for (std::size_t i = dims.size(); i-- > 0;) order.push_back(i);
  }
  std::int64_t s = 1;
  for (auto i : order) {
    d.strides[i] = s;
    s *= dims[i];
  }
  return d;
}

std::int64_t TensorDesc::elements() const {
  std::int64_t n = 1;
  for (auto v : dims) n *= v;
  return n;
}

std::int64_t TensorDesc::storage_elements() const {
  std::int64_t n = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] <= 0) return 0;
    n += (dims[i] - 1) * strides[i];
  }
  return n;
}

std::int64_t TensorDesc::offset(const Dims& index) const {
  std::int64_t o = 0;
  for (std::size_t i = 0; i < index.size(); ++i) o += index[i] * strides[i];
  return o;
}

std::string TensorDesc::str() const {
  std::ostringstream os;
  os << dtype_name(dtype) << "[";
  for (std::size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << "]/[";
  for (std::size_t i = 0; i < strides.size(); ++i) os << (i ? "," : "") << strides[i];
  os << "]";
  return os.str();
}

HostTensor::HostTensor(TensorDesc d) : desc(std::move(d)), data(static_cast<std::size_t>(desc.storage_elements()), 0.0f) {}

std::vector<unsigned char> HostTensor::to_bytes() const {
  std::size_t es = dtype_size(desc.dtype);
  std::vector<unsigned char> out(data.size() * es);
  for (std::size_t i = 0; i < data.size(); ++i) store_element(desc.dtype, out.data() + i * es, data[i]);
  return out;
}

void HostTensor::from_bytes(const unsigned char* bytes) {
  std::size_t es = dtype_size(desc.dtype);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = load_element(desc.dtype, bytes + i * es);
}

}  // namespace hiprim
