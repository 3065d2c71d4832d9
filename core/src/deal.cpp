#include "melange/deal.hpp"

#include <stdexcept>

namespace melange {

std::uint64_t deal_count(int n, int k) {
  std::uint64_t count = 1;
  for (int i = 0; i < k; ++i) {
    const auto f = static_cast<std::uint64_t>(n - i);
    if (count > ~std::uint64_t{0} / f) return 0;
    count *= f;
  }
  return count;
}

std::uint64_t hand_count(int n, int k) {
  // C(n, k) = C(n, k-1) (n-k+1) / k, exact at each step; 128-bit in between.
  unsigned __int128 c = 1;
  for (int i = 1; i <= k; ++i) {
    c = c * static_cast<unsigned>(n - k + i) / static_cast<unsigned>(i);
    if (c > ~std::uint64_t{0}) return 0;
  }
  return static_cast<std::uint64_t>(c);
}

std::vector<int> deal_unrank(std::uint64_t rank, int n, int k) {
  if (k < 1 || k > n) throw std::invalid_argument("deal_unrank: need 1 <= k <= n");
  std::vector<std::uint64_t> digit(k);
  for (int i = k - 1; i >= 0; --i) {  // mixed radix: digit i has base n - i
    const auto base = static_cast<std::uint64_t>(n - i);
    digit[i] = rank % base;
    rank /= base;
  }
  if (rank != 0) throw std::invalid_argument("deal_unrank: rank out of range");
  std::vector<int> pool(n), deal(k);
  for (int i = 0; i < n; ++i) pool[i] = i;
  for (int i = 0; i < k; ++i) {
    deal[i] = pool[digit[i]];
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(digit[i]));
  }
  return deal;
}

std::vector<int> hand_unrank(std::uint64_t rank, int n, int k) {
  if (k < 1 || k > n) throw std::invalid_argument("hand_unrank: need 1 <= k <= n");
  std::vector<int> hand(k);
  int top = n;  // every card of the hand is below it
  for (int i = k - 1; i >= 0; --i) {
    // The largest c < top with C(c, i + 1) <= rank.
    int c = top - 1;
    while (c >= i && choose(static_cast<std::uint64_t>(c), i + 1) > rank) --c;
    if (c < i) throw std::invalid_argument("hand_unrank: rank out of range");
    hand[i] = c;
    rank -= choose(static_cast<std::uint64_t>(c), i + 1);
    top = c;
  }
  if (rank != 0) throw std::invalid_argument("hand_unrank: rank out of range");
  return hand;
}

std::string_view poker_category_name(PokerCategory c) {
  constexpr std::string_view kNames[kPokerCategories] = {
      "royal flush", "straight flush",  "four of a kind", "full house", "flush",
      "straight",    "three of a kind", "two pair",       "one pair",   "high card"};
  return kNames[static_cast<int>(c)];
}

}  // namespace melange
