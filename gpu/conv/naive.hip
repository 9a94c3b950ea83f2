// conv.naive: the always-correct GPU baseline. One thread per element of the direction's output,
// gathering its whole sum in fp32 in a fixed order (deterministic), for every valid ConvProblem.
//
// Math: the three gathers of gpu/conv/naive_gather.hpp (the conv relation of gpu/conv/conv_index.hpp);
// bias (fwd only) is added to y's channel: Out's in mode conv (out_from_in), In's in mode trans (in_from_out).
// Layout: any strides (the problem's packed NCHW/NHWC/NCDHW/NDHWC), 2D as depth 1.
// Launch: 1D grid-stride loop, 256 threads per block, 64-bit linear indices.
#include <string>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/naive_gather.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr int kNaiveBlock = 256;

__device__ __forceinline__ long long grid_start() { return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ long long grid_step() { return static_cast<long long>(gridDim.x) * blockDim.x; }

// Reads element i of a device tensor of storage type T as float.
template <typename T>
struct DeviceLoad {
  const T* p;
  __device__ float operator()(long long i) const { return load_f(p, i); }
};

template <typename T>
__global__ void naive_out_from_in(ConvGeom g, const T* __restrict__ in, const T* __restrict__ w,
                                  const T* __restrict__ bias, T* __restrict__ out) {
  for (long long idx = grid_start(); idx < g.out_elements(); idx += grid_step()) {
    const Coord5 e = unravel5(idx, g.batch, g.out_ch, g.out_sz[0], g.out_sz[1], g.out_sz[2]);
    float v = gather_out_from_in(g, e, DeviceLoad<T>{in}, DeviceLoad<T>{w});
    if (bias) v += load_f(bias, e.i[1]);
    store_f(out, g.out_offset(e.i[0], e.i[1], e.i[2], e.i[3], e.i[4]), v);
  }
}

template <typename T>
__global__ void naive_in_from_out(ConvGeom g, const T* __restrict__ out, const T* __restrict__ w,
                                  const T* __restrict__ bias, T* __restrict__ in) {
  for (long long idx = grid_start(); idx < g.in_elements(); idx += grid_step()) {
    const Coord5 e = unravel5(idx, g.batch, g.in_ch, g.in_sz[0], g.in_sz[1], g.in_sz[2]);
    float v = gather_in_from_out(g, e, DeviceLoad<T>{out}, DeviceLoad<T>{w});
    if (bias) v += load_f(bias, e.i[1]);
    store_f(in, g.in_offset(e.i[0], e.i[1], e.i[2], e.i[3], e.i[4]), v);
  }
}

template <typename T>
__global__ void naive_w_from_in_out(ConvGeom g, const T* __restrict__ in, const T* __restrict__ out, T* __restrict__ w) {
  for (long long idx = grid_start(); idx < g.w_elements(); idx += grid_step()) {
    const Coord5 e = unravel5(idx, g.out_ch, g.in_per_group(), g.f_sz[0], g.f_sz[1], g.f_sz[2]);
    const float v = gather_w_from_in_out(g, e, DeviceLoad<T>{in}, DeviceLoad<T>{out});
    store_f(w, g.w_offset(e.i[0], e.i[1], e.i[2], e.i[3], e.i[4]), v);
  }
}

class ConvNaive final : public ConvSolver {
 public:
  std::string name() const override { return "conv.naive"; }
  Backend backend() const override { return Backend::device; }
  // Gathers with bounds checks over the real terms only (naive_gather.hpp).
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  std::string summary() const override {
    return "direct, one thread per output element, fp32 accumulation; every direction, conv and trans, 2D/3D, "
           "groups, stride/pad/dilation, bias; fp32/fp16/bf16; all layouts";
  }
  Applicability applicable(const ConvProblem& p) const override {
    auto errors = p.validate();
    if (!errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    return Applicability::yes();
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const ConvGeom g = conv_geom(p);
    const ConvOperands o = conv_operands(p, t);
    const auto stream = static_cast<hipStream_t>(t.stream);
    const std::string ctx = "running conv.naive on " + to_string(p);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      const T* bias = static_cast<const T*>(p.bias ? o.bias : nullptr);
      switch (conv_op(p)) {
        case ConvOp::out_from_in:
          hipLaunchKernelGGL(naive_out_from_in<T>, dim3(grid_stride_blocks(g.out_elements(), kNaiveBlock)),
                             dim3(kNaiveBlock), 0, stream, g, static_cast<const T*>(o.in), static_cast<const T*>(o.w),
                             bias, static_cast<T*>(o.out));
          HIPRIM_CHECK_LAUNCH("naive_out_from_in", ctx);
          break;
        case ConvOp::in_from_out:
          hipLaunchKernelGGL(naive_in_from_out<T>, dim3(grid_stride_blocks(g.in_elements(), kNaiveBlock)),
                             dim3(kNaiveBlock), 0, stream, g, static_cast<const T*>(o.out), static_cast<const T*>(o.w),
                             bias, static_cast<T*>(o.in));
          HIPRIM_CHECK_LAUNCH("naive_in_from_out", ctx);
          break;
        case ConvOp::w_from_in_out:
          hipLaunchKernelGGL(naive_w_from_in_out<T>, dim3(grid_stride_blocks(g.w_elements(), kNaiveBlock)),
                             dim3(kNaiveBlock), 0, stream, g, static_cast<const T*>(o.in),
                             static_cast<const T*>(o.out), static_cast<T*>(o.w));
          HIPRIM_CHECK_LAUNCH("naive_w_from_in_out", ctx);
          break;
      }
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_naive() { return std::make_shared<ConvNaive>(); }

}  // namespace hiprim::gpu
