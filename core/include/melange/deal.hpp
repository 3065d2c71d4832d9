// Deals of k of n items (contract §3): an ordered deal's rank, a
// hand's colex rank, and the poker categories of five cards of 52. Pure
// functions, __host__ __device__ where a trial needs them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "melange/bounded.hpp"
#include "melange/config.hpp"
#include "melange/packed_items.hpp"

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

namespace internal {

// C(m, R) by R exact steps C(m-R+i, i) = C(m-R+i-1, i-1) (m-R+i) / i; with R
// known at compile time each division is by a constant, which compiles to a
// multiply (a hand's rank needs k of them a trial).
template <int R>
MELANGE_HD inline std::uint64_t choose_fixed(std::uint64_t m) {
  std::uint64_t c = 1;
  for (int i = 1; i <= R; ++i) c = c * (m - R + static_cast<std::uint64_t>(i)) / static_cast<std::uint64_t>(i);
  return c;
}

// C(m, r) for r known at compile time, as with_count_in calls it.
struct ChooseFixed {
  std::uint64_t m;
  std::uint64_t* c;
  template <class R>
  MELANGE_HD void operator()(R) const {
    *c = choose_fixed<R::value>(m);
  }
};

// The largest r whose C(m, r) has divisions by constants.
inline constexpr int kFixedChoose = 8;

}  // namespace internal

// C(m, r) for small arguments (a hand's ranks stay far below 2^64 where the
// hand histogram fits in memory).
MELANGE_HD inline std::uint64_t choose(std::uint64_t m, int r) {
  if (r < 0 || static_cast<std::uint64_t>(r) > m) return 0;
  std::uint64_t c = 1;
  if (with_count_in<0, internal::kFixedChoose>(r, internal::ChooseFixed{m, &c})) return c;
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

// The same for a hand in any order: card c_i is the j-th smallest, j the
// number of cards below it, so no sort is needed (k^2 compares, k small).
template <class Items>
MELANGE_HD inline std::uint64_t hand_rank(const Items& hand, int k) {
  std::uint64_t rank = 0;
  for (int i = 0; i < k; ++i) {
    int below = 0;
    for (int j = 0; j < k; ++j) below += hand[j] < hand[i] ? 1 : 0;
    rank += choose(static_cast<std::uint64_t>(hand[i]), below + 1);
  }
  return rank;
}

// The deal (or hand) of `rank`, the inverse of deal_rank (hand_rank_sorted).
std::vector<int> deal_unrank(std::uint64_t rank, int n, int k);
std::vector<int> hand_unrank(std::uint64_t rank, int n, int k);

// A label for the outcome of `rank` (contract §3): a permutation's
// letters (rank_label) when k = n; a deal's items in slot order otherwise:
// letters for n <= 26 ("DCA"), cards for n = 52 ("As Kh 7d 7c 2s"), else
// numbers ("17 3 9950").
std::string outcome_label(std::uint64_t rank, int n, int k);
// Card c of 52: rank c mod 13 (2..A) then suit c div 13 (c, d, h, s): "As".
std::string card_name(int c);
// Card c as people write it, each spelling with its card: ranks 2..9, 10
// or T, J, Q, K, A in either case; suits c, d, h, s in either case or
// ♣ ♦ ♥ ♠ (UTF-8): "Th", "10h", "TH", "th", "10♥", ... (card_name's among them).
std::vector<std::pair<std::string, int>> card_spellings();
// Those spellings in words, for a card that is none of them.
inline constexpr std::string_view kCardSpellingWords =
    "cards are a rank 2..9, 10 or T, J, Q, K or A (either case) and a suit c, d, h or s (either case) or "
    "♣ ♦ ♥ ♠, such as 10h, Th or 10♥";

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

// The category of five distinct cards of 0..51, in any order. Counts of
// each rank sit in four-bit fields of one word, so that the hand's shape is
// read with a few masks: the number of distinct ranks says high card /
// pair / two pair or trips / full house or quads.
template <class Items>
MELANGE_HD inline PokerCategory poker_category(const Items& cards) {
  std::uint64_t counts = 0;  // four bits a rank
  std::uint32_t ranks = 0;   // bit r set when a card of rank r is present
  bool flush = true;
  const int suit = static_cast<int>(cards[0]) / 13;
  for (int i = 0; i < 5; ++i) {
    const int c = static_cast<int>(cards[i]);
    counts += std::uint64_t{1} << (4 * (c % 13));
    ranks |= 1u << (c % 13);
    flush = flush && c / 13 == suit;
  }
  int distinct = 0;
  for (std::uint32_t r = ranks; r; r &= r - 1) ++distinct;
  constexpr std::uint64_t kOnes = 0x1111111111111ull, kFours = 0x4444444444444ull;
  switch (distinct) {
    case 2: return (counts & kFours) ? PokerCategory::four_of_a_kind : PokerCategory::full_house;
    case 3: return ((counts + kOnes) & kFours) ? PokerCategory::three_of_a_kind : PokerCategory::two_pair;
    case 4: return PokerCategory::one_pair;
    default: break;
  }
  // Five ranks: five in a row (lowest bit's run), or A-2-3-4-5 with the ace low.
  const std::uint32_t low = ranks & (~ranks + 1);
  const bool straight = ranks == low * 0x1fu || ranks == ((1u << 12) | 0xfu);
  if (straight && flush) return ranks == (0x1fu << 8) ? PokerCategory::royal_flush : PokerCategory::straight_flush;
  if (flush) return PokerCategory::flush;
  if (straight) return PokerCategory::straight;
  return PokerCategory::high_card;
}

// The exact law of the poker category of a five-card deal from 52 by the
// partial Fisher-Yates shuffle (i = 51 down to 47: j = bounded(i + 1),
// swap(a[i], a[j]); the deal is a[47..51]) under a bounded method: category c
// has probability weight[c] / total. Every path of draws is walked, weighted
// by its draws' exact laws (DrawLaw), in integers: total is the product of
// the five draws' totals (52 x 51 x 50 x 49 x 48 for the unbiased methods,
// 2^(5 bits) for the biased ones).
struct PokerLaw {
  std::array<std::uint64_t, kPokerCategories> weight{};
  std::uint64_t total = 0;
};
PokerLaw exact_poker_law(BoundedSpec spec, int threads = 1);

}  // namespace melange
