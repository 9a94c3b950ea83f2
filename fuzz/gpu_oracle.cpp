#include "fuzz/gpu_oracle.hpp"

#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"  // poison_bits, check_written
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/hip_compat.hpp"
#endif

namespace hiprim::fuzz {

int gpu_device_count() {
#ifdef HIPRIM_WITH_GPU
  if (!gpu::device_available()) return 0;
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) return 0;
  return n;
#else
  return 0;
#endif
}

bool gpu_oracle_available(std::string* why) {
#ifdef HIPRIM_WITH_GPU
  return gpu::device_available(why);
#else
  if (why) *why = "built without a GPU backend";
  return false;
#endif
}

ref::ConvOutput device_solver_output(const verify::PreparedCase& c, const ConvSolver& oracle) {
  const ConvProblem& p = verify::conv_problem(c);
  if (auto a = oracle.applicable(p); !a) throw InputError(oracle.name() + " refuses " + to_string(p) + ": " + a.reason);
#ifdef HIPRIM_WITH_GPU
  auto bytes = [](const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); };
  // Unused roles get a buffer too (solvers may take their pointers); inputs are uploaded.
  gpu::DeviceBuffer x(std::max<std::size_t>(1, bytes(p.x_desc())), "oracle x"), w(std::max<std::size_t>(1, bytes(p.w_desc())), "oracle w"),
      y(std::max<std::size_t>(1, bytes(p.y_desc())), "oracle y"), bias(std::max<std::size_t>(1, p.bias ? bytes(p.bias_desc()) : 1), "oracle bias"),
      ws(std::max<std::size_t>(1, oracle.workspace_bytes(p)), "oracle workspace");
  auto up = [](gpu::DeviceBuffer& b, const HostTensor& t) {
    auto v = t.to_bytes();
    if (!v.empty()) b.upload(v.data(), v.size());
  };
  const ref::ConvInputs in = verify::conv_inputs(c);
  if (in.x) up(x, *in.x);
  if (in.w) up(w, *in.w);
  if (in.y) up(y, *in.y);
  if (in.bias) up(bias, *in.bias);
  const TensorDesc out = p.dir == ConvDir::fwd ? p.y_desc() : p.dir == ConvDir::bwd_data ? p.x_desc() : p.w_desc();
  gpu::DeviceBuffer& ob = p.dir == ConvDir::fwd ? y : p.dir == ConvDir::bwd_data ? x : w;
  // The output starts as the runner's poison: an element the oracle does not write is an error, not garbage.
  std::vector<unsigned char> raw(bytes(out));
  const std::size_t es = dtype_size(out.dtype);
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<unsigned char>(verify::poison_bits(out.dtype) >> (8 * (i % es)));
  if (!raw.empty()) ob.upload(raw.data(), raw.size());
  ConvTensors t{x.data(), w.data(), y.data(), p.bias ? bias.data() : nullptr, ws.data(), oracle.workspace_bytes(p), nullptr, {}};
  oracle.run(p, t);
  gpu::synchronize("running the GPU oracle");
  if (!raw.empty()) ob.download(raw.data(), raw.size());
  if (auto bad = verify::check_written(raw, out, "the GPU oracle's (" + oracle.name() + ") output"))
    throw RuntimeError("GPU oracle: " + *bad);
  HostTensor h(out);
  h.from_bytes(raw.data());
  ref::ConvOutput r;
  r.desc = out;
  r.value.assign(h.data.begin(), h.data.end());
  return r;
#else
  (void)c;
  throw RuntimeError("the GPU oracle needs a GPU build (HIPRIM_GPU=cuda)");
#endif
}

}  // namespace hiprim::fuzz
