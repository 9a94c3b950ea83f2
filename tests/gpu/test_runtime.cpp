// Runtime tests: error-message format and availability (host, always run); buffers, streams, timers
// and out-of-memory reporting (device; skipped with the reason when there is no GPU).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

TEST(GpuCheck, FailedCallThrowsRuntimeErrorNamingFunctionContextAndError) {
  const hipError_t err = hipErrorMemoryAllocation;
  const std::string want = std::string("hipMalloc failed (") + hipGetErrorString(err) + ") while allocating x: " +
                           hipGetErrorName(err) + " (code " + std::to_string(static_cast<int>(err)) + ")";
  // The macro names the function of the call it wraps (device -1 never exists, driver or not).
  try {
    HIPRIM_CHECK(hipSetDevice(-1), "selecting device -1");
    FAIL() << "no exception";
  } catch (const RuntimeError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("hipSetDevice failed (", 0), 0u) << msg;
    EXPECT_NE(msg.find(") while selecting device -1: "), std::string::npos) << msg;
  }
  try {
    check_result(err, "hipMalloc(&p, bytes)", "allocating x");
    FAIL() << "no exception";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
  EXPECT_NO_THROW(check_result(hipSuccess, "hipMalloc(&p, bytes)", "allocating x"));
}

TEST(GpuCheck, FormatBytes) {
  EXPECT_EQ(format_bytes(17), "17 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(std::size_t{3} << 30), "3.00 GiB");
  EXPECT_EQ(format_bytes(std::size_t{1} << 60), "1.00 EiB");
}

// Both outcomes are checked: without a device the reason is given and device_info() throws.
TEST(GpuDevice, AvailabilityIsReportedWithAReason) {
  std::string why;
  if (!device_available(&why)) {
    EXPECT_FALSE(why.empty());
    EXPECT_THROW(device_info(), RuntimeError);
    return;
  }
  const DeviceInfo info = device_info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_TRUE(info.warp_size == 32 || info.warp_size == 64) << info.warp_size;
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.memory_bytes, std::size_t{1} << 20);
  EXPECT_GT(info.shared_bytes_per_block, std::size_t{0});
  EXPECT_GT(info.runtime_version, 0);
  EXPECT_TRUE(info.backend == "cuda" || info.backend == "hip") << info.backend;
}

TEST(GpuDevice, BufferUploadDownloadRoundTrip) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::vector<unsigned char> host(1000);
  std::iota(host.begin(), host.end(), static_cast<unsigned char>(7));
  DeviceBuffer buf(host.size(), "round trip");
  ASSERT_EQ(buf.bytes(), host.size());
  ASSERT_NE(buf.data(), nullptr);
  buf.upload(host.data(), host.size());
  std::vector<unsigned char> back(host.size(), 0);
  buf.download(back.data(), back.size());
  EXPECT_EQ(back, host);
  // A partial upload at an offset changes only that range.
  const unsigned char patch[3] = {1, 2, 3};
  buf.upload(patch, 3, 500);
  buf.download(back.data(), back.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    EXPECT_EQ(back[i], (i >= 500 && i < 503) ? patch[i - 500] : host[i]) << i;
  // A partial download at an offset.
  unsigned char tail[4] = {};
  buf.download(tail, 4, 996);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(tail[i], host[996 + i]);
  buf.fill_bytes(0xAB);
  buf.download(back.data(), back.size());
  for (auto b : back) ASSERT_EQ(b, 0xAB);
  EXPECT_THROW(buf.upload(host.data(), 10, 995), InputError);
  EXPECT_THROW(buf.download(back.data(), 1001), InputError);
}

TEST(GpuDevice, BufferAndStreamMoveTransferOwnership) {
  HIPRIM_SKIP_WITHOUT_GPU();
  DeviceBuffer a(64, "a");
  void* p = a.data();
  DeviceBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.bytes(), 64u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  Stream s1;
  void* h = s1.handle();
  EXPECT_NE(h, nullptr);
  Stream s2(std::move(s1));
  EXPECT_EQ(s2.handle(), h);
  EXPECT_EQ(s1.handle(), nullptr);  // NOLINT(bugprone-use-after-move)
  s2.synchronize();
}

TEST(GpuDevice, OutOfMemoryThrowsRuntimeErrorNamingBufferAndSize) {
  HIPRIM_SKIP_WITHOUT_GPU();
  try {
    DeviceBuffer huge(std::size_t{1} << 60, "absurd buffer");
    FAIL() << "allocating 1 EiB succeeded";
  } catch (const RuntimeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("hipMalloc failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("absurd buffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1.00 EiB"), std::string::npos) << msg;
  }
  // The failure is not left behind for the next check.
  DeviceBuffer small(16, "after out of memory");
  small.fill_bytes(0);
  EXPECT_NO_THROW(synchronize("after an out-of-memory error"));
  EXPECT_NO_THROW(check_launch("none", "after an out-of-memory error"));
}

TEST(GpuDevice, EventTimerMeasuresStreamWork) {
  HIPRIM_SKIP_WITHOUT_GPU();
  Stream s;
  DeviceBuffer buf(std::size_t{64} << 20, "timed");
  EventTimer t;
  t.start(s.handle());
  HIPRIM_CHECK(hipMemsetAsync(buf.data(), 1, buf.bytes(), static_cast<hipStream_t>(s.handle())), "timed memset");
  const double ms = t.stop(s.handle());
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 10000.0);
  EXPECT_EQ(t.elapsed_ms(), ms);
}
