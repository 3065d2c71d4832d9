// The exact oracle, each claim an exact equality.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

// Built from cpp_int so that no narrower integer path of boost::rational is used.
Rational frac(std::uint64_t num, std::uint64_t den) {
  return Rational(boost::multiprecision::cpp_int(num), boost::multiprecision::cpp_int(den));
}

std::map<std::uint64_t, int> paths_histogram(const ExactDistribution& d) {
  std::map<std::uint64_t, int> h;  // paths per order -> how many orders
  for (auto c : d.rank_paths) ++h[c];
  return h;
}

Rational sum(const ExactDistribution& d) {
  Rational s = 0;
  for (const auto& p : d.probability) s += p;
  return s;
}

TEST(Exact, NaiveSwapThreeItems) {
  const ExactDistribution d = exact_distribution(Algorithm::naive_swap, 3);
  EXPECT_EQ(d.paths, 27u);
  EXPECT_TRUE(d.equally_likely);
  EXPECT_EQ(paths_histogram(d), (std::map<std::uint64_t, int>{{4, 3}, {5, 3}}));
  for (std::uint64_t r = 0; r < 6; ++r)
    EXPECT_EQ(d.probability[r], frac(d.rank_paths[r], 27)) << rank_label(r, 3);
  EXPECT_EQ(d.mean_draws, 3);
}

TEST(Exact, NaiveSwapFourItems) {
  const ExactDistribution d = exact_distribution(Algorithm::naive_swap, 4);
  EXPECT_EQ(d.paths, 256u);
  const auto [lo, hi] = std::minmax_element(d.rank_paths.begin(), d.rank_paths.end());
  EXPECT_EQ(*lo, 8u);
  EXPECT_EQ(*hi, 15u);
  EXPECT_EQ(sum(d), 1);
}

TEST(Exact, FisherYatesIsExactlyUniformUpToSeven) {
  for (int n = 1; n <= 7; ++n) {
    const ExactDistribution d = exact_distribution(Algorithm::fisher_yates, n, {}, 2);
    EXPECT_EQ(d.paths, factorial(n)) << "n=" << n;
    EXPECT_TRUE(d.equally_likely);
    for (const auto& p : d.probability) ASSERT_EQ(p, frac(1, factorial(n))) << "n=" << n;
  }
}

TEST(Exact, FisherYatesNineItemsWorks) {
  const ExactDistribution d = exact_distribution(Algorithm::fisher_yates, 9, {}, 2);
  EXPECT_EQ(d.paths, 362880u);
  EXPECT_EQ(d.probability[12345], frac(1, 362880));
}

TEST(Exact, SortBinaryInsertionFourItems) {
  const ExactDistribution d = exact_distribution(Algorithm::sort_binary_insertion, 4);
  const std::vector<std::string> heavy = {"ABCD", "ABDC", "ADBC", "BACD",
                                          "BADC", "BDAC", "DABC", "DBAC"};
  int sixteenths = 0, thirty_seconds = 0;
  for (std::uint64_t r = 0; r < 24; ++r) {
    const std::string label = rank_label(r, 4);
    const bool is_heavy = std::find(heavy.begin(), heavy.end(), label) != heavy.end();
    EXPECT_EQ(d.probability[r], is_heavy ? frac(1, 16) : frac(1, 32)) << label;
    sixteenths += d.probability[r] == frac(1, 16);
    thirty_seconds += d.probability[r] == frac(1, 32);
  }
  EXPECT_EQ(sixteenths, 8);
  EXPECT_EQ(thirty_seconds, 16);
  EXPECT_EQ(d.mean_draws, frac(9, 2)) << "4.5 comparisons on average";
  EXPECT_DOUBLE_EQ(d.mean_words, 1) << "batched, the default: at most 5 coins, all from one word";
  const ExactDistribution one_a_word =
      exact_distribution(Algorithm::sort_binary_insertion, 4, BoundedSpec{Method::lemire, 32});
  EXPECT_EQ(one_a_word.probability, d.probability);
  EXPECT_DOUBLE_EQ(one_a_word.mean_words, 4.5) << "lemire: a word a coin";
}

// Fisher-Yates with an 8-bit modulo source, computed independently: every
// tuple of source words, pushed through the swaps by hand.
TEST(Exact, FisherYatesModuloEightBitsIsTheArithmeticDistribution) {
  const int n = 5;
  const BoundedSpec spec{Method::modulo, 8};
  const ExactDistribution d = exact_distribution(Algorithm::fisher_yates, n, spec);
  std::vector<Rational> want(factorial(n), 0);
  // Draw i (for i = n-1..1) takes range i+1; value v has 256/(i+1) or one more preimages.
  auto preimages = [](int range, int v) {
    int c = 0;
    for (int y = 0; y < 256; ++y) c += y % range == v;
    return c;
  };
  for (int j4 = 0; j4 < 5; ++j4)
    for (int j3 = 0; j3 < 4; ++j3)
      for (int j2 = 0; j2 < 3; ++j2)
        for (int j1 = 0; j1 < 2; ++j1) {
          int a[5] = {0, 1, 2, 3, 4};
          std::swap(a[4], a[j4]);
          std::swap(a[3], a[j3]);
          std::swap(a[2], a[j2]);
          std::swap(a[1], a[j1]);
          const boost::multiprecision::cpp_int weight =
              preimages(5, j4) * preimages(4, j3) * preimages(3, j2) * preimages(2, j1);
          want[lehmer_rank(a, n)] += Rational(weight) / Rational(std::uint64_t{1} << 32);
        }
  EXPECT_EQ(d.probability, want);
  EXPECT_FALSE(d.equally_likely);
  const auto [lo, hi] = std::minmax_element(d.probability.begin(), d.probability.end());
  EXPECT_LT(*lo, frac(1, 120));
  EXPECT_GT(*hi, frac(1, 120));
  EXPECT_EQ(sum(d), 1);
}

TEST(Exact, ThirtyTwoBitModuloNeedsBigRationals) {
  // 2^32 per draw: the path weights leave 64 bits and take the slow path.
  const ExactDistribution d =
      exact_distribution(Algorithm::fisher_yates, 5, BoundedSpec{Method::modulo, 32});
  EXPECT_EQ(sum(d), 1);
  EXPECT_FALSE(d.equally_likely);  // 2^32 mod 3 = 1: value 0 is heavier
  const ExactDistribution lemire = exact_distribution(Algorithm::fisher_yates, 5);
  EXPECT_TRUE(lemire.equally_likely);
}

TEST(Exact, SattoloIsUniformOverCyclicPermutations) {
  for (int n = 2; n <= 7; ++n) {
    const ExactDistribution d = exact_distribution(Algorithm::sattolo, n);
    std::uint64_t cyclic = 0;
    for (std::uint64_t r = 0; r < factorial(n); ++r) {
      const std::vector<int> p = lehmer_unrank(r, n);
      int length = 0, at = 0;  // follow the cycle through item 0
      do {
        at = p[at];
        ++length;
      } while (at != 0);
      if (length == n) {
        ++cyclic;
        ASSERT_EQ(d.probability[r], frac(1, factorial(n - 1))) << "n=" << n;
      } else {
        ASSERT_EQ(d.probability[r], 0) << "n=" << n << " " << rank_label(r, n);
      }
    }
    EXPECT_EQ(cyclic, factorial(n - 1));
  }
}

TEST(Exact, EveryAlgorithmSumsToOneUpToEight) {
  for (Algorithm a : kAllAlgorithms)
    for (int n : {1, 2, 5, 8}) {
      if (draw_kind(a) == DrawKind::keys) continue;  // Plackett-Luce: weighted_test.cpp
      // riffle: one riffle (2^n digit sequences); shelf: one pass of 2 shelves
      // (4^n); riffle_law_test.cpp and shelf_law_test.cpp have more.
      const bool shelf = a == Algorithm::shelf;
      const ExactDistribution d = exact_distribution(
          a, Shape{n, n, nullptr, a == Algorithm::riffle ? 1 : 0, shelf ? 2 : 0, shelf ? 1 : 0}, {}, 2);
      EXPECT_EQ(sum(d), 1) << algorithm_name(a) << " n=" << n;
      EXPECT_EQ(std::accumulate(d.rank_paths.begin(), d.rank_paths.end(), std::uint64_t{0}), d.paths);
    }
}

TEST(Exact, TimSortTwoAndThreeItems) {
  // n = 2: one comparison decides; both orders 1/2.
  const ExactDistribution two = exact_distribution(Algorithm::sort_v8_timsort, 2);
  EXPECT_EQ(two.probability[0], frac(1, 2));
  EXPECT_EQ(two.mean_draws, 1);
  // n = 3: c(a1,a0) and c(a2,a1) make the run; a broken run needs one
  // insertion comparison over [0, 2) by binary search (1 or 2 more).
  const ExactDistribution three = exact_distribution(Algorithm::sort_v8_timsort, 3);
  EXPECT_EQ(sum(three), 1);
  EXPECT_EQ(three.probability[0], frac(1, 4) + frac(1, 4) * frac(1, 2));
}

TEST(Exact, ThreadsDoNotChangeTheAnswer) {
  const auto one = exact_distribution(Algorithm::sort_v8_timsort, 6, {}, 1);
  const auto three = exact_distribution(Algorithm::sort_v8_timsort, 6, {}, 3);
  EXPECT_EQ(one.probability, three.probability);
  EXPECT_EQ(one.rank_paths, three.rank_paths);
  EXPECT_EQ(one.mean_draws, three.mean_draws);
}

TEST(Exact, MeanWordsCountsRejections) {
  // Lemire at 8 bits, range 3 rejects 256 mod 3 = 1 word in 256.
  const auto d = exact_distribution(Algorithm::fisher_yates, 3, BoundedSpec{Method::lemire, 8});
  EXPECT_NEAR(d.mean_words, 256.0 / 255.0 + 1.0, 1e-12);
}

TEST(Exact, Limits) {
  EXPECT_THROW(exact_distribution(Algorithm::naive_swap, 10), UsageError);
  EXPECT_THROW(exact_distribution(Algorithm::sort_binary_insertion, 9), UsageError);
  EXPECT_THROW(exact_distribution(Algorithm::fisher_yates, 0), UsageError);
  EXPECT_THROW(exact_distribution(Algorithm::fisher_yates, 4, BoundedSpec{Method::modulo, 1}),
               UsageError);
}

}  // namespace
}  // namespace melange
