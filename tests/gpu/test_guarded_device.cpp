// The GPU tests' buffer checks (guarded_device.hpp) on host buffers, where a test can play the
// misbehaving solver: a write past either end, a changed input and an unwritten output element are
// each reported, and a well-behaved run passes.
#include <gtest/gtest.h>

#include <limits>

#include "tests/gpu/guarded_device.hpp"

namespace hiprim::gputest {
namespace {

TEST(GuardedDevice, AnUntouchedInputPassesAndAChangedOneIsNamed) {
  const std::vector<unsigned char> bytes{1, 2, 3, 4, 5, 6, 7, 8};
  GuardedBuffer in = guarded_input(bytes, "A", Backend::host);
  EXPECT_EQ(read_back(in).payload, bytes);
  EXPECT_EQ(input_error(in, bytes), "");
  static_cast<unsigned char*>(in.data())[5] = 0;
  EXPECT_EQ(input_error(in, bytes), "modified its input buffer A");
}

TEST(GuardedDevice, WritesPastEitherEndBreakAGuard) {
  for (std::ptrdiff_t at : {-1, -256, 16, 16 + 255}) {
    GuardedBuffer out = guarded_output(16, DType::fp32, "C", Backend::host);
    EXPECT_EQ(guard_error(out), "");
    static_cast<unsigned char*>(out.data())[at] = 0;
    const std::string e = guard_error(out);
    EXPECT_NE(e.find(at < 0 ? "before the start of buffer C" : "past the end of buffer C"), std::string::npos) << at << ": " << e;
    EXPECT_EQ(read_back(out).guard_error, e);
    EXPECT_EQ(input_error(out, read_back(out).payload), e);  // a broken guard fails an input too
  }
}

TEST(GuardedDevice, AnOutputIsPoisonedUntilWrittenInEveryDtype) {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
    const std::size_t es = dtype_size(t);
    GuardedBuffer out = guarded_output(4 * es, t, "y", Backend::host);
    std::vector<unsigned char> p = read_back(out).payload;
    for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(still_poison(t, p, i)) << dtype_name(t) << " " << i;
    // A written element (a value, or a NaN that arithmetic gives) is no longer the poison; the sign is ignored.
    store_element(t, static_cast<unsigned char*>(out.data()) + 1 * es, 3.0f);
    store_element(t, static_cast<unsigned char*>(out.data()) + 2 * es, std::numeric_limits<float>::quiet_NaN());
    static_cast<unsigned char*>(out.data())[3 * es + es - 1] |= 0x80;
    p = read_back(out).payload;
    EXPECT_TRUE(still_poison(t, p, 0));
    EXPECT_FALSE(still_poison(t, p, 1));
    EXPECT_FALSE(still_poison(t, p, 2));
    EXPECT_TRUE(still_poison(t, p, 3));
    EXPECT_EQ(read_back(out).guard_error, "");
    // Poisoning again restores every element.
    out.poison(t);
    p = read_back(out).payload;
    for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(still_poison(t, p, i)) << dtype_name(t) << " " << i;
  }
}

}  // namespace
}  // namespace hiprim::gputest
