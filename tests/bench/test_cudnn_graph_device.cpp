// The graph-API cuDNN peer on the device (skipped without a GPU or cuDNN): every usable plan of small
// problems in every direction x dtype x layout, and grouped, strided+dilated, 3-D and transposed ones,
// against the CPU reference in the exact tier (integer fills: every direct-sum engine must match
// bit for bit); capture of run() into a CUDA graph; the fused graphs against a reference composed
// in double; run()'s refusals. Each problem prints its plans (engine, knobs, notes, workspace,
// verdict), so a device log says which plan failed and why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_check.hpp"
#include "bench/cudnn_graph.hpp"
#include "core/error.hpp"
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/hip_compat.hpp"  // cuDNN is NVIDIA-only: the capture below uses CUDA's graph calls
#include "verify/compare.hpp"
#include "verify/fill.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

namespace {

constexpr int kPlansPerProblem = 3;  // usable plans tried per problem (finalizing costs device time)
constexpr int kFusedPlans = 2;       // fused engines compile their kernels at finalize (seconds each)
constexpr std::uint64_t kTagZ = 5;   // the residual's fill, independent of x, w, y, bias

std::shared_ptr<CudnnGraphPeer> shared_peer(std::string* why) {
  static bool tried = false;
  static std::string reason;
  static std::shared_ptr<CudnnGraphPeer> peer;
  if (!tried) {
    tried = true;
    if (device_available(&reason)) peer = CudnnGraphPeer::open("", &reason);
  }
  *why = reason;
  return peer;
}

#define NEED_PEER(peer)                       \
  std::string why_;                           \
  auto peer = shared_peer(&why_);             \
  if (!peer) GTEST_SKIP() << why_;

DeviceBuffer device_tensor(const TensorDesc& d, const HostTensor* h, const char* what) {
  DeviceBuffer b(static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype), what);
  if (h && !h->data.empty()) {
    const auto bytes = h->to_bytes();
    b.upload(bytes.data(), bytes.size());
  }
  return b;
}

struct Buffers {
  DeviceBuffer x, w, y, bias, z, ws;
  CudnnGraphBuffers view(void* stream) const {
    return {x.data(), w.data(), y.data(), bias.data(), z.data(), ws.data(), ws.bytes(), stream};
  }
  DeviceBuffer& output(ConvDir d) { return d == ConvDir::fwd ? y : d == ConvDir::bwd_data ? x : w; }
};

std::size_t max_workspace(const CudnnGraphConv& g) {
  std::size_t ws = 256;
  for (const auto& p : g.plans())
    if (p.usable) ws = std::max(ws, p.workspace_bytes);
  return ws;
}

Buffers case_buffers(const verify::PreparedCase& c, std::size_t ws) {
  const ConvProblem& p = verify::conv_problem(c);
  const ref::ConvInputs in = verify::conv_inputs(c);
  Buffers b;
  b.x = device_tensor(p.x_desc(), in.x, "x");
  b.w = device_tensor(p.w_desc(), in.w, "w");
  b.y = device_tensor(p.y_desc(), in.y, "y");
  b.ws = DeviceBuffer(ws, "workspace");
  return b;
}

// Poisons the output role with NaN (0xFF bytes), runs plan i, waits and reads the output back.
HostTensor run_and_read(const CudnnGraphConv& g, int i, Buffers& b, const Stream& s) {
  const ConvProblem& p = g.problem();
  DeviceBuffer& out = b.output(p.dir);
  out.fill_bytes(0xFF);
  g.run(i, b.view(s.handle()));
  s.synchronize();
  HostTensor got(verify::output_desc(p));
  std::vector<unsigned char> bytes(out.bytes());
  out.download(bytes.data(), bytes.size());
  got.from_bytes(bytes.data());
  return got;
}

std::string listing(const CudnnGraphConv& g) {
  std::string s;
  for (std::size_t i = 0; i < g.plans().size(); ++i) {
    const auto& p = g.plans()[i];
    s += "  plan " + std::to_string(i) + " [" + p.source + "] " + g.plan_label(static_cast<int>(i)) +
         (p.usable ? " usable" : " NOT USABLE: " + p.reason) + "\n";
  }
  for (const auto& d : g.diagnostics()) s += "  heuristics: " + d + "\n";
  return s;
}

int count_nonfinite(const HostTensor& t) {
  int n = 0;
  for (float v : t.data) n += std::isfinite(v) ? 0 : 1;
  return n;
}

verify::PreparedCase exact_case(const ConvProblem& p, std::uint64_t seed) {
  verify::RunOptions o;
  o.seed = seed;
  o.fill = verify::FillTier::exact;
  return verify::PreparedCase(p, o);
}

// Every usable plan (up to kPlansPerProblem) of s runs; each direct-sum one matches the reference
// exactly; FFT/Winograd ones leave no element unwritten (their rounding is not the direct sum's).
void check_every_plan(const std::shared_ptr<CudnnGraphPeer>& peer, const std::string& s) {
  SCOPED_TRACE(s);
  const ConvProblem p = parse_conv_problem(s);
  const auto c = exact_case(p, 7);
  CudnnGraphOptions o;
  o.max_plans = kPlansPerProblem;
  CudnnGraphConv g(peer, p, {}, o);
  std::printf("%s\n%s", s.c_str(), listing(g).c_str());
  Buffers b = case_buffers(c, max_workspace(g));
  Stream st;
  int usable = 0, exact = 0;
  for (int i = 0; i < static_cast<int>(g.plans().size()); ++i) {
    const CudnnPlanInfo& info = g.plans()[static_cast<std::size_t>(i)];
    if (!info.usable) continue;
    ++usable;
    HostTensor got;
    try {
      got = run_and_read(g, i, b, st);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "plan " << i << " (" << g.plan_label(i) << ") threw: " << e.what();
      continue;
    }
    if (info.transform) {
      EXPECT_EQ(count_nonfinite(got), 0) << "plan " << i << " (" << g.plan_label(i) << ") left elements unwritten";
      std::printf("  plan %d: transform, %d non-finite elements\n", i, count_nonfinite(got));
      continue;
    }
    const verify::Verdict v = verify::check_output(c, got, verify::VerifyMode::full);
    ++exact;
    std::printf("  plan %d: %s %s\n", i, std::string(verify::status_name(v.status)).c_str(), v.reason.c_str());
    EXPECT_EQ(v.status, verify::Status::passed) << "plan " << i << " (" << g.plan_label(i) << "): " << v.reason;
  }
  EXPECT_GT(usable, 0) << "no usable plan:\n" << listing(g);
  EXPECT_GT(exact, 0) << "no direct-sum plan among the usable ones:\n" << listing(g);
}

std::vector<std::string> for_each_dir(const std::string& rest) {
  std::vector<std::string> out;
  for (const char* d : {"fwd", "bwd-data", "bwd-weights"}) out.push_back(std::string("conv ") + d + " " + rest);
  return out;
}

}  // namespace

TEST(CudnnGraphDevice, EveryDirectionDtypeLayoutMatchesTheReferenceExactly) {
  NEED_PEER(peer);
  std::printf("cuDNN %ld from %s\n", peer->version(), peer->path().c_str());
  for (const char* dt : {"fp32", "fp16", "bf16"})
    for (const char* layout : {"nchw", "nhwc"})
      for (const auto& s : for_each_dir(std::string(dt) + " " + layout + " n2 c8 k16 in9x9 f3x3 pad1x1"))
        check_every_plan(peer, s);
}

TEST(CudnnGraphDevice, GroupedStridedDilated3dAndTransposed) {
  NEED_PEER(peer);
  for (const char* rest : {"bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 g2", "fp32 nchw n2 c8 k8 in11x11 f3x3 pad3x3 str2x2 dil3x3",
                           "fp16 ndhwc n1 c8 k8 in5x6x7 f3x3x3 pad1x1x1",
                           "fp32 nchw n1 c8 k8 in5x5 f3x3 pad1x1 str2x2 trans opad1x1",
                           "bf16 nhwc n2 c8 k16 in5x5 f3x3 pad1x1 str2x2 trans opad1x1"})
    for (const auto& s : for_each_dir(rest)) check_every_plan(peer, s);
}

namespace {

// Captures body() on stream s into a CUDA graph, replays it once and waits; "" or what failed.
std::string capture_and_replay(const std::function<void()>& body, const Stream& s) {
  auto stream = static_cast<cudaStream_t>(s.handle());
  if (cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal); e != cudaSuccess)
    return std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(e);
  std::string error;
  try {
    body();
  } catch (const std::exception& ex) {
    error = std::string("run() during capture: ") + ex.what();
  }
  cudaGraph_t graph = nullptr;
  if (cudaError_t e = cudaStreamEndCapture(stream, &graph); e != cudaSuccess && error.empty())
    error = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e);
  cudaGraphExec_t exec = nullptr;
  if (error.empty())
    if (cudaError_t e = cudaGraphInstantiate(&exec, graph, 0); e != cudaSuccess)
      error = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
  if (error.empty())
    if (cudaError_t e = cudaGraphLaunch(exec, stream); e != cudaSuccess)
      error = std::string("cudaGraphLaunch: ") + cudaGetErrorString(e);
  if (error.empty())
    if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
      error = std::string("replay: ") + cudaGetErrorString(e);
  if (exec) (void)cudaGraphExecDestroy(exec);
  if (graph) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();
  return error;
}

}  // namespace

// The bench captures `reps` calls into a graph: three captured runs, replayed, must give the eager
// output bit for bit (integer data: exact in any summation order) and the reference's.
TEST(CudnnGraphDevice, RunIsCapturableIntoACudaGraph) {
  NEED_PEER(peer);
  for (const std::string& s : {std::string("conv fwd fp32 nchw n2 c8 k16 in9x9 f3x3 pad1x1"),
                               std::string("conv fwd bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1"),
                               std::string("conv bwd-data bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1"),
                               std::string("conv bwd-weights bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1")}) {
    SCOPED_TRACE(s);
    const ConvProblem p = parse_conv_problem(s);
    const auto c = exact_case(p, 3);
    CudnnGraphOptions o;
    o.max_plans = kPlansPerProblem;
    CudnnGraphConv g(peer, p, {}, o);
    Buffers b = case_buffers(c, max_workspace(g));
    Stream st;
    int captured = 0;
    for (int i = 0; i < static_cast<int>(g.plans().size()); ++i) {
      if (!g.plans()[static_cast<std::size_t>(i)].usable) continue;
      const HostTensor eager = run_and_read(g, i, b, st);  // also the warm-up before capture
      DeviceBuffer& out = b.output(p.dir);
      out.fill_bytes(0xFF);
      const std::string err = capture_and_replay([&] {
        for (int r = 0; r < 3; ++r) g.run(i, b.view(st.handle()));
      }, st);
      EXPECT_EQ(err, "") << "plan " << i << " (" << g.plan_label(i) << ")";
      if (!err.empty()) continue;
      HostTensor replayed(verify::output_desc(p));
      std::vector<unsigned char> bytes(out.bytes());
      out.download(bytes.data(), bytes.size());
      replayed.from_bytes(bytes.data());
      const auto same = verify::compare_bitwise(replayed, eager);
      EXPECT_EQ(same.status, verify::Status::passed) << "plan " << i << " (" << g.plan_label(i) << "): " << same.reason;
      if (!g.plans()[static_cast<std::size_t>(i)].transform) {
        const auto v = verify::check_output(c, replayed, verify::VerifyMode::full);
        EXPECT_EQ(v.status, verify::Status::passed) << "plan " << i << " (" << g.plan_label(i) << "): " << v.reason;
      }
      ++captured;
      std::printf("%s: plan %d (%s) captured and replayed\n", s.c_str(), i, g.plan_label(i).c_str());
    }
    EXPECT_GT(captured, 0) << listing(g);
  }
}

// A buffer set run() has not seen yet, first met inside a capture: its variant pack is built there
// (host work only, or the capture fails and the bench must warm up every set eagerly).
TEST(CudnnGraphDevice, NewBufferSetDuringCapture) {
  NEED_PEER(peer);
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1");
  const auto c = exact_case(p, 9);
  CudnnGraphOptions o;
  o.max_plans = 2;
  CudnnGraphConv g(peer, p, {}, o);
  Buffers b = case_buffers(c, max_workspace(g));
  Stream st;
  int first = -1;  // the first direct-sum plan: its answer is exact
  for (int i = 0; i < static_cast<int>(g.plans().size()) && first < 0; ++i)
    if (g.plans()[static_cast<std::size_t>(i)].usable && !g.plans()[static_cast<std::size_t>(i)].transform) first = i;
  ASSERT_GE(first, 0) << listing(g);
  (void)run_and_read(g, first, b, st);  // kernels loaded, the pack of set b cached
  DeviceBuffer y2(b.y.bytes(), "second y");
  y2.fill_bytes(0xFF);
  CudnnGraphBuffers other = b.view(st.handle());
  other.y = y2.data();
  const std::string err = capture_and_replay([&] { g.run(first, other); }, st);
  EXPECT_EQ(err, "") << g.plan_label(first)
                     << ": building a variant pack inside a capture failed; warm up every buffer set before capture";
  if (!err.empty()) return;
  HostTensor got(p.y_desc());
  std::vector<unsigned char> bytes(y2.bytes());
  y2.download(bytes.data(), bytes.size());
  got.from_bytes(bytes.data());
  const auto v = verify::check_output(c, got, verify::VerifyMode::full);
  EXPECT_EQ(v.status, verify::Status::passed) << v.reason;
}

namespace {

// y = act(alpha1 * conv(x, w) + bias[k] + alpha2 * z) composed in double from ref::conv, against
// every usable plan, exact tier. required: no usable plan is a failure (else a visible skip).
void check_fused(const std::shared_ptr<CudnnGraphPeer>& peer, const std::string& s, const CudnnGraphEpilogue& ep,
                 bool required) {
  SCOPED_TRACE(s);
  const ConvProblem p = parse_conv_problem(s);
  const auto c = exact_case(p, 11);
  const int r = verify::exact_fill_range(p);
  // Every partial sum stays an integer (or half-integer with alpha2 = 0.5) far below 2^24: exact in fp32.
  ASSERT_LE(p.reduction_length() * r * r * std::fabs(ep.alpha1) + r + std::fabs(ep.alpha2) * r, double(1 << 22));
  HostTensor bias(p.bias_desc()), z(p.y_desc());
  verify::fill(bias, verify::FillTier::exact, 11, verify::kTagBias, r);
  verify::fill(z, verify::FillTier::exact, 11, kTagZ, r);
  const ref::ConvOutput& conv = verify::conv_expected(c, false);
  const TensorDesc yd = p.y_desc();
  std::vector<double> want(conv.value.size(), 0.0);
  for_each_index(yd.dims, [&](const Dims& idx) {
    const auto off = static_cast<std::size_t>(yd.offset(idx));
    double v = ep.alpha1 * conv.value[off];
    if (ep.bias) v += bias.at(Dims{idx[1]});
    if (ep.add) v += ep.alpha2 * z.data[off];
    if (ep.activation == CudnnActivation::relu) v = std::max(v, 0.0);
    want[off] = v;
  });
  CudnnGraphOptions o;
  o.max_plans = kFusedPlans;
  CudnnGraphConv g(peer, p, ep, o);
  std::printf("%s (fused%s%s%s, alpha1 %g, alpha2 %g)\n%s", s.c_str(), ep.bias ? " bias" : "", ep.add ? " add" : "",
              ep.activation == CudnnActivation::relu ? " relu" : "", ep.alpha1, ep.alpha2, listing(g).c_str());
  Buffers b = case_buffers(c, max_workspace(g));
  b.bias = device_tensor(bias.desc, &bias, "bias");
  b.z = device_tensor(z.desc, &z, "z");
  Stream st;
  verify::Tolerance tol;
  tol.tier = verify::FillTier::exact;
  tol.out_dtype = p.dtype;
  tol.reduction_length = p.reduction_length() + 2;
  int usable = 0;
  for (int i = 0; i < static_cast<int>(g.plans().size()); ++i) {
    if (!g.plans()[static_cast<std::size_t>(i)].usable) continue;
    ++usable;
    const HostTensor got = run_and_read(g, i, b, st);
    const auto v = verify::compare(got, want, {}, yd, tol);
    std::printf("  plan %d: %s %s\n", i, std::string(verify::status_name(v.status)).c_str(), v.reason.c_str());
    EXPECT_EQ(v.status, verify::Status::passed) << "plan " << i << " (" << g.plan_label(i) << "): " << v.reason;
  }
  if (usable == 0) {
    if (required) ADD_FAILURE() << "no usable plan for the fused graph:\n" << listing(g);
    else GTEST_SKIP() << "cuDNN offers no usable plan for this fused graph:\n" << listing(g);
  }
}

CudnnGraphEpilogue epilogue(bool add, double alpha1 = 1.0, double alpha2 = 1.0) {
  CudnnGraphEpilogue ep;
  ep.bias = true;
  ep.add = add;
  ep.alpha1 = alpha1;
  ep.alpha2 = alpha2;
  ep.activation = CudnnActivation::relu;
  return ep;
}

}  // namespace

TEST(CudnnGraphDevice, FusedBiasReluAndBiasAddReluHalfTypesNhwc) {
  NEED_PEER(peer);
  for (const char* s : {"conv fwd bf16 nhwc n2 c16 k32 in9x9 f3x3 pad1x1", "conv fwd fp16 nhwc n2 c16 k32 in9x9 f3x3 pad1x1"}) {
    check_fused(peer, s, epilogue(false), true);
    check_fused(peer, s, epilogue(true), true);
  }
  check_fused(peer, "conv fwd bf16 nhwc n2 c64 k64 in8x8 f1x1", epilogue(true), true);
}

TEST(CudnnGraphDevice, FusedBiasReluFp32Nchw) {
  NEED_PEER(peer);
  check_fused(peer, "conv fwd fp32 nchw n2 c16 k32 in9x9 f3x3 pad1x1", epilogue(false), false);
}

TEST(CudnnGraphDevice, FusedBiasAddReluFp32Nchw) {
  NEED_PEER(peer);
  check_fused(peer, "conv fwd fp32 nchw n2 c16 k32 in9x9 f3x3 pad1x1", epilogue(true), false);
}

TEST(CudnnGraphDevice, FusedScaledBiasAddRelu) {
  NEED_PEER(peer);
  check_fused(peer, "conv fwd bf16 nhwc n2 c16 k32 in9x9 f3x3 pad1x1", epilogue(true, 2.0, 0.5), false);
}

TEST(CudnnGraphDevice, RunRefusesBadArguments) {
  NEED_PEER(peer);
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1");
  const auto c = exact_case(p, 5);
  CudnnGraphOptions one;
  one.max_plans = 1;  // the configs after the first usable one stay unusable ("not tried"): a refusal to test
  CudnnGraphConv g(peer, p, {}, one);
  Buffers b = case_buffers(c, max_workspace(g));
  int first = -1, unusable = -1;
  for (int i = 0; i < static_cast<int>(g.plans().size()); ++i) {
    if (g.plans()[static_cast<std::size_t>(i)].usable && first < 0) first = i;
    if (!g.plans()[static_cast<std::size_t>(i)].usable && unusable < 0) unusable = i;
  }
  ASSERT_GE(first, 0) << listing(g);
  const CudnnGraphBuffers ok = b.view(nullptr);
  EXPECT_THROW(g.run(-1, ok), InputError);
  EXPECT_THROW(g.run(static_cast<int>(g.plans().size()), ok), InputError);
  if (unusable >= 0) {
    EXPECT_THROW(g.run(unusable, ok), InputError);
  }
  CudnnGraphBuffers bad = ok;
  bad.x = nullptr;
  EXPECT_THROW(g.run(first, bad), InputError);
  bad = ok;
  bad.y = static_cast<char*>(ok.y) + 2;
  EXPECT_THROW(g.run(first, bad), InputError);
  const std::size_t need = g.plans()[static_cast<std::size_t>(first)].workspace_bytes;
  if (need > 0) {
    bad = ok;
    bad.workspace_bytes = need - 1;
    EXPECT_THROW(g.run(first, bad), InputError);
  }
  EXPECT_NO_THROW(g.run(first, ok));
  synchronize("the refusal test's good run");
}
