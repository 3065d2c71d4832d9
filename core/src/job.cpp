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
  if (job.n < 1) throw UsageError("--n must be at least 1, got " + std::to_string(job.n));
  if (job.n > max_items(job.algorithm))
    throw UsageError(algo + " is defined for n <= " + std::to_string(max_items(job.algorithm)) +
                     ", got n = " + std::to_string(job.n));
  if (job.trials == 0) throw UsageError("--trials must be at least 1");
  if (job.first + job.trials < job.first)
    throw UsageError("--first + --trials overflows the 64-bit trial index");
  validate_bounded(job.spec, std::max<std::uint64_t>(1, max_draw_range(job.algorithm, job.n)));
}

void validate(const Job& job) {
  validate_draws(job);
  if (!job.rank_histogram && !job.position_matrix)
    throw UsageError("nothing to tally: ask for the rank histogram or --position");
  if (job.rank_histogram) {
    const int limit = max_rank_items(job.rank_memory_cap);
    if (job.n > limit)
      throw UsageError("n = " + std::to_string(job.n) + " needs " + std::to_string(job.n) +
                       "! rank bins, above the histogram limit n <= " + std::to_string(limit) +
                       " (memory cap " + std::to_string(job.rank_memory_cap >> 20) +
                       " MiB); use --position for the item x position matrix");
  }
  if (job.position_matrix && job.n > kMaxPositionItems)
    throw UsageError("the position matrix is limited to n <= " +
                     std::to_string(kMaxPositionItems) + ", got n = " + std::to_string(job.n));
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
}

}  // namespace melange
