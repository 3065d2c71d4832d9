// Bayer and Diaconis's closed form for riffles against the model's own
// definition, every permutation counted, and against their table for 52 cards.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <sstream>
#include <string>

#include "melange/audit.hpp"
#include "melange/checkpoint.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

using boost::multiprecision::cpp_int;

// R: 1 + the cards c whose successor c + 1 lies to their left.
int rising_sequences(const std::vector<std::uint16_t>& deck) {
  std::vector<int> at(deck.size());
  for (std::size_t p = 0; p < deck.size(); ++p) at[deck[p]] = static_cast<int>(p);
  int r = 1;
  for (std::size_t c = 0; c + 1 < deck.size(); ++c) r += at[c + 1] < at[c];
  return r;
}

// Every one of the a^n digit sequences of an inverse a-shuffle (each card
// a digit in [0, a), the cards stably sorted by digit), the deck it gives
// as the forward shuffle's (the sorted order's inverse), counted by rank.
std::map<std::uint64_t, std::uint64_t> decks_of_every_digit_sequence(int n, std::uint64_t a) {
  std::map<std::uint64_t, std::uint64_t> count;
  std::vector<std::uint64_t> digit(static_cast<std::size_t>(n), 0);
  std::vector<std::uint16_t> sorted(static_cast<std::size_t>(n)), deck(static_cast<std::size_t>(n));
  for (;;) {
    std::iota(sorted.begin(), sorted.end(), std::uint16_t{0});
    std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint16_t x, std::uint16_t y) { return digit[x] < digit[y]; });
    for (int p = 0; p < n; ++p) deck[sorted[p]] = static_cast<std::uint16_t>(p);
    ++count[lehmer_rank(deck.data(), n)];
    int c = 0;
    while (c < n && ++digit[c] == a) digit[c++] = 0;
    if (c == n) return count;
  }
}

TEST(RiffleLaw, EveryPermutationHasTheClosedFormsProbability) {
  for (int n = 3; n <= 7; ++n)
    for (std::uint64_t a : {1, 2, 3, 4, 8}) {
      if (std::pow(static_cast<double>(a), n) > 3e6) continue;
      const RiffleLaw law = riffle_law(n, a);
      const auto count = decks_of_every_digit_sequence(n, a);
      const cpp_int outcomes = pow(cpp_int(a), static_cast<unsigned>(n));
      std::vector<Rational> by_rises(static_cast<std::size_t>(n));
      std::uint64_t orders = 1;
      for (int m = 2; m <= n; ++m) orders *= static_cast<std::uint64_t>(m);
      for (std::uint64_t rank = 0; rank < orders; ++rank) {
        const std::vector<int> items = lehmer_unrank(rank, n);
        const std::vector<std::uint16_t> deck(items.begin(), items.end());
        const int r = rising_sequences(deck);
        const auto it = count.find(rank);
        const std::uint64_t times = it == count.end() ? 0 : it->second;
        const Rational seen = Rational(times) / outcomes;
        ASSERT_EQ(seen, law.each[static_cast<std::size_t>(r - 1)])
            << "n " << n << " a " << a << " rank " << rank << " R " << r << ": " << seen;
        by_rises[static_cast<std::size_t>(r - 1)] += seen;
      }
      EXPECT_EQ(by_rises, law.rises) << "n " << n << " a " << a;
    }
}

// Their table for 52 cards, k = 1..10 riffles, to three decimals.
TEST(RiffleLaw, ReproducesBayerAndDiaconissTotalVariationTableFor52Cards) {
  const double table[] = {1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043};
  for (int k = 1; k <= 10; ++k) {
    const RiffleLaw law = riffles_law(52, k);
    EXPECT_EQ(std::round(static_cast<double>(law.total_variation) * 1000), std::round(table[k - 1] * 1000))
        << k << " riffles: " << static_cast<double>(law.total_variation);
    EXPECT_EQ(std::accumulate(law.rises.begin(), law.rises.end(), Rational(0)), Rational(1));
  }
  EXPECT_EQ(riffles_law(52, 5).separation, Rational(1)) << "32 packets cannot reverse 52 cards";
  EXPECT_LT(riffles_law(52, 11).separation, Rational(1, 2));
}

// E R = a - (n + 1) / a^n sum_{r=0}^{a-1} r^n (Bayer and Diaconis, corollary
// of their theorem 1), exactly.
TEST(RiffleLaw, MeanRisingSequencesIsTheirClosedForm) {
  for (int n : {1, 2, 5, 13, 52})
    for (int k : {0, 1, 3, 7}) {
      const std::uint64_t a = std::uint64_t{1} << k;
      cpp_int powers = 0;
      for (std::uint64_t r = 0; r < a; ++r) powers += pow(cpp_int(r), static_cast<unsigned>(n));
      const Rational expected = Rational(cpp_int(a)) - Rational(powers * (n + 1), pow(cpp_int(a), static_cast<unsigned>(n)));
      EXPECT_EQ(riffles_law(n, k).mean_rises, expected) << "n " << n << " k " << k;
    }
}

// The algorithm itself (algorithms.hpp: a digit a position, then the
// stable sort), walked over every digit sequence by the exact enumerator,
// gives each permutation the closed form's probability.
TEST(RiffleAlgorithm, ItsExactWalkIsBayerAndDiaconissLaw) {
  for (int n = 3; n <= 7; ++n)
    for (int k : {1, 2, 3}) {
      if (k * n > 21) continue;  // 2^21 digit sequences
      const ExactDistribution walked = exact_distribution(Algorithm::riffle, Shape{n, n, nullptr, k});
      const RiffleLaw law = riffles_law(n, k);
      ASSERT_EQ(walked.shape.riffles, k);
      for (std::uint64_t rank = 0; rank < walked.probability.size(); ++rank) {
        const std::vector<int> items = lehmer_unrank(rank, n);
        const int r = rising_sequences(std::vector<std::uint16_t>(items.begin(), items.end()));
        ASSERT_EQ(walked.probability[rank], law.each[static_cast<std::size_t>(r - 1)])
            << "n " << n << " riffles " << k << " rank " << rank << " R " << r;
      }
    }
  EXPECT_THROW(exact_distribution(Algorithm::riffle, Shape{9, 9, nullptr, 7}), UsageError) << "2^63 sequences";
}

Job riffle_job(int n, int riffles, std::uint64_t trials) {
  Job job;
  job.algorithm = Algorithm::riffle;
  job.n = n;
  job.riffles = riffles;
  job.trials = trials;
  return job;
}

// Sampled riffles follow the exact law (each order, n = 6) and are told
// apart from uniform; at n = 52 their rising sequences follow R's law.
TEST(RiffleAlgorithm, SampledRifflesFollowTheExactLaw) {
  const Job job = riffle_job(6, 2, 300'000);
  const RunResult run = melange::run(job);
  const ExactDistribution model = exact_distribution(Algorithm::riffle, shape_of(job));
  AuditOptions against_model;
  against_model.model = &model;
  const AuditReport fit = analyze(job, run.tally, against_model);
  EXPECT_NE(fit.verdict, Verdict::fail) << "rank p " << fit.rank->fit.p_value;
  EXPECT_EQ(analyze(job, run.tally, AuditOptions{}).verdict, Verdict::fail) << "2 riffles of 6 cards are not uniform";

  Job deck = riffle_job(52, 7, 20'000);
  deck.tallies = TallySet{TallyKind::rises};
  const RunResult decks = melange::run(deck);
  const StatisticLaw law = closed_form_law(Algorithm::riffle, shape_of(deck));
  ASSERT_EQ(law.law, to_doubles(riffles_law(52, 7).rises));
  AuditOptions against_r;
  against_r.statistic_model = &law;
  const AuditReport r = analyze(deck, decks.tally, against_r);
  ASSERT_TRUE(r.test(TallyKind::rises).has_value());
  EXPECT_NE(r.verdict, Verdict::fail) << "rises p " << r.test(TallyKind::rises)->fit.p_value;
  EXPECT_EQ(analyze(deck, decks.tally, AuditOptions{}).verdict, Verdict::fail) << "7 riffles of 52 are not uniform";
}

// 52 digits of range 128 under batched: three a word (128^3 = 2^21, within
// kBatchProduct = 2^24), 18 words a trial and never a rejection (2^32 mod
// 2^21 = 0); a word a digit under lemire.
TEST(RiffleAlgorithm, ReadsTheWordsItsScheduleSays) {
  Job job = riffle_job(52, 7, 1000);
  job.tallies = TallySet{TallyKind::positions};
  EXPECT_EQ(melange::run(job).tally.words, 18'000u);
  job.spec = BoundedSpec{Method::lemire, 32};
  EXPECT_EQ(melange::run(job).tally.words, 52'000u);
  EXPECT_EQ(melange::run(job).tally.draws, 52'000u);
}

TEST(RiffleAlgorithm, TakesItsRifflesAndNoOtherAlgorithmDoes) {
  EXPECT_THROW(validate(riffle_job(52, 0, 10)), UsageError);
  EXPECT_THROW(validate(riffle_job(52, kMaxRiffles + 1, 10)), UsageError);
  Job fy = riffle_job(52, 3, 10);
  fy.algorithm = Algorithm::fisher_yates;
  try {
    validate(fy);
    FAIL() << "fisher-yates took riffles";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.param(), Param::riffles);
  }
}

// A checkpoint keeps a riffle job's riffles; a job without riffles writes
// no such line, as before riffle, and reads back from a file without it.
TEST(RiffleAlgorithm, CheckpointsKeepTheRiffles) {
  Job job = riffle_job(52, 7, 100);
  job.tallies = TallySet{TallyKind::positions};
  std::stringstream with;
  write_checkpoint(with, job, Tally::for_job(job));
  EXPECT_NE(with.str().find("\nriffles 7\n"), std::string::npos);
  EXPECT_EQ(read_checkpoint_job(with, "riffle.ckpt").job.riffles, 7);
  Job fy = job;
  fy.algorithm = Algorithm::fisher_yates;
  fy.riffles = 0;
  std::stringstream without;
  write_checkpoint(without, fy, Tally::for_job(fy));
  EXPECT_EQ(without.str().find("riffles"), std::string::npos);
  const Checkpoint back = read_checkpoint_job(without, "fy.ckpt");
  EXPECT_EQ(back.job.riffles, 0);
  EXPECT_EQ(back.job.algorithm, Algorithm::fisher_yates);
  Job six = job;
  six.riffles = 6;
  EXPECT_NE(job_difference(job, six).find("riffles"), std::string::npos) << job_difference(job, six);
}

TEST(RiffleLaw, NoRiffleLeavesTheDeckAndManyReachUniform) {
  const RiffleLaw none = riffles_law(5, 0);
  EXPECT_EQ(none.rises[0], Rational(1));
  EXPECT_EQ(none.total_variation, Rational(119, 120));
  EXPECT_LT(static_cast<double>(riffles_law(52, 30).total_variation), 1e-6);
  EXPECT_THROW(riffle_law(0, 2), Error);
  EXPECT_THROW(riffle_law(5, 0), Error);
  EXPECT_THROW(riffles_law(5, 64), Error);
}

}  // namespace
}  // namespace melange
