// The sort one-liners' decision tables: built from the algorithm's own
// definition, they must give the exact law, and every path through them the
// reference loop's tallies, words and draws bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "melange/coin_table.hpp"
#include "melange/exact.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

constexpr Algorithm kCoinAlgorithms[] = {Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort};

Job job_for(Algorithm a, int n, BoundedSpec spec, std::uint64_t first, std::uint64_t trials) {
  Job j;
  j.algorithm = a;
  j.n = n;
  j.spec = spec;
  j.seed = 2024;
  j.first = first;
  j.trials = trials;
  j.position_matrix = true;
  return j;
}

TEST(CoinTable, DepthIsTheLongestPath) {
  // Binary insertion of item i searches i + 1 slots: ceil(log2(i + 1)) coins
  // at most, and every search can take its longest branch.
  for (int n = 2; n <= kMaxTableItems; ++n) {
    int expected = 0;
    for (int i = 1; i < n; ++i) {
      int c = 0;
      while ((1 << c) < i + 1) ++c;
      expected += c;
    }
    EXPECT_EQ(coin_depth(Algorithm::sort_binary_insertion, n), expected) << "n " << n;
  }
  EXPECT_EQ(coin_depth(Algorithm::sort_binary_insertion, 4), 5);
  EXPECT_EQ(coin_depth(Algorithm::sort_binary_insertion, 8), 17);
  // fits() promises every coin algorithm a table up to kMaxTableItems.
  for (Algorithm a : kCoinAlgorithms) {
    EXPECT_LE(coin_depth(a, kMaxTableItems), kMaxTableCoins) << algorithm_name(a);
    EXPECT_TRUE(CoinTable::fits(a, kMaxTableItems));
    EXPECT_FALSE(CoinTable::fits(a, kMaxTableItems + 1));
  }
  EXPECT_FALSE(CoinTable::fits(Algorithm::fisher_yates, 4));
}

// Every index equally likely: the table's law is the exact enumerator's,
// ranks and mean coins alike.
TEST(CoinTable, EntriesCarryTheExactLaw) {
  for (Algorithm a : kCoinAlgorithms)
    for (int n = 2; n <= 6; ++n) {
      const CoinTable table(a, n);
      const ExactDistribution d = exact_distribution(a, n, BoundedSpec{Method::lemire, 32});
      std::vector<Rational> law(d.probability.size(), Rational(0));
      Rational coins(0);
      const Rational each(1, std::int64_t{1} << table.depth());
      for (std::size_t i = 0; i < table.meta().size(); ++i) {
        law[table_rank(table.meta()[i])] += each;
        coins += each * table_coins(table.meta()[i]);
      }
      EXPECT_EQ(law, d.probability) << algorithm_name(a) << " n " << n;
      EXPECT_EQ(coins, d.mean_draws) << algorithm_name(a) << " n " << n;
    }
}

// The table's trials against the reference loop, which runs the algorithm
// coin by coin: rank and position tallies, words, draws and samples, under
// `batched` (one word) and the one-word-a-coin methods, up to 2^64 - 1.
TEST(CoinTable, TrialsEqualTheReferenceLoop) {
  const BoundedSpec specs[] = {{Method::batched, 32}, {Method::lemire, 32}, {Method::modulo, 8}};
  for (Algorithm a : kCoinAlgorithms)
    for (int n = 2; n <= kMaxTableItems; ++n) {
      const CoinTable table(a, n);
      for (const BoundedSpec& spec : specs)
        for (std::uint64_t first : {std::uint64_t{0}, ~std::uint64_t{0} - 2999}) {
          const Job job = job_for(a, n, spec, first, 3000);
          Tally want = Tally::for_job(job), got = Tally::for_job(job);
          tally_trials(job, job.first, job.first + job.trials, want);
          tally_table_trials(job, table.view(), job.first, job.first + job.trials, got);
          const std::string what = std::string(algorithm_name(a)) + " n " + std::to_string(n) + " " +
                                   std::string(method_name(spec.method));
          EXPECT_TRUE(got == want) << what << ": words " << got.words << " vs " << want.words << ", draws "
                                   << got.draws << " vs " << want.draws;
          std::vector<std::uint16_t> s_want(job.trials * n), s_got(job.trials * n);
          sample_trials(job, job.first, job.first + job.trials, s_want.data());
          sample_table_trials(job, table.view(), job.first, job.first + job.trials, s_got.data());
          EXPECT_EQ(s_got, s_want) << what;
        }
    }
}

TEST(CoinTable, SharedPerAlgorithmAndSize) {
  const CoinTables tables;
  const auto a = tables.get(Algorithm::sort_v8_timsort, 5);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(tables.get(Algorithm::sort_v8_timsort, 5), a);
  EXPECT_NE(tables.get(Algorithm::sort_binary_insertion, 5), a);
  EXPECT_EQ(tables.get(Algorithm::sort_v8_timsort, 9), nullptr);
  EXPECT_EQ(tables.get(Algorithm::fisher_yates, 5), nullptr);
  EXPECT_EQ(coin_table_bytes(Algorithm::sort_v8_timsort, 5), a->bytes());
}

}  // namespace
}  // namespace melange
