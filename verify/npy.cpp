#include "verify/npy.hpp"

#include <fstream>

#include "core/error.hpp"

namespace hiprim::verify {
namespace {

template <typename T>
void write_impl(const std::string& path, const Dims& shape, const std::vector<T>& values, const char* descr) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  dict += "), }";
  // Header length (magic 6 + version 2 + len 2 + dict + '\n') padded with spaces to a multiple of 64.
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw RuntimeError("cannot write " + path);
  const unsigned short len = static_cast<unsigned short>(dict.size());
  f.write("\x93NUMPY\x01\x00", 8);
  f.put(static_cast<char>(len & 0xff));
  f.put(static_cast<char>(len >> 8));
  f.write(dict.data(), static_cast<std::streamsize>(dict.size()));
  f.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!f) throw RuntimeError("error while writing " + path);
}

}  // namespace

void write_npy(const std::string& path, const Dims& shape, const std::vector<float>& values) {
  write_impl(path, shape, values, "<f4");
}
void write_npy(const std::string& path, const Dims& shape, const std::vector<double>& values) {
  write_impl(path, shape, values, "<f8");
}

}  // namespace hiprim::verify
