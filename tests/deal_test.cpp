// Deals and hands (contract §3): ranks against brute-force
// enumeration, and the poker categories against their counts over all
// 2,598,960 hands.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <array>
#include <bit>
#include <functional>
#include <numeric>
#include <vector>

#include "melange/deal.hpp"

namespace melange {
namespace {

// Every ordered deal of k of n items, in lexicographic order.
std::vector<std::vector<int>> all_deals(int n, int k) {
  std::vector<std::vector<int>> out;
  std::vector<int> deal;
  std::vector<bool> used(n, false);
  std::function<void()> next = [&] {
    if (static_cast<int>(deal.size()) == k) {
      out.push_back(deal);
      return;
    }
    for (int c = 0; c < n; ++c)
      if (!used[c]) {
        used[c] = true;
        deal.push_back(c);
        next();
        deal.pop_back();
        used[c] = false;
      }
  };
  next();
  return out;
}

TEST(Deal, RanksCountDealsInLexicographicOrder) {
  for (int n = 1; n <= 7; ++n)
    for (int k = 1; k <= n; ++k) {
      const auto deals = all_deals(n, k);
      ASSERT_EQ(deals.size(), deal_count(n, k)) << n << " " << k;
      for (std::uint64_t r = 0; r < deals.size(); ++r) {
        ASSERT_EQ(deal_rank(deals[r].data(), n, k), r) << "n " << n << " k " << k;
        ASSERT_EQ(deal_unrank(r, n, k), deals[r]) << "n " << n << " k " << k;
      }
      EXPECT_THROW(deal_unrank(deals.size(), n, k), std::invalid_argument);
    }
}

TEST(Deal, HandRanksCountSetsInColexOrder) {
  for (int n = 1; n <= 10; ++n)
    for (int k = 1; k <= n; ++k) {
      // Every k-subset, sorted ascending, then in colex order (compare the
      // largest element first).
      std::vector<std::vector<int>> hands;
      for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
        if (std::popcount(mask) != k) continue;
        std::vector<int> h;
        for (int c = 0; c < n; ++c)
          if (mask >> c & 1u) h.push_back(c);
        hands.push_back(h);
      }
      std::sort(hands.begin(), hands.end(), [](const auto& a, const auto& b) {
        return std::lexicographical_compare(a.rbegin(), a.rend(), b.rbegin(), b.rend());
      });
      ASSERT_EQ(hands.size(), hand_count(n, k)) << n << " " << k;
      for (std::uint64_t r = 0; r < hands.size(); ++r) {
        ASSERT_EQ(hand_rank_sorted(hands[r].data(), k), r) << "n " << n << " k " << k;
        ASSERT_EQ(hand_unrank(r, n, k), hands[r]) << "n " << n << " k " << k;
      }
    }
}

// A deal's hand is ranked in any order: every ordered deal's unsorted rank
// is the colex rank of its sorted set.
TEST(Deal, HandRanksOfDealsInAnyOrder) {
  for (int n = 1; n <= 7; ++n)
    for (int k = 1; k <= n; ++k)
      for (const std::vector<int>& deal : all_deals(n, k)) {
        std::vector<int> sorted = deal;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(hand_rank(deal.data(), k), hand_rank_sorted(sorted.data(), k)) << "n " << n << " k " << k;
      }
}

TEST(Deal, LabelsOfDeals) {
  EXPECT_EQ(outcome_label(0, 4, 4), "ABCD");  // a whole permutation: its letters
  EXPECT_EQ(outcome_label(deal_rank(std::vector<int>{3, 2, 0}.data(), 6, 3), 6, 3), "DCA");
  EXPECT_EQ(outcome_label(deal_rank(std::vector<int>{51, 38, 12, 0, 25}.data(), 52, 5), 52, 5), "As Ah Ac 2c Ad");
  EXPECT_EQ(outcome_label(deal_rank(std::vector<int>{9999, 3, 17}.data(), 10000, 3), 10000, 3), "9999 3 17");
  EXPECT_EQ(card_name(0), "2c");
  EXPECT_EQ(card_name(51), "As");
}

TEST(Deal, CountsAndTheirLimits) {
  EXPECT_EQ(deal_count(52, 5), 311'875'200u);
  EXPECT_EQ(hand_count(52, 5), 2'598'960u);
  // 5 winners of 10,000: 9.99e19 ordered deals do not fit in 64 bits, the
  // 8.3e17 sets do.
  EXPECT_EQ(deal_count(10'000, 5), 0u);
  EXPECT_EQ(hand_count(10'000, 5), 832'500'291'625'002'000ull);
  EXPECT_EQ(deal_count(20, 20), 2'432'902'008'176'640'000ull) << "20!";
  EXPECT_EQ(deal_count(21, 21), 0u) << "21! does not fit";
  EXPECT_EQ(hand_count(100, 50), 0u) << "about 1e29";
  EXPECT_EQ(hand_count(64, 32), 1'832'624'140'942'590'534ull);
  // The top deal and hand of 52/5.
  EXPECT_EQ(deal_rank(std::vector<int>{51, 50, 49, 48, 47}, 52, 5), 311'875'199u);
  EXPECT_EQ(hand_rank_sorted(std::vector<int>{47, 48, 49, 50, 51}, 5), 2'598'959u);
}

TEST(Poker, CategoriesCountEveryHandOnce) {
  std::array<std::uint64_t, kPokerCategories> seen{};
  int cards[5];
  for (cards[0] = 0; cards[0] < 52; ++cards[0])
    for (cards[1] = cards[0] + 1; cards[1] < 52; ++cards[1])
      for (cards[2] = cards[1] + 1; cards[2] < 52; ++cards[2])
        for (cards[3] = cards[2] + 1; cards[3] < 52; ++cards[3])
          for (cards[4] = cards[3] + 1; cards[4] < 52; ++cards[4]) ++seen[static_cast<int>(poker_category(cards))];
  for (int c = 0; c < kPokerCategories; ++c)
    EXPECT_EQ(seen[c], kPokerCategoryHands[c]) << poker_category_name(static_cast<PokerCategory>(c));
  EXPECT_EQ(std::accumulate(seen.begin(), seen.end(), std::uint64_t{0}), hand_count(52, 5));
}

TEST(Poker, KnownHandsInAnyOrder) {
  // Card = suit * 13 + rank, rank 0 = deuce .. 12 = ace.
  auto card = [](int suit, int rank) { return suit * 13 + rank; };
  struct Known {
    std::vector<int> cards;
    PokerCategory category;
  };
  const Known known[] = {
      {{card(2, 12), card(2, 8), card(2, 11), card(2, 9), card(2, 10)}, PokerCategory::royal_flush},
      {{card(1, 12), card(1, 0), card(1, 1), card(1, 2), card(1, 3)}, PokerCategory::straight_flush},  // steel wheel
      {{card(0, 12), card(1, 0), card(2, 1), card(3, 2), card(0, 3)}, PokerCategory::straight},        // wheel
      {{card(0, 12), card(1, 11), card(2, 10), card(3, 9), card(0, 8)}, PokerCategory::straight},      // broadway
      {{card(0, 11), card(1, 12), card(2, 0), card(3, 1), card(0, 2)}, PokerCategory::high_card},      // no wrap
      {{card(0, 5), card(1, 5), card(2, 5), card(3, 5), card(0, 2)}, PokerCategory::four_of_a_kind},
      {{card(0, 5), card(1, 5), card(2, 5), card(3, 2), card(0, 2)}, PokerCategory::full_house},
      {{card(3, 0), card(3, 4), card(3, 7), card(3, 9), card(3, 12)}, PokerCategory::flush},
      {{card(0, 5), card(1, 5), card(2, 5), card(3, 2), card(0, 3)}, PokerCategory::three_of_a_kind},
      {{card(0, 5), card(1, 5), card(2, 3), card(3, 3), card(0, 9)}, PokerCategory::two_pair},
      {{card(0, 5), card(1, 5), card(2, 3), card(3, 7), card(0, 9)}, PokerCategory::one_pair},
  };
  for (const Known& k : known) {
    std::vector<int> cards = k.cards;
    std::sort(cards.begin(), cards.end());
    do {
      ASSERT_EQ(poker_category(cards), k.category) << poker_category_name(k.category);
    } while (std::next_permutation(cards.begin(), cards.end()));
  }
}

// The exact category law of a partial Fisher-Yates deal: under an unbiased
// method every ordered deal is equally likely, so each category holds its
// hands times 5! of the 311,875,200 paths; under an 8-bit modulo source the
// weights shift (the numbers are printed for the record).
TEST(Poker, ExactLawOfPartialDealsUnderEachMethod) {
  const PokerLaw fair = exact_poker_law(BoundedSpec{Method::lemire, 32}, 2);
  EXPECT_EQ(fair.total, 311'875'200u);
  for (int c = 0; c < kPokerCategories; ++c)
    EXPECT_EQ(fair.weight[c], kPokerCategoryHands[c] * 120) << poker_category_name(static_cast<PokerCategory>(c));

  const PokerLaw biased = exact_poker_law(BoundedSpec{Method::modulo, 8}, 2);
  EXPECT_EQ(biased.total, std::uint64_t{1} << 40);
  EXPECT_EQ(std::accumulate(biased.weight.begin(), biased.weight.end(), std::uint64_t{0}), biased.total);
  bool differs = false;
  for (int c = 0; c < kPokerCategories; ++c) {
    const double p = static_cast<double>(biased.weight[c]) / static_cast<double>(biased.total);
    const double q = static_cast<double>(kPokerCategoryHands[c]) / 2'598'960.0;
    std::printf("%-16s modulo/8 %.9e  fair %.9e  ratio %.6f\n",
                std::string(poker_category_name(static_cast<PokerCategory>(c))).c_str(), p, q, p / q);
    differs = differs || p != q;
  }
  EXPECT_TRUE(differs) << "an 8-bit modulo source must shift some category";
}

}  // namespace
}  // namespace melange
