#include "melange/job.hpp"

#include <algorithm>
#include <string>

#include "melange/error.hpp"
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
  validate_bounded(job.spec, std::max<std::uint64_t>(1, max_draw_range(job.algorithm, job.n)));
}

void validate(const Job& job) {
  validate_draws(job);
  if (!job.rank_histogram && !job.position_matrix)
    throw UsageError(Param::position_matrix, "nothing to tally: ask for the rank histogram or the item x position matrix ({position_matrix})");
  if (job.rank_histogram && job.n > kMaxRankItems)
    throw UsageError(Param::n, "n = " + std::to_string(job.n) + " has more orders than 64-bit ranks hold (n <= " +
                     std::to_string(kMaxRankItems) + "); tally the item x position matrix ({position_matrix}) instead");
  if (job.position_matrix && job.n > kMaxPositionItems)
    throw UsageError(Param::n, "the position matrix is limited to {n} <= " +
                     std::to_string(kMaxPositionItems) + ", got n = " + std::to_string(job.n));
}

std::uint64_t tally_bytes(const Job& job) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  std::uint64_t bytes = 0;
  // 20! bins of 8 bytes pass 2^64: saturate rather than wrap.
  if (job.rank_histogram)
    bytes += factorial(job.n) > kMax / 16 ? kMax / 2 : factorial(job.n) * sizeof(std::uint64_t);
  if (job.position_matrix) bytes += static_cast<std::uint64_t>(job.n) * job.n * sizeof(std::uint64_t);
  return bytes;
}

Tally Tally::for_job(const Job& job) {
  Tally t;
  if (job.rank_histogram) t.ranks = RankHistogram(job.n);
  if (job.position_matrix) t.positions = PositionMatrix(job.n);
  return t;
}

void Tally::merge(const Tally& other) {
  if (!other.ranks.empty()) ranks.merge(other.ranks);
  if (!other.positions.empty()) positions.merge(other.positions);
  trials += other.trials;
  words += other.words;
  draws += other.draws;
}

}  // namespace melange
