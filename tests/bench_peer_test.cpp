// The bench's strongest peer: Fisher-Yates by batched ranged integers over
// lehmer64 must be a fair shuffle, or its rate would flatter it.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "bench_peer.hpp"
#include "melange/rank.hpp"
#include "melange/stats.hpp"

namespace melange::cli {
namespace {

std::vector<std::uint16_t> shuffled(int n, std::uint64_t seed) {
  std::vector<std::uint32_t> swaps(static_cast<std::size_t>(n) - 1);
  batched_fisher_yates_indices(n, seed, swaps.data());
  std::vector<std::uint16_t> a(static_cast<std::size_t>(n));
  std::iota(a.begin(), a.end(), std::uint16_t{0});
  for (int i = n - 1; i > 0; --i) {
    const std::uint32_t j = swaps[static_cast<std::size_t>(n - 1 - i)];
    EXPECT_LE(j, static_cast<std::uint32_t>(i)) << "n " << n << ", position " << i;
    std::swap(a[static_cast<std::size_t>(i)], a[j]);
  }
  return a;
}

TEST(BatchedPeer, ShufflesUniformly) {
  // n = 5: ranges 5, 4, 3, 2 in one batch; 120 orders, 2,000 expected each.
  std::vector<std::uint64_t> counts(120, 0);
  for (std::uint64_t seed = 0; seed < 240'000; ++seed) ++counts[lehmer_rank(shuffled(5, seed).data(), 5)];
  const GoodnessOfFit fit = chi_square_uniform(counts);
  EXPECT_GT(fit.p_value, 1e-6) << "chi2 " << fit.statistic;
  EXPECT_GT(fit.p_lower, 1e-6) << "chi2 " << fit.statistic;
}

TEST(BatchedPeer, EveryPositionGetsAnIndexInItsRange) {
  // n = 52 takes six batches, n = 1024 many: each position once, in range.
  for (int n : {2, 52, 1024}) {
    const std::vector<std::uint16_t> a = shuffled(n, 7);
    std::vector<std::uint16_t> sorted(a);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i) << "n " << n;
  }
  // The first item of a 52-card deck lands at each position about equally:
  // 52,000 decks, 1,000 expected at each.
  std::vector<std::uint64_t> where(52, 0);
  for (std::uint64_t seed = 0; seed < 52'000; ++seed) {
    const std::vector<std::uint16_t> a = shuffled(52, seed);
    ++where[static_cast<std::size_t>(std::find(a.begin(), a.end(), 0) - a.begin())];
  }
  EXPECT_GT(chi_square_uniform(where).p_value, 1e-6);
}

}  // namespace
}  // namespace melange::cli
