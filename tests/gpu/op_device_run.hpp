// One op solver run on the device in guarded buffers (tests/gpu/guarded_device.hpp), for the GPU
// tests that look at the outputs themselves: the tensors after the run, in tensors() order (inputs
// as given, outputs read back; the outputs of `in` are ignored, the device's are poisoned first).
// A changed guard or a modified input fails the calling test (gtest EXPECTs naming the solver and
// the tensor).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "core/tensor.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/guarded_device.hpp"

namespace hiprim::gputest {

inline std::vector<HostTensor> run_op_on_device(const OpProblem& p, const OpSolver& s, const std::vector<HostTensor>& in) {
  const auto ts = p.tensors();
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<GuardedBuffer> bufs;
  std::vector<void*> ptrs;
  bufs.reserve(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    bytes.push_back(in[i].to_bytes());
    bufs.push_back(ts[i].role == OpTensor::Role::output ? guarded_output(bytes[i].size(), ts[i].desc.dtype, ts[i].name)
                                                        : guarded_input(bytes[i], ts[i].name));
    ptrs.push_back(bufs.back().data());
  }
  GuardedBuffer ws(Backend::device, std::max<std::size_t>(s.workspace_bytes(p), 1), "workspace");
  s.run(p, ptrs, ws.data(), ws.payload(), nullptr);
  gpu::synchronize("run_op_on_device");
  EXPECT_EQ(guard_error(ws), "") << s.name();
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].role == OpTensor::Role::input) {
      EXPECT_EQ(input_error(bufs[i], bytes[i]), "") << s.name() << ": " << ts[i].name;
      out.push_back(in[i]);
      continue;
    }
    const Readback r = read_back(bufs[i]);
    EXPECT_EQ(r.guard_error, "") << s.name() << ": " << ts[i].name;
    HostTensor t(ts[i].desc);
    t.from_bytes(r.payload.data());
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hiprim::gputest
