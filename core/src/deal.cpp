#include "melange/deal.hpp"

#include "melange/limits.hpp"
#include "melange/rank.hpp"

#include <stdexcept>
#include <thread>

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

std::string card_name(int c) {
  static constexpr char kRanks[] = "23456789TJQKA";
  static constexpr char kSuits[] = "cdhs";
  return std::string{kRanks[c % 13], kSuits[c / 13]};
}

std::vector<std::pair<std::string, int>> card_spellings() {
  static constexpr const char* kRanks[13][3] = {{"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"7"}, {"8"}, {"9"},
                                                {"T", "t", "10"}, {"J", "j"}, {"Q", "q"}, {"K", "k"}, {"A", "a"}};
  static constexpr const char* kSuits[4][3] = {{"c", "C", "\u2663"}, {"d", "D", "\u2666"},
                                               {"h", "H", "\u2665"}, {"s", "S", "\u2660"}};
  std::vector<std::pair<std::string, int>> out;
  for (int c = 0; c < 52; ++c)
    for (const char* rank : kRanks[c % 13])
      for (const char* suit : kSuits[c / 13])
        if (rank) out.emplace_back(std::string(rank) + suit, c);
  return out;
}

std::string outcome_label(std::uint64_t rank, int n, int k) {
  if (k == n) return rank_label(rank, n);
  std::string label;
  for (int item : deal_unrank(rank, n, k)) {
    if (n <= kMaxLabelItems) {
      label += static_cast<char>('A' + item);
    } else {
      if (!label.empty()) label += ' ';
      label += n == 52 ? card_name(item) : std::to_string(item);
    }
  }
  return label;
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

PokerLaw exact_poker_law(BoundedSpec spec, int threads) {
  constexpr int kCards = 52, kDeal = 5;
  validate_bounded(spec, kCards);
  // Each draw's law: weight of value v for range s = 52 - level.
  std::array<std::vector<std::uint64_t>, kDeal> weights;
  PokerLaw law;
  law.total = 1;
  for (int level = 0; level < kDeal; ++level) {
    const auto s = static_cast<std::uint64_t>(kCards - level);
    const DrawLaw d = draw_law(s, spec);
    for (std::uint64_t v = 0; v < s; ++v) weights[level].push_back(d.weight(v));
    law.total *= d.total;
  }
  // Depth-first over the draws, swapping in place and back; the first draw's
  // values are shared out among the threads.
  auto walk_from = [&](int first_value, int step, std::array<std::uint64_t, kPokerCategories>& out) {
    int a[kCards];
    for (int c = 0; c < kCards; ++c) a[c] = c;
    auto walk = [&](auto&& self, int level, std::uint64_t weight) -> void {
      if (level == kDeal) {
        out[static_cast<int>(poker_category(a + kCards - kDeal))] += weight;
        return;
      }
      const int i = kCards - 1 - level;
      for (int j = level == 0 ? first_value : 0; j <= i; j += level == 0 ? step : 1) {
        std::swap(a[i], a[j]);
        self(self, level + 1, weight * weights[level][j]);
        std::swap(a[i], a[j]);
      }
    };
    walk(walk, 0, 1);
  };
  const int workers = std::max(1, std::min(threads, kCards));
  std::vector<std::array<std::uint64_t, kPokerCategories>> parts(workers);
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(walk_from, w, workers, std::ref(parts[w]));
  walk_from(0, workers, parts[0]);
  for (auto& t : pool) t.join();
  for (const auto& part : parts)
    for (int c = 0; c < kPokerCategories; ++c) law.weight[c] += part[c];
  return law;
}

}  // namespace melange
