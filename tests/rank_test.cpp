// Lehmer ranks and labels.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "melange/rank.hpp"

namespace melange {
namespace {

TEST(Rank, IdentityIsZeroReversedIsLast) {
  for (int n = 1; n <= 20; ++n) {
    std::vector<int> p(n);
    std::iota(p.begin(), p.end(), 0);
    EXPECT_EQ(lehmer_rank(p.data(), n), 0u);
    std::reverse(p.begin(), p.end());
    EXPECT_EQ(lehmer_rank(p.data(), n), factorial(n) - 1) << "n=" << n;
  }
}

TEST(Rank, LexicographicOrderForFiveItems) {
  std::vector<int> p = {0, 1, 2, 3, 4};
  std::uint64_t expected = 0;
  do {
    ASSERT_EQ(lehmer_rank(p.data(), 5), expected);
    ASSERT_EQ(lehmer_unrank(expected, 5), p);
    ++expected;
  } while (std::next_permutation(p.begin(), p.end()));
  EXPECT_EQ(expected, 120u);
}

TEST(Rank, RoundTripAtTwenty) {
  for (std::uint64_t r : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{123456789012345}, factorial(20) - 1}) {
    const auto p = lehmer_unrank(r, 20);
    EXPECT_EQ(lehmer_rank(p.data(), 20), r);
  }
  EXPECT_ANY_THROW(lehmer_unrank(factorial(5), 5));
}

TEST(Rank, Labels) {
  EXPECT_EQ(rank_label(0, 4), "ABCD");
  EXPECT_EQ(rank_label(23, 4), "DCBA");
  EXPECT_EQ(rank_label(1, 3), "ACB");
  EXPECT_EQ(permutation_label(std::vector<int>(1, 25)), "Z");
  std::vector<int> big(27);
  std::iota(big.begin(), big.end(), 0);
  EXPECT_EQ(permutation_label(big).substr(0, 6), "0 1 2 ");
}

TEST(Rank, Log2Factorial) {
  EXPECT_NEAR(log2_factorial(52), 225.581, 1e-3);
  EXPECT_DOUBLE_EQ(log2_factorial(1), 0.0);
}

}  // namespace
}  // namespace melange
