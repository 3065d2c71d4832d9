// Decision tables: built from the algorithm's own definition, they must give
// the exact law, and every path through them the reference loop's tallies,
// words and draws bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "melange/decision_table.hpp"
#include "melange/exact.hpp"
#include "melange/stream.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

constexpr Algorithm kCoinAlgorithms[] = {Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort};

Job job_for(Algorithm a, int n, BoundedSpec spec, std::uint64_t first, std::uint64_t trials) {
  return Job{.seed = 2024, .algorithm = a, .spec = spec, .n = n, .first = first, .trials = trials,
             .tallies = {TallyKind::ranks, TallyKind::positions}};
}

TEST(DecisionTable, DepthIsTheLongestPath) {
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
    EXPECT_LE(std::uint64_t{1} << coin_depth(a, kMaxTableItems), kMaxTableEntries) << algorithm_name(a);
    EXPECT_TRUE(DecisionTable::fits(job_for(a, kMaxTableItems, {Method::lemire, 32}, 0, 1)));
    EXPECT_FALSE(DecisionTable::fits(job_for(a, kMaxTableItems + 1, {}, 0, 1)));
  }
}

// Swap algorithms have a table under `batched` where the schedule is one
// batch of at most kMaxTableEntries outcomes.
TEST(DecisionTable, OneBatchSchedulesUnderBatched) {
  const BoundedSpec batched{Method::batched, 32}, lemire{Method::lemire, 32};
  for (int n = 2; n <= kMaxTableItems; ++n) {
    EXPECT_TRUE(DecisionTable::fits(job_for(Algorithm::fisher_yates, n, batched, 0, 1))) << n;
    EXPECT_TRUE(DecisionTable::fits(job_for(Algorithm::sattolo, n, batched, 0, 1))) << n;
    EXPECT_FALSE(DecisionTable::fits(job_for(Algorithm::fisher_yates, n, lemire, 0, 1))) << n;
  }
  EXPECT_FALSE(DecisionTable::fits(job_for(Algorithm::fisher_yates, 9, batched, 0, 1)));
  EXPECT_TRUE(DecisionTable::fits(job_for(Algorithm::naive_swap, 7, batched, 0, 1))) << "7^7 outcomes";
  EXPECT_FALSE(DecisionTable::fits(job_for(Algorithm::naive_swap, 8, batched, 0, 1))) << "8^8 = 2^24 outcomes";
  const DecisionTable fy(job_for(Algorithm::fisher_yates, 4, batched, 0, 1));
  EXPECT_EQ(fy.view().kind, TableIndex::batch);
  EXPECT_EQ(fy.view().product, 24u);
  EXPECT_EQ(fy.view().threshold, 16u) << "2^32 mod 24";
  // Every digit tuple once: the table lists all 24 orders.
  std::vector<int> seen(24, 0);
  for (std::uint32_t m : fy.meta()) {
    ++seen[table_rank(m)];
    EXPECT_EQ(table_draws(m), 3u);
  }
  EXPECT_EQ(seen, std::vector<int>(24, 1));
}

// Every index equally likely: the table's law is the exact enumerator's,
// ranks and mean coins alike.
TEST(DecisionTable, EntriesCarryTheExactLaw) {
  for (Algorithm a : kCoinAlgorithms)
    for (int n = 2; n <= 6; ++n) {
      const DecisionTable table(job_for(a, n, {}, 0, 1));
      const ExactDistribution d = exact_distribution(a, n, BoundedSpec{Method::lemire, 32});
      std::vector<Rational> law(d.probability.size(), Rational(0));
      Rational coins(0);
      const Rational each(1, std::int64_t{1} << table.view().depth);
      for (std::size_t i = 0; i < table.meta().size(); ++i) {
        law[table_rank(table.meta()[i])] += each;
        coins += each * table_draws(table.meta()[i]);
      }
      EXPECT_EQ(law, d.probability) << algorithm_name(a) << " n " << n;
      EXPECT_EQ(coins, d.mean_draws) << algorithm_name(a) << " n " << n;
    }
}

// The table's trials against the reference loop, which runs the algorithm
// coin by coin: rank and position tallies, words, draws and samples, under
// `batched` (one word) and the one-word-a-coin methods, up to 2^64 - 1.
TEST(DecisionTable, TrialsEqualTheReferenceLoop) {
  const BoundedSpec specs[] = {{Method::batched, 32}, {Method::lemire, 32}, {Method::modulo, 8}};
  for (Algorithm a : kAllAlgorithms)
    for (int n = 2; n <= kMaxTableItems; ++n)
      for (const BoundedSpec& spec : specs)
        for (std::uint64_t first : {std::uint64_t{0}, ~std::uint64_t{0} - 2999}) {
          const Job job = job_for(a, n, spec, first, 3000);
          if (!DecisionTable::fits(job)) continue;
          const DecisionTable table(job);
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

// A rejected word under a one-batch table: the trial reads the next word,
// and the words count it. Seed 3's stream 7 at n = 8 (P = 40320) is found
// by search below, so the test holds whatever stream it lands on.
TEST(DecisionTable, RejectedWordsAreCountedAndSkipped) {
  Job job = job_for(Algorithm::fisher_yates, 8, {Method::batched, 32}, 0, 1);
  const DecisionTable table(job);
  const std::uint64_t threshold = table.view().threshold;  // 2^32 mod 40320 = 19456
  ASSERT_EQ(threshold, (std::uint64_t{1} << 32) % 40320);
  // A stream whose first word is rejected: P x0 mod 2^32 < threshold.
  std::uint64_t t = 0;
  for (;; ++t) {
    PhiloxStream s(job.seed, t);
    if (static_cast<std::uint32_t>(std::uint64_t{s.next()} * 40320) < threshold) break;
  }
  job.first = t;
  Tally want = Tally::for_job(job), got = Tally::for_job(job);
  tally_trials(job, t, t + 1, want);
  tally_table_trials(job, table.view(), t, t + 1, got);
  EXPECT_GE(got.words, 2u) << "stream " << t;
  EXPECT_TRUE(got == want) << "stream " << t << ": words " << got.words << " vs " << want.words;
}

TEST(DecisionTable, SharedPerAlgorithmAndSize) {
  const DecisionTables tables;
  const std::uint64_t many = kTableMinTrials;
  const Job timsort = job_for(Algorithm::sort_v8_timsort, 5, {}, 0, many);
  const auto a = tables.get(timsort);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(tables.get(timsort), a);
  EXPECT_NE(tables.get(job_for(Algorithm::sort_binary_insertion, 5, {}, 0, many)), a);
  EXPECT_EQ(tables.get(job_for(Algorithm::sort_v8_timsort, 9, {}, 0, many)), nullptr);
  EXPECT_EQ(tables.get(job_for(Algorithm::fisher_yates, 5, {Method::lemire, 32}, 0, many)), nullptr);
  EXPECT_EQ(decision_table_bytes(timsort), a->bytes());
  const Job fy = job_for(Algorithm::fisher_yates, 6, {}, 0, many);
  EXPECT_EQ(decision_table_bytes(fy), tables.get(fy)->bytes());
}

TEST(DecisionTable, ShortJobsRunWithoutOneUnlessItIsBuilt) {
  // A table costs about a trial an entry to build: a job of fewer than
  // kTableMinTrials trials does not build one (and plans no memory for it),
  // but uses one its backend already holds.
  const DecisionTables tables;
  Job fy = job_for(Algorithm::fisher_yates, 8, {}, 0, kTableMinTrials - 1);
  EXPECT_EQ(tables.get(fy), nullptr);
  EXPECT_EQ(decision_table_bytes(fy), 0u);
  fy.trials = kTableMinTrials;
  const auto built = tables.get(fy);
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(decision_table_bytes(fy), built->bytes());
  fy.trials = 64;
  EXPECT_EQ(tables.get(fy), built);
}

}  // namespace
}  // namespace melange
