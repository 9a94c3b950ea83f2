// Philox4x32-10 against Random123's published known-answer vectors (tests/kat_vectors of the
// Random123 distribution: counter words, key words -> output words), and dropout_word's mapping
// of an element index onto counter block and output word.
#include <gtest/gtest.h>

#include "core/philox.hpp"

using hiprim::Philox4x32;
using hiprim::philox4x32_10;

namespace {
void expect_words(const Philox4x32& got, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  EXPECT_EQ(got.w[0], a);
  EXPECT_EQ(got.w[1], b);
  EXPECT_EQ(got.w[2], c);
  EXPECT_EQ(got.w[3], d);
}
}  // namespace

TEST(Philox, KnownAnswerZeros) {
  expect_words(philox4x32_10(Philox4x32{{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u);
}

TEST(Philox, KnownAnswerOnes) {
  const std::uint32_t f = 0xffffffffu;
  expect_words(philox4x32_10(Philox4x32{{f, f, f, f}}, f, f), 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
}

TEST(Philox, KnownAnswerPiDigits) {
  expect_words(philox4x32_10(Philox4x32{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u),
               0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

TEST(Philox, DropoutWordUsesBlockAndLane) {
  // Element 4b + j is word j of the block with counter (b low, b high, 0, 0) and key (seed low, seed high).
  const std::uint64_t seed = 0x0123456789abcdefull, b = 0x100000002ull;
  const Philox4x32 r = philox4x32_10(Philox4x32{{2u, 1u, 0u, 0u}}, 0x89abcdefu, 0x01234567u);
  for (std::uint32_t j = 0; j < 4; ++j) EXPECT_EQ(hiprim::dropout_word(seed, 4 * b + j), r.w[j]) << j;
  // Seed 0, element 0..3: the zero-counter, zero-key answer above.
  EXPECT_EQ(hiprim::dropout_word(0, 0), 0x6627e8d5u);
  EXPECT_EQ(hiprim::dropout_word(0, 3), 0x9b00dbd8u);
}
