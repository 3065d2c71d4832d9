// Deals of k of n items (DESIGN.md section 3): an ordered deal's rank, a
// hand's colex rank, and the poker categories of five cards of 52. Pure
// functions, __host__ __device__ where a trial needs them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "melange/config.hpp"

namespace melange {

// n! / (n-k)! ordered deals and C(n, k) hands; 0 when the count does not fit
// in 64 bits. 1 <= k <= n.
std::uint64_t deal_count(int n, int k);
std::uint64_t hand_count(int n, int k);

// The rank of the ordered deal (p_0, .., p_{k-1}) of distinct items of
// 0..n-1: sum_i c_i (n-1-i)! / (n-k)!, c_i the items below p_i not dealt
// before it; (0, 1, .., k-1) is 0. Written in Horner form: r = r (n - i) + c_i.
template <class Items>
MELANGE_HD inline std::uint64_t deal_rank(const Items& deal, int n, int k) {
  std::uint64_t rank = 0;
  for (int i = 0; i < k; ++i) {
    std::uint64_t below = static_cast<std::uint64_t>(deal[i]);
    for (int j = 0; j < i; ++j) below -= deal[j] < deal[i] ? 1 : 0;
    rank = rank * static_cast<std::uint64_t>(n - i) + below;
  }
  return rank;
}

// C(m, r) for small arguments (a hand's ranks stay far below 2^64 where the
// hand histogram fits in memory).
MELANGE_HD inline std::uint64_t choose(std::uint64_t m, int r) {
  if (r < 0 || static_cast<std::uint64_t>(r) > m) return 0;
  std::uint64_t c = 1;
  for (int i = 1; i <= r; ++i) c = c * (m - static_cast<std::uint64_t>(r) + static_cast<std::uint64_t>(i)) / static_cast<std::uint64_t>(i);
  return c;
}

// The colex rank of the hand {c_0 < .. < c_{k-1}}: sum_i C(c_i, i + 1).
// `hand` must be sorted ascending.
template <class Items>
MELANGE_HD inline std::uint64_t hand_rank_sorted(const Items& hand, int k) {
  std::uint64_t rank = 0;
  for (int i = 0; i < k; ++i) rank += choose(static_cast<std::uint64_t>(hand[i]), i + 1);
  return rank;
}

// The deal (or hand) of `rank`, the inverse of deal_rank (hand_rank_sorted).
std::vector<int> deal_unrank(std::uint64_t rank, int n, int k);
std::vector<int> hand_unrank(std::uint64_t rank, int n, int k);

// ---- Poker: n = 52, k = 5 -------------------------------------------------
// Card c has rank c mod 13 (0 = deuce .. 12 = ace) and suit c div 13.

enum class PokerCategory : std::uint8_t {
  royal_flush, straight_flush, four_of_a_kind, full_house, flush,
  straight, three_of_a_kind, two_pair, one_pair, high_card,
};
inline constexpr int kPokerCategories = 10;
// The number of the 2,598,960 hands in each category, in enum order.
inline constexpr std::array<std::uint64_t, kPokerCategories> kPokerCategoryHands = {
    4, 36, 624, 3'744, 5'108, 10'200, 54'912, 123'552, 1'098'240, 1'302'540};
std::string_view poker_category_name(PokerCategory c);  // "royal flush", ...

// The category of five distinct cards of 0..51, in any order.
template <class Items>
MELANGE_HD inline PokerCategory poker_category(const Items& cards) {
  int count[13] = {};
  bool flush = true;
  std::uint32_t ranks = 0;  // bit r set when a card of rank r is present
  for (int i = 0; i < 5; ++i) {
    const int c = static_cast<int>(cards[i]);
    ++count[c % 13];
    ranks |= 1u << (c % 13);
    flush = flush && c / 13 == static_cast<int>(cards[0]) / 13;
  }
  int pairs = 0, threes = 0, fours = 0;
  for (int r = 0; r < 13; ++r) {
    pairs += count[r] == 2;
    threes += count[r] == 3;
    fours += count[r] == 4;
  }
  // Five distinct ranks in a row, or A-2-3-4-5 (the ace low).
  bool straight = false;
  for (int low = 0; low + 4 < 13; ++low) straight = straight || ((ranks >> low) & 0x1fu) == 0x1fu;
  const bool wheel = ranks == ((1u << 12) | 0xfu);
  straight = straight || wheel;
  if (straight && flush) return ranks == (0x1fu << 8) ? PokerCategory::royal_flush : PokerCategory::straight_flush;
  if (fours) return PokerCategory::four_of_a_kind;
  if (threes && pairs) return PokerCategory::full_house;
  if (flush) return PokerCategory::flush;
  if (straight) return PokerCategory::straight;
  if (threes) return PokerCategory::three_of_a_kind;
  if (pairs == 2) return PokerCategory::two_pair;
  if (pairs == 1) return PokerCategory::one_pair;
  return PokerCategory::high_card;
}

}  // namespace melange
