// Partial shuffles and their deals (contract §3): the algorithm
// against Fisher-Yates, its exact law against brute force, the deal tallies
// and their tests, sampled deals against the exact laws.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "melange/audit.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/rank.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

Job deal_job(int n, int k, std::uint64_t trials, BoundedSpec spec = {}, std::uint64_t seed = 7) {
  return Job{.seed = seed, .algorithm = Algorithm::partial, .spec = spec, .n = n, .k = k, .trials = trials};
}

RunOptions on(const std::string& backend, int threads = 2) {
  RunOptions o;
  o.backend = backend;
  o.threads = threads;
  return o;
}

std::string counts_text(const std::vector<std::uint64_t>& c) {
  std::ostringstream s;
  for (std::uint64_t v : c) s << v << " ";
  return s.str();
}

// partial with k = n deals the whole permutation: Fisher-Yates's, plus a last
// draw from a range of 1. Under `batched` that range joins the last batch and
// costs no word; under `lemire` it reads one more word.
TEST(Partial, WholeDealIsFisherYates) {
  for (BoundedSpec spec : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 32}})
    for (int n : {2, 5, 9, 52}) {
      Job fy = deal_job(n, 0, 777, spec);
      fy.algorithm = Algorithm::fisher_yates;
      const Job whole = deal_job(n, n, 777, spec);
      EXPECT_EQ(sample(whole, on("scalar")).permutations, sample(fy, on("scalar")).permutations)
          << method_name(spec.method) << " n " << n;
      Job fy_tally = fy, whole_tally = whole;
      fy_tally.tallies = whole_tally.tallies = TallySet{TallyKind::positions};
      const Tally a = run(fy_tally, on("scalar")).tally, b = run(whole_tally, on("scalar")).tally;
      EXPECT_EQ(a[TallyKind::positions], b[TallyKind::positions]);
      EXPECT_EQ(b.words, a.words + (spec.method == Method::lemire ? whole.trials : 0)) << method_name(spec.method);
    }
}

// Under a method that reads a word a draw, the first k draws of Fisher-Yates
// are partial's, and later ones never touch the last k positions: a deal is
// the tail of the permutation of the same trial.
TEST(Partial, DealIsTheTailOfFisherYatesUnderAWordADraw) {
  for (BoundedSpec spec : {BoundedSpec{Method::lemire, 32}, BoundedSpec{Method::modulo, 8}})
    for (auto [n, k] : {std::pair{10, 3}, {52, 5}, {100, 1}}) {
      const Job deal = deal_job(n, k, 500, spec);
      Job fy = deal;
      fy.algorithm = Algorithm::fisher_yates;
      fy.k = 0;
      const auto deals = sample(deal, on("scalar")).permutations;
      const auto perms = sample(fy, on("scalar")).permutations;
      ASSERT_EQ(deals.size(), deal.trials * static_cast<std::size_t>(k));
      for (std::uint64_t t = 0; t < deal.trials; ++t)
        for (int s = 0; s < k; ++s)
          ASSERT_EQ(deals[t * k + s], perms[t * n + (n - k) + s]) << "trial " << t << " slot " << s;
    }
}

// Every backend, thread count and split of the range gives the same deals
// and tallies (the SIMD and CUDA thread suites compare theirs too).
TEST(Partial, BackendsAndThreadsAgree) {
  Job job = deal_job(52, 5, 40'013, BoundedSpec{}, 99);
  job.tallies.set(TallyKind::ranks, false);
  job.tallies = TallySet{TallyKind::positions, TallyKind::hands, TallyKind::poker};
  job.first = (std::uint64_t{1} << 32) - 20'000;
  const Tally ref = run(job, on("scalar", 1)).tally;
  EXPECT_EQ(ref.trials, job.trials);
  std::uint64_t categorized = 0;
  for (std::uint64_t c : ref[TallyKind::poker].counts()) categorized += c;
  EXPECT_EQ(categorized, job.trials);
  std::uint64_t handed = 0;  // the counter's delayed hands all arrive
  for (std::uint64_t h : ref[TallyKind::hands].counts()) handed += h;
  EXPECT_EQ(handed, job.trials);
  for (const char* backend : {"auto", "simd", "scalar"})
    for (int threads : {1, 2, 5}) EXPECT_TRUE(run(job, on(backend, threads)).tally == ref) << backend << " " << threads;
}

// The exact law of a deal under a word-a-draw method is the marginal of
// Fisher-Yates's law on the last k positions (the draws are the same ones);
// its hands sum its deals.
TEST(PartialExact, DealLawIsTheMarginalOfFisherYates) {
  for (BoundedSpec spec : {BoundedSpec{Method::lemire, 32}, BoundedSpec{Method::modulo, 3},
                           BoundedSpec{Method::multiply, 4}})
    for (auto [n, k] : {std::pair{5, 2}, {6, 3}, {4, 4}}) {
      const ExactDistribution deal = exact_distribution(Algorithm::partial, Shape{n, k}, spec);
      const ExactDistribution fy = exact_distribution(Algorithm::fisher_yates, n, spec);
      ASSERT_EQ(deal.probability.size(), deal_count(n, k));
      std::vector<Rational> marginal(deal_count(n, k));
      for (std::uint64_t r = 0; r < fy.probability.size(); ++r) {
        const std::vector<int> p = lehmer_unrank(r, n);
        marginal[deal_rank(p.data() + (n - k), n, k)] += fy.probability[r];
      }
      EXPECT_EQ(deal.probability, marginal) << method_name(spec.method) << " n " << n << " k " << k;
      Rational total = 0;
      for (const Rational& h : deal.hand_probabilities()) total += h;
      EXPECT_EQ(total, 1);
    }
  // Unbiased methods deal every ordered deal alike, `batched` included.
  for (BoundedSpec spec : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::rejection, 5}}) {
    const ExactDistribution d = exact_distribution(Algorithm::partial, Shape{7, 3}, spec);
    for (const Rational& p : d.probability) ASSERT_EQ(p, Rational(1, 210)) << method_name(spec.method);
    for (const Rational& p : d.hand_probabilities()) ASSERT_EQ(p, Rational(1, 35));
  }
}

TEST(PartialExact, LimitsAreUsageErrors) {
  EXPECT_THROW(exact_distribution(Algorithm::partial, Shape{52, 5}), UsageError);  // 311,875,200 deals
  EXPECT_THROW(exact_distribution(Algorithm::partial, Shape{5, 0}), UsageError);
  EXPECT_THROW(exact_distribution(Algorithm::partial, Shape{5, 6}), UsageError);
  EXPECT_NO_THROW(exact_distribution(Algorithm::partial, Shape{20, 4}));  // 116,280 deals
}

// Sampled deals under a biased method agree with their exact law and fail
// against uniform (p <= 1e-6 thresholds: fixed seeds, so this never flakes).
TEST(PartialAudit, BiasedDealsMatchTheirExactLawAndFailUniform) {
  const BoundedSpec spec{Method::modulo, 3};  // ranges 6, 5, 4 from 8 values
  Job job = deal_job(6, 3, 400'000, spec, 2027);
  job.tallies.set(TallyKind::positions);
  job.tallies.set(TallyKind::hands);
  const Tally t = run(job, on("auto")).tally;
  const ExactDistribution model = exact_distribution(Algorithm::partial, shape_of(job), spec);
  AuditOptions o;
  o.model = &model;
  const AuditReport exact = analyze(job, t, o);
  for (const std::optional<TestResult>* r : {&exact.rank, &exact.position, &exact.test(TallyKind::hands)}) {
    ASSERT_TRUE(r->has_value());
    EXPECT_GE((*r)->fit.p_value, 1e-6) << (*r)->name << " chi2 " << (*r)->fit.statistic << "\n"
                                       << counts_text((*r)->name == "hand" ? t[TallyKind::hands].counts() : t[TallyKind::ranks].counts());
  }
  EXPECT_EQ(exact.rank->name, "deal");
  EXPECT_EQ(exact.position->name, "slot");
  const AuditReport uniform = analyze(job, t);
  EXPECT_EQ(uniform.verdict, Verdict::fail) << counts_text(t[TallyKind::ranks].counts());
  EXPECT_EQ(uniform.rank->verdict, Verdict::fail);
  EXPECT_EQ(uniform.test(TallyKind::hands)->verdict, Verdict::fail);
}

// A fair deal of 5 of 52 passes its slot, hand and category tests; an 8-bit
// modulo source (52 does not divide 256) fails the slot test.
TEST(PartialAudit, PokerDealsFairAndEightBitModulo) {
  Job fair = deal_job(52, 5, 4'000'000, BoundedSpec{}, 52);
  fair.tallies.set(TallyKind::ranks, false);
  fair.tallies = TallySet{TallyKind::positions, TallyKind::hands, TallyKind::poker};
  const Tally t = run(fair, on("auto")).tally;
  const AuditReport r = analyze(fair, t);
  ASSERT_TRUE(r.position && r.test(TallyKind::poker));
  // 1.5 expected per hand: the hands pooled in groups that expect 5, not skipped.
  ASSERT_TRUE(r.test(TallyKind::hands).has_value());
  EXPECT_EQ(r.test(TallyKind::hands)->plain, "2598960 bins pooled into 649740");  // 4 hands a group
  EXPECT_GE(r.test(TallyKind::hands)->fit.p_value, 1e-6);
  EXPECT_GE(r.position->fit.p_value, 1e-6) << r.position->fit.statistic;
  EXPECT_GE(r.test(TallyKind::poker)->fit.p_value, 1e-6) << counts_text(t[TallyKind::poker].counts());
  EXPECT_EQ(r.position->fit.df, 51 * 5);
  EXPECT_EQ(r.test(TallyKind::poker)->fit.df, 9);

  Job biased = fair;
  biased.spec = BoundedSpec{Method::modulo, 8};
  biased.trials = 200'000;
  biased.tallies.set(TallyKind::poker, false);
  biased.tallies.set(TallyKind::hands, false);
  const AuditReport b = analyze(biased, run(biased, on("auto")).tally);
  EXPECT_EQ(b.position->verdict, Verdict::fail) << b.position->fit.statistic;
  EXPECT_EQ(b.verdict, Verdict::fail);
}

// The slot statistic's law under uniform deals: a scaled sum of two chi2
// parts that together are chi2((n-1) k) (stats.hpp). Over many independent
// audits its mean is the df, as the rescaling promises.
TEST(PartialAudit, SlotStatisticIsCalibrated) {
  for (auto [n, k] : {std::pair{6, 3}, {10, 1}, {9, 8}}) {
    constexpr int kAudits = 300;
    double sum = 0;
    for (int a = 0; a < kAudits; ++a) {
      Job job = deal_job(n, k, 3'000, BoundedSpec{}, 1000 + a);
      job.tallies.set(TallyKind::ranks, false);
      job.tallies.set(TallyKind::positions, true);
      Tally t = Tally::for_job(job);
      tally_trials(job, job.first, job.first + job.trials, t);
      sum += position_test(t[TallyKind::positions]).fit.statistic;
    }
    const double df = (n - 1.0) * k, mean = sum / kAudits;
    // The mean of 300 chi2(df) values has standard error sqrt(2 df / 300).
    EXPECT_NEAR(mean, df, 5 * std::sqrt(2 * df / kAudits)) << "n " << n << " k " << k;
  }
}

TEST(Partial, BadDealsAreUsageErrors) {
  auto param = [](Job job) {
    try {
      validate(job);
    } catch (const UsageError& e) {
      return e.param();
    }
    return Param::none;
  };
  EXPECT_EQ(param(deal_job(5, 0, 10)), Param::k);
  EXPECT_EQ(param(deal_job(5, 6, 10)), Param::k);
  Job fy = deal_job(5, 3, 10);
  fy.algorithm = Algorithm::fisher_yates;
  EXPECT_EQ(param(fy), Param::k);
  fy.k = 0;
  fy.tallies.set(TallyKind::hands, true);
  EXPECT_EQ(param(fy), Param::hand_histogram);
  Job not_poker = deal_job(51, 5, 10);
  not_poker.tallies.set(TallyKind::poker, true);
  EXPECT_EQ(param(not_poker), Param::poker_categories);
  Job huge = deal_job(10'000, 5, 10);  // 9.99e19 ordered deals: no 64-bit rank
  EXPECT_EQ(param(huge), Param::k);
  huge.tallies.set(TallyKind::ranks, false);
  huge.tallies.set(TallyKind::positions, true);
  EXPECT_EQ(param(huge), Param::none);
}

// "Draw 5 winners out of 10,000": the item x slot matrix of a fair partial
// shuffle is uniform (the PHP page's claim, on every slot).
TEST(PartialAudit, FiveWinnersOfTenThousandHaveAUniformSlotMatrix) {
  Job job = deal_job(10'000, 5, 1'000'000, BoundedSpec{}, 10'000);
  job.tallies.set(TallyKind::ranks, false);
  job.tallies.set(TallyKind::positions, true);
  const AuditReport r = analyze(job, run(job, on("auto")).tally);
  ASSERT_TRUE(r.position.has_value());
  EXPECT_EQ(r.position->fit.df, 9'999 * 5);
  EXPECT_GE(r.position->fit.p_value, 1e-6) << r.position->fit.statistic;
}

}  // namespace
}  // namespace melange
