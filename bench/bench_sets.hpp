// Device buffers of the convolution bench. GPU builds only.
//   TimingSets: `count` rotating copies of a problem's x, w, y (and bias), sized to cover 3 x L2,
//     filled with bounded real values in [-1, 1) of the dtype (a 2^20-element block of the bounded
//     fill, repeated): the timed runs read real data, never zeros (which can run faster), and never
//     the verification's small integers.
//   VerifyBuffers: one plain copy of the prepared (exact-tier) inputs, for checks outside the
//     conformance runner: the peer's plans and the quick mode. The output role is poisoned before
//     each run.
#pragma once
#ifdef HIPRIM_WITH_GPU
#include <cstdint>
#include <vector>

#include "bench/bench_peer.hpp"
#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "gpu/runtime/device.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify {

std::size_t storage_bytes(const TensorDesc& d);
// Fills buf with the bounded fill of dtype t (tag selects the sequence), block-repeated; synchronous.
void fill_device_bounded(gpu::DeviceBuffer& buf, DType t, std::uint64_t seed, std::uint64_t tag);

class TimingSets {
 public:
  TimingSets(const ConvProblem& p, std::size_t l2_bytes, std::uint64_t seed);
  int count() const { return count_; }
  std::size_t set_bytes() const { return set_bytes_; }
  ConvTensors tensors(int i, const gpu::DeviceBuffer& ws, void* stream) const;
  PeerBuffers peer(int i, const gpu::DeviceBuffer& ws, void* stream) const;

 private:
  ConvProblem p_;
  int count_ = 1;
  std::size_t set_bytes_ = 0;
  std::vector<gpu::DeviceBuffer> x_, w_, y_, bias_;
};

class VerifyBuffers {
 public:
  explicit VerifyBuffers(const PreparedCase& c);
  ConvTensors tensors(const gpu::DeviceBuffer& ws, void* stream) const;
  PeerBuffers peer(const gpu::DeviceBuffer& ws, void* stream) const;
  void poison_output();  // all 0xFF bytes: NaN in every dtype, so an unwritten element shows
  HostTensor download_output() const;
  std::vector<unsigned char> download_output_bytes() const;  // as stored (the output's dtype)

 private:
  ConvProblem p_;
  gpu::DeviceBuffer x_, w_, y_, bias_;
  gpu::DeviceBuffer& output();
  const gpu::DeviceBuffer& output() const;
};

}  // namespace hiprim::verify
#endif
