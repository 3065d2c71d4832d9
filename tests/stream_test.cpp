// The stream addressing of contract §1.
#include <gtest/gtest.h>

#include "melange/stream.hpp"

namespace melange {
namespace {

PhiloxCounter block(std::uint64_t seed, std::uint32_t c0, std::uint32_t c1, std::uint32_t c2,
                    std::uint32_t c3) {
  return philox4x32_10(PhiloxCounter{{c0, c1, c2, c3}},
                       PhiloxKey{{std::uint32_t(seed), std::uint32_t(seed >> 32)}});
}

TEST(Stream, WordsComeOutInOrderXYZW) {
  PhiloxStream s(0, 0);
  EXPECT_EQ(s.next(), 0x6627e8d5u);
  EXPECT_EQ(s.next(), 0xe169c58du);
  EXPECT_EQ(s.next(), 0xbc57ac4cu);
  EXPECT_EQ(s.next(), 0x9b00dbd8u);
  const PhiloxCounter second = block(0, 1, 0, 0, 0);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next(), second.v[w]) << "word " << w << " of block 1";
}

TEST(Stream, SeedIsTheKeyLowWordFirst) {
  const std::uint64_t seed = 0x0123456789abcdefull;
  PhiloxStream s(seed, 0);
  const PhiloxCounter b0 = block(seed, 0, 0, 0, 0);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next(), b0.v[w]);
}

TEST(Stream, StreamIdHighBitsLandInCtr2And3) {
  const std::uint64_t seed = 7, stream = 0xdeadbeef00000005ull;
  PhiloxStream s(seed, stream);
  const PhiloxCounter want = block(seed, 0, 0, 0x00000005, 0xdeadbeef);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next(), want.v[w]);
}

TEST(Stream, BlockIndexCarriesIntoCtr1) {
  const std::uint64_t seed = 42, stream = 3;
  PhiloxStream s(seed, stream, 0xffffffffull);  // start at the last block below 2^32
  const PhiloxCounter last = block(seed, 0xffffffff, 0, 3, 0);
  const PhiloxCounter carried = block(seed, 0, 1, 3, 0);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next(), last.v[w]);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next(), carried.v[w]) << "block 2^32, word " << w;
}

TEST(Stream, CountsWordsConsumed) {
  PhiloxStream s(1, 2);
  EXPECT_EQ(s.words_consumed(), 0u);
  for (int i = 1; i <= 9; ++i) {
    s.next();
    EXPECT_EQ(s.words_consumed(), static_cast<std::uint64_t>(i));
  }
}

TEST(Stream, DistinctStreamsDiffer) {
  PhiloxStream a(5, 0), b(5, 1), c(6, 0);
  const std::uint32_t x = a.next();
  EXPECT_NE(x, b.next());
  EXPECT_NE(x, c.next());
}

}  // namespace
}  // namespace melange
