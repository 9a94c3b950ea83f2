// The cuDNN legacy peer's runtime part: the loader's refusal (always run), cuDNN on the device against
// the CPU reference when both a GPU and cuDNN are there (skipped otherwise). Also the event series the
// bench times with. The pure mapping is tested in test_cudnn_mapping.cpp (host-only builds too).
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.hpp"
#include "bench/cudnn_peer.hpp"
#include "gpu/runtime/device.hpp"
#include "bench/event_series.hpp"
#include "tests/gpu/conv_exact_cases.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

TEST(CudnnLoader, MissingLibraryIsNamed) {
  std::string why;
  EXPECT_EQ(CudnnPeer::open("/nonexistent/libcudnn.so.9", &why), nullptr);
  EXPECT_NE(why.find("/nonexistent/libcudnn.so.9"), std::string::npos) << why;
}

TEST(EventSeries, NeedsTwoMarks) { EXPECT_THROW(EventSeries(1), InputError); }

TEST(EventSeriesDevice, IntervalsOfCopies) {
  HIPRIM_SKIP_WITHOUT_GPU();
  DeviceBuffer a(64 << 20, "a"), b(64 << 20, "b");
  EventSeries ev(4);
  ev.record(0, nullptr);
  for (int i = 1; i < 4; ++i) {
    copy_device_to_device_async(b.data(), a.data(), a.bytes(), nullptr);
    ev.record(i, nullptr);
  }
  const auto t = ev.intervals_ms();
  ASSERT_EQ(t.size(), 3u);
  for (double v : t) EXPECT_GT(v, 0.0);
  EXPECT_GT(l2_cache_bytes(), 0u);
}

// cuDNN against the reference on integer data (exact in every dtype and accumulation order).
TEST(CudnnDevice, MatchesTheReferenceInEveryDirection) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::string why;
  auto peer = CudnnPeer::open("", &why);
  if (!peer) GTEST_SKIP() << why;
  for (const char* s : {"conv fwd bf16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1", "conv bwd-data fp32 nchw n2 c8 k16 in9x9 f3x3 pad1x1 str2x2",
                        "conv bwd-weights fp16 nhwc n2 c8 k16 in9x9 f3x3 pad1x1 g2",
                        "conv fwd fp32 nchw n1 c4 k6 in5x5 f3x3 pad1x1 str2x2 g2 trans opad1x1"}) {
    const auto p = parse_conv_problem(s);
    auto c = gputest::make_case(p, 3);
    const auto want = gputest::expected_output(p, c);
    auto up = [](const HostTensor& h, const std::string& what) {
      DeviceBuffer d(h.data.size() * dtype_size(h.desc.dtype), what);
      auto bytes = h.to_bytes();
      d.upload(bytes.data(), bytes.size());
      return d;
    };
    DeviceBuffer x = up(c.x, "x"), w = up(c.w, "w"), y = up(c.y, "y"), ws(256 << 20, "ws");
    CudnnConv conv(peer, p);
    CudnnBuffers b{x.data(), w.data(), y.data(), ws.data(), ws.bytes(), nullptr};
    const auto& ch = conv.find(b);
    EXPECT_GE(ch.algo, 0) << s;
    HostTensor& out = c.output(p.dir);
    DeviceBuffer& dout = p.dir == ConvDir::fwd ? y : p.dir == ConvDir::bwd_data ? x : w;
    dout.fill_bytes(0xFF);
    conv.run(b);
    synchronize("cuDNN run");
    std::vector<unsigned char> bytes(dout.bytes());
    dout.download(bytes.data(), bytes.size());
    out.from_bytes(bytes.data());
    ASSERT_EQ(out.data.size(), want.size());
    // FFT/Winograd transforms round even integer data; the bench reports their error instead.
    if (ch.transform) continue;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) bad += out.data[i] == want[i] ? 0 : 1;
    EXPECT_EQ(bad, 0u) << s << " with " << ch.algo_name << "/" << ch.math_name;
  }
}
