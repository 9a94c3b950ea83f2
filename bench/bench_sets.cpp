#include "bench/bench_sets.hpp"

#ifdef HIPRIM_WITH_GPU
#include <algorithm>
#include <string>

#include "bench/bench_check.hpp"
#include "bench/bench_stats.hpp"
#include "bench/event_series.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {

std::size_t storage_bytes(const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); }

void fill_device_bounded(gpu::DeviceBuffer& buf, DType t, std::uint64_t seed, std::uint64_t tag) {
  const std::size_t es = dtype_size(t), total = buf.bytes() / es;
  if (total == 0) return;
  const std::size_t block = std::min<std::size_t>(total, std::size_t{1} << 20);
  std::vector<unsigned char> host(block * es);
  for (std::size_t i = 0; i < block; ++i) store_element(t, host.data() + i * es, fill_value(FillTier::bounded, t, seed, tag, i, 0));
  buf.upload(host.data(), host.size());
  for (std::size_t done = block; done < total; done *= 2) {
    auto* base = static_cast<unsigned char*>(buf.data());
    gpu::copy_device_to_device_async(base + done * es, base, std::min(done, total - done) * es, nullptr);
  }
  gpu::synchronize("filling a benchmark buffer");
}

TimingSets::TimingSets(const ConvProblem& p, std::size_t l2, std::uint64_t seed) : p_(p) {
  const std::size_t xb = storage_bytes(p.x_desc()), wb = storage_bytes(p.w_desc()), yb = storage_bytes(p.y_desc());
  const std::size_t bb = p.bias ? storage_bytes(p.bias_desc()) : 0;
  set_bytes_ = xb + wb + yb + bb;
  count_ = rotation_sets(set_bytes_, l2);
  for (int i = 0; i < count_; ++i) {
    const std::string n = " (timing set " + std::to_string(i) + ")";
    x_.emplace_back(xb, "x" + n);
    w_.emplace_back(wb, "w" + n);
    y_.emplace_back(yb, "y" + n);
    bias_.emplace_back(bb, "bias" + n);
  }
  fill_device_bounded(x_[0], p.dtype, seed, kTagX);
  fill_device_bounded(w_[0], p.dtype, seed, kTagW);
  fill_device_bounded(y_[0], p.dtype, seed, kTagY);
  if (p.bias) fill_device_bounded(bias_[0], p.dtype, seed, kTagBias);
  for (auto* v : {&x_, &w_, &y_, &bias_})
    for (int i = 1; i < count_; ++i) gpu::copy_device_to_device_async((*v)[i].data(), (*v)[0].data(), (*v)[0].bytes(), nullptr);
  gpu::synchronize("copying the benchmark timing sets");
}

ConvTensors TimingSets::tensors(int i, const gpu::DeviceBuffer& ws, void* stream) const {
  const auto k = static_cast<std::size_t>(i);
  return ConvTensors{x_[k].data(), w_[k].data(), y_[k].data(), p_.bias ? bias_[k].data() : nullptr, ws.data(), ws.bytes(), stream, {}};
}

PeerBuffers TimingSets::peer(int i, const gpu::DeviceBuffer& ws, void* stream) const {
  const auto k = static_cast<std::size_t>(i);
  return PeerBuffers{x_[k].data(), w_[k].data(), y_[k].data(), p_.bias ? bias_[k].data() : nullptr, ws.data(), ws.bytes(), stream};
}

VerifyBuffers::VerifyBuffers(const PreparedCase& c) : p_(conv_problem(c)) {
  const ref::ConvInputs in = conv_inputs(c);
  auto make = [](gpu::DeviceBuffer& d, const TensorDesc& desc, const HostTensor* h, const std::string& what) {
    d = gpu::DeviceBuffer(storage_bytes(desc), what + " (verification)");
    if (h && !h->data.empty()) {
      const auto bytes = h->to_bytes();
      d.upload(bytes.data(), bytes.size());
    }
  };
  make(x_, p_.x_desc(), in.x, "x");
  make(w_, p_.w_desc(), in.w, "w");
  make(y_, p_.y_desc(), in.y, "y");
  if (p_.bias) make(bias_, p_.bias_desc(), in.bias, "bias");
}

ConvTensors VerifyBuffers::tensors(const gpu::DeviceBuffer& ws, void* stream) const {
  return ConvTensors{x_.data(), w_.data(), y_.data(), p_.bias ? bias_.data() : nullptr, ws.data(), ws.bytes(), stream, {}};
}

PeerBuffers VerifyBuffers::peer(const gpu::DeviceBuffer& ws, void* stream) const {
  return PeerBuffers{x_.data(), w_.data(), y_.data(), p_.bias ? bias_.data() : nullptr, ws.data(), ws.bytes(), stream};
}

gpu::DeviceBuffer& VerifyBuffers::output() { return p_.dir == ConvDir::fwd ? y_ : p_.dir == ConvDir::bwd_data ? x_ : w_; }
const gpu::DeviceBuffer& VerifyBuffers::output() const {
  return p_.dir == ConvDir::fwd ? y_ : p_.dir == ConvDir::bwd_data ? x_ : w_;
}

void VerifyBuffers::poison_output() { output().fill_bytes(0xFF); }

std::vector<unsigned char> VerifyBuffers::download_output_bytes() const {
  std::vector<unsigned char> bytes(output().bytes());
  output().download(bytes.data(), bytes.size());
  return bytes;
}

HostTensor VerifyBuffers::download_output() const {
  HostTensor h(output_desc(p_));
  const std::vector<unsigned char> bytes = download_output_bytes();
  h.from_bytes(bytes.data());
  return h;
}

}  // namespace hiprim::verify
#endif
