// Bayer and Diaconis's closed form for riffles against the model's own
// definition, every permutation counted, and against their table for 52 cards.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "melange/error.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

using boost::multiprecision::cpp_int;

// R: 1 + the cards c whose successor c + 1 lies to their left.
int rising_sequences(const std::vector<std::uint16_t>& deck) {
  std::vector<int> at(deck.size());
  for (std::size_t p = 0; p < deck.size(); ++p) at[deck[p]] = static_cast<int>(p);
  int r = 1;
  for (std::size_t c = 0; c + 1 < deck.size(); ++c) r += at[c + 1] < at[c];
  return r;
}

// Every one of the a^n digit sequences of an inverse a-shuffle (each card
// a digit in [0, a), the cards stably sorted by digit), the deck it gives
// as the forward shuffle's (the sorted order's inverse), counted by rank.
std::map<std::uint64_t, std::uint64_t> decks_of_every_digit_sequence(int n, std::uint64_t a) {
  std::map<std::uint64_t, std::uint64_t> count;
  std::vector<std::uint64_t> digit(static_cast<std::size_t>(n), 0);
  std::vector<std::uint16_t> sorted(static_cast<std::size_t>(n)), deck(static_cast<std::size_t>(n));
  for (;;) {
    std::iota(sorted.begin(), sorted.end(), std::uint16_t{0});
    std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint16_t x, std::uint16_t y) { return digit[x] < digit[y]; });
    for (int p = 0; p < n; ++p) deck[sorted[p]] = static_cast<std::uint16_t>(p);
    ++count[lehmer_rank(deck.data(), n)];
    int c = 0;
    while (c < n && ++digit[c] == a) digit[c++] = 0;
    if (c == n) return count;
  }
}

TEST(RiffleLaw, EveryPermutationHasTheClosedFormsProbability) {
  for (int n = 3; n <= 7; ++n)
    for (std::uint64_t a : {1, 2, 3, 4, 8}) {
      if (std::pow(static_cast<double>(a), n) > 3e6) continue;
      const RiffleLaw law = riffle_law(n, a);
      const auto count = decks_of_every_digit_sequence(n, a);
      const cpp_int outcomes = pow(cpp_int(a), static_cast<unsigned>(n));
      std::vector<Rational> by_rises(static_cast<std::size_t>(n));
      std::uint64_t orders = 1;
      for (int m = 2; m <= n; ++m) orders *= static_cast<std::uint64_t>(m);
      for (std::uint64_t rank = 0; rank < orders; ++rank) {
        const std::vector<int> items = lehmer_unrank(rank, n);
        const std::vector<std::uint16_t> deck(items.begin(), items.end());
        const int r = rising_sequences(deck);
        const auto it = count.find(rank);
        const Rational seen(cpp_int(it == count.end() ? 0 : it->second), outcomes);
        ASSERT_EQ(seen, law.each[static_cast<std::size_t>(r - 1)])
            << "n " << n << " a " << a << " rank " << rank << " R " << r << ": " << seen;
        by_rises[static_cast<std::size_t>(r - 1)] += seen;
      }
      EXPECT_EQ(by_rises, law.rises) << "n " << n << " a " << a;
    }
}

// Their table for 52 cards, k = 1..10 riffles, to three decimals.
TEST(RiffleLaw, ReproducesBayerAndDiaconissTotalVariationTableFor52Cards) {
  const double table[] = {1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043};
  for (int k = 1; k <= 10; ++k) {
    const RiffleLaw law = riffles_law(52, k);
    EXPECT_EQ(std::round(static_cast<double>(law.total_variation) * 1000), std::round(table[k - 1] * 1000))
        << k << " riffles: " << static_cast<double>(law.total_variation);
    EXPECT_EQ(std::accumulate(law.rises.begin(), law.rises.end(), Rational(0)), Rational(1));
  }
  EXPECT_EQ(riffles_law(52, 5).separation, Rational(1)) << "32 packets cannot reverse 52 cards";
  EXPECT_LT(riffles_law(52, 11).separation, Rational(1, 2));
}

// E R = a - (n + 1) / a^n sum_{r=0}^{a-1} r^n (Bayer and Diaconis, corollary
// of their theorem 1), exactly.
TEST(RiffleLaw, MeanRisingSequencesIsTheirClosedForm) {
  for (int n : {1, 2, 5, 13, 52})
    for (int k : {0, 1, 3, 7}) {
      const std::uint64_t a = std::uint64_t{1} << k;
      cpp_int powers = 0;
      for (std::uint64_t r = 0; r < a; ++r) powers += pow(cpp_int(r), static_cast<unsigned>(n));
      const Rational expected = Rational(cpp_int(a)) - Rational(powers * (n + 1), pow(cpp_int(a), static_cast<unsigned>(n)));
      EXPECT_EQ(riffles_law(n, k).mean_rises, expected) << "n " << n << " k " << k;
    }
}

TEST(RiffleLaw, NoRiffleLeavesTheDeckAndManyReachUniform) {
  const RiffleLaw none = riffles_law(5, 0);
  EXPECT_EQ(none.rises[0], Rational(1));
  EXPECT_EQ(none.total_variation, Rational(119, 120));
  EXPECT_LT(static_cast<double>(riffles_law(52, 30).total_variation), 1e-6);
  EXPECT_THROW(riffle_law(0, 2), Error);
  EXPECT_THROW(riffle_law(5, 0), Error);
  EXPECT_THROW(riffles_law(5, 64), Error);
}

}  // namespace
}  // namespace melange
