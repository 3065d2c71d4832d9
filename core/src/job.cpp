#include "melange/job.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "melange/error.hpp"
#include "melange/deal.hpp"
#include "melange/rank.hpp"

namespace melange {

int max_rank_items(std::uint64_t cap) {
  int n = 1;
  while (n < kMaxRankItems && factorial(n + 1) <= cap / 8) ++n;
  return n;
}

namespace {

// The tallies of a deal of k < n items: each histogram must have 64-bit bins.
void validate_deal_tallies(const Job& job) {
  const Shape s = shape_of(job);
  const std::string deal = std::to_string(s.k) + " of " + std::to_string(s.n);
  if (job.rank_histogram && deal_count(s.n, s.k) == 0)
    throw UsageError(Param::k, "deals of " + deal + " have more orders than 64-bit ranks hold; tally the hands "
                               "({hand_histogram}) or the item x slot matrix ({position_matrix}) instead");
  if (job.hand_histogram && hand_count(s.n, s.k) == 0)
    throw UsageError(Param::hand_histogram, "hands of " + deal + " outnumber 64-bit ranks; tally the item x slot "
                                            "matrix ({position_matrix}) instead");
  if (job.position_matrix && static_cast<std::uint64_t>(s.n) * s.k >
                                 static_cast<std::uint64_t>(kMaxPositionItems) * kMaxPositionItems)
    throw UsageError(Param::n, "the item x slot matrix is limited to n k <= " +
                                   std::to_string(kMaxPositionItems * kMaxPositionItems) + " cells, got " + deal);
  if (job.poker_categories && (s.n != 52 || s.k != 5))
    throw UsageError(Param::poker_categories, "poker categories ({poker_categories}) are for deals of 5 of 52 "
                                              "cards, got " + deal);
}

}  // namespace

void validate_draws(const Job& job) {
  const std::string algo{algorithm_name(job.algorithm)};
  if (job.n < 1) throw UsageError(Param::n, "{n} must be at least 1, got " + std::to_string(job.n));
  if (job.n > max_items(job.algorithm))
    throw UsageError(Param::n, algo + " is defined for {n} <= " + std::to_string(max_items(job.algorithm)) +
                     ", got n = " + std::to_string(job.n));
  if (job.trials == 0) throw UsageError(Param::trials, "{trials} must be at least 1");
  // The last trial, first + trials - 1, may be 2^64 - 1 itself.
  if (job.trials - 1 > ~std::uint64_t{0} - job.first)
    throw UsageError(Param::trials, "{first} + {trials} - 1 is past the last trial index, 2^64 - 1");
  if (can_deal(job.algorithm)) {
    if (job.k < 1 || job.k > job.n)
      throw UsageError(Param::k, "partial deals {k} of the {n} items: 1 <= k <= n, got k = " +
                                     std::to_string(job.k) + " with n = " + std::to_string(job.n));
  } else if (job.k != 0 && job.k != job.n) {
    throw UsageError(Param::k, "{k} (a deal of k of the n items) is for the partial algorithm; " + algo +
                                   " shuffles all n items");
  }
  if (draw_kind(job.algorithm) == DrawKind::keys) {
    if (job.weights.size() != static_cast<std::size_t>(job.n))
      throw UsageError(Param::weights, algo + " needs one weight per item: {n} = " + std::to_string(job.n) + ", got " +
                                           std::to_string(job.weights.size()) + " {weights}");
    for (std::size_t i = 0; i < job.weights.size(); ++i)
      if (!(std::isfinite(job.weights[i]) && job.weights[i] > 0))
        throw UsageError(Param::weights, "weight " + std::to_string(i + 1) + " is " + std::to_string(job.weights[i]) +
                                             ": {weights} must be finite and above 0");
    return;  // the keys read raw words: no bounded method to check
  }
  if (!job.weights.empty())
    throw UsageError(Param::weights, "{weights} are for the weighted and weighted-int-power algorithms; " + algo +
                                         " takes none");
  validate_bounded(job.spec, std::max<std::uint64_t>(1, max_draw_range(job.algorithm, shape_of(job))));
}

void validate(const Job& job) {
  validate_draws(job);
  if (!job.rank_histogram && !job.position_matrix && !job.hand_histogram && !job.poker_categories)
    throw UsageError(Param::position_matrix, "nothing to tally: ask for the rank histogram or the item x position matrix ({position_matrix})");
  const Shape s = shape_of(job);
  if (!s.whole()) {
    validate_deal_tallies(job);
    return;
  }
  if (job.hand_histogram || job.poker_categories)
    throw UsageError(job.hand_histogram ? Param::hand_histogram : Param::poker_categories,
                     "hands and poker categories ({hand_histogram}, {poker_categories}) are tallies of deals: "
                     "use the partial algorithm with {k} below {n}");
  if (job.rank_histogram && job.n > kMaxRankItems)
    throw UsageError(Param::n, "n = " + std::to_string(job.n) + " has more orders than 64-bit ranks hold (n <= " +
                     std::to_string(kMaxRankItems) + "); tally the item x position matrix ({position_matrix}) instead");
  if (job.position_matrix && job.n > kMaxPositionItems)
    throw UsageError(Param::n, "the position matrix is limited to {n} <= " +
                     std::to_string(kMaxPositionItems) + ", got n = " + std::to_string(job.n));
}

std::uint64_t tally_bytes(const Job& job) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  const Shape s = shape_of(job);
  // 20! bins of 8 bytes pass 2^64, and a deal's count may not fit at all
  // (0): saturate rather than wrap.
  auto bins_bytes = [](std::uint64_t bins) { return bins == 0 || bins > kMax / 16 ? kMax / 4 : bins * 8; };
  std::uint64_t bytes = 0;
  if (job.rank_histogram) bytes += bins_bytes(s.whole() ? factorial(s.n) : deal_count(s.n, s.k));
  if (job.position_matrix) bytes += static_cast<std::uint64_t>(s.n) * s.k * sizeof(std::uint64_t);
  if (job.hand_histogram) bytes += bins_bytes(hand_count(s.n, s.k));
  if (job.poker_categories) bytes += kPokerCategories * sizeof(std::uint64_t);
  return bytes;
}

Tally Tally::for_job(const Job& job) {
  const Shape s = shape_of(job);
  Tally t;
  if (job.rank_histogram) t.ranks = RankHistogram(s.n, s.k);
  if (job.position_matrix) t.positions = PositionMatrix(s.n, s.k);
  if (job.hand_histogram) t.hands.assign(hand_count(s.n, s.k), 0);
  if (job.poker_categories) t.categories.assign(kPokerCategories, 0);
  return t;
}

namespace {

void add_counts(std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
  if (from.empty()) return;
  if (to.size() != from.size()) throw Error("cannot merge tallies of different sizes");
  for (std::size_t i = 0; i < to.size(); ++i) to[i] += from[i];
}

}  // namespace

void Tally::merge(const Tally& other) {
  if (!other.ranks.empty()) ranks.merge(other.ranks);
  if (!other.positions.empty()) positions.merge(other.positions);
  add_counts(hands, other.hands);
  add_counts(categories, other.categories);
  trials += other.trials;
  words += other.words;
  draws += other.draws;
}

std::string tally_inconsistency(const Job& job, const Tally& t, std::uint64_t trials) {
  using Wide = unsigned __int128;  // n! bins of counts below 2^64 sum below 2^128
  const auto sum = [](const std::uint64_t* v, std::size_t count, std::size_t stride) {
    Wide s = 0;
    for (std::size_t i = 0; i < count; ++i) s += v[i * stride];
    return s;
  };
  const auto whole = [&](const std::vector<std::uint64_t>& v) { return sum(v.data(), v.size(), 1) == trials; };
  const std::string total = std::to_string(trials) + " trials";
  if (job.rank_histogram && !whole(t.ranks.counts())) return "its rank histogram does not add up to its " + total;
  if (job.hand_histogram && !whole(t.hands)) return "its hand histogram does not add up to its " + total;
  if (job.poker_categories && !whole(t.categories)) return "its poker categories do not add up to its " + total;
  if (job.position_matrix) {
    const PositionMatrix& m = t.positions;
    const std::uint64_t* c = m.counts().data();
    for (int slot = 0; slot < m.k(); ++slot)
      if (sum(c + slot, static_cast<std::size_t>(m.n()), static_cast<std::size_t>(m.k())) != trials)
        return "position " + std::to_string(slot) + " of its matrix does not add up to its " + total;
    for (int item = 0; item < m.n(); ++item) {
      const Wide row = sum(c + static_cast<std::size_t>(item) * m.k(), static_cast<std::size_t>(m.k()), 1);
      if (m.k() == m.n() ? row != trials : row > trials)
        return "item " + std::to_string(item) + " of its matrix is counted " +
               (m.k() == m.n() ? "other than once a trial" : "more often than once a trial");
    }
  }
  return "";
}

}  // namespace melange
