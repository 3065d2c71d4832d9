// The weighted orders (contract §3): keys from the trial's own
// words, the Plackett-Luce law as exact rationals, sampled orders against
// it, and what the PHP page's demo formula does instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <vector>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/rank.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

Job weighted_job(Algorithm a, std::vector<double> weights, std::uint64_t trials, std::uint64_t seed = 5) {
  const int n = static_cast<int>(weights.size());
  return Job{.seed = seed, .algorithm = a, .n = n, .weights = std::move(weights), .trials = trials};
}

RunOptions threads(int k) {
  RunOptions o;
  o.threads = k;
  return o;
}

std::string counts_text(const RankHistogram& h) {
  std::ostringstream s;
  for (std::uint64_t r = 0; r < h.bins(); ++r) s << rank_label(r, h.n()) << "=" << h.counts()[r] << " ";
  return s.str();
}

TEST(Weights, DecimalsAreExactRationals) {
  EXPECT_EQ(decimal_rational("2.5"), Rational(5, 2));
  EXPECT_EQ(decimal_rational("40"), Rational(40));
  EXPECT_EQ(decimal_rational(".5"), Rational(1, 2));
  EXPECT_EQ(decimal_rational("1e-3"), Rational(1, 1000));
  EXPECT_EQ(decimal_rational("0.1"), Rational(1, 10));
  EXPECT_EQ(decimal_rational("+3E2"), Rational(300));
  for (const char* bad : {"", "abc", "1.2.3", "-1", "0", "0.000", "nan", "inf", "1e", "2,5", "1 2", "e5"})
    EXPECT_THROW(decimal_rational(bad), UsageError) << bad;
}

// P(sigma) = prod_j w_sigma_j / (w_sigma_j + .. + w_sigma_n-1), order by
// order, against the formula in doubles.
TEST(PlackettLuce, ExactLawIsTheProductOfSuccessiveChoices) {
  const std::vector<Rational> w = {Rational(1), Rational(5, 2), Rational(4), Rational(1, 2)};
  const ExactDistribution d = plackett_luce_distribution(Algorithm::weighted, w);
  ASSERT_EQ(d.probability.size(), 24u);
  EXPECT_EQ(std::accumulate(d.probability.begin(), d.probability.end(), Rational(0)), 1);
  for (std::uint64_t r = 0; r < 24; ++r) {
    const std::vector<int> p = lehmer_unrank(r, 4);
    double prob = 1, left = 8;
    for (int item : p) {
      const double wi = static_cast<double>(w[item]);
      prob *= wi / left;
      left -= wi;
    }
    EXPECT_NEAR(static_cast<double>(d.probability[r]), prob, 1e-15) << rank_label(r, 4);
  }
  // The heaviest first, then the next: C, B, A, D = 4/8 * 2.5/4 * 1/1.5.
  EXPECT_EQ(d.probability[lehmer_rank(std::vector<int>{2, 1, 0, 3}.data(), 4)], Rational(5, 24));
  // Equal weights: every order alike.
  const ExactDistribution equal = plackett_luce_distribution(Algorithm::weighted, std::vector<Rational>(5, Rational(3)));
  EXPECT_TRUE(equal.equally_likely);
  for (const Rational& p : equal.probability) ASSERT_EQ(p, Rational(1, 120));
  EXPECT_THROW(plackett_luce_distribution(Algorithm::weighted, std::vector<Rational>(10, Rational(1))), UsageError);
  EXPECT_THROW(plackett_luce_distribution(Algorithm::fisher_yates, w), UsageError);
  EXPECT_THROW(exact_distribution(Algorithm::weighted, 4), UsageError);
}

// The definition, word for word: item i's key is -ln((word_i + 1) / 2^32) / w_i,
// ascending; weighted-int-power reads two words an item, the first high, and
// sorts U^(1/w) descending.
TEST(Weighted, KeysComeFromTheTrialsOwnWords) {
  const std::vector<double> w = {1, 2.5, 4, 0.5, 3};
  for (Algorithm a : {Algorithm::weighted, Algorithm::weighted_int_power}) {
    const Job job = weighted_job(a, w, 200, 77);
    const std::vector<std::uint16_t> rows = sample(job, threads(2)).permutations;
    for (std::uint64_t t = 0; t < job.trials; ++t) {
      PhiloxStream s(job.seed, t);
      std::vector<std::pair<double, int>> keyed;
      for (int i = 0; i < 5; ++i) {
        if (a == Algorithm::weighted) {
          keyed.push_back({-std::log((s.next() + 1.0) / 4294967296.0) / w[i], i});
        } else {
          const std::uint64_t high = s.next(), low = s.next();
          keyed.push_back({-std::pow(static_cast<double>(1 + (((high << 32) | low) >> 1)), 1 / w[i]), i});
        }
      }
      std::sort(keyed.begin(), keyed.end());
      for (int p = 0; p < 5; ++p) ASSERT_EQ(rows[t * 5 + p], keyed[p].second) << algorithm_name(a) << " trial " << t;
    }
    Job tally = job;
    tally.tallies.set(TallyKind::positions, true);
    const Tally t = run(tally, threads(1)).tally;
    EXPECT_EQ(t.words, job.trials * (a == Algorithm::weighted ? 5 : 10));
    EXPECT_TRUE(run(tally, threads(2)).tally == t);
  }
}

// Sampled orders follow the Plackett-Luce law (p >= 1e-6: fixed seeds, so
// this never flakes) and fail against uniform.
TEST(Weighted, SampledOrdersFollowPlackettLuce) {
  const Job job = weighted_job(Algorithm::weighted, {1, 2.5, 4, 0.5}, 400'000, 2026);
  const Tally t = run(job, threads(2)).tally;
  const ExactDistribution model = plackett_luce_distribution(
      Algorithm::weighted, {Rational(1), Rational(5, 2), Rational(4), Rational(1, 2)});
  AuditOptions o;
  o.model = &model;
  const AuditReport exact = analyze(job, t, o);
  ASSERT_TRUE(exact.rank.has_value());
  EXPECT_GE(exact.rank->fit.p_value, 1e-6) << exact.rank->fit.statistic << "\n" << counts_text(t[TallyKind::ranks]);
  EXPECT_EQ(analyze(job, t).verdict, Verdict::fail);
}

// The PHP page says heavier items come first. With weights 1..4 the demo's
// keys are U, U^(1/2), U^(1/3), U^(1/4) of a 63-bit U: lighter items have
// astronomically larger keys, and descending order puts them first. The
// order is the identity (lightest first) in all but a handful of trials,
// and the heaviest item is never first.
TEST(WeightedIntPower, PutsLighterItemsFirst) {
  Job job = weighted_job(Algorithm::weighted_int_power, {1, 2, 3, 4}, 200'000, 9);
  job.tallies.set(TallyKind::positions, true);
  const Tally t = run(job, threads(2)).tally;
  EXPECT_GE(t[TallyKind::ranks].counts()[0], job.trials - 20) << counts_text(t[TallyKind::ranks]);  // ABCD
  EXPECT_EQ(t[TallyKind::positions].at(3, 0), 0u) << "the heaviest item first";
  EXPECT_GE(t[TallyKind::positions].at(0, 0), job.trials - 20) << "the lightest item first";
  const ExactDistribution claimed =
      plackett_luce_distribution(Algorithm::weighted_int_power, {Rational(1), Rational(2), Rational(3), Rational(4)});
  AuditOptions o;
  o.model = &claimed;
  EXPECT_EQ(analyze(job, t, o).verdict, Verdict::fail);
  // Under the law it claims, the heaviest item would lead 4 times in 10.
  double heaviest_first = 0;
  for (std::uint64_t r = 0; r < 24; ++r)
    if (lehmer_unrank(r, 4)[0] == 3) heaviest_first += static_cast<double>(claimed.probability[r]);
  EXPECT_NEAR(heaviest_first, 0.4, 1e-12);
}

TEST(Weighted, BadWeightsAreUsageErrors) {
  auto param = [](const Job& job) {
    try {
      validate(job);
    } catch (const UsageError& e) {
      return e.param();
    }
    return Param::none;
  };
  EXPECT_EQ(param(weighted_job(Algorithm::weighted, {1, 2, 3}, 10)), Param::none);
  for (const std::vector<double>& bad : std::vector<std::vector<double>>{
           {1, 0, 3}, {1, -2, 3}, {1, std::nan(""), 3}, {1, INFINITY, 3}})
    EXPECT_EQ(param(weighted_job(Algorithm::weighted_int_power, bad, 10)), Param::weights);
  Job short_list = weighted_job(Algorithm::weighted, {1, 2, 3}, 10);
  short_list.n = 4;
  EXPECT_EQ(param(short_list), Param::weights);
  Job fy = weighted_job(Algorithm::weighted, {1, 2, 3}, 10);
  fy.algorithm = Algorithm::fisher_yates;
  EXPECT_EQ(param(fy), Param::weights);
}

}  // namespace
}  // namespace melange
