// The C API on the device backend with device memory (gpu::DeviceBuffer), each call against the
// host backend's result of the same call on the same inputs:
// - convolution fwd, bwd-data, bwd-weights: small integer data (|x|, |w|, |dy| <= 3), every partial
//   sum an integer far below 2^24, so any fp32 summation order is exact: equal bit for bit;
// - a fusion plan conv -> bias -> add -> relu (fp32, small integers: every step exact): equal bit for bit;
// - batch norm, activations, softmax, pooling (hiprimRunProblem): the reference's per-element error
//   bound b (ref::op_expected, the bound verify's compare_with_bounds applies to every solver) on
//   |solver - exact|; both backends are within b of the exact value, so |device - host| <= 2 b, and
//   exactly equal where b = 0 (relu, max pooling's values and indices).
// Skips, saying why, where no GPU can be used (the device machine runs it).
// Built with HIPRIM_API_DEVICE_TEST_ON_HOST (test_api_device_harness, every build) the "device" is
// a second host-backend handle over host copies: that checks this file's problem strings, buffer
// orders and bounds on the CPU machine; the comparison itself is then trivially equal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "hiprim/hiprim.h"
#include "reference/op_reference.hpp"
#include "tests/api/api_fixture.hpp"
#include "tests/api/fusion_fixture.hpp"

#ifdef HIPRIM_API_DEVICE_TEST_ON_HOST
namespace hiprim_api_test {
// Host memory with DeviceBuffer's interface.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const std::string&) : bytes_(bytes) {}
  void* data() const { return bytes_.empty() ? nullptr : const_cast<unsigned char*>(bytes_.data()); }
  void upload(const void* host, std::size_t n) { std::memcpy(bytes_.data(), host, n); }
  void download(void* host, std::size_t n) const { std::memcpy(host, bytes_.data(), n); }

 private:
  std::vector<unsigned char> bytes_;
};
}  // namespace hiprim_api_test
#define DeviceApi DeviceApiHarness
#define HIPRIM_API_DEVICE_BACKEND hiprimBackendHost
#define HIPRIM_API_SKIP_WITHOUT_DEVICE() (void)0
#else
#include "gpu/runtime/device.hpp"
#include "tests/gpu/skip_without_gpu.hpp"
namespace hiprim_api_test {
using hiprim::gpu::DeviceBuffer;
}
#define HIPRIM_API_DEVICE_BACKEND hiprimBackendDevice
#define HIPRIM_API_SKIP_WITHOUT_DEVICE() HIPRIM_SKIP_WITHOUT_GPU()
#endif

namespace hiprim_api_test {
namespace {

using Vec = std::vector<float>;

// Host copies and device copies of one call's fp32 buffers.
struct Buffers {
  std::vector<Vec> host;
  std::vector<DeviceBuffer> dev;
  explicit Buffers(std::vector<Vec> init) : host(std::move(init)) {
    for (std::size_t i = 0; i < host.size(); ++i) {
      dev.emplace_back(host[i].size() * sizeof(float), "buffer " + std::to_string(i));
      dev.back().upload(host[i].data(), host[i].size() * sizeof(float));
    }
  }
  void* h(std::size_t i) { return host[i].data(); }
  void* d(std::size_t i) { return dev[i].data(); }
  std::vector<void*> ptrs(bool device) {
    std::vector<void*> p;
    for (std::size_t i = 0; i < host.size(); ++i) p.push_back(device ? d(i) : h(i));
    return p;
  }
  Vec device_copy(std::size_t i) const {
    Vec v(host[i].size());
    dev[i].download(v.data(), v.size() * sizeof(float));
    return v;
  }
};

class DeviceApi : public ::testing::Test {
 public:
  hiprimHandle_t host = nullptr, dev = nullptr;
  const float one = 1, zero = 0;
  void SetUp() override {
    HIPRIM_API_SKIP_WITHOUT_DEVICE();
    ASSERT_EQ(hiprimCreateWithBackend(&host, hiprimBackendHost), hiprimStatusSuccess);
    ASSERT_EQ(hiprimCreateWithBackend(&dev, HIPRIM_API_DEVICE_BACKEND), hiprimStatusSuccess);
  }
  void TearDown() override {
    if (host) hiprimDestroy(host);
    if (dev) hiprimDestroy(dev);
  }
  // Runs call(handle, device?) on both backends, each expected to succeed.
  template <typename F>
  void on_both(F&& call) {
    ASSERT_EQ(call(host, false), hiprimStatusSuccess) << "host: " << hiprimGetLastErrorMessage(host);
    ASSERT_EQ(call(dev, true), hiprimStatusSuccess) << "device: " << hiprimGetLastErrorMessage(dev);
    std::printf("device solver %s, host solver %s\n", hiprimGetLastSolverName(dev), hiprimGetLastSolverName(host));
  }

  // The op problem `problem` whose buffers (in its tensors() order) start as `init`: run on both
  // backends by run(handle, pointers), then every output / in_out tensor compared: |device - host|
  // <= 2 b per element, b the reference's bound on the same inputs (b = 0: equal).
  template <typename F>
  void check_op(const std::string& problem, std::vector<Vec> init, F&& run) {
    const hiprim::OpProblemPtr p = hiprim::parse_op_problem(problem);
    const auto tensors = p->tensors();
    ASSERT_EQ(tensors.size(), init.size()) << problem;
    std::vector<hiprim::HostTensor> in(tensors.size());
    std::vector<const hiprim::HostTensor*> in_ptrs;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      ASSERT_EQ(static_cast<std::size_t>(tensors[i].desc.storage_elements()), init[i].size()) << problem << " " << tensors[i].name;
      in[i] = hiprim::HostTensor(tensors[i].desc);
      in[i].data = init[i];
      in_ptrs.push_back(tensors[i].role == hiprim::OpTensor::Role::output ? nullptr : &in[i]);
    }
    const auto expected = hiprim::ref::op_expected(*p, in_ptrs);
    Buffers b(init);
    on_both([&](hiprimHandle_t h, bool device) {
      std::vector<void*> ptrs = b.ptrs(device);
      return run(h, ptrs.data());
    });
    if (HasFatalFailure()) return;
    for (const auto& e : expected) {
      std::size_t i = 0;
      while (i < tensors.size() && tensors[i].name != e.tensor) ++i;
      ASSERT_LT(i, tensors.size()) << e.tensor;
      const Vec got = b.device_copy(i), want = b.host[i];
      int bad = 0;
      for (std::size_t j = 0; j < got.size(); ++j) {
        const bool ok = e.bound[j] == 0 ? got[j] == want[j] : std::fabs(static_cast<double>(got[j]) - want[j]) <= 2 * e.bound[j];
        if (!ok && ++bad <= 5)
          ADD_FAILURE() << problem << ": " << e.tensor << "[" << j << "] device " << got[j] << ", host " << want[j] << ", 2b = "
                        << 2 * e.bound[j];
      }
      double widest = 0;
      for (double v : e.bound) widest = std::fmax(widest, 2 * v);
      std::printf("  %s: %s within 2b (max 2b %.3g)\n", problem.c_str(), e.tensor.c_str(), widest);
      EXPECT_EQ(bad, 0) << problem << ": " << e.tensor << " (" << e.rule << ")";
    }
  }
};

// Smooth, varied values in about [-2, 2] (bnorm, activations, softmax).
Vec smooth(std::size_t n, double phase) {
  Vec v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(2.0 * std::sin(0.37 * static_cast<double>(i) + phase) + 0.1 * (i % 5));
  return v;
}

const Shape kConvShapes[] = {{2, 3, 4, 9, 8, 3, 3, 1, 1, 1, false}, {1, 4, 8, 10, 10, 3, 3, 1, 2, 1, true}, {2, 8, 16, 6, 6, 1, 1, 0, 1, 1, true}};

std::size_t elems(int a, int b, int c, int d) { return static_cast<std::size_t>(a) * b * c * d; }

// One convolution direction on both backends: integer inputs of na and nb elements (seeds apart),
// the output (nout) poisoned; size(ws) queries the device's workspace, run(h, a, b, out, ws, bytes)
// calls the entry point. The outputs must be equal bit for bit.
template <typename Size, typename Run>
void conv_case(DeviceApi& t, std::size_t na, std::size_t nb, std::size_t nout, int seed, Size&& size, Run&& run) {
  Buffers b({integers(na, seed), integers(nb, seed + 1), Vec(nout, -99.0f)});
  size_t ws = 0;
  ASSERT_EQ(size(&ws), hiprimStatusSuccess);
  DeviceBuffer w = ws ? DeviceBuffer(ws, "workspace") : DeviceBuffer();
  t.on_both([&](hiprimHandle_t h, bool device) {
    return device ? run(h, b.d(0), b.d(1), b.d(2), w.data(), ws) : run(h, b.h(0), b.h(1), b.h(2), nullptr, 0);
  });
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_EQ(b.device_copy(2), b.host[2]);
}

TEST_F(DeviceApi, ConvolutionForwardEqualsTheHostBitForBit) {
  for (const Shape& sh : kConvShapes) {
    Descs d(sh);
    conv_case(*this, elems(sh.n, sh.c, sh.h, sh.w), elems(sh.k, sh.c, sh.r, sh.s), elems(sh.n, sh.k, sh.p(), sh.q()), 1,
              [&](size_t* ws) { return hiprimConvolutionForwardGetWorkSpaceSize(dev, d.w, d.x, d.conv, d.y, ws); },
              [&](hiprimHandle_t h, void* x, void* w, void* y, void* ws, size_t n) {
                return hiprimConvolutionForward(h, &one, d.x, x, d.w, w, d.conv, &zero, d.y, y, ws, n);
              });
  }
}

TEST_F(DeviceApi, ConvolutionBackwardDataEqualsTheHostBitForBit) {
  for (const Shape& sh : kConvShapes) {
    Descs d(sh);
    conv_case(*this, elems(sh.n, sh.k, sh.p(), sh.q()), elems(sh.k, sh.c, sh.r, sh.s), elems(sh.n, sh.c, sh.h, sh.w), 3,
              [&](size_t* ws) { return hiprimConvolutionBackwardDataGetWorkSpaceSize(dev, d.y, d.w, d.conv, d.x, ws); },
              [&](hiprimHandle_t h, void* dy, void* w, void* dx, void* ws, size_t n) {
                return hiprimConvolutionBackwardData(h, &one, d.y, dy, d.w, w, d.conv, &zero, d.x, dx, ws, n);
              });
  }
}

TEST_F(DeviceApi, ConvolutionBackwardWeightsEqualsTheHostBitForBit) {
  for (const Shape& sh : kConvShapes) {
    Descs d(sh);
    conv_case(*this, elems(sh.n, sh.k, sh.p(), sh.q()), elems(sh.n, sh.c, sh.h, sh.w), elems(sh.k, sh.c, sh.r, sh.s), 5,
              [&](size_t* ws) { return hiprimConvolutionBackwardWeightsGetWorkSpaceSize(dev, d.y, d.x, d.conv, d.w, ws); },
              [&](hiprimHandle_t h, void* dy, void* x, void* dw, void* ws, size_t n) {
                return hiprimConvolutionBackwardWeights(h, &one, d.y, dy, d.x, x, d.conv, &zero, d.w, dw, ws, n);
              });
  }
}

constexpr int N = 4, C = 6, H = 7, W = 5;
constexpr std::size_t kElems = static_cast<std::size_t>(N) * C * H * W;
constexpr double kEps = 1e-5, kMomentum = 0.1;

struct Descriptors {
  hiprimTensorDescriptor_t x = nullptr, bn = nullptr;
  Descriptors() {
    hiprimCreateTensorDescriptor(&x), hiprimCreateTensorDescriptor(&bn);
    EXPECT_EQ(hiprimSet4dTensorDescriptor(x, hiprimFloat, N, C, H, W), hiprimStatusSuccess);
    EXPECT_EQ(hiprimSet4dTensorDescriptor(bn, hiprimFloat, 1, C, 1, 1), hiprimStatusSuccess);
  }
  ~Descriptors() { hiprimDestroyTensorDescriptor(x), hiprimDestroyTensorDescriptor(bn); }
};

TEST_F(DeviceApi, BatchNormTrainingInferenceAndBackwardAgreeWithTheHost) {
  Descriptors t;
  const Vec x = smooth(kElems, 0.3), scale = smooth(C, 1.0), bias = smooth(C, 2.0), rmean = smooth(C, 3.0);
  Vec rvar(C);
  for (int c = 0; c < C; ++c) rvar[c] = 0.5f + 0.25f * c;
  const std::string shape = "fp32 nchw n4 c6 in7x5 eps1e-05";
  // fwd-train: x, scale, bias, running_mean, running_var, y, save_mean, save_inv_variance.
  check_op("bnorm fwd-train spatial " + shape + " momentum0.1", {x, scale, bias, rmean, rvar, Vec(kElems, -9), Vec(C, -9), Vec(C, -9)},
           [&](hiprimHandle_t h, void** b) {
             return hiprimBatchNormalizationForwardTraining(h, hiprimBNSpatial, &one, &zero, t.x, b[0], t.x, b[5], t.bn, b[1], b[2],
                                                            kMomentum, b[3], b[4], kEps, b[6], b[7]);
           });
  // fwd-infer: x, scale, bias, mean, var, y.
  check_op("bnorm fwd-infer spatial " + shape, {x, scale, bias, rmean, rvar, Vec(kElems, -9)}, [&](hiprimHandle_t h, void** b) {
    return hiprimBatchNormalizationForwardInference(h, hiprimBNSpatial, &one, &zero, t.x, b[0], t.x, b[5], t.bn, b[1], b[2], b[3], b[4],
                                                    kEps);
  });
  // bwd: x, dy, scale, saved_mean, saved_inv_variance, dx, dscale, dbias; the saved statistics
  // from the host's training forward.
  Vec y(kElems), smean(C), sinv(C), rm = rmean, rv = rvar;
  ASSERT_EQ(hiprimBatchNormalizationForwardTraining(host, hiprimBNSpatial, &one, &zero, t.x, x.data(), t.x, y.data(), t.bn, scale.data(),
                                                    bias.data(), kMomentum, rm.data(), rv.data(), kEps, smean.data(), sinv.data()),
            hiprimStatusSuccess);
  check_op("bnorm bwd spatial " + shape, {x, smooth(kElems, 4.0), scale, smean, sinv, Vec(kElems, -9), Vec(C, -9), Vec(C, -9)},
           [&](hiprimHandle_t h, void** b) {
             return hiprimBatchNormalizationBackward(h, hiprimBNSpatial, &one, &zero, &one, &zero, t.x, b[0], t.x, b[1], t.x, b[5], t.bn,
                                                     b[2], b[6], b[7], kEps, b[3], b[4]);
           });
}

TEST_F(DeviceApi, ActivationsAgreeWithTheHost) {
  Descriptors t;
  const Vec x = smooth(kElems, 0.7), dy = smooth(kElems, 1.9);
  for (const auto& mode_and_name : {std::pair{hiprimActivationRELU, "relu"}, std::pair{hiprimActivationGELU, "gelu"},
                                     std::pair{hiprimActivationLOGISTIC, "logistic"}}) {
    const hiprimActivationMode_t mode = mode_and_name.first;
    const char* name = mode_and_name.second;
    hiprimActivationDescriptor_t a = nullptr;
    ASSERT_EQ(hiprimCreateActivationDescriptor(&a), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetActivationDescriptor(a, mode, 1, 1, 1), hiprimStatusSuccess);
    check_op(std::string("activ fwd ") + name + " fp32 nchw n4 c6 in7x5", {x, Vec(kElems, -9)}, [&](hiprimHandle_t h, void** b) {
      return hiprimActivationForward(h, a, &one, t.x, b[0], &zero, t.x, b[1]);
    });
    check_op(std::string("activ bwd ") + name + " fp32 nchw n4 c6 in7x5", {x, dy, Vec(kElems, -9)}, [&](hiprimHandle_t h, void** b) {
      return hiprimActivationBackward(h, a, &one, t.x, b[0], t.x, b[1], t.x, b[0], &zero, t.x, b[2]);
    });
    hiprimDestroyActivationDescriptor(a);
  }
}

TEST_F(DeviceApi, SoftmaxAgreesWithTheHost) {
  Descriptors t;
  const Vec x = smooth(kElems, 0.2), dy = smooth(kElems, 2.5);
  for (const auto& a : {std::pair{hiprimSoftmaxAccurate, "accurate"}, std::pair{hiprimSoftmaxLog, "log"}})
    for (const auto& m : {std::pair{hiprimSoftmaxModeChannel, "channel"}, std::pair{hiprimSoftmaxModeInstance, "instance"}}) {
      const hiprimSoftmaxAlgorithm_t alg = a.first;
      const hiprimSoftmaxMode_t mode = m.first;
      const std::string tail = std::string(a.second) + " " + m.second + " fp32 nchw n4 c6 in7x5";
      check_op("softmax fwd " + tail, {x, Vec(kElems, -9)}, [&](hiprimHandle_t h, void** b) {
        return hiprimSoftmaxForward(h, &one, t.x, b[0], &zero, t.x, b[1], alg, mode);
      });
      Vec y(kElems);
      ASSERT_EQ(hiprimSoftmaxForward(host, &one, t.x, x.data(), &zero, t.x, y.data(), alg, mode), hiprimStatusSuccess);
      check_op("softmax bwd " + tail, {y, dy, Vec(kElems, -9)}, [&](hiprimHandle_t h, void** b) {
        return hiprimSoftmaxBackward(h, &one, t.x, b[0], t.x, b[1], &zero, t.x, b[2], alg, mode);
      });
    }
}

TEST_F(DeviceApi, PoolingByProblemStringAgreesWithTheHost) {
  // x [2, 3, 9, 8] NHWC, 3x3 windows, stride 2, pad 1 -> y [2, 3, 5, 4].
  const std::size_t nx = 2 * 3 * 9 * 8, ny = 2 * 3 * 5 * 4;
  const Vec x = smooth(nx, 0.9), dy = smooth(ny, 1.7);
  const std::string geometry = " fp32 nhwc n2 c3 in9x8 win3x3 pad1x1 str2x2";
  auto run = [](const std::string& p) {
    return [p](hiprimHandle_t h, void** b) {
      int n = 0;
      const hiprimStatus_t s = hiprimProblemTensorCount(h, p.c_str(), &n);
      return s != hiprimStatusSuccess ? s : hiprimRunProblem(h, p.c_str(), b, n, nullptr, 0);
    };
  };
  check_op("pool fwd max" + geometry, {x, Vec(ny, -9), Vec(ny, -9)}, run("pool fwd max" + geometry));
  Vec y(ny), idx(ny);
  void* fwd[3] = {const_cast<float*>(x.data()), y.data(), idx.data()};
  ASSERT_EQ(hiprimRunProblem(host, ("pool fwd max" + geometry).c_str(), fwd, 3, nullptr, 0), hiprimStatusSuccess);
  check_op("pool bwd max" + geometry, {dy, idx, Vec(nx, -9)}, run("pool bwd max" + geometry));
  for (const char* avg : {"avg_incl", "avg_excl"}) {
    check_op(std::string("pool fwd ") + avg + geometry, {x, Vec(ny, -9)}, run(std::string("pool fwd ") + avg + geometry));
    check_op(std::string("pool bwd ") + avg + geometry, {dy, Vec(nx, -9)}, run(std::string("pool bwd ") + avg + geometry));
  }
}

// A fusion plan on the device backend: the same chain, data and descriptors as on the host
// (tests/api/fusion_fixture.hpp), its operator args pointing at device copies; every step is exact
// on these integers, so y must equal the host's bit for bit. Both plans ask for the unfused rounding
// model (fp32 has no fused device solver: fusion.igemm.wgmma is fp16/bf16 only), which on these
// integers is the same function.
TEST_F(DeviceApi, FusionPlanConvBiasAddReluEqualsTheHostBitForBit) {
  for (const Shape& sh : {kNchw, kNhwc}) {
    Chain on_host(sh), on_dev(sh, HIPRIM_API_DEVICE_BACKEND);
    for (Chain* c : {&on_host, &on_dev}) ASSERT_EQ(hiprimSetFusionPlanRounding(c->plan, hiprimFusionRoundingUnfused), hiprimStatusSuccess);
    ASSERT_EQ(on_host.add_chain(false), hiprimStatusSuccess);
    ASSERT_EQ(on_host.compile(), hiprimStatusSuccess) << on_host.message();
    ASSERT_EQ(on_host.execute(), hiprimStatusSuccess) << on_host.message();
    ASSERT_EQ(on_dev.add_chain(false), hiprimStatusSuccess);
    ASSERT_EQ(on_dev.compile(), hiprimStatusSuccess) << on_dev.message();
    Buffers b({on_dev.x, on_dev.w, on_dev.bias, on_dev.res, on_dev.y});
    ASSERT_EQ(hiprimSetOpArgsConvForward(on_dev.args, on_dev.conv_op, b.d(1)), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetOpArgsBiasForward(on_dev.args, on_dev.bias_op, b.d(2)), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetOpArgsAddForward(on_dev.args, on_dev.add_op, b.d(3)), hiprimStatusSuccess);
    std::size_t ws = 0;
    ASSERT_EQ(hiprimFusionPlanGetWorkSpaceSize(on_dev.h, on_dev.plan, &ws), hiprimStatusSuccess);
    DeviceBuffer w = ws ? DeviceBuffer(ws, "workspace") : DeviceBuffer();
    ASSERT_EQ(hiprimExecuteFusionPlan(on_dev.h, on_dev.plan, on_dev.d.x, b.d(0), on_dev.d.y, b.d(4), on_dev.args, w.data(), ws),
              hiprimStatusSuccess)
        << on_dev.message();
    const char* solver = nullptr;
    ASSERT_EQ(hiprimFusionPlanGetSolverName(on_dev.plan, &solver), hiprimStatusSuccess);
    std::printf("  %s: device fusion solver %s, workspace %zu bytes\n", on_dev.problem().c_str(), solver, ws);
    EXPECT_EQ(b.device_copy(4), on_host.y) << on_dev.problem();
  }
}

}  // namespace
}  // namespace hiprim_api_test
