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
  validate_card_parameters(job.algorithm, shape_of(job));
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
  if (job.tallies.empty())
    throw UsageError(Param::position_matrix, "nothing to tally: ask for the rank histogram or the item x position matrix ({position_matrix})");
  for (const TallyKindRow& row : kTallyKindRows)
    if (job.tallies.has(row.kind)) row.check(shape_of(job));
}

std::uint64_t tally_bytes(const Job& job) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  // 20! bins of 8 bytes pass 2^64, and a deal's count may not fit at all
  // (0): saturate rather than wrap.
  std::uint64_t bytes = 0;
  for (const TallyKindRow& row : kTallyKindRows)
    if (job.tallies.has(row.kind)) {
      const std::uint64_t bins = row.bins(shape_of(job));
      bytes += bins == 0 || bins > kMax / 16 ? kMax / 4 : bins * 8;
    }
  return bytes;
}

Tally Tally::for_job(const Job& job) {
  const Shape s = shape_of(job);
  Tally t;
  for (const TallyKindRow& row : kTallyKindRows)
    if (job.tallies.has(row.kind)) t[row.kind] = TallyCounts(s.n, s.k, row.bins(s));
  return t;
}

void Tally::merge(const Tally& other) {
  for (std::size_t i = 0; i < kTallyKinds; ++i)
    if (!other.by_kind[i].empty()) by_kind[i].merge(other.by_kind[i]);
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
  const std::string total = std::to_string(trials) + " trials";
  for (const TallyKindRow& row : kTallyKindRows) {
    if (!job.tallies.has(row.kind)) continue;
    const TallyCounts& m = t[row.kind];
    const std::uint64_t* c = m.counts().data();
    if (row.layout == CountsLayout::histogram) {
      if (sum(c, m.counts().size(), 1) != trials)
        return "the counts of its " + std::string(row.title) + " do not add up to its " + total;
      continue;
    }
    for (int slot = 0; slot < m.k(); ++slot)
      if (sum(c + slot, static_cast<std::size_t>(m.n()), static_cast<std::size_t>(m.k())) != trials)
        return "position " + std::to_string(slot) + " of its matrix does not add up to its " + total;
    for (int item = 0; item < m.n(); ++item) {
      const Wide row_sum = sum(c + static_cast<std::size_t>(item) * m.k(), static_cast<std::size_t>(m.k()), 1);
      if (m.whole() ? row_sum != trials : row_sum > trials)
        return "item " + std::to_string(item) + " of its matrix is counted " +
               (m.whole() ? "other than once a trial" : "more often than once a trial");
    }
  }
  return "";
}

}  // namespace melange
